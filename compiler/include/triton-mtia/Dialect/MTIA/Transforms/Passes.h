//===- Passes.h - Transformations of the mtia dialect -----------*- C++ -*-===//

#ifndef TRITON_MTIA_DIALECT_MTIA_TRANSFORMS_PASSES_H
#define TRITON_MTIA_DIALECT_MTIA_TRANSFORMS_PASSES_H

#include "triton-mtia/Dialect/MTIA/IR/MTIADialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir::triton_mtia::mtia {
#define GEN_PASS_DECL
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::mtia

#endif // TRITON_MTIA_DIALECT_MTIA_TRANSFORMS_PASSES_H
