//===- MTIAOps.td - The mtia command dialect ---------------*- tablegen -*-===//
//
// `mtia` is the level at which a kernel is a scalar program for the PE's
// RISC-V core that issues commands to fixed-function units. Tensors are gone:
// every tile lives in a circular buffer (CB), named by an integer id, and
// every op below is one command of runtime/include/mtia/device.h. Scalar code
// (arith, math, scf) stays in upstream dialects. See docs/dialects/mtia.md.
//
// CB ids are virtual after tt-to-mtia (one per tile value) and physical
// (< 15) after mtia-assign-cbs.
//
//===----------------------------------------------------------------------===//

#ifndef TRITON_MTIA_MTIA_OPS
#define TRITON_MTIA_MTIA_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def MTIA_Dialect : Dialect {
  let name = "mtia";
  let cppNamespace = "::mlir::triton_mtia::mtia";
  let summary = "commands of an MTIA processing element on circular buffers";
  let useDefaultAttributePrinterParser = 1;
}

class MTIA_Op<string mnemonic, list<Trait> traits = []>
    : Op<MTIA_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

/// A strided view of the front of a CB, read by an SE command:
/// `#mtia.view<cb = 3, elemType = f32, offset = 0, strides = [1, 0]>`.
def MTIA_ViewAttr : AttrDef<MTIA_Dialect, "View"> {
  let mnemonic = "view";
  let parameters = (ins "int64_t":$cb, "::mlir::Type":$elemType,
                        "int64_t":$offset,
                        ArrayRefParameter<"int64_t">:$strides);
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// The same view reading another CB.
    ViewAttr withCb(int64_t newCb) const {
      return get(getContext(), newCb, getElemType(), getOffset(), getStrides());
    }
  }];
}

/// Placeholder in an SE command's source list for "the next immediate
/// operand" (a scalar from a core register).
def MTIA_ImmAttr : AttrDef<MTIA_Dialect, "Imm"> {
  let mnemonic = "imm";
}

/// One step of a fused vector loop (`mtia.vec_loop`): `opcode` over `args`,
/// rounded to `elemType`. An argument >= 0 is that input of the loop; -1 - k
/// is the result of step k, an earlier one (device.h VecStep).
def MTIA_VecStepAttr : AttrDef<MTIA_Dialect, "VecStep"> {
  let mnemonic = "vec_step";
  let parameters = (ins StringRefParameter<>:$opcode, "::mlir::Type":$elemType,
                        ArrayRefParameter<"int64_t">:$args);
  let assemblyFormat = "`<` struct(params) `>`";
}

//===----------------------------------------------------------------------===//
// Program ids
//===----------------------------------------------------------------------===//

def MTIA_ProgramIdOp : MTIA_Op<"program_id", [Pure]> {
  let arguments = (ins I32Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def MTIA_NumProgramsOp : MTIA_Op<"num_programs", [Pure]> {
  let arguments = (ins I32Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// The PE a program runs on (language extension `mtl.get_pe_id`)
//===----------------------------------------------------------------------===//

def MTIA_PeIdOp : MTIA_Op<"pe_id", [Pure]> {
  let summary = "the row (axis 0) or column (axis 1) of the PE running the program";
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<1>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def MTIA_PeGridSizeOp : MTIA_Op<"pe_grid_size", [Pure]> {
  let summary = "the PE grid's rows (axis 0) or columns (axis 1)";
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<1>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Fabric interface (DMA)
//===----------------------------------------------------------------------===//

def MTIA_DmaInOp : MTIA_Op<"dma_in", [AttrSizedOperandSegments]> {
  let summary = "N-D strided block of memory -> a new tile at the back of a CB";
  let description = [{
    Element i of the dense tile of `shape` is at `addr + sum_d i_d *
    strides[d]` elements. Only the elements with `begin[d] <= i_d <
    valid[d]` in every dimension move; the rest of the tile takes `pad`
    (zero if absent). `begin` is either empty (0 in every dimension, the
    leading box of a mask `i < bound`) or one value per dimension (a mask
    with lower bounds, `lo <= i < hi`).
  }];
  let arguments = (ins I64:$addr, Variadic<I64>:$strides, Variadic<I64>:$valid,
                       Variadic<I64>:$begin, Optional<AnyType>:$pad, I64Attr:$cb,
                       TypeAttr:$elemType, DenseI64ArrayAttr:$shape);
  let assemblyFormat = [{
    $addr `strides` `(` $strides `)` `valid` `(` $valid `)`
    (`begin` `(` $begin^ `)`)? (`pad` $pad^ `:` type($pad))? attr-dict
  }];
  let hasVerifier = 1;
}

def MTIA_DmaOutOp : MTIA_Op<"dma_out", [AttrSizedOperandSegments]> {
  let summary = "the valid part of the front tile of a CB -> N-D strided memory";
  let description = [{
    As `dma_in`: the elements with `begin[d] <= i_d < valid[d]` are written;
    memory outside that region is not touched.
  }];
  let arguments = (ins I64:$addr, Variadic<I64>:$strides, Variadic<I64>:$valid,
                       Variadic<I64>:$begin, I64Attr:$cb, TypeAttr:$elemType,
                       DenseI64ArrayAttr:$shape);
  let assemblyFormat = [{
    $addr `strides` `(` $strides `)` `valid` `(` $valid `)`
    (`begin` `(` $begin^ `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

def MTIA_GatherInOp : MTIA_Op<"gather_in", [AttrSizedOperandSegments]> {
  let summary = "per-element addresses (an i64 tile) -> a new tile";
  let description = [{
    `base`, when the lowering knows one, is the address every element's
    address is an offset from (a pointer argument plus scalar offsets): not
    read by the command, it tells mtia-order-memory which tensor the
    gather reads.
  }];
  let arguments = (ins Optional<AnyType>:$pad, Optional<I64>:$base, I64Attr:$cb,
                       I64Attr:$addrCb, I64Attr:$maskCb, TypeAttr:$elemType,
                       DenseI64ArrayAttr:$shape);
  let assemblyFormat = "(`pad` $pad^ `:` type($pad))? (`base` $base^)? attr-dict";
}

def MTIA_ScatterOutOp : MTIA_Op<"scatter_out"> {
  let summary = "the front tile of a CB -> per-element addresses";
  let description = [{ `base`: as for `gather_in`. }];
  let arguments = (ins Optional<I64>:$base, I64Attr:$cb, I64Attr:$addrCb,
                       I64Attr:$maskCb, TypeAttr:$elemType, DenseI64ArrayAttr:$shape);
  let assemblyFormat = "(`base` $base^)? attr-dict";
}

def MTIA_FenceOp : MTIA_Op<"fence"> {
  let summary = "memory order between the two fabric units";
  let description = [{
    The DMA units take their queues independently, so a load may read
    memory before an earlier store of the program has written it. `kind`
    says which unit waits: "loads_after_stores" holds dma_in back until the
    dma_out commands issued before the fence have completed (read after
    write), "stores_after_loads" holds dma_out back for dma_in's (write
    after read), "both" does both. With `cond`, the fence is issued only
    when it is true (two pointer arguments that may alias, `may_alias`).
    Inserted by mtia-order-memory; the core does not wait.
  }];
  let arguments = (ins Optional<I1>:$cond, StrAttr:$kind);
  let assemblyFormat = "$kind (`if` $cond^)? attr-dict";
  let hasVerifier = 1;
}

def MTIA_MayAliasOp : MTIA_Op<"may_alias", [Pure]> {
  let summary = "whether two addresses may reach the same allocation";
  let description = [{
    False only when `lhs` and `rhs` lie in different allocations of the
    launch (the storages of two tensor arguments), which an in-bounds access
    through one never leaves. Constant for a launch.
  }];
  let arguments = (ins I64:$lhs, I64:$rhs);
  let results = (outs I1:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
}

//===----------------------------------------------------------------------===//
// SIMD engine
//===----------------------------------------------------------------------===//

def MTIA_SeOp : MTIA_Op<"se", [AttrSizedOperandSegments]> {
  let summary = "elementwise command on the SIMD engine or vector core; result appended to `cb`";
  let description = [{
    `srcs` lists the operands in order: a `#mtia.view` reads a CB, a
    `#mtia.imm` takes the next of `imms`. `opcode` is a name from
    runtime/include/mtia/se_ops.def. `unit` is "se" (the SIMD engine) or
    "vec" (the RISC-V vector core, which runs every opcode, and is the only
    unit for the vector-only ones: math the SE has no lookup table for).
    `valid`, when present (one i64 per dimension of `shape`, set by
    mtia-effective-shapes), is the effective shape: the command computes
    the box `0 <= i_d < valid[d]` only, and its result outside that box is
    unspecified (device.h validBox).
  }];
  let arguments = (ins Variadic<AnyType>:$imms, Variadic<I64>:$valid, StrAttr:$opcode,
                       I64Attr:$cb, TypeAttr:$elemType, DenseI64ArrayAttr:$shape,
                       ArrayAttr:$srcs,
                       DefaultValuedStrAttr<StrAttr, "se">:$unit);
  let assemblyFormat = [{
    $opcode ($imms^ `:` type($imms))? (`valid` `(` $valid^ `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

def MTIA_VecLoopOp : MTIA_Op<"vec_loop", [AttrSizedOperandSegments]> {
  let summary = "fused elementwise loop on the vector core; its last step's result appended to `cb`";
  let description = [{
    A chain of elementwise commands as one loop over the tile (the paper's
    4.2.2; device.h vecLoop): `srcs` are the loop's inputs (`#mtia.view`s
    and `#mtia.imm`s, the latter taking `imms` in order), `steps` its
    `#mtia.vec_step`s, each an SE opcode over inputs and earlier steps'
    results, which stay in vector registers. `elemType` is the last step's.
    Each step computes what an `mtia.se` of its opcode on the vector core
    would, so the result is the chain's. `valid` is an effective shape, as
    on `mtia.se`. Made by mtia-fuse-vector-loops.
  }];
  let arguments = (ins Variadic<AnyType>:$imms, Variadic<I64>:$valid, I64Attr:$cb,
                       TypeAttr:$elemType, DenseI64ArrayAttr:$shape, ArrayAttr:$srcs,
                       ArrayAttr:$steps);
  let assemblyFormat = [{
    ($imms^ `:` type($imms))? (`valid` `(` $valid^ `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

def MTIA_SeReduceOp : MTIA_Op<"se_reduce"> {
  let summary = "SIMD Engine reduction of a view along an axis";
  let description = [{
    `valid` and `fill`, when present (set by mtia-effective-shapes), are
    the effective shape: the reduction reads the box `0 <= i_d < valid[d]`
    of its input and takes `fill` for every lane outside it, so its result
    is the whole tile's when those lanes would hold `fill`; result elements
    outside the box (in the other dimensions) are unspecified.
  }];
  let arguments = (ins Variadic<I64>:$valid, StrAttr:$kind, I64Attr:$cb, TypeAttr:$elemType,
                       DenseI64ArrayAttr:$shape, I64Attr:$axis, MTIA_ViewAttr:$src,
                       OptionalAttr<TypedAttrInterface>:$fill);
  let assemblyFormat = "$kind (`valid` `(` $valid^ `)`)? attr-dict";
  let hasVerifier = 1;
}

def MTIA_SeIotaOp : MTIA_Op<"se_iota"> {
  let summary = "appends the 1-D tile start, start+1, ... to `cb`";
  let arguments = (ins I64Attr:$cb, TypeAttr:$elemType, I64Attr:$length,
                       I64Attr:$start);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Command processor and core
//===----------------------------------------------------------------------===//

def MTIA_CbPopOp : MTIA_Op<"cb_pop"> {
  let summary = "release bytes at the front of a CB after its earlier readers";
  let arguments = (ins I64Attr:$cb, I64Attr:$bytes);
  let assemblyFormat = "attr-dict";
}

def MTIA_ReadOp : MTIA_Op<"read"> {
  let summary = "the core reads one element of the front of a CB (blocking)";
  let arguments = (ins I64Attr:$cb, I64Attr:$index);
  let results = (outs AnyType:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Dot product engine, memory layout unit, more SIMD engine commands
//===----------------------------------------------------------------------===//

def MTIA_DpeOp : MTIA_Op<"dpe"> {
  let summary = "DPE: appends the [m, n] tile a x b (+ acc) in accType";
  let description = [{
    `srcs` = [a, b, acc]: `a` views [m, k], `b` views [k, n] (strides pick
    transposed layouts), `acc` views [m, n] or is `#mtia.imm` (the next of
    `imms`, normally 0).
  }];
  let arguments = (ins Variadic<AnyType>:$imms, I64Attr:$cb, TypeAttr:$accType,
                       I64Attr:$m, I64Attr:$n, I64Attr:$k, ArrayAttr:$srcs);
  let assemblyFormat = "($imms^ `:` type($imms))? attr-dict";
}

def MTIA_MluCopyOp : MTIA_Op<"mlu_copy"> {
  let summary = "MLU: appends a dense copy of a strided view (transpose, reshape, concat)";
  let arguments = (ins I64Attr:$cb, TypeAttr:$elemType, DenseI64ArrayAttr:$shape,
                       MTIA_ViewAttr:$src);
  let assemblyFormat = "attr-dict";
}

def MTIA_SeScanOp : MTIA_Op<"se_scan"> {
  let summary = "SIMD Engine inclusive scan of a view along an axis";
  let arguments = (ins StrAttr:$kind, I64Attr:$cb, TypeAttr:$elemType,
                       DenseI64ArrayAttr:$shape, I64Attr:$axis, BoolAttr:$reverse,
                       MTIA_ViewAttr:$src);
  let assemblyFormat = "$kind attr-dict";
}

def MTIA_SeHistogramOp : MTIA_Op<"se_histogram"> {
  let summary = "SIMD Engine histogram of integer values into numBins i32 counts";
  let arguments = (ins I64Attr:$cb, I64Attr:$numBins, DenseI64ArrayAttr:$shape,
                       MTIA_ViewAttr:$src, I64Attr:$maskCb);
  let assemblyFormat = "attr-dict";
}

def MTIA_SeGatherOp : MTIA_Op<"se_gather"> {
  let summary = "SIMD Engine gather along an axis of a tile by an index tile";
  let arguments = (ins I64Attr:$cb, TypeAttr:$elemType, DenseI64ArrayAttr:$shape,
                       I64Attr:$axis, MTIA_ViewAttr:$src,
                       DenseI64ArrayAttr:$srcShape, MTIA_ViewAttr:$index);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Reduction engine (language extension `mtl.re_reduce`)
//===----------------------------------------------------------------------===//

def MTIA_ReRecvOp : MTIA_Op<"re_recv"> {
  let summary = "the next partial result of a chain over the reduction network, appended to `cb`";
  let description = [{
    One link of a reduction chain along a line of PEs, which flows
    `direction` ("south": down a PE column, "east": along a PE row). When
    `first` is true this PE starts the chain and the result is a copy of
    `src` (on the MLU); otherwise it is the tile that arrives from the
    neighbour the chain comes from (north, west), combined element by
    element with `src` by `kind` (Sum, Max or Min) on the RE. Either way a
    dense tile of `shape` is appended to `cb`. The RE waits until the tile
    has arrived (device.h reRecv).
  }];
  let arguments = (ins I1:$first, StrAttr:$kind, StrAttr:$direction, I64Attr:$cb,
                       TypeAttr:$elemType, DenseI64ArrayAttr:$shape, MTIA_ViewAttr:$src);
  let assemblyFormat = "$kind $direction `first` `(` $first `)` attr-dict";
  let hasVerifier = 1;
}

def MTIA_ReSendOp : MTIA_Op<"re_send"> {
  let summary = "when `enable`, sends a tile to the next PE of a reduction chain";
  let description = [{
    When `enable` is true, the RE forwards the tile `src` (of `shape`) to
    the neighbour in `direction` ("south" or "east"), where the next
    `mtia.re_recv` of the chain takes it (device.h reSend); otherwise it
    does nothing. `src` is read either way as far as CBs are concerned: it
    is popped after this op.
  }];
  let arguments = (ins I1:$enable, StrAttr:$direction, TypeAttr:$elemType,
                       DenseI64ArrayAttr:$shape, MTIA_ViewAttr:$src);
  let assemblyFormat = "$direction `enable` `(` $enable `)` attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// NoC broadcast (language extension `mtl.broadcast`)
//===----------------------------------------------------------------------===//

def MTIA_NocBroadcastOp : MTIA_Op<"noc_broadcast"> {
  let summary = "when `enable`, broadcasts a tile to the other PEs of the PE row or column";
  let description = [{
    When `enable` is true, the fabric interface sends the tile `src` (of
    `shape`) over the NoC to every other PE of this PE's column (`axis` 0)
    or row (`axis` 1), where an `mtia.noc_recv` takes it (device.h
    nocBroadcast); otherwise it does nothing. As far as CBs are concerned
    `src` is read either way.
  }];
  let arguments = (ins I1:$enable, ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<1>]>:$axis,
                       TypeAttr:$elemType, DenseI64ArrayAttr:$shape, MTIA_ViewAttr:$src);
  let assemblyFormat = "$axis `enable` `(` $enable `)` attr-dict";
}

def MTIA_NocRecvOp : MTIA_Op<"noc_recv"> {
  let summary = "the tile broadcast along the PE row or column, appended to `cb`";
  let description = [{
    When `source` is true this PE is the one that broadcast, and the result
    is a copy of `src` (on the MLU); otherwise it is the oldest tile that
    arrived by a broadcast along `axis` (device.h nocRecv). Either way a
    dense tile of `shape` is appended to `cb`.
  }];
  let arguments = (ins I1:$source, ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<1>]>:$axis,
                       I64Attr:$cb, TypeAttr:$elemType, DenseI64ArrayAttr:$shape,
                       MTIA_ViewAttr:$src);
  let assemblyFormat = "$axis `source` `(` $source `)` attr-dict";
}

//===----------------------------------------------------------------------===//
// Atomics (fabric interface, memory-side)
//===----------------------------------------------------------------------===//

def MTIA_AtomicRmwOp : MTIA_Op<"atomic_rmw"> {
  let summary = "memory-side read-modify-write at per-element addresses";
  let description = [{
    `kind` is an `mtia::RmwOp` name (And, Or, Xor, Add, FAdd, Max, Min, UMax,
    UMin, Xchg); `srcs` = [value]. Old values are appended to `cb` unless it
    is -1.
  }];
  let arguments = (ins Variadic<AnyType>:$imms, StrAttr:$kind, I64Attr:$cb,
                       TypeAttr:$elemType, DenseI64ArrayAttr:$shape,
                       I64Attr:$addrCb, I64Attr:$maskCb, ArrayAttr:$srcs);
  let assemblyFormat = "$kind ($imms^ `:` type($imms))? attr-dict";
}

def MTIA_AtomicCasOp : MTIA_Op<"atomic_cas"> {
  let summary = "memory-side compare-and-swap at per-element addresses";
  let description = [{ `srcs` = [cmp, value]; old values appended to `cb`. }];
  let arguments = (ins Variadic<AnyType>:$imms, I64Attr:$cb, TypeAttr:$elemType,
                       DenseI64ArrayAttr:$shape, I64Attr:$addrCb, ArrayAttr:$srcs);
  let assemblyFormat = "($imms^ `:` type($imms))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def MTIA_PrintOp : MTIA_Op<"print"> {
  let summary = "device print of the front tile of a CB";
  let arguments = (ins StrAttr:$prefix, I64Attr:$cb, TypeAttr:$elemType,
                       DenseI64ArrayAttr:$shape, BoolAttr:$hex, BoolAttr:$isSigned);
  let assemblyFormat = "$prefix attr-dict";
}

def MTIA_AssertOp : MTIA_Op<"assert"> {
  let summary = "device assert on the front i1 tile of a CB";
  let arguments = (ins I64Attr:$cb, DenseI64ArrayAttr:$shape, StrAttr:$message,
                       StrAttr:$file, I64Attr:$line);
  let assemblyFormat = "$message attr-dict";
}

def MTIA_BarrierOp : MTIA_Op<"barrier"> {
  let summary = "the core waits for every command it issued (debug_barrier)";
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Cost of the scalar code
//===----------------------------------------------------------------------===//

def MTIA_ScalarCyclesOp : MTIA_Op<"scalar_cycles"> {
  let summary = "the RISC-V core spends `cycles` cycles on scalar code here";
  let description = [{
    The simulator runs the kernel's scalar code (address arithmetic, loop
    control, branches, scalar math) natively and charges the core only per
    command (`issue_cycles`) and per read. This op stands for the scalar
    instructions of the block it starts: `mtia-scalar-cost` puts one at the
    start of each block with scalar work, with the sum of the costs of the
    block's scalar ops, and the C++ emitter prints it as
    `scalarCycles(ctx, N)`, which advances the core's clock by N cycles
    (`units.riscv.scalar_cycles`). Executed once per execution of its block,
    so a loop body's cost is paid per iteration. `core` is the RISC-V core
    that spends them (0, the scalar core, unless mtia-dual-issue split the
    kernel's issue between the two: then a block may start with one for
    each).
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntPositive]>:$cycles,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<1>]>,
                                         "0">:$core);
  let assemblyFormat = "attr-dict";
}

#endif // TRITON_MTIA_MTIA_OPS
