//===- KernelLowering.h - State of the tt-to-mtia lowering ------*- C++ -*-===//
//
// Private to the TTToMTIA conversion: the representation of lowered tensor
// values and the KernelLowering class whose member functions are spread over
// the files of this directory, one family of ops per file.
//
//===----------------------------------------------------------------------===//

#ifndef TRITON_MTIA_LIB_CONVERSION_TTTOMTIA_KERNELLOWERING_H
#define TRITON_MTIA_LIB_CONVERSION_TTTOMTIA_KERNELLOWERING_H

#include "triton-mtia/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::triton_mtia::tt_to_mtia {

namespace tt = mlir::triton_mtia::tt;
namespace mtia = mlir::triton_mtia::mtia;

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

/// The digits of a tile's index: each dimension d of size n_d written in
/// the mixed radix parts[d] = {q_1, ..., q_m} (outer to inner, product n_d),
/// i_d = sum_k j_k * q_{k+1} * ... * q_m with 0 <= j_k < q_k. One digit per
/// dimension ({n_d}) is the usual case; `//` and `%` by constants split a
/// dimension into more (Inductor's index math, IndexMath.cpp).
using Digits = SmallVector<SmallVector<int64_t, 2>>;

/// An affine index expression over the digits of a tile's iteration space:
/// value[i] = base + sum_k stride[k] * j_k, all lowered i64 scalars.
/// `parts` empty means one digit per dimension (strides per dimension).
struct Affine {
  Value base;
  SmallVector<Value> strides;
  Digits parts;
};

/// The region of a tile a mask keeps, as a box: mask[i] = AND_d (begin[d] <=
/// i_d < end[d]), one i64 scalar per dimension, clamped to [0, size_d].
struct MaskBox {
  SmallVector<Value> begin;
  SmallVector<Value> end;
};

/// A structured access: base byte address, element strides and the region
/// that moves, [begin, valid) per dimension (all lowered i64 scalars);
/// `begin` is empty when it is 0 in every dimension.
struct StridedBox {
  Value base;
  SmallVector<Value> strides;
  SmallVector<Value> valid;
  SmallVector<Value> begin;
  /// The box's dense shape: the tile's shape, or its digits where `//` and
  /// `%` split dimensions (the same bytes in the same order).
  SmallVector<int64_t> shape;
};

/// CBs holding the address tile (I64) and the mask tile (I1, or -1) of an
/// access by per-element addresses.
struct AddressTiles {
  int64_t addrCb = -1;
  int64_t maskCb = -1;
};

using mtia::numElements;
/// The tile shape of a source type (rank 0 for scalars).
SmallVector<int64_t> shapeOf(Type type);
Type elementTypeOf(Type type);
/// `a`'s digits: its parts, or one digit per dimension of `shape`.
Digits digitsOf(const Affine &a, ArrayRef<int64_t> shape);
/// The position of dimension `dim`'s outermost digit among all digits.
int64_t firstDigit(const Digits &digits, int64_t dim);
/// The digits' sizes, outer to inner, dimension after dimension.
SmallVector<int64_t> digitShape(const Digits &digits);
/// Merges digits that only spell out their dimension's index (IndexMath.cpp).
bool coarsenDigits(Affine &a);
/// A positive integer that divides the lowered scalar `v` in every run (1 if
/// nothing better is known): constants, products, sums, min / max, casts and
/// kernel arguments with Triton's `tt.divisibility`.
int64_t knownDivisor(Value v);
/// Whether the lowered scalar `v` is >= 0 in every run (program ids,
/// non-negative constants and what sums, products and casts make of them).
bool knownNonNegative(Value v);
/// Lowered scalar type: pointers become i64 byte addresses.
Type lowerScalarType(Type type);
/// Element type of a tile in local memory: pointers are i64 addresses.
Type tileElementType(Type type);
/// Bytes of a tile of tensor type `type` in local memory.
int64_t tileBytes(RankedTensorType type);
/// Whether `op` only rearranges the elements of its operand, so that its
/// result can be a view of the operand's tile.
bool isViewOp(Operation *op);
/// The offset along its axis at which a gather takes a contiguous slice of
/// its source: indices known at compile time, `offset + i_axis` at every
/// position (`mtl.extract_slice` at constant offsets), in range. Such a
/// gather is a view of the source's tile (ReduceScan.cpp).
std::optional<int64_t> constantSliceOffset(tt::GatherOp op);
/// Whether `op` is a placement hint (`mtl.core_hint`, `mtl.unit_hint`): an
/// identity whose result is its operand's tile (Language.cpp).
bool isPlacementHint(Operation *op);
/// The SE opcode of a libdevice function (`__mtia_<name>`), or "".
StringRef libdeviceOpcode(StringRef symbol);
/// Name of the SE opcode for an elementwise arith/math op, or "".
StringRef seOpcodeFor(Operation *op);
/// The SE reduction kind of a combine block (of a reduce or a scan) that is
/// one binary op of its two arguments, or "".
StringRef combineKindFor(Block &body);
/// combineKindFor of a single-operand reduction, or "".
StringRef reduceKindFor(tt::ReduceOp op);



/// Lowers one tt.func. Errors are reported at the source op's location and
/// make `run` fail; the partially built function is then erased.
class KernelLowering {
public:
  KernelLowering(tt::FuncOp func) : src(func), b(func.getContext()) {}

  FailureOr<func::FuncOp> run();

  /// Options of the pass (see Passes.td): remarks for accesses that are not
  /// DMAs; poison instead of zero in masked-out lanes of loads without other.
  bool dmaReport = false;
  bool poisonMaskedLoads = false;
  /// `//` and `%` by constants in addresses become digits of a DMA box.
  bool indexMath = true;
  /// Where libdevice calls run: "auto" (the SE where it has a lookup table,
  /// else the vector core; mtia-share-vector-core may move them), "se" or
  /// "vec" (pinned there; vector-only math stays on the vector core).
  std::string libdeviceUnit = "auto";

private:
  // Blocks and ops.
  LogicalResult lowerBlock(Block &block);
  LogicalResult lowerOp(Operation *op);
  LogicalResult lowerScalarOp(Operation *op);
  LogicalResult lowerTensorOp(Operation *op);
  LogicalResult lowerElementwise(Operation *op, StringRef opcode);
  Value scalarLibdevice(tt::ExternElementwiseOp op, ArrayRef<Value> args);
  LogicalResult lowerLoad(tt::LoadOp op);
  LogicalResult lowerStore(tt::StoreOp op);
  LogicalResult lowerReduce(tt::ReduceOp op);
  LogicalResult lowerFor(scf::ForOp op);
  LogicalResult lowerIf(scf::IfOp op);
  // Matrix and layout ops (Dot.cpp, Layout.cpp).
  LogicalResult lowerDot(tt::DotOp op);
  LogicalResult lowerDotOnSimdEngine(tt::DotOp op);
  FailureOr<Lowered> dotOperand(Value v, Location loc,
                                SmallVectorImpl<std::pair<int64_t, int64_t>> &temps);
  LogicalResult lowerTrans(tt::TransOp op);
  LogicalResult lowerReshape(tt::ReshapeOp op);
  LogicalResult lowerJoin(tt::JoinOp op);
  LogicalResult lowerSplit(tt::SplitOp op);
  void emitMove(const Lowered &from, int64_t dstCb, Type elemType,
                ArrayRef<int64_t> shape, Location loc);
  // Pointer and offset tensors carried by loops (LoopCarried.cpp).
  bool isCarriedAddress(scf::ForOp loop, unsigned i);
  bool isCarriedAddressValue(Value v);
  bool isAddressUse(OpOperand &use, bool pointer);
  std::optional<SmallVector<Value>> carriedAddressInit(scf::ForOp loop, unsigned i);
  void bindCarriedAddress(Value v, ValueRange carried);
  FailureOr<SmallVector<Value>> carriedAddressNext(scf::ForOp loop, unsigned i);
  Lowered materializeAffine(const Affine &a, RankedTensorType type, Location loc,
                            SmallVectorImpl<std::pair<int64_t, int64_t>> &temps);
  void materializeCarried(Value v, Location loc);
  void registerYieldTargets(Block *body, ArrayRef<int64_t> carriedCb);
  int64_t newResultTile(Value root, Type elemType, ArrayRef<int64_t> shape,
                        Location loc);
  LogicalResult lowerYield(scf::YieldOp yield, ArrayRef<int64_t> yieldCb);

  // Values.
  Value scalar(Value v);
  FailureOr<Lowered> tensor(Value v);
  Attribute sourceOf(const Lowered &l, SmallVectorImpl<Value> &imms);
  int64_t newTile(Value root, Type elemType, ArrayRef<int64_t> shape,
                  Location loc);
  void schedulePop(Value root, int64_t cb, int64_t bytes);
  /// `v`, a tensor that a loop carries or a branch yields in CB `cb`, is the
  /// tile at that CB's front, popped after its last reader.
  void bindCbFront(Value v, int64_t cb);
  void flushPops(Operation *op);
  int64_t copyToNewTile(const Lowered &from, Type elemType,
                        ArrayRef<int64_t> shape, Location loc,
                        SmallVectorImpl<std::pair<int64_t, int64_t>> *temps);
  void emitCopy(const Lowered &from, int64_t dstCb, Type elemType,
                ArrayRef<int64_t> shape, Location loc);
  /// One elementwise command `opcode` into `cb`, on the SE, or on the vector
  /// core for math the SE has no lookup table for.
  void emitElementwise(Location loc, ArrayRef<Value> imms, StringRef opcode, int64_t cb,
                       Type elemType, ArrayRef<int64_t> shape, ArrayRef<Attribute> srcs);

  // Address-only values and the structured-access analysis.
  bool isAddressOnly(Value v);
  std::optional<Affine> analyzeIndex(Value v, Location loc);
  void reshapeAffine(Affine &a, Operation *def, Location loc);
  std::optional<Affine> analyzePtr(Value v, Location loc);
  std::optional<Affine> analyzeAddress(Value v, Location loc);
  std::optional<MaskBox> analyzeMask(Value mask, ArrayRef<int64_t> shape,
                                     Location loc);
  // Index math by constants (IndexMath.cpp).
  std::optional<Affine> analyzeDivRem(Operation *def, Location loc);
  void refineDigits(Affine &a, const Digits &to, Location loc);
  bool unifyDigits(Affine &x, Affine &y, ArrayRef<int64_t> shape, Location loc);
  std::optional<MaskBox> analyzeCompare(arith::CmpIOp cmp,
                                        ArrayRef<int64_t> shape, Location loc);
  std::optional<StridedBox> structuredBox(Value ptr, Value mask,
                                         ArrayRef<int64_t> shape, Location loc);
  /// Reorders `box` (of a tile of `shape`, no digits) so that its unit-stride
  /// dimension moves innermost where the tile's innermost dimension does not
  /// have unit stride (a column of a row-major matrix along the tile's rows)
  /// and the unit-stride runs fill a memory granule; returns the tile
  /// dimension that each of the box's dimensions now moves, outermost first,
  /// or nothing where the box stays as it is.
  std::optional<SmallVector<int64_t>> moveInMemoryOrder(StridedBox &box, ArrayRef<int64_t> shape,
                                                         Type elemType);
  /// The scalar address a tensor of pointers is offsets from (a splat
  /// pointer moved by tt.addptr, through layout ops), or null.
  Value pointerBase(Value ptr);
  FailureOr<AddressTiles>
  addressTiles(Operation *op, Value ptr, Value mask, ArrayRef<int64_t> shape,
               Location loc, SmallVectorImpl<std::pair<int64_t, int64_t>> &temps);
  FailureOr<Lowered> rematerialize(
      Value v, Location loc,
      SmallVectorImpl<std::pair<int64_t, int64_t>> &temps);
  /// For the addresses `base + (x + y) * elemBytes` of a gather whose
  /// offset `sum` adds broadcast operands: `base + x * elemBytes` and
  /// `y * elemBytes` (i64 views over `shape`), each computed at its own
  /// shape, for one full-size add; nothing where `sum` is not of that form.
  FailureOr<std::optional<std::pair<Lowered, Lowered>>>
  broadcastSumAddresses(Value base, arith::AddIOp sum, int64_t elemBytes, ArrayRef<int64_t> shape,
                        Location loc, SmallVectorImpl<std::pair<int64_t, int64_t>> &temps);
  /// Offsets `off` (elements; a tile, perhaps broadcast, or a splat) as i64
  /// byte offsets, computed over the dimensions `off` does not broadcast
  /// and viewed again over `shape`.
  Lowered bytesAtOwnShape(const Lowered &off, int64_t elemBytes, ArrayRef<int64_t> shape,
                          Location loc, SmallVectorImpl<std::pair<int64_t, int64_t>> &temps);
  /// One i64 SE command `opcode` on tile `l` (and an immediate, first or
  /// last) over the dimensions `l` does not broadcast, into a new tile
  /// viewed again over `shape`.
  Lowered i64AtOwnShape(StringRef opcode, const Lowered &l, Value imm, bool immFirst,
                        ArrayRef<int64_t> shape, Location loc,
                        SmallVectorImpl<std::pair<int64_t, int64_t>> &temps);

  // The rest of the Triton language (Atomics.cpp, ReduceScan.cpp, Casts.cpp,
  // Debug.cpp, While.cpp). `lowerLanguageOp` returns std::nullopt for ops it
  // does not own, so lowerOp can ask it first.
  std::optional<LogicalResult> lowerLanguageOp(Operation *op);
  /// `mtl.get_pe_id` and `mtl.get_pe_grid_size` (Language.cpp); std::nullopt
  /// for any other extern function.
  std::optional<LogicalResult> lowerPeQuery(tt::ExternElementwiseOp ext);
  /// `mtl.re_reduce` and `mtl.broadcast` (Language.cpp); std::nullopt for
  /// any other extern function.
  std::optional<LogicalResult> lowerCrossPe(tt::ExternElementwiseOp ext);
  /// `mtl.core_hint` and `mtl.unit_hint` (Language.cpp).
  std::optional<LogicalResult> lowerPlacementHint(tt::ExternElementwiseOp ext);
  LogicalResult lowerAtomicRmw(tt::AtomicRMWOp op);
  LogicalResult lowerAtomicCas(tt::AtomicCASOp op);
  LogicalResult lowerCombineReduce(tt::ReduceOp op);
  LogicalResult lowerScan(tt::ScanOp op);
  LogicalResult lowerHistogram(tt::HistogramOp op);
  LogicalResult lowerGather(tt::GatherOp op);
  FailureOr<SmallVector<Lowered>>
  lowerCombine(Block &body, ArrayRef<Lowered> args, ArrayRef<int64_t> shape,
               Location loc, SmallVectorImpl<std::pair<int64_t, int64_t>> &temps);
  std::optional<LogicalResult> lowerCast(Operation *op);
  LogicalResult lowerPrint(tt::PrintOp op);
  LogicalResult lowerAssert(tt::AssertOp op);
  LogicalResult lowerWhile(scf::WhileOp op);
  int64_t denseCb(const Lowered &l, Type elemType, ArrayRef<int64_t> shape,
                  Location loc,
                  SmallVectorImpl<std::pair<int64_t, int64_t>> &temps);
  void reportNonDma(Operation *op, Value ptr, Value mask,
                    ArrayRef<int64_t> shape);
  Value poisonPad(Type elemType, Location loc);

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
  /// Loop-carried pointer and offset tensors: whether each iter_arg is one,
  /// and the loop-invariant strides (and digits) of those whose base is
  /// carried as a scalar (keyed by the source iter_arg and loop result).
  DenseMap<Value, bool> carriedAddress;
  DenseMap<Value, Affine> carriedStrides;
  /// Per carried iter_arg: whether every step is uniform, so that its
  /// strides stay those of the initial value (else they are carried too).
  DenseMap<Value, bool> carriedFixedStrides;
  /// Values whose only use is a loop's yield into a carried CB, and those
  /// that were produced straight into it (their yield copies nothing).
  DenseMap<Value, int64_t> yieldTargets;
  DenseSet<Value> producedInPlace;
  DenseMap<Operation *, SmallVector<std::pair<int64_t, int64_t>>> pendingPops;
  int64_t nextCb = 0;
};

} // namespace mlir::triton_mtia::tt_to_mtia

#endif // TRITON_MTIA_LIB_CONVERSION_TTTOMTIA_KERNELLOWERING_H
