//===- TTDialect.td - The ingest dialect for Triton IR -----*- tablegen -*-===//
//
// Our own definition of the `tt` dialect: just enough of Triton's interchange
// format to parse the ttir text that upstream Triton (pinned version, see
// docs/dependencies.md) prints. Op names, operands, attributes and syntax are
// facts of that format; everything else (verifiers, helpers) is ours.
// See docs/dialects/tt.md for the rationale.
//
//===----------------------------------------------------------------------===//

#ifndef TRITON_MTIA_TT_DIALECT
#define TRITON_MTIA_TT_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/EnumAttr.td"

def TT_Dialect : Dialect {
  let name = "tt";
  let cppNamespace = "::mlir::triton_mtia::tt";
  let summary = "Triton IR as printed by upstream Triton, parsed by our own definitions";
  let description = [{
    The ingest dialect. The compiler never produces `tt` ops; it reads them
    from the text Triton's frontend prints and lowers them to `mtia`.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect", "::mlir::cf::ControlFlowDialect"];
}

class TT_Op<string mnemonic, list<Trait> traits = []>
    : Op<TT_Dialect, mnemonic, traits>;

#endif // TRITON_MTIA_TT_DIALECT
