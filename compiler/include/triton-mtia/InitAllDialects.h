//===- InitAllDialects.h - The dialects our tools read ----------*- C++ -*-===//
//
// One list of the dialects that ttir and our own IR are written in, shared by
// triton-mtia-compile and triton-mtia-opt so that both accept the same input.
// The LLVM dialect is here only for `llvm.intr.assume`, the one LLVM op that
// Triton's frontend puts into ttir (from `tl.assume`).
//
//===----------------------------------------------------------------------===//

#ifndef TRITON_MTIA_INITALLDIALECTS_H
#define TRITON_MTIA_INITALLDIALECTS_H

#include "triton-mtia/Dialect/MTIA/IR/MTIADialect.h"
#include "triton-mtia/Dialect/TT/IR/TTDialect.h"
#include "triton-mtia/Dialect/TT/IR/TTGDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::triton_mtia {

inline void registerAllDialects(DialectRegistry &registry) {
  registry.insert<tt::TTDialect, ttg::TTGDialect, mtia::MTIADialect, func::FuncDialect,
                  arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                  cf::ControlFlowDialect, LLVM::LLVMDialect>();
}

} // namespace mlir::triton_mtia

#endif // TRITON_MTIA_INITALLDIALECTS_H
