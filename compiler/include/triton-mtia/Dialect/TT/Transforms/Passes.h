//===- Passes.h - Transformations of the tt ingest dialect ------*- C++ -*-===//

#ifndef TRITON_MTIA_DIALECT_TT_TRANSFORMS_PASSES_H
#define TRITON_MTIA_DIALECT_TT_TRANSFORMS_PASSES_H

#include "triton-mtia/Dialect/TT/IR/TTDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::triton_mtia::tt {
/// On the module: how many loops tt-split-masked-loops split.
inline constexpr llvm::StringLiteral kSplitLoopsAttr = "mtia.split_loops";

#define GEN_PASS_DECL
#include "triton-mtia/Dialect/TT/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "triton-mtia/Dialect/TT/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::tt

#endif // TRITON_MTIA_DIALECT_TT_TRANSFORMS_PASSES_H
