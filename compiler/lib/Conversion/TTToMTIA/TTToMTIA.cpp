//===- TTToMTIA.cpp - Lower Triton IR to MTIA commands --------------------===//
//
// This file lowers a `tt.func` into a `func.func` of scalar code plus `mtia`
// commands. The lowering walks the kernel once, in program order, and keeps
// for every tensor value of the source one of three representations:
//
//  * a *tile*: a strided view of the front of a (virtual) circular buffer;
//  * a *splat*: a scalar in a core register, broadcast on use (immediates of
//    SE commands cost nothing to broadcast);
//  * nothing yet, for *address-only* values: index and pointer arithmetic
//    and masks whose every use is a load, a store or more address math. Those
//    are not computed at all when the structured-access analysis recovers a
//    strided DMA; only when it fails are they rematerialized, at the use, as
//    tiles for a gather or scatter.
//
// Pops are placed after the last use of a tile in the block that defines it,
// so a tile defined outside a loop and read inside it stays at the front of
// its CB for the whole loop.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::triton_mtia {
#define GEN_PASS_DEF_CONVERTTTTOMTIA
#include "triton-mtia/Conversion/Passes.h.inc"
} // namespace mlir::triton_mtia

using namespace mlir;
using namespace mlir::triton_mtia;
namespace tt = mlir::triton_mtia::tt;
namespace mtia = mlir::triton_mtia::mtia;

namespace {

/// The lowered form of one source tensor value.
struct Lowered {
  enum class Kind { Tile, Splat };
  Kind kind = Kind::Splat;
  /// Tile: virtual CB, element type, the view's shape and strides (0 for
  /// broadcast dimensions) and element offset from the front of the CB.
  int64_t cb = -1;
  Type elemType;
  SmallVector<int64_t> shape;
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  /// Splat: the scalar (lowered IR).
  Value scalar;

  static Lowered splat(Value v) {
    Lowered l;
    l.scalar = v;
    return l;
  }
  static Lowered tile(int64_t cb, Type elemType, ArrayRef<int64_t> shape) {
    Lowered l;
    l.kind = Kind::Tile;
    l.cb = cb;
    l.elemType = elemType;
    l.shape.assign(shape.begin(), shape.end());
    l.strides = denseStrides(shape);
    return l;
  }
  bool isTile() const { return kind == Kind::Tile; }
  /// Row-major strides of a dense tile; size-1 dimensions get 0 so that a
  /// later broadcast of them needs no change.
  static SmallVector<int64_t> denseStrides(ArrayRef<int64_t> shape) {
    SmallVector<int64_t> strides(shape.size());
    int64_t s = 1;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      strides[d] = shape[d] == 1 ? 0 : s;
      s *= shape[d];
    }
    return strides;
  }
  bool isDense() const {
    return isTile() && offset == 0 && strides == denseStrides(shape);
  }
};

/// An affine index expression over a tile's iteration space:
/// value[i] = base + sum_d stride[d] * i_d, all lowered i64 scalars.
struct Affine {
  Value base;
  SmallVector<Value> strides;
};

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// The tile shape of a source type (rank 0 for scalars).
SmallVector<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t>(tensor.getShape());
  return {};
}

Type elementTypeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getElementType();
  return type;
}

/// Lowered scalar type: pointers become i64 byte addresses.
Type lowerScalarType(Type type) {
  if (isa<tt::PointerType>(type))
    return IntegerType::get(type.getContext(), 64);
  return type;
}

/// Element type of a tile in local memory: pointers are i64 addresses.
Type tileElementType(Type type) { return lowerScalarType(elementTypeOf(type)); }

/// Whether `op` only rearranges the elements of its operand, so that its
/// result can be a view of the operand's tile.
bool isViewOp(Operation *op) {
  return isa<tt::ExpandDimsOp, tt::BroadcastOp, tt::SplatOp>(op);
}

/// The SE opcode of a libdevice function. Our libdevice module
/// (python/triton_mtia/language/libdevice.py) emits `__mtia_<name>`.
StringRef libdeviceOpcode(StringRef symbol) {
  if (!symbol.consume_front("__mtia_"))
    return "";
  return llvm::StringSwitch<StringRef>(symbol)
      .Case("exp", "Exp")
      .Case("exp2", "Exp2")
      .Case("log", "Log")
      .Case("log2", "Log2")
      .Case("sqrt", "Sqrt")
      .Case("rsqrt", "Rsqrt")
      .Case("tanh", "Tanh")
      .Case("erf", "Erf")
      .Case("pow", "Pow")
      .Default("");
}

/// Name of the SE opcode for an elementwise arith/math op, or "".
StringRef seOpcodeFor(Operation *op) {
  return llvm::TypeSwitch<Operation *, StringRef>(op)
      .Case<tt::ExternElementwiseOp>(
          [](tt::ExternElementwiseOp o) { return libdeviceOpcode(o.getSymbol()); })
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return "Add"; })
      .Case<arith::SubFOp, arith::SubIOp>([](auto) { return "Sub"; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return "Mul"; })
      .Case<arith::DivFOp, arith::DivSIOp, tt::PreciseDivFOp>(
          [](auto) { return "Div"; })
      .Case<arith::DivUIOp>([](auto) { return "DivU"; })
      .Case<arith::RemFOp, arith::RemSIOp>([](auto) { return "Rem"; })
      .Case<arith::RemUIOp>([](auto) { return "RemU"; })
      .Case<arith::MaxNumFOp, arith::MaxSIOp>([](auto) { return "Max"; })
      .Case<arith::MinNumFOp, arith::MinSIOp>([](auto) { return "Min"; })
      .Case<arith::MaxUIOp>([](auto) { return "MaxU"; })
      .Case<arith::MinUIOp>([](auto) { return "MinU"; })
      .Case<arith::MaximumFOp>([](auto) { return "Maximum"; })
      .Case<arith::MinimumFOp>([](auto) { return "Minimum"; })
      .Case<arith::AndIOp>([](auto) { return "And"; })
      .Case<arith::OrIOp>([](auto) { return "Or"; })
      .Case<arith::XOrIOp>([](auto) { return "Xor"; })
      .Case<arith::ShLIOp>([](auto) { return "Shl"; })
      .Case<arith::ShRSIOp>([](auto) { return "ShrS"; })
      .Case<arith::ShRUIOp>([](auto) { return "ShrU"; })
      .Case<arith::NegFOp>([](auto) { return "Neg"; })
      .Case<math::AbsFOp, math::AbsIOp>([](auto) { return "Abs"; })
      .Case<math::ExpOp>([](auto) { return "Exp"; })
      .Case<math::Exp2Op>([](auto) { return "Exp2"; })
      .Case<math::LogOp>([](auto) { return "Log"; })
      .Case<math::Log2Op>([](auto) { return "Log2"; })
      .Case<math::SqrtOp, tt::PreciseSqrtOp>([](auto) { return "Sqrt"; })
      .Case<math::RsqrtOp>([](auto) { return "Rsqrt"; })
      .Case<math::SinOp>([](auto) { return "Sin"; })
      .Case<math::CosOp>([](auto) { return "Cos"; })
      .Case<math::TanhOp>([](auto) { return "Tanh"; })
      .Case<math::ErfOp>([](auto) { return "Erf"; })
      .Case<math::FloorOp>([](auto) { return "Floor"; })
      .Case<math::CeilOp>([](auto) { return "Ceil"; })
      .Case<math::PowFOp>([](auto) { return "Pow"; })
      .Case<math::FmaOp>([](auto) { return "Fma"; })
      .Case<arith::SelectOp>([](auto) { return "Select"; })
      .Case<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::FPToSIOp,
            arith::ExtSIOp, arith::TruncIOp>([](auto) { return "Copy"; })
      .Case<arith::ExtUIOp>([](arith::ExtUIOp o) {
        // Zero extension equals sign extension only for i1 sources.
        return elementTypeOf(o.getIn().getType()).isInteger(1) ? "Copy" : "";
      })
      .Case<arith::CmpIOp>([](arith::CmpIOp o) -> StringRef {
        switch (o.getPredicate()) {
        case arith::CmpIPredicate::eq: return "CmpEq";
        case arith::CmpIPredicate::ne: return "CmpNe";
        case arith::CmpIPredicate::slt: return "CmpLt";
        case arith::CmpIPredicate::sle: return "CmpLe";
        case arith::CmpIPredicate::sgt: return "CmpGt";
        case arith::CmpIPredicate::sge: return "CmpGe";
        case arith::CmpIPredicate::ult: return "CmpULt";
        case arith::CmpIPredicate::ule: return "CmpULe";
        case arith::CmpIPredicate::ugt: return "CmpUGt";
        case arith::CmpIPredicate::uge: return "CmpUGe";
        }
        return "";
      })
      .Case<arith::CmpFOp>([](arith::CmpFOp o) -> StringRef {
        // NaN handling: ordered predicates are exact; the unordered ones
        // other than une are treated as their ordered twins.
        switch (o.getPredicate()) {
        case arith::CmpFPredicate::OEQ:
        case arith::CmpFPredicate::UEQ: return "CmpEq";
        case arith::CmpFPredicate::UNE:
        case arith::CmpFPredicate::ONE: return "CmpNe";
        case arith::CmpFPredicate::OLT:
        case arith::CmpFPredicate::ULT: return "CmpLt";
        case arith::CmpFPredicate::OLE:
        case arith::CmpFPredicate::ULE: return "CmpLe";
        case arith::CmpFPredicate::OGT:
        case arith::CmpFPredicate::UGT: return "CmpGt";
        case arith::CmpFPredicate::OGE:
        case arith::CmpFPredicate::UGE: return "CmpGe";
        default: return "";
        }
      })
      .Default([](Operation *) { return ""; });
}

/// The SE reduction a single-op combine region performs, or "".
StringRef reduceKindFor(tt::ReduceOp op) {
  Block &body = op.getCombineOp().front();
  if (op.getSrcs().size() != 1 || body.getOperations().size() != 2)
    return "";
  Operation &combine = body.front();
  auto ret = dyn_cast<tt::ReduceReturnOp>(body.back());
  if (!ret || ret.getResult().size() != 1 ||
      ret.getResult()[0] != combine.getResult(0) || combine.getNumOperands() != 2)
    return "";
  bool usesArgs = (combine.getOperand(0) == body.getArgument(0) &&
                   combine.getOperand(1) == body.getArgument(1)) ||
                  (combine.getOperand(0) == body.getArgument(1) &&
                   combine.getOperand(1) == body.getArgument(0));
  if (!usesArgs)
    return "";
  return llvm::TypeSwitch<Operation *, StringRef>(&combine)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return "Sum"; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return "Prod"; })
      .Case<arith::MaxNumFOp, arith::MaxSIOp>([](auto) { return "Max"; })
      .Case<arith::MinNumFOp, arith::MinSIOp>([](auto) { return "Min"; })
      .Case<arith::MaxUIOp>([](auto) { return "MaxU"; })
      .Case<arith::MinUIOp>([](auto) { return "MinU"; })
      .Case<arith::MaximumFOp>([](auto) { return "Maximum"; })
      .Case<arith::MinimumFOp>([](auto) { return "Minimum"; })
      .Case<arith::AndIOp>([](auto) { return "And"; })
      .Case<arith::OrIOp>([](auto) { return "Or"; })
      .Case<arith::XOrIOp>([](auto) { return "Xor"; })
      .Default([](Operation *) { return ""; });
}

//===----------------------------------------------------------------------===//
// KernelLowering
//===----------------------------------------------------------------------===//

/// Lowers one tt.func. Errors are reported at the source op's location and
/// make `run` fail; the partially built function is then erased.
class KernelLowering {
public:
  KernelLowering(tt::FuncOp func) : src(func), b(func.getContext()) {}

  FailureOr<func::FuncOp> run();

private:
  // Blocks and ops.
  LogicalResult lowerBlock(Block &block);
  LogicalResult lowerOp(Operation *op);
  LogicalResult lowerScalarOp(Operation *op);
  LogicalResult lowerTensorOp(Operation *op);
  LogicalResult lowerElementwise(Operation *op, StringRef opcode);
  LogicalResult lowerLoad(tt::LoadOp op);
  LogicalResult lowerStore(tt::StoreOp op);
  LogicalResult lowerReduce(tt::ReduceOp op);
  LogicalResult lowerFor(scf::ForOp op);
  LogicalResult lowerIf(scf::IfOp op);

  // Values.
  Value scalar(Value v);
  FailureOr<Lowered> tensor(Value v);
  Attribute sourceOf(const Lowered &l, SmallVectorImpl<Value> &imms);
  int64_t newTile(Value root, Type elemType, ArrayRef<int64_t> shape,
                  Location loc);
  void schedulePop(Value root, int64_t cb, int64_t bytes);
  int64_t copyToNewTile(const Lowered &from, Type elemType,
                        ArrayRef<int64_t> shape, Location loc,
                        SmallVectorImpl<std::pair<int64_t, int64_t>> *temps);
  void emitCopy(const Lowered &from, int64_t dstCb, Type elemType,
                ArrayRef<int64_t> shape, Location loc);

  // Address-only values and the structured-access analysis.
  bool isAddressOnly(Value v);
  std::optional<Affine> analyzeIndex(Value v, Location loc);
  std::optional<Affine> analyzePtr(Value v, Location loc);
  std::optional<SmallVector<Value>> analyzeMask(Value mask,
                                                ArrayRef<int64_t> shape,
                                                Location loc);
  FailureOr<Lowered> rematerialize(
      Value v, Location loc,
      SmallVectorImpl<std::pair<int64_t, int64_t>> &temps);

  Value constI64(int64_t v, Location loc) {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  }
  Value toI64(Value v, Location loc);
  LogicalResult unsupported(Operation *op, const Twine &why = "");

  tt::FuncOp src;
  OpBuilder b;
  func::FuncOp dst;
  IRMapping scalars;
  DenseMap<Value, Lowered> tensors;
  DenseMap<Value, bool> addressOnly;
  DenseMap<Operation *, SmallVector<std::pair<int64_t, int64_t>>> pendingPops;
  int64_t nextCb = 0;
};

LogicalResult KernelLowering::unsupported(Operation *op, const Twine &why) {
  InFlightDiagnostic diag = op->emitError()
                            << "'" << op->getName()
                            << "' is not supported by the MTIA backend yet";
  if (!why.isTriviallyEmpty())
    diag << ": " << why;
  return failure();
}

Value KernelLowering::toI64(Value v, Location loc) {
  Type i64 = b.getI64Type();
  if (v.getType() == i64)
    return v;
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, i64, v);
  if (v.getType().getIntOrFloatBitWidth() < 64)
    return arith::ExtSIOp::create(b, loc, i64, v);
  return arith::TruncIOp::create(b, loc, i64, v);
}

Value KernelLowering::scalar(Value v) { return scalars.lookupOrNull(v); }

//===----------------------------------------------------------------------===//
// Tiles and their lifetimes
//===----------------------------------------------------------------------===//

/// Allocates a virtual CB for a new tile produced for `root` and schedules its
/// pop after the last use of `root`.
int64_t KernelLowering::newTile(Value root, Type elemType,
                                ArrayRef<int64_t> shape, Location loc) {
  int64_t cb = nextCb++;
  int64_t bytes = numElements(shape) * mtia::elementBytes(elemType);
  tensors[root] = Lowered::tile(cb, elemType, shape);
  schedulePop(root, cb, bytes);
  return cb;
}

/// Collects the ops that read `v`'s storage: its users, and the users of views
/// of it.
static void collectReaders(Value v, SmallVectorImpl<Operation *> &readers) {
  for (Operation *user : v.getUsers()) {
    readers.push_back(user);
    if (isViewOp(user))
      collectReaders(user->getResult(0), readers);
  }
}

/// Registers a pop of `cb` after the last reader of `root`, taken in the block
/// that defines `root`; with no readers the tile is popped right away.
void KernelLowering::schedulePop(Value root, int64_t cb, int64_t bytes) {
  SmallVector<Operation *> readers;
  collectReaders(root, readers);
  Block *block = root.getParentBlock();
  Operation *last = nullptr;
  for (Operation *reader : readers) {
    Operation *ancestor = block->findAncestorOpInBlock(*reader);
    if (ancestor && (!last || last->isBeforeInBlock(ancestor)))
      last = ancestor;
  }
  if (!last) {
    mtia::CbPopOp::create(b, root.getLoc(), cb, bytes);
    return;
  }
  pendingPops[last].push_back({cb, bytes});
}

/// The source attribute of an SE command for `l`; immediates are appended to
/// `imms`.
Attribute KernelLowering::sourceOf(const Lowered &l,
                                   SmallVectorImpl<Value> &imms) {
  if (!l.isTile()) {
    imms.push_back(l.scalar);
    return mtia::ImmAttr::get(b.getContext());
  }
  return mtia::ViewAttr::get(b.getContext(), l.cb, l.elemType, l.offset,
                             l.strides);
}

/// Appends a dense copy of `from` (a view or a splat) in `elemType` to
/// `dstCb`.
void KernelLowering::emitCopy(const Lowered &from, int64_t dstCb, Type elemType,
                              ArrayRef<int64_t> shape, Location loc) {
  SmallVector<Value> imms;
  Attribute srcAttr = sourceOf(from, imms);
  mtia::SeOp::create(b, loc, imms, "Copy", dstCb, elemType, shape,
                       b.getArrayAttr({srcAttr}));
}

/// Copies `from` into a fresh dense tile that lives until the command being
/// lowered has been issued (`temps` collects it for its pop).
int64_t KernelLowering::copyToNewTile(
    const Lowered &from, Type elemType, ArrayRef<int64_t> shape, Location loc,
    SmallVectorImpl<std::pair<int64_t, int64_t>> *temps) {
  int64_t cb = nextCb++;
  emitCopy(from, cb, elemType, shape, loc);
  temps->push_back({cb, numElements(shape) * mtia::elementBytes(elemType)});
  return cb;
}

/// The lowered form of source value `v`, a tensor or (as an operand of an
/// elementwise op, e.g. the condition of a select) a scalar.
FailureOr<Lowered> KernelLowering::tensor(Value v) {
  auto it = tensors.find(v);
  if (it != tensors.end())
    return it->second;
  if (!isa<RankedTensorType>(v.getType()))
    if (Value s = scalar(v))
      return Lowered::splat(s);
  Location loc = v.getDefiningOp() ? v.getDefiningOp()->getLoc() : v.getLoc();
  return emitError(loc, "internal: value used before it was lowered "
                        "(an address-only value used as data?)"),
         failure();
}

//===----------------------------------------------------------------------===//
// Structured-access analysis
//===----------------------------------------------------------------------===//

/// A value is address-only if every use is pointer arithmetic, the pointer or
/// mask of a load or store, or another address-only value.
bool KernelLowering::isAddressOnly(Value v) {
  auto it = addressOnly.find(v);
  if (it != addressOnly.end())
    return it->second;
  addressOnly[v] = true; // cycles (loop-carried values) are not address-only
  bool result = !v.use_empty();
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    unsigned idx = use.getOperandNumber();
    bool ok = false;
    if (auto load = dyn_cast<tt::LoadOp>(user))
      ok = v == load.getPtr() || v == load.getMask();
    else if (auto store = dyn_cast<tt::StoreOp>(user))
      ok = v == store.getPtr() || v == store.getMask();
    else if (isa<tt::AddPtrOp, tt::ExpandDimsOp, tt::BroadcastOp, arith::AddIOp,
                 arith::SubIOp, arith::MulIOp, arith::CmpIOp, arith::AndIOp,
                 arith::ExtSIOp, arith::TruncIOp>(user))
      ok = isa<RankedTensorType>(user->getResult(0).getType()) &&
           isAddressOnly(user->getResult(0));
    (void)idx;
    if (!ok) {
      result = false;
      break;
    }
  }
  // Loop-carried tensors are data: their storage must exist across
  // iterations.
  if (isa<BlockArgument>(v) || isa_and_nonnull<scf::ForOp, scf::IfOp>(v.getDefiningOp()))
    result = false;
  addressOnly[v] = result;
  return result;
}

/// Recovers `v` (an integer tensor) as base + sum stride_d * i_d.
std::optional<Affine> KernelLowering::analyzeIndex(Value v, Location loc) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return std::nullopt;
  int64_t rank = type.getRank();
  auto zeros = [&] {
    return SmallVector<Value>(rank, constI64(0, loc));
  };
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto range = dyn_cast<tt::MakeRangeOp>(def))
    return Affine{constI64(range.getStart(), loc), {constI64(1, loc)}};
  if (auto splat = dyn_cast<tt::SplatOp>(def)) {
    Value s = scalar(splat.getSrc());
    if (!s || !s.getType().isIntOrIndex())
      return std::nullopt;
    return Affine{toI64(s, loc), zeros()};
  }
  if (auto cst = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<SplatElementsAttr>(cst.getValue());
    if (!dense || !dense.getElementType().isInteger())
      return std::nullopt;
    return Affine{constI64(dense.getSplatValue<APInt>().getSExtValue(), loc),
                  zeros()};
  }
  if (isa<arith::ExtSIOp, arith::TruncIOp>(def))
    return analyzeIndex(def->getOperand(0), loc);
  if (auto expand = dyn_cast<tt::ExpandDimsOp>(def)) {
    auto inner = analyzeIndex(expand.getSrc(), loc);
    if (!inner)
      return std::nullopt;
    inner->strides.insert(inner->strides.begin() + expand.getAxis(),
                          constI64(0, loc));
    return inner;
  }
  if (auto bcast = dyn_cast<tt::BroadcastOp>(def)) {
    auto inner = analyzeIndex(bcast.getSrc(), loc);
    if (!inner)
      return std::nullopt;
    // Broadcast dimensions had size 1; their index is always 0.
    auto srcShape = bcast.getSrc().getType().getShape();
    for (int64_t d = 0; d < rank; ++d)
      if (srcShape[d] == 1)
        inner->strides[d] = constI64(0, loc);
    return inner;
  }
  if (isa<arith::AddIOp, arith::SubIOp>(def)) {
    auto lhs = analyzeIndex(def->getOperand(0), loc);
    auto rhs = lhs ? analyzeIndex(def->getOperand(1), loc) : std::nullopt;
    if (!rhs)
      return std::nullopt;
    auto combine = [&](Value x, Value y) -> Value {
      if (isa<arith::AddIOp>(def))
        return b.createOrFold<arith::AddIOp>(loc, x, y);
      return b.createOrFold<arith::SubIOp>(loc, x, y);
    };
    Affine out{combine(lhs->base, rhs->base), {}};
    for (int64_t d = 0; d < rank; ++d)
      out.strides.push_back(combine(lhs->strides[d], rhs->strides[d]));
    return out;
  }
  if (isa<arith::MulIOp>(def)) {
    // One side must be uniform (all strides known to be zero).
    for (int side = 0; side < 2; ++side) {
      Value uniformV = def->getOperand(side);
      Operation *u = uniformV.getDefiningOp();
      if (!u || !(isa<tt::SplatOp>(u) ||
                  (isa<arith::ConstantOp>(u) &&
                   isa<SplatElementsAttr>(cast<arith::ConstantOp>(u).getValue()))))
        continue;
      auto factor = analyzeIndex(uniformV, loc);
      auto other = factor ? analyzeIndex(def->getOperand(1 - side), loc)
                          : std::nullopt;
      if (!other)
        return std::nullopt;
      Affine out{b.createOrFold<arith::MulIOp>(loc, other->base, factor->base), {}};
      for (Value s : other->strides)
        out.strides.push_back(b.createOrFold<arith::MulIOp>(loc, s, factor->base));
      return out;
    }
  }
  return std::nullopt;
}

/// Recovers a tensor of pointers as base address + per-dimension strides (in
/// elements).
std::optional<Affine> KernelLowering::analyzePtr(Value v, Location loc) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto splat = dyn_cast<tt::SplatOp>(def)) {
    Value p = scalar(splat.getSrc());
    if (!p)
      return std::nullopt;
    return Affine{p, SmallVector<Value>(rank, constI64(0, loc))};
  }
  if (isa<tt::ExpandDimsOp, tt::BroadcastOp>(def)) {
    auto inner = analyzePtr(def->getOperand(0), loc);
    if (!inner)
      return std::nullopt;
    if (auto expand = dyn_cast<tt::ExpandDimsOp>(def)) {
      inner->strides.insert(inner->strides.begin() + expand.getAxis(),
                            constI64(0, loc));
    } else {
      auto srcShape = cast<RankedTensorType>(def->getOperand(0).getType()).getShape();
      for (int64_t d = 0; d < rank; ++d)
        if (srcShape[d] == 1)
          inner->strides[d] = constI64(0, loc);
    }
    return inner;
  }
  if (auto addptr = dyn_cast<tt::AddPtrOp>(def)) {
    auto base = analyzePtr(addptr.getPtr(), loc);
    auto offset = base ? analyzeIndex(addptr.getOffset(), loc) : std::nullopt;
    if (!offset)
      return std::nullopt;
    int64_t elemBytes = mtia::elementBytes(
        cast<tt::PointerType>(type.getElementType()).getPointeeType());
    Value byteOffset =
        b.createOrFold<arith::MulIOp>(loc, offset->base, constI64(elemBytes, loc));
    Affine out{b.createOrFold<arith::AddIOp>(loc, base->base, byteOffset), {}};
    for (int64_t d = 0; d < rank; ++d)
      out.strides.push_back(
          b.createOrFold<arith::AddIOp>(loc, base->strides[d], offset->strides[d]));
    return out;
  }
  return std::nullopt;
}

/// Recovers a mask as a leading box: mask[i] = AND_d (i_d < valid_d). Returns
/// the valid extent of each dimension, clamped to [0, size].
std::optional<SmallVector<Value>>
KernelLowering::analyzeMask(Value mask, ArrayRef<int64_t> shape, Location loc) {
  int64_t rank = shape.size();
  Operation *def = mask.getDefiningOp();
  if (!def)
    return std::nullopt;
  auto full = [&] {
    SmallVector<Value> v;
    for (int64_t d : shape)
      v.push_back(constI64(d, loc));
    return v;
  };
  if (auto andOp = dyn_cast<arith::AndIOp>(def)) {
    auto lhs = analyzeMask(andOp.getLhs(), shape, loc);
    auto rhs = lhs ? analyzeMask(andOp.getRhs(), shape, loc) : std::nullopt;
    if (!rhs)
      return std::nullopt;
    SmallVector<Value> out;
    for (int64_t d = 0; d < rank; ++d)
      out.push_back(b.createOrFold<arith::MinSIOp>(loc, (*lhs)[d], (*rhs)[d]));
    return out;
  }
  if (auto bcast = dyn_cast<tt::BroadcastOp>(def)) {
    auto srcShape = bcast.getSrc().getType().getShape();
    auto inner = analyzeMask(bcast.getSrc(), srcShape, loc);
    if (!inner)
      return std::nullopt;
    // A broadcast dimension of size 1 is either all valid or all masked.
    for (int64_t d = 0; d < rank; ++d)
      if (srcShape[d] == 1 && shape[d] != 1) {
        Value any = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt,
                                            (*inner)[d], constI64(0, loc));
        (*inner)[d] = b.createOrFold<arith::SelectOp>(loc, any, constI64(shape[d], loc),
                                                constI64(0, loc));
      }
    return inner;
  }
  if (auto expand = dyn_cast<tt::ExpandDimsOp>(def)) {
    auto srcShape = expand.getSrc().getType().getShape();
    auto inner = analyzeMask(expand.getSrc(), srcShape, loc);
    if (!inner)
      return std::nullopt;
    inner->insert(inner->begin() + expand.getAxis(), constI64(1, loc));
    return inner;
  }
  if (auto splat = dyn_cast<tt::SplatOp>(def)) {
    // A uniform mask: everything or nothing.
    Value c = scalar(splat.getSrc());
    if (!c)
      return std::nullopt;
    SmallVector<Value> out;
    for (int64_t d : shape)
      out.push_back(b.createOrFold<arith::SelectOp>(loc, c, constI64(d, loc),
                                              constI64(0, loc)));
    return out;
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(def)) {
    // idx < bound, idx <= bound, bound > idx, bound >= idx with idx = s + i_d.
    Value idxV = cmp.getLhs(), boundV = cmp.getRhs();
    auto pred = cmp.getPredicate();
    using P = arith::CmpIPredicate;
    if (pred == P::sgt || pred == P::sge || pred == P::ugt || pred == P::uge) {
      std::swap(idxV, boundV);
      pred = pred == P::sgt ? P::slt
             : pred == P::sge ? P::sle
             : pred == P::ugt ? P::ult
                              : P::ule;
    }
    if (pred != P::slt && pred != P::sle && pred != P::ult && pred != P::ule)
      return std::nullopt;
    auto idx = analyzeIndex(idxV, loc);
    auto bound = idx ? analyzeIndex(boundV, loc) : std::nullopt;
    if (!bound)
      return std::nullopt;
    // The bound must be uniform; the index must move along exactly one
    // dimension with unit stride.
    auto isConst = [](Value v, int64_t c) {
      APInt value;
      return matchPattern(v, m_ConstantInt(&value)) && value.getSExtValue() == c;
    };
    for (Value s : bound->strides)
      if (!isConst(s, 0))
        return std::nullopt;
    int64_t dim = -1;
    for (int64_t d = 0; d < rank; ++d) {
      if (isConst(idx->strides[d], 0))
        continue;
      if (dim >= 0 || !isConst(idx->strides[d], 1))
        return std::nullopt;
      dim = d;
    }
    Value limit = b.createOrFold<arith::SubIOp>(loc, bound->base, idx->base);
    if (pred == P::sle || pred == P::ule)
      limit = b.createOrFold<arith::AddIOp>(loc, limit, constI64(1, loc));
    SmallVector<Value> out = full();
    if (dim < 0) {
      // Uniform comparison: all or nothing.
      Value any = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, limit,
                                          constI64(0, loc));
      for (int64_t d = 0; d < rank; ++d)
        out[d] = b.createOrFold<arith::SelectOp>(loc, any, out[d], constI64(0, loc));
      return out;
    }
    Value clamped = b.createOrFold<arith::MaxSIOp>(loc, limit, constI64(0, loc));
    out[dim] = b.createOrFold<arith::MinSIOp>(loc, clamped, constI64(shape[dim], loc));
    return out;
  }
  return std::nullopt;
}

/// Computes an address-only value as a tile (or a splat) at the current
/// insertion point, for a gather or scatter. New tiles are added to `temps`.
FailureOr<Lowered> KernelLowering::rematerialize(
    Value v, Location loc,
    SmallVectorImpl<std::pair<int64_t, int64_t>> &temps) {
  auto it = tensors.find(v);
  if (it != tensors.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  if (!def)
    return failure();
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  Type elemType = tileElementType(type);
  auto fresh = [&](int64_t cb) {
    temps.push_back({cb, numElements(shape) * mtia::elementBytes(elemType)});
    return Lowered::tile(cb, elemType, shape);
  };
  if (auto range = dyn_cast<tt::MakeRangeOp>(def)) {
    int64_t cb = nextCb++;
    mtia::SeIotaOp::create(b, loc, cb, elemType, shape[0], range.getStart());
    return fresh(cb);
  }
  if (auto splat = dyn_cast<tt::SplatOp>(def)) {
    Value s = scalar(splat.getSrc());
    if (!s)
      return failure();
    return Lowered::splat(s);
  }
  if (auto cst = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<SplatElementsAttr>(cst.getValue());
    if (!dense)
      return failure();
    return Lowered::splat(arith::ConstantOp::create(b, 
        loc, cast<TypedAttr>(dense.getSplatValue<Attribute>())));
  }
  if (isa<tt::ExpandDimsOp, tt::BroadcastOp>(def)) {
    auto inner = rematerialize(def->getOperand(0), loc, temps);
    if (failed(inner) || !inner->isTile())
      return inner;
    Lowered out = *inner;
    out.shape = shape;
    if (auto expand = dyn_cast<tt::ExpandDimsOp>(def))
      out.strides.insert(out.strides.begin() + expand.getAxis(), 0);
    return out;
  }
  if (auto addptr = dyn_cast<tt::AddPtrOp>(def)) {
    auto ptr = rematerialize(addptr.getPtr(), loc, temps);
    if (failed(ptr))
      return failure();
    auto off = rematerialize(addptr.getOffset(), loc, temps);
    if (failed(off))
      return failure();
    int64_t elemBytes = mtia::elementBytes(
        cast<tt::PointerType>(type.getElementType()).getPointeeType());
    Type i64 = b.getI64Type();
    // bytes = (i64) offset * elemBytes; address = ptr + bytes.
    SmallVector<Value> imms;
    int64_t scaled = nextCb++;
    Attribute offSrc = sourceOf(*off, imms);
    // Widen first when the offsets are narrower than addresses.
    if (off->isTile() && off->elemType != i64) {
      int64_t wide = copyToNewTile(*off, i64, shape, loc, &temps);
      imms.clear();
      offSrc = sourceOf(Lowered::tile(wide, i64, shape), imms);
    } else if (!off->isTile()) {
      imms.back() = toI64(imms.back(), loc);
    }
    imms.push_back(constI64(elemBytes, loc));
    mtia::SeOp::create(b, loc, imms, "Mul", scaled, i64, shape,
                         b.getArrayAttr({offSrc, mtia::ImmAttr::get(b.getContext())}));
    temps.push_back({scaled, numElements(shape) * 8});
    imms.clear();
    Attribute ptrSrc = sourceOf(*ptr, imms);
    int64_t addr = nextCb++;
    mtia::SeOp::create(b, 
        loc, imms, "Add", addr, i64, shape,
        b.getArrayAttr({ptrSrc, sourceOf(Lowered::tile(scaled, i64, shape), imms)}));
    return fresh(addr);
  }
  StringRef opcode = seOpcodeFor(def);
  if (!opcode.empty()) {
    SmallVector<Value> imms;
    SmallVector<Attribute> srcs;
    for (Value operand : def->getOperands()) {
      auto l = rematerialize(operand, loc, temps);
      if (failed(l))
        return failure();
      srcs.push_back(sourceOf(*l, imms));
    }
    int64_t cb = nextCb++;
    mtia::SeOp::create(b, loc, imms, opcode, cb, elemType, shape,
                         b.getArrayAttr(srcs));
    return fresh(cb);
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::lowerBlock(Block &block) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue; // lowered by the parent op
    if (failed(lowerOp(&op)))
      return failure();
    auto it = pendingPops.find(&op);
    if (it != pendingPops.end()) {
      for (auto [cb, bytes] : it->second)
        mtia::CbPopOp::create(b, op.getLoc(), cb, bytes);
      pendingPops.erase(it);
    }
  }
  return success();
}

/// Emits the pops scheduled after terminator `op` (they must precede the
/// lowered terminator).
static void flushPops(
    OpBuilder &b, Operation *op,
    DenseMap<Operation *, SmallVector<std::pair<int64_t, int64_t>>> &pending) {
  auto it = pending.find(op);
  if (it == pending.end())
    return;
  for (auto [cb, bytes] : it->second)
    mtia::CbPopOp::create(b, op->getLoc(), cb, bytes);
  pending.erase(it);
}

LogicalResult KernelLowering::lowerOp(Operation *op) {
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return lowerFor(forOp);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return lowerIf(ifOp);
  if (isa<tt::ElementwiseInlineAsmOp>(op))
    return op->emitError("inline assembly (tt.elementwise_inline_asm, from "
                         "tl.inline_asm_elementwise) cannot run on MTIA: it is "
                         "GPU machine code; express the computation with "
                         "Triton operations instead"),
           failure();
  if (isa<cf::ControlFlowDialect>(op->getDialect()) || isa<scf::WhileOp>(op))
    return unsupported(op, "unstructured or while control flow is not lowered yet");
  bool hasTensor = llvm::any_of(op->getResultTypes(), [](Type t) {
    return isa<RankedTensorType>(t);
  }) || llvm::any_of(op->getOperandTypes(), [](Type t) {
    return isa<RankedTensorType>(t);
  });
  if (hasTensor)
    return lowerTensorOp(op);
  return lowerScalarOp(op);
}

LogicalResult KernelLowering::lowerScalarOp(Operation *op) {
  Location loc = op->getLoc();
  if (auto pid = dyn_cast<tt::GetProgramIdOp>(op)) {
    scalars.map(pid.getResult(),
                mtia::ProgramIdOp::create(b, loc, b.getI32Type(), static_cast<int32_t>(pid.getAxis())));
    return success();
  }
  if (auto num = dyn_cast<tt::GetNumProgramsOp>(op)) {
    scalars.map(num.getResult(),
                mtia::NumProgramsOp::create(b, loc, b.getI32Type(), static_cast<int32_t>(num.getAxis())));
    return success();
  }
  if (auto addptr = dyn_cast<tt::AddPtrOp>(op)) {
    int64_t elemBytes = mtia::elementBytes(
        cast<tt::PointerType>(addptr.getType()).getPointeeType());
    Value off = toI64(scalar(addptr.getOffset()), loc);
    Value bytes = b.createOrFold<arith::MulIOp>(loc, off, constI64(elemBytes, loc));
    scalars.map(addptr.getResult(),
                b.createOrFold<arith::AddIOp>(loc, scalar(addptr.getPtr()), bytes));
    return success();
  }
  if (auto load = dyn_cast<tt::LoadOp>(op))
    return lowerLoad(load);
  if (auto store = dyn_cast<tt::StoreOp>(op))
    return lowerStore(store);
  if (auto ret = dyn_cast<tt::ReturnOp>(op)) {
    if (!ret.getSrcs().empty())
      return unsupported(op, "kernels return no values");
    return success();
  }
  if (isa<tt::IntToPtrOp, tt::PtrToIntOp>(op)) {
    Value v = toI64(scalar(op->getOperand(0)), loc);
    Type resultType = lowerScalarType(op->getResult(0).getType());
    if (resultType != v.getType())
      v = arith::TruncIOp::create(b, loc, resultType, v);
    scalars.map(op->getResult(0), v);
    return success();
  }
  if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect())) {
    for (Value operand : op->getOperands())
      if (!scalar(operand))
        return op->emitError("internal: scalar operand was not lowered"), failure();
    Operation *clone = b.clone(*op, scalars);
    for (auto [from, to] : llvm::zip(op->getResults(), clone->getResults()))
      scalars.map(from, to);
    return success();
  }
  if (auto ext = dyn_cast<tt::ExternElementwiseOp>(op)) {
    StringRef opcode = libdeviceOpcode(ext.getSymbol());
    if (opcode.empty())
      return unsupported(op, "library function '" + ext.getSymbol() +
                                 "' (MTIA provides triton.language.extra.libdevice "
                                 "through triton_mtia.language.libdevice)");
    SmallVector<Value> args;
    for (Value v : ext.getSrcs())
      args.push_back(scalar(v));
    Value x = args[0], result;
    if (opcode == "Exp") result = math::ExpOp::create(b, loc, x);
    else if (opcode == "Exp2") result = math::Exp2Op::create(b, loc, x);
    else if (opcode == "Log") result = math::LogOp::create(b, loc, x);
    else if (opcode == "Log2") result = math::Log2Op::create(b, loc, x);
    else if (opcode == "Sqrt") result = math::SqrtOp::create(b, loc, x);
    else if (opcode == "Rsqrt") result = math::RsqrtOp::create(b, loc, x);
    else if (opcode == "Tanh") result = math::TanhOp::create(b, loc, x);
    else if (opcode == "Erf") result = math::ErfOp::create(b, loc, x);
    else result = math::PowFOp::create(b, loc, x, args[1]);
    scalars.map(ext.getResult(), result);
    return success();
  }
  if (isa<tt::ClampFOp, tt::PreciseSqrtOp, tt::PreciseDivFOp>(op)) {
    Value x = scalar(op->getOperand(0));
    Value result;
    if (auto clamp = dyn_cast<tt::ClampFOp>(op))
      result = arith::MinNumFOp::create(b, 
          loc, arith::MaxNumFOp::create(b, loc, x, scalar(clamp.getMin())),
          scalar(clamp.getMax()));
    else if (isa<tt::PreciseSqrtOp>(op))
      result = math::SqrtOp::create(b, loc, x);
    else
      result = arith::DivFOp::create(b, loc, x, scalar(op->getOperand(1)));
    scalars.map(op->getResult(0), result);
    return success();
  }
  return unsupported(op);
}

LogicalResult KernelLowering::lowerTensorOp(Operation *op) {
  Location loc = op->getLoc();
  // Address-only values are not computed here; loads and stores analyze (or
  // rematerialize) them.
  if (op->getNumResults() == 1 && isa<RankedTensorType>(op->getResult(0).getType()) &&
      isAddressOnly(op->getResult(0)) &&
      (isa<tt::MakeRangeOp, tt::SplatOp, tt::ExpandDimsOp, tt::BroadcastOp,
           tt::AddPtrOp, arith::ConstantOp>(op) ||
       !seOpcodeFor(op).empty()))
    return success();

  if (auto load = dyn_cast<tt::LoadOp>(op))
    return lowerLoad(load);
  if (auto store = dyn_cast<tt::StoreOp>(op))
    return lowerStore(store);
  if (auto reduce = dyn_cast<tt::ReduceOp>(op))
    return lowerReduce(reduce);

  if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    auto dense = dyn_cast<SplatElementsAttr>(cst.getValue());
    if (!dense)
      return unsupported(op, "non-uniform tensor constants");
    tensors[cst.getResult()] = Lowered::splat(arith::ConstantOp::create(b, 
        loc, cast<TypedAttr>(dense.getSplatValue<Attribute>())));
    return success();
  }
  if (auto splat = dyn_cast<tt::SplatOp>(op)) {
    Value srcV = splat.getSrc();
    auto it = tensors.find(srcV); // a reduction result that stayed a tile
    if (it != tensors.end() && !scalar(srcV)) {
      Lowered view = it->second;
      view.shape = shapeOf(splat.getType());
      view.strides.assign(view.shape.size(), 0);
      tensors[splat.getResult()] = view;
      return success();
    }
    tensors[splat.getResult()] = Lowered::splat(scalar(srcV));
    return success();
  }
  if (auto range = dyn_cast<tt::MakeRangeOp>(op)) {
    Type elemType = range.getType().getElementType();
    int64_t cb = newTile(range.getResult(), elemType, shapeOf(range.getType()), loc);
    mtia::SeIotaOp::create(b, loc, cb, elemType, range.getType().getDimSize(0),
                             range.getStart());
    return success();
  }
  if (isa<tt::ExpandDimsOp, tt::BroadcastOp>(op)) {
    auto in = tensor(op->getOperand(0));
    if (failed(in))
      return failure();
    Lowered out = *in;
    if (out.isTile()) {
      out.shape = shapeOf(op->getResult(0).getType());
      if (auto expand = dyn_cast<tt::ExpandDimsOp>(op))
        out.strides.insert(out.strides.begin() + expand.getAxis(), 0);
    }
    tensors[op->getResult(0)] = out;
    return success();
  }
  if (auto reshape = dyn_cast<tt::ReshapeOp>(op)) {
    auto in = tensor(reshape.getSrc());
    if (failed(in))
      return failure();
    SmallVector<int64_t> shape = shapeOf(reshape.getType());
    if (!in->isTile()) {
      tensors[reshape.getResult()] = *in;
      return success();
    }
    Lowered out = *in;
    if (!in->isDense()) {
      int64_t cb = newTile(reshape.getResult(), in->elemType, in->shape, loc);
      emitCopy(*in, cb, in->elemType, in->shape, loc);
      out = Lowered::tile(cb, in->elemType, in->shape);
    }
    out.shape = shape;
    out.strides = Lowered::denseStrides(shape);
    tensors[reshape.getResult()] = out;
    return success();
  }
  if (auto clamp = dyn_cast<tt::ClampFOp>(op)) {
    // clamp(x, lo, hi) = min(max(x, lo), hi), as two SE commands.
    auto x = tensor(clamp.getX()), lo = tensor(clamp.getMin()),
         hi = tensor(clamp.getMax());
    if (failed(x) || failed(lo) || failed(hi))
      return failure();
    auto type = cast<RankedTensorType>(clamp.getType());
    SmallVector<int64_t> shape(type.getShape());
    Type elemType = type.getElementType();
    SmallVector<Value> imms;
    int64_t tmp = nextCb++;
    Attribute xs = sourceOf(*x, imms), los = sourceOf(*lo, imms);
    mtia::SeOp::create(b, loc, imms, "Max", tmp, elemType, shape,
                         b.getArrayAttr({xs, los}));
    imms.clear();
    int64_t cb = newTile(clamp.getResult(), elemType, shape, loc);
    Attribute ts = sourceOf(Lowered::tile(tmp, elemType, shape), imms);
    Attribute his = sourceOf(*hi, imms);
    mtia::SeOp::create(b, loc, imms, "Min", cb, elemType, shape,
                         b.getArrayAttr({ts, his}));
    mtia::CbPopOp::create(b, loc, tmp, numElements(shape) * mtia::elementBytes(elemType));
    return success();
  }
  StringRef opcode = seOpcodeFor(op);
  if (!opcode.empty())
    return lowerElementwise(op, opcode);
  if (auto ext = dyn_cast<tt::ExternElementwiseOp>(op))
    return unsupported(op, "library function '" + ext.getSymbol() +
                               "' (MTIA provides triton.language.extra.libdevice "
                               "through triton_mtia.language.libdevice)");
  return unsupported(op);
}

LogicalResult KernelLowering::lowerElementwise(Operation *op, StringRef opcode) {
  Location loc = op->getLoc();
  SmallVector<Lowered> operands;
  bool allSplat = true;
  for (Value v : op->getOperands()) {
    auto l = tensor(v);
    if (failed(l))
      return failure();
    allSplat &= !l->isTile();
    operands.push_back(*l);
  }
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  // Uniform operands: compute once on the core and keep it a splat.
  if (allSplat) {
    OperationState state(loc, op->getName());
    for (const Lowered &l : operands)
      state.addOperands(l.scalar);
    state.addTypes(type.getElementType());
    state.addAttributes(op->getAttrs());
    Operation *scalarOp = b.create(state);
    tensors[op->getResult(0)] = Lowered::splat(scalarOp->getResult(0));
    return success();
  }
  SmallVector<Value> imms;
  SmallVector<Attribute> srcs;
  for (const Lowered &l : operands)
    srcs.push_back(sourceOf(l, imms));
  SmallVector<int64_t> shape(type.getShape());
  int64_t cb = newTile(op->getResult(0), type.getElementType(), shape, loc);
  mtia::SeOp::create(b, loc, imms, opcode, cb, type.getElementType(), shape,
                       b.getArrayAttr(srcs));
  return success();
}

LogicalResult KernelLowering::lowerLoad(tt::LoadOp op) {
  Location loc = op.getLoc();
  Type resultType = op.getType();
  Type elemType = tileElementType(resultType);
  SmallVector<int64_t> shape = shapeOf(resultType);
  bool isTensor = isa<RankedTensorType>(resultType);

  // The padding value: `other` if given (uniform), else zero.
  Value pad;
  if (Value other = op.getOther()) {
    if (isTensor) {
      auto l = tensor(other);
      if (failed(l))
        return failure();
      if (l->isTile())
        return unsupported(op, "a non-uniform 'other' value");
      pad = l->scalar;
    } else {
      pad = scalar(other);
    }
  }

  if (!isTensor) {
    // A scalar load: a one-element DMA and a read into a core register.
    if (op.getMask())
      return unsupported(op, "masked scalar loads");
    int64_t cb = nextCb++;
    mtia::DmaInOp::create(b, loc, scalar(op.getPtr()), ValueRange{}, ValueRange{},
                            pad, cb, elemType, ArrayRef<int64_t>{});
    Value v = mtia::ReadOp::create(b, loc, lowerScalarType(resultType), cb, 0);
    mtia::CbPopOp::create(b, loc, cb, mtia::elementBytes(elemType));
    scalars.map(op.getResult(), v);
    return success();
  }

  if (auto ptr = analyzePtr(op.getPtr(), loc)) {
    std::optional<SmallVector<Value>> valid;
    if (Value mask = op.getMask())
      valid = analyzeMask(mask, shape, loc);
    else {
      valid.emplace();
      for (int64_t d : shape)
        valid->push_back(constI64(d, loc));
    }
    if (valid) {
      int64_t cb = newTile(op.getResult(), elemType, shape, loc);
      mtia::DmaInOp::create(b, loc, ptr->base, ptr->strides, *valid, pad, cb,
                              elemType, shape);
      return success();
    }
  }

  // Unstructured: gather through a tile of addresses.
  SmallVector<std::pair<int64_t, int64_t>> temps;
  auto addrs = rematerialize(op.getPtr(), loc, temps);
  if (failed(addrs))
    return unsupported(op, "its pointers could not be computed");
  Type i64 = b.getI64Type();
  int64_t addrCb = addrs->isDense() ? addrs->cb
                                    : copyToNewTile(*addrs, i64, shape, loc, &temps);
  int64_t maskCb = -1;
  if (Value mask = op.getMask()) {
    auto m = rematerialize(mask, loc, temps);
    if (failed(m))
      return unsupported(op, "its mask could not be computed");
    maskCb = m->isDense() ? m->cb
                          : copyToNewTile(*m, b.getI1Type(), shape, loc, &temps);
  }
  int64_t cb = newTile(op.getResult(), elemType, shape, loc);
  mtia::GatherInOp::create(b, loc, pad, cb, addrCb, maskCb, elemType, shape);
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  return success();
}

LogicalResult KernelLowering::lowerStore(tt::StoreOp op) {
  Location loc = op.getLoc();
  Type valueType = op.getValue().getType();
  Type elemType = tileElementType(valueType);
  SmallVector<int64_t> shape = shapeOf(valueType);
  SmallVector<std::pair<int64_t, int64_t>> temps;

  if (!isa<RankedTensorType>(valueType)) {
    if (op.getMask())
      return unsupported(op, "masked scalar stores");
    int64_t cb = copyToNewTile(Lowered::splat(scalar(op.getValue())), elemType,
                               {}, loc, &temps);
    mtia::DmaOutOp::create(b, loc, scalar(op.getPtr()), ValueRange{}, ValueRange{},
                             cb, elemType, ArrayRef<int64_t>{});
    for (auto [tmp, bytes] : temps)
      mtia::CbPopOp::create(b, loc, tmp, bytes);
    return success();
  }

  auto value = tensor(op.getValue());
  if (failed(value))
    return failure();
  int64_t valueCb = value->isDense()
                        ? value->cb
                        : copyToNewTile(*value, elemType, shape, loc, &temps);

  bool done = false;
  if (auto ptr = analyzePtr(op.getPtr(), loc)) {
    std::optional<SmallVector<Value>> valid;
    if (Value mask = op.getMask())
      valid = analyzeMask(mask, shape, loc);
    else {
      valid.emplace();
      for (int64_t d : shape)
        valid->push_back(constI64(d, loc));
    }
    if (valid) {
      mtia::DmaOutOp::create(b, loc, ptr->base, ptr->strides, *valid, valueCb,
                               elemType, shape);
      done = true;
    }
  }
  if (!done) {
    auto addrs = rematerialize(op.getPtr(), loc, temps);
    if (failed(addrs))
      return unsupported(op, "its pointers could not be computed");
    Type i64 = b.getI64Type();
    int64_t addrCb = addrs->isDense()
                         ? addrs->cb
                         : copyToNewTile(*addrs, i64, shape, loc, &temps);
    int64_t maskCb = -1;
    if (Value mask = op.getMask()) {
      auto m = rematerialize(mask, loc, temps);
      if (failed(m))
        return unsupported(op, "its mask could not be computed");
      maskCb = m->isDense() ? m->cb
                            : copyToNewTile(*m, b.getI1Type(), shape, loc, &temps);
    }
    mtia::ScatterOutOp::create(b, loc, valueCb, addrCb, maskCb, elemType, shape);
  }
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  return success();
}

LogicalResult KernelLowering::lowerReduce(tt::ReduceOp op) {
  Location loc = op.getLoc();
  StringRef kind = reduceKindFor(op);
  if (kind.empty())
    return unsupported(op, "reductions whose combine region is not a single "
                           "add, mul, max, min, and, or or xor");
  auto in = tensor(op.getSrcs()[0]);
  if (failed(in))
    return failure();
  auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
  Type elemType = srcType.getElementType();
  SmallVector<int64_t> inShape(srcType.getShape());
  Lowered src = *in;
  SmallVector<std::pair<int64_t, int64_t>> temps;
  if (!src.isTile())
    src = Lowered::tile(copyToNewTile(src, elemType, inShape, loc, &temps),
                        elemType, inShape);
  Value result = op.getResult()[0];
  SmallVector<int64_t> outShape = shapeOf(result.getType());
  int64_t cb = newTile(result, elemType, outShape, loc);
  mtia::SeReduceOp::create(b, 
      loc, kind, cb, elemType, inShape, op.getAxis(),
      mtia::ViewAttr::get(b.getContext(), src.cb, src.elemType, src.offset,
                          src.strides));
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  // A scalar result used by scalar code is read into a core register now.
  if (!isa<RankedTensorType>(result.getType()) &&
      llvm::any_of(result.getUsers(),
                   [](Operation *u) { return !isa<tt::SplatOp>(u); }))
    scalars.map(result, mtia::ReadOp::create(b, loc, elemType, cb, 0));
  return success();
}

/// Tensors carried by a loop live in one CB each: the tile of the current
/// iteration at the front, the next iteration's appended behind it by the
/// yield, then the current one popped.
LogicalResult KernelLowering::lowerFor(scf::ForOp op) {
  Location loc = op.getLoc();
  SmallVector<Value> scalarInits;
  SmallVector<int64_t> carriedCb(op.getNumRegionIterArgs(), -1);
  for (auto [i, init] : llvm::enumerate(op.getInitArgs())) {
    auto type = dyn_cast<RankedTensorType>(init.getType());
    if (!type) {
      scalarInits.push_back(scalar(init));
      continue;
    }
    auto l = tensor(init);
    if (failed(l))
      return failure();
    carriedCb[i] = nextCb++;
    emitCopy(*l, carriedCb[i], tileElementType(type), type.getShape(), loc);
  }
  auto newFor = scf::ForOp::create(b, loc, scalar(op.getLowerBound()),
                                     scalar(op.getUpperBound()),
                                     scalar(op.getStep()), scalarInits);
  Block *body = newFor.getBody();
  newFor.getInductionVar().setLoc(op.getInductionVar().getLoc());
  scalars.map(op.getInductionVar(), newFor.getInductionVar());
  unsigned nextScalar = 0;
  for (auto [i, arg] : llvm::enumerate(op.getRegionIterArgs())) {
    if (carriedCb[i] < 0) {
      scalars.map(arg, newFor.getRegionIterArgs()[nextScalar++]);
      continue;
    }
    auto type = cast<RankedTensorType>(arg.getType());
    tensors[arg] = Lowered::tile(carriedCb[i], tileElementType(type), type.getShape());
  }
  {
    OpBuilder::InsertionGuard guard(b);
    if (!body->empty())
      body->back().erase(); // the builder's default yield
    b.setInsertionPointToStart(body);
    for (auto [i, arg] : llvm::enumerate(op.getRegionIterArgs()))
      if (carriedCb[i] >= 0) {
        auto type = cast<RankedTensorType>(arg.getType());
        schedulePop(arg, carriedCb[i],
                    numElements(type.getShape()) *
                        mtia::elementBytes(tileElementType(type)));
      }
    if (failed(lowerBlock(*op.getBody())))
      return failure();
    auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
    SmallVector<Value> scalarYields;
    for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
      if (carriedCb[i] < 0) {
        scalarYields.push_back(scalar(v));
        continue;
      }
      auto l = tensor(v);
      if (failed(l))
        return failure();
      auto type = cast<RankedTensorType>(v.getType());
      emitCopy(*l, carriedCb[i], tileElementType(type), type.getShape(), loc);
    }
    flushPops(b, yield, pendingPops);
    scf::YieldOp::create(b, yield.getLoc(), scalarYields);
  }
  nextScalar = 0;
  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    if (carriedCb[i] < 0) {
      scalars.map(result, newFor.getResult(nextScalar++));
      continue;
    }
    auto type = cast<RankedTensorType>(result.getType());
    tensors[result] = Lowered::tile(carriedCb[i], tileElementType(type), type.getShape());
    schedulePop(result, carriedCb[i],
                numElements(type.getShape()) * mtia::elementBytes(tileElementType(type)));
  }
  return success();
}

/// Tensor results of an scf.if are written by each branch into one CB.
LogicalResult KernelLowering::lowerIf(scf::IfOp op) {
  Location loc = op.getLoc();
  SmallVector<Type> scalarTypes;
  SmallVector<int64_t> resultCb(op.getNumResults(), -1);
  for (auto [i, type] : llvm::enumerate(op.getResultTypes())) {
    if (isa<RankedTensorType>(type))
      resultCb[i] = nextCb++;
    else
      scalarTypes.push_back(lowerScalarType(type));
  }
  auto newIf = scf::IfOp::create(b, loc, scalarTypes, scalar(op.getCondition()),
                                   /*withElseRegion=*/true);
  auto lowerBranch = [&](Region &from, Block *to) -> LogicalResult {
    OpBuilder::InsertionGuard guard(b);
    if (!to->empty() && to->back().hasTrait<OpTrait::IsTerminator>())
      to->back().erase();
    b.setInsertionPointToEnd(to);
    if (from.empty()) {
      scf::YieldOp::create(b, loc);
      return success();
    }
    if (failed(lowerBlock(from.front())))
      return failure();
    auto yield = cast<scf::YieldOp>(from.front().getTerminator());
    SmallVector<Value> scalarYields;
    for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
      if (resultCb[i] < 0) {
        scalarYields.push_back(scalar(v));
        continue;
      }
      auto l = tensor(v);
      if (failed(l))
        return failure();
      auto type = cast<RankedTensorType>(v.getType());
      emitCopy(*l, resultCb[i], tileElementType(type), type.getShape(), loc);
    }
    flushPops(b, yield, pendingPops);
    scf::YieldOp::create(b, yield.getLoc(), scalarYields);
    return success();
  };
  if (failed(lowerBranch(op.getThenRegion(), newIf.thenBlock())) ||
      failed(lowerBranch(op.getElseRegion(), newIf.elseBlock())))
    return failure();
  unsigned nextScalar = 0;
  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    if (resultCb[i] < 0) {
      scalars.map(result, newIf.getResult(nextScalar++));
      continue;
    }
    auto type = cast<RankedTensorType>(result.getType());
    tensors[result] = Lowered::tile(resultCb[i], tileElementType(type), type.getShape());
    schedulePop(result, resultCb[i],
                numElements(type.getShape()) * mtia::elementBytes(tileElementType(type)));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

FailureOr<func::FuncOp> KernelLowering::run() {
  if (src.isExternal())
    return src.emitError("external function declarations are not supported"),
           failure();
  if (!src.getBody().hasOneBlock())
    return unsupported(src, "kernels with more than one block (early returns)");
  SmallVector<Type> argTypes;
  for (Type t : src.getArgumentTypes()) {
    if (isa<RankedTensorType, tt::TensorDescType>(t))
      return src.emitError("kernel arguments must be scalars or pointers"),
             failure();
    argTypes.push_back(lowerScalarType(t));
  }
  if (!src.getResultTypes().empty())
    return unsupported(src, "device functions that return values (tt.call)");
  b.setInsertionPoint(src);
  dst = func::FuncOp::create(b, src.getLoc(), src.getName(),
                               b.getFunctionType(argTypes, {}));
  Block *entry = dst.addEntryBlock();
  for (auto [from, to] : llvm::zip(src.getArguments(), entry->getArguments())) {
    to.setLoc(from.getLoc()); // keeps the argument's name for the emitter
    scalars.map(from, to);
  }
  b.setInsertionPointToStart(entry);
  if (failed(lowerBlock(src.getBody().front()))) {
    dst.erase();
    return failure();
  }
  func::ReturnOp::create(b, src.getLoc());
  return dst;
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

struct ConvertTTToMTIA
    : public triton_mtia::impl::ConvertTTToMTIABase<ConvertTTToMTIA> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Kernels are the public functions; device functions that survived
    // Triton's inliner are reached through tt.call, which is reported where
    // it is used.
    SmallVector<tt::FuncOp> funcs(module.getOps<tt::FuncOp>());
    for (tt::FuncOp func : funcs) {
      if (func.isPrivate())
        continue;
      if (failed(KernelLowering(func).run()))
        return signalPassFailure();
    }
    for (tt::FuncOp func : funcs)
      func.erase();
  }
};

} // namespace
