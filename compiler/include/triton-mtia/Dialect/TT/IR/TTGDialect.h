//===- TTGDialect.h - The ttg op ttir can contain ---------------*- C++ -*-===//
//
// See TTGOps.td: a one-op dialect so that `ttg.barrier all` parses.
//
//===----------------------------------------------------------------------===//

#ifndef TRITON_MTIA_DIALECT_TT_IR_TTGDIALECT_H
#define TRITON_MTIA_DIALECT_TT_IR_TTGDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "triton-mtia/Dialect/TT/IR/TTGDialect.h.inc"

#define GET_OP_CLASSES
#include "triton-mtia/Dialect/TT/IR/TTGOps.h.inc"

#endif // TRITON_MTIA_DIALECT_TT_IR_TTGDIALECT_H
