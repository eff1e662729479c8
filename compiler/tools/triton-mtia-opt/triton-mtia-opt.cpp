//===- triton-mtia-opt.cpp - The compiler's mlir-opt ----------------------===//
//
// Parses, verifies, transforms and prints IR of our dialects; the driver of
// the lit tests.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/TT/IR/TTDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  mlir::DialectRegistry registry;
  registry.insert<mlir::triton_mtia::tt::TTDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::cf::ControlFlowDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "triton-mtia optimizer driver\n", registry));
}
