//===- MTIAToLLVMIR.h - Emit kernels as LLVM IR -----------------*- C++ -*-===//

#ifndef TRITON_MTIA_TARGET_LLVMIR_MTIATOLLVMIR_H
#define TRITON_MTIA_TARGET_LLVMIR_MTIATOLLVMIR_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LLVM.h"

namespace mlir::triton_mtia {
/// The passes from the mtia level (CBs assigned) to the LLVM dialect:
/// convert-mtia-to-llvm, then MLIR's conversions of the scalar code.
void buildLLVMLoweringPipeline(OpPassManager &pm);

/// Writes the kernels of `module` (at the mtia level) as one LLVM IR module
/// for the host, whose functions are those the C++ path exports
/// (`mtia_kernel_NAME`, `mtia_kernel_NAME_info`). The shared object built
/// from it links runtime/include/mtia/llvm_support.h's functions.
/// `stackLimit` > 0 marks each kernel so that a frame larger than that many
/// bytes is a warning of clang's -Wframe-larger-than group (which the C++
/// path gets from the flag; for IR input it comes from the function).
LogicalResult translateToLLVMIR(ModuleOp module, raw_ostream &os, int64_t stackLimit = 0);
} // namespace mlir::triton_mtia

#endif // TRITON_MTIA_TARGET_LLVMIR_MTIATOLLVMIR_H
