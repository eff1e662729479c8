//===- TTDialect.h - The tt ingest dialect ----------------------*- C++ -*-===//
//
// Our own definition of the subset of Triton IR that upstream Triton prints
// as ttir. See TTDialect.td and docs/dialects/tt.md.
//
//===----------------------------------------------------------------------===//

#ifndef TRITON_MTIA_DIALECT_TT_IR_TTDIALECT_H
#define TRITON_MTIA_DIALECT_TT_IR_TTDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "triton-mtia/Dialect/TT/IR/TTDialect.h.inc"
#include "triton-mtia/Dialect/TT/IR/TTEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "triton-mtia/Dialect/TT/IR/TTTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "triton-mtia/Dialect/TT/IR/TTAttrs.h.inc"

namespace mlir::triton_mtia::tt {
/// The element type a pointer (or tensor of pointers) points to, with the
/// pointer's shape: `!tt.ptr<f32>` -> f32, `tensor<4x!tt.ptr<f32>>` ->
/// `tensor<4xf32>`.
Type getPointeeType(Type ptrLike);
/// `i1` with the shape of `type` (a scalar stays a scalar).
Type getI1SameShape(Type type);
} // namespace mlir::triton_mtia::tt

#define GET_OP_CLASSES
#include "triton-mtia/Dialect/TT/IR/TTOps.h.inc"

#endif // TRITON_MTIA_DIALECT_TT_IR_TTDIALECT_H
