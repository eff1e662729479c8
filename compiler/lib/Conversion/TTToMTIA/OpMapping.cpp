//===- OpMapping.cpp - Which unit and opcode an op maps to ---===//
//
// Type helpers and the tables from arith/math/tt ops to SIMD engine opcodes
// and reductions (the names of runtime/include/mtia/se_ops.def).
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

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

int64_t tileBytes(RankedTensorType type) {
  return numElements(type.getShape()) * mtia::elementBytes(tileElementType(type));
}

/// Whether `op` only rearranges the elements of its operand, so that its
/// result can be a view of the operand's tile.
bool isViewOp(Operation *op) {
  if (auto gather = dyn_cast<tt::GatherOp>(op))
    return constantSliceOffset(gather).has_value();
  if (isPlacementHint(op))
    return true;
  return isa<tt::ExpandDimsOp, tt::BroadcastOp, tt::SplatOp, tt::TransOp,
             tt::SplitOp, tt::ReshapeOp>(op);
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
      .Case("rint", "Rint")
      .Case("trunc", "Trunc")
      // Vector-core math (no SE lookup table).
      .Case("log1p", "Log1p")
      .Case("expm1", "Expm1")
      .Case("log10", "Log10")
      .Case("exp10", "Exp10")
      .Case("tan", "Tan")
      .Case("atan", "Atan")
      .Case("asin", "Asin")
      .Case("acos", "Acos")
      .Case("sinh", "Sinh")
      .Case("cosh", "Cosh")
      .Case("asinh", "Asinh")
      .Case("acosh", "Acosh")
      .Case("atanh", "Atanh")
      .Case("erfc", "Erfc")
      .Case("cbrt", "Cbrt")
      .Case("lgamma", "Lgamma")
      .Case("tgamma", "Tgamma")
      .Case("logb", "Logb")
      .Case("atan2", "Atan2")
      .Case("remainder", "Remainder")
      .Case("nextafter", "Nextafter")
      .Case("erfinv", "Erfinv")
      .Case("erfcx", "Erfcx")
      .Case("cyl_bessel_i0", "BesselI0")
      .Case("cyl_bessel_i1", "BesselI1")
      .Case("j0", "BesselJ0")
      .Case("j1", "BesselJ1")
      .Case("y0", "BesselY0")
      .Case("y1", "BesselY1")
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
        return elementTypeOf(o.getIn().getType()).isInteger(1) ? "Copy" : "CopyU";
      })
      // Casts that need the unsigned or bit-level opcodes (Casts.cpp lowers
      // their scalar forms and pointer casts).
      .Case<arith::UIToFPOp>([](auto) { return "CopyU"; })
      .Case<arith::FPToUIOp>([](auto) { return "CopyToU"; })
      .Case<arith::BitcastOp>([](auto) { return "Bitcast"; })
      .Case<tt::BitcastOp>([](tt::BitcastOp o) -> StringRef {
        return isa<tt::PointerType>(elementTypeOf(o.getType())) ? "" : "Bitcast";
      })
      .Case<tt::FpToFpOp>([](tt::FpToFpOp o) -> StringRef {
        auto r = o.getRounding();
        return r && *r == tt::RoundingMode::RTZ ? "" : "Copy";
      })
      .Case<tt::MulhiUIOp>([](auto) { return "MulHiU"; })
      .Case<math::RoundEvenOp>([](auto) { return "Rint"; })
      .Case<math::TruncOp>([](auto) { return "Trunc"; })
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

/// The SE reduction kind of a combine block (of a reduce or a scan) that is
/// one binary op of its two arguments, or "".
StringRef combineKindFor(Block &body) {
  if (body.getNumArguments() != 2 || body.getOperations().size() != 2)
    return "";
  Operation &combine = body.front();
  Operation *ret = body.getTerminator();
  if (ret->getNumOperands() != 1 || ret->getOperand(0) != combine.getResult(0) ||
      combine.getNumOperands() != 2)
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

StringRef reduceKindFor(tt::ReduceOp op) {
  return op.getSrcs().size() == 1 ? combineKindFor(op.getCombineOp().front()) : "";
}

//===----------------------------------------------------------------------===//
// KernelLowering
//===----------------------------------------------------------------------===//

} // namespace mlir::triton_mtia::tt_to_mtia
