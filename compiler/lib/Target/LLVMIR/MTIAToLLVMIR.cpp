//===- MTIAToLLVMIR.cpp - Emit kernels as LLVM IR -------------------------===//
//
// The second code generation path (paper 3.5): the mtia level lowered
// through MLIR's LLVM dialect. Only convert-mtia-to-llvm is ours; the
// scalar code goes through MLIR's own conversions, with two choices made
// for equal results with the C++ path:
//  * 16-bit float math is computed in f32 and rounded back, as the C++ path
//    computes std::exp and friends on float;
//  * log1p is libm's, not MLIR's approximation, as std::log1p is.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Target/LLVMIR/MTIAToLLVMIR.h"

#include "triton-mtia/Conversion/Passes.h"

// The conversions one by one: mlir/Conversion/Passes.h declares every
// conversion of MLIR and doubles this file's compile time.
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

void triton_mtia::buildLLVMLoweringPipeline(OpPassManager &pm) {
  pm.addPass(createConvertMTIAToLLVM());
  pm.addPass(math::createMathExtendToSupportedTypes());
  pm.addPass(createSCFToControlFlowPass());
  ConvertMathToLLVMPassOptions math;
  math.approximateLog1p = false;
  pm.addPass(createConvertMathToLLVMPass(math));
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

LogicalResult triton_mtia::translateToLLVMIR(ModuleOp module, raw_ostream &os, int64_t stackLimit) {
  PassManager pm(module.getContext());
  buildLLVMLoweringPipeline(pm);
  if (failed(pm.run(module)))
    return failure();
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  module.getContext()->appendDialectRegistry(registry);
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return module.emitError("cannot translate the kernel to LLVM IR");
  // The kernel runs in the simulator's process: the host is the target.
  llvmModule->setTargetTriple(llvm::Triple(llvm::sys::getDefaultTargetTriple()));
  if (stackLimit > 0)
    for (llvm::Function &fn : *llvmModule)
      if (!fn.isDeclaration())
        fn.addFnAttr("warn-stack-size", std::to_string(stackLimit));
  llvmModule->print(os, nullptr);
  return success();
}
