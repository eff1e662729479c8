//===- MTIADialect.h - The mtia command dialect -----------------*- C++ -*-===//

#ifndef TRITON_MTIA_DIALECT_MTIA_IR_MTIADIALECT_H
#define TRITON_MTIA_DIALECT_MTIA_IR_MTIADIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "triton-mtia/Dialect/MTIA/IR/MTIADialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "triton-mtia/Dialect/MTIA/IR/MTIAAttrs.h.inc"

#define GET_OP_CLASSES
#include "triton-mtia/Dialect/MTIA/IR/MTIAOps.h.inc"

namespace mlir::triton_mtia::mtia {
/// Name of the function attribute holding the capacity in bytes of each
/// physical CB (set by mtia-assign-cbs).
inline constexpr llvm::StringLiteral kCbCapacityAttr = "mtia.cb_capacity";
/// Unit attribute of a kernel argument (an argument attribute) or of an
/// `mtia.read` result that holds a pointer: a byte address into some
/// allocation. The lowering sets it; mtia-order-memory finds the pointer an
/// access goes through by it.
inline constexpr llvm::StringLiteral kPointerAttr = "mtia.pointer";
/// Unit attribute of a command that appends a tile to its `cb`: the command
/// pops the front tile of `cb`, of its result's size, as it reads it, and
/// its result takes that room (device.h replaceFront). Set by
/// mtia-replace-front in place of the `mtia.cb_pop` that followed it.
inline constexpr llvm::StringLiteral kReplaceFrontAttr = "mtia.replace_front";
/// On a function: how many of its loops mtia-pipeline-commands rewrote.
inline constexpr llvm::StringLiteral kPipelinedLoopsAttr = "mtia.pipelined_loops";
/// On a function: how many of its loads mtia-issue-loads-early moved.
inline constexpr llvm::StringLiteral kEarlyLoadsAttr = "mtia.early_loads";
/// On a command: the RISC-V core that issues it, 1 (the vector core);
/// absent: core 0. Set by mtia-dual-issue, read by the C++ emitter.
inline constexpr llvm::StringLiteral kCoreAttr = "mtia.core";
/// On a scalar op: the cores whose code computes it, a mask (bit 0: core 0,
/// bit 1: core 1); absent: core 0. Set by mtia-dual-issue, read by
/// mtia-scalar-cost.
inline constexpr llvm::StringLiteral kIssueCoresAttr = "mtia.issue_cores";
/// On a function: mtia-dual-issue split its commands between the cores.
inline constexpr llvm::StringLiteral kDualIssueAttr = "mtia.dual_issue";
/// On a command: the RISC-V core (0 scalar, 1 vector) a kernel author asked
/// to issue it (`mtl.core_hint`); mtia-dual-issue follows it.
inline constexpr llvm::StringLiteral kCoreHintAttr = "mtia.core_hint";
/// On an `mtia.se`: its unit was chosen by the kernel author
/// (`mtl.unit_hint`) or a compile option (`libdevice_unit`), so
/// mtia-share-vector-core neither moves nor splits it.
inline constexpr llvm::StringLiteral kPinnedAttr = "mtia.pinned";
/// Dimensions of the tiles the compute units iterate and of a DMA box: the
/// device API's kMaxRank and kMaxBoxRank (runtime/include/mtia/device.h,
/// whose `mtia` namespace would clash with this one; MTIADialect.cpp checks
/// that they agree).
inline constexpr int64_t kTileRank = 4;
inline constexpr int64_t kBoxRank = 8;
/// Inputs and steps of a fused vector loop: the device API's kMaxLoopInputs
/// and kMaxLoopSteps.
inline constexpr int64_t kLoopInputs = 8;
inline constexpr int64_t kLoopSteps = 16;
/// Bytes of one element of `type` in local memory (i1 takes one byte).
int64_t elementBytes(Type type);
/// Elements of a tile of `shape` (1 for rank 0).
int64_t numElements(llvm::ArrayRef<int64_t> shape);
/// Whether `name` is an opcode of se_ops.def; sets `arity` if so.
bool lookupSeOpcode(llvm::StringRef name, int &arity);
/// Whether opcode `name` runs only on the RISC-V vector core (MTIA_VEC_OP in
/// se_ops.def).
bool isVectorOnlyOpcode(llvm::StringRef name);
/// Whether `name` is a reduction of se_reduce_ops.def.
bool isSeReduceKind(llvm::StringRef name);
/// The CB ids an op reads and the one it appends a tile to (or -1).
struct CbUses {
  llvm::SmallVector<int64_t, 4> reads;
  int64_t writes = -1;
};
CbUses getCbUses(Operation *op);
/// The ops under `root` (nested regions included, in walk order) that
/// append to, read and pop each CB; an op that reads a CB twice is listed
/// once.
struct CbUsers {
  llvm::DenseMap<int64_t, llvm::SmallVector<Operation *>> writers, readers, pops;
};
CbUsers collectCbUsers(Operation *root);
/// Bytes of the tile a command appends to its CB (`getCbUses(op).writes`).
int64_t producedBytes(Operation *op);
/// Whether `op` is a pure scalar op of the core (address and bound
/// arithmetic): no regions, no effects, scalar results.
bool isPureScalar(Operation *op);
/// Whether `op` is `tl.assume`'s `llvm.intr.assume`, which the core's code
/// keeps as a fact for its C++ compiler (matched by name: the LLVM
/// dialect's headers are not worth parsing for one op).
bool isAssumption(Operation *op);
/// Cycles per strip of VLEN bits of a vector-core loop over `shape`
/// reading `srcs` (the simulator's vecStripCycles, device.h vecLoop): the
/// busier of the local-memory port (a load per view that steps along the
/// innermost dimension of more than one element, and a store) and the ALU
/// (`aluPasses`).
int64_t vecCyclesPerStrip(llvm::ArrayRef<int64_t> shape, ArrayAttr srcs,
                                int64_t aluPasses);
/// The elements of its CB that `view` reads over `shape`: the first, and
/// one past the last.
std::pair<int64_t, int64_t> viewElementRange(ViewAttr view, llvm::ArrayRef<int64_t> shape);
/// Whether `view` reads a tile of `shape` element for element, from element
/// `offset` of its CB on (dimensions of one element may have any stride).
bool isDenseView(ViewAttr view, llvm::ArrayRef<int64_t> shape, int64_t offset);
/// Whether two effective shapes (`valid` operands) are the same: the same
/// values or equal constants, dimension by dimension (both empty: whole).
bool sameEffectiveShape(ValueRange a, ValueRange b);
/// Rewrites every CB id of `op` through `map`.
void remapCbs(Operation *op, llvm::function_ref<int64_t(int64_t)> map);
} // namespace mlir::triton_mtia::mtia

#endif // TRITON_MTIA_DIALECT_MTIA_IR_MTIADIALECT_H
