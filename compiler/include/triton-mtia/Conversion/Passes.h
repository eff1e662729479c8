//===- Passes.h - Conversions between our dialects --------------*- C++ -*-===//

#ifndef TRITON_MTIA_CONVERSION_PASSES_H
#define TRITON_MTIA_CONVERSION_PASSES_H

#include "triton-mtia/Dialect/MTIA/IR/MTIADialect.h"
#include "triton-mtia/Dialect/TT/IR/TTDialect.h"
#include "triton-mtia/Dialect/TT/IR/TTGDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::triton_mtia {
#define GEN_PASS_DECL
#include "triton-mtia/Conversion/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "triton-mtia/Conversion/Passes.h.inc"
} // namespace mlir::triton_mtia

#endif // TRITON_MTIA_CONVERSION_PASSES_H
