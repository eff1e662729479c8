//===- MTIAToCpp.h - Emit kernels as human-readable C++ ---------*- C++ -*-===//

#ifndef TRITON_MTIA_TARGET_CPP_MTIATOCPP_H
#define TRITON_MTIA_TARGET_CPP_MTIATOCPP_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace mlir::triton_mtia {
/// Writes each func.func of `module` (scalar arith/math/scf code plus mtia
/// commands, with physical CBs assigned) as a C++ kernel against
/// runtime/include/mtia/device.h. Source lines of the Triton kernel appear as
/// comments above the code they produced.
LogicalResult translateToCpp(ModuleOp module, raw_ostream &os);
} // namespace mlir::triton_mtia

#endif // TRITON_MTIA_TARGET_CPP_MTIATOCPP_H
