//===- triton-mtia-opt.cpp - The compiler's mlir-opt ----------------------===//
//
// Parses, verifies, transforms and prints IR of our dialects; the driver of
// the lit tests. The C++ and LLVM IR a module translates to come from
// triton-mtia-compile (--emit-mlir shows the mtia IR they start from).
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Conversion/Passes.h"
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h"
#include "triton-mtia/Dialect/TT/Transforms/Passes.h"
#include "triton-mtia/InitAllDialects.h"
#include "triton-mtia/Pipeline/Pipeline.h"
#include "triton-mtia/Target/Cpp/MTIAToCpp.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  mlir::triton_mtia::registerTritonMTIAConversionPasses();
  mlir::triton_mtia::mtia::registerTritonMTIATransformsPasses();
  mlir::triton_mtia::tt::registerTritonMTIATTTransformsPasses();
  mlir::triton_mtia::registerMTIAPipelines();
  mlir::DialectRegistry registry;
  mlir::triton_mtia::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "triton-mtia optimizer driver\n", registry));
}
