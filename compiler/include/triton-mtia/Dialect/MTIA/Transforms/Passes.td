//===- Passes.td - Transformations of the mtia dialect -----*- tablegen -*-===//

#ifndef TRITON_MTIA_MTIA_PASSES
#define TRITON_MTIA_MTIA_PASSES

include "mlir/Pass/PassBase.td"

def MTIAAssignCBs : Pass<"mtia-assign-cbs", "::mlir::func::FuncOp"> {
  let summary = "Map virtual circular buffers onto the PE's physical CBs";
  let description = [{
    Virtual CBs whose live ranges do not overlap share a physical CB (FIFO
    order keeps them apart). When more overlap than there are CBs, tiles
    read only through views, pushed and popped in one block (and read there
    or in the regions of its ops), are stacked
    in one CB behind each other, their views offset by the bytes in front
    of them (AssignCBs.cpp). Each physical CB gets a capacity of
    `multiplier` x its largest outstanding bytes, the multiplier being the
    largest in {2, 1} for which everything fits in local memory (double
    buffering lets the producer of the next tile run ahead). The capacities
    are recorded in the `mtia.cb_capacity` function attribute.
  }];
  let options = [
    Option<"numCbs", "num-cbs", "int64_t", "15", "physical CBs per PE">,
    Option<"localMemoryBytes", "local-memory-bytes", "int64_t", "393216",
           "bytes of PE local memory">,
    Option<"numStages", "num-stages", "int64_t", "3",
           "tiles a CB filled inside a loop holds (pipelining depth)">,
    Option<"stacking", "stacking", "bool", "true",
           "stack tiles in one CB when more are live than there are CBs">,
  ];
}

def MTIAIssueLoadsEarly : Pass<"mtia-issue-loads-early", "::mlir::func::FuncOp"> {
  let summary = "Issue a block's loads before the core waits at earlier reads";
  let description = [{
    A scalar load is a one-element DMA and a blocking read of its tile, so
    two in a row (a segment's start and end offsets) wait for memory one
    after the other. Each `mtia.dma_in` moves up its block, with the pure
    scalar ops that compute its operands, past the blocking reads
    (`mtia.read`), pops, pure scalar ops and loads into other CBs before
    it, so that the core issues it before it waits and the round trips
    overlap. A load never passes a store, scatter, atomic, fence, barrier,
    assert, compute command or op with regions, nor a load into its own
    CB; it moves only where it passes a read (IssueLoadsEarly.cpp).
  }];
}

def MTIAOrderMemory : Pass<"mtia-order-memory", "::mlir::func::FuncOp"> {
  let summary = "Fence the DMAs of a program that may touch the same memory";
  let description = [{
    A PE's two DMA units take their queues independently: a load issued
    after a store can read memory before the store has written it, and a
    store can overwrite bytes an earlier load has not read yet. Within one
    program Triton promises program order, so this pass puts an
    `mtia.fence` before each access that may overlap an earlier access of
    the other unit still in flight: a load (dma_in, gather_in) after a store
    (dma_out, scatter_out, atomics), a store after a load. Stores after
    stores run on one in-order unit and need nothing.

    Two accesses are independent when the pass proves it: through the same
    pointer argument, at constant byte hulls and an address difference the
    hulls do not span (also across loop iterations, when the addresses move
    by a constant step per iteration). Through two different pointer
    arguments, the fence is issued only when `mtia.may_alias` says the two
    lie in one allocation at run time. Anything else (addresses from memory,
    gathers, scatters and atomics against the same argument) is fenced.
    Loops are handled by a fixpoint over their back edges (OrderMemory.cpp).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def MTIAScalarCost : Pass<"mtia-scalar-cost", "::mlir::func::FuncOp"> {
  let summary = "Charge the RISC-V core for the kernel's scalar code";
  let description = [{
    The simulator charges the core per command it issues, not for the
    scalar code around the commands (address arithmetic, loop control,
    branches, scalar math). For every block of the function (the body,
    scf.for / scf.while / scf.if regions), this pass sums the costs of the
    scalar ops directly in the block (nested regions count in their own
    blocks) and puts one `mtia.scalar_cycles` with that sum at the start of
    the block when it is > 0. The costs are one table (scalarCost() in
    ScalarCost.cpp): an in-order RISC-V core, one cycle per simple integer
    instruction. Ops on tensors and mtia commands cost nothing here (the
    simulator charges commands as issue_cycles).
  }];
  let dependentDialects = ["::mlir::triton_mtia::mtia::MTIADialect"];
}

def MTIALegalizeRank : Pass<"mtia-legalize-rank", "::mlir::func::FuncOp"> {
  let summary = "Bring commands over tiles of rank above 4 to the device's 4 dimensions";
  let description = [{
    The device API's shapes, boxes and views have four dimensions, but
    Triton tensors may have more: `tl.sort`, `tl.flip` and top-k reshape to
    `[2] * log2(n)`. An elementwise SE or vector-core command and an MLU copy
    write a dense tile, so two adjacent dimensions d, d+1 can be one when
    every view the command reads has stride[d] == stride[d+1] * shape[d+1]
    (dimensions of size 1 are dropped first). What still has more than 4
    dimensions becomes one command per index of the outer dimensions, each
    over the inner four at a view offset, in row-major order so the pieces
    append to the same dense tile. SE reductions and scans collapse the same
    way around their axis, which must end up among the inner four. Commands
    of rank 4 or less are left as they are; any other command above rank 4
    (DMAs, gathers) is reported at its source line.
  }];
}

def MTIAEffectiveShapes : Pass<"mtia-effective-shapes", "::mlir::func::FuncOp"> {
  let summary = "Let SE commands work on the valid box of their tiles only";
  let description = [{
    The paper's effective-shape propagation (4.1.1). A `dma_in` masked by
    `offs < n` fills the box [0, n) of its tile; the pass follows that box
    through elementwise `mtia.se` commands (whose sources read the boxed
    tile in the command's own layout) and reductions, and gives a command
    `valid` operands (device.h validBox: it computes, and is charged for,
    the box only) where every reader of its result reads inside the box:
    a command restricted to the same box or a `dma_out` of exactly that
    box. A reduction is restricted only when the lanes outside the box
    hold a known constant in the program as written (a load's `other`,
    folded through a few f32 ops); it then reads them as that `fill`, so
    its result does not change. Runs before mtia-pipeline-commands, while
    the CBs it follows have one producer each (EffectiveShapes.cpp).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def MTIAShareVectorCore : Pass<"mtia-share-vector-core", "::mlir::func::FuncOp"> {
  let summary = "Give elementwise commands to the vector core where it finishes them first";
  let description = [{
    The RISC-V vector core runs every SE opcode, at a quarter to half the
    SE's rate (its port to local memory moves a load or the store of a
    strip of VLEN bits a cycle), on a queue of its own. In a kernel bound by the SIMD engine (fused
    attention: about ten full-tile commands per K/V block beside two DPE
    dots) some elementwise commands do not depend on the one the SE is busy
    with, and the idle vector core can take them. For each block, the pass
    list-schedules the commands in program order on estimates of their
    units' times (the simulator's own formulas, docs/simulator.md
    "Timing"): a command may start when the commands that wrote the CBs it
    reads are done and its unit is free, and an `mtia.se` on the SE moves
    to the vector core (`unit = "vec"`) when it would finish there
    earlier; with `split`, an elementwise command whose tile has two rows
    or more (and that does not update the CB it reads) becomes two where
    that finishes sooner still: its first rows on the SE, the rest in a
    command on the vector core right after it, whose views start that many
    rows further on; the two append their parts of the tile to the CB in
    order. With `fuse`, a command whose operand is only the result of its
    chain's loop on the vector core may join that loop (at the chain's
    split row, if split), costing the vector core only what it adds per
    strip, where that finishes first; mtia-fuse-vector-loops then folds
    it in. Results do not change: both units compute the same opcode the
    same way.
  }];
  let options = [
    Option<"seLanes", "se-lanes", "int64_t", "32", "SE lanes for 32-bit elements">,
    Option<"seFillCycles", "se-fill-cycles", "int64_t", "8", "SE pipeline fill per command">,
    Option<"vecBytesPerCycle", "vec-bytes-per-cycle", "int64_t", "64",
           "vector core bytes per cycle (RVV VLEN 512)">,
    Option<"vecFillCycles", "vec-fill-cycles", "int64_t", "4", "vector core fill per command">,
    Option<"split", "split", "bool", "true",
           "split a command by rows between the SE and the vector core where both finish sooner">,
    Option<"fuse", "fuse", "bool", "true",
           "estimate chains of vector-core commands as the one loop mtia-fuse-vector-loops "
           "makes of them, and let a command join its chain's loop">,
  ];
}

def MTIAFuseVectorLoops : Pass<"mtia-fuse-vector-loops", "::mlir::func::FuncOp"> {
  let summary = "Run chains of vector-core commands as one loop, intermediates in registers";
  let description = [{
    An elementwise command on the vector core loads its operands from
    local memory and stores its result there, one vector register a cycle
    through one port; a chain of them writes every intermediate tile out
    and reads it back. The pass folds a vector-core `mtia.se` into the
    vector-core `mtia.se` that reads its result when that result is only
    that command's operand (its one reader, read element for element over
    the same shape and effective shape, in the same block, released by
    one pop after the reader) and no pop between them moves a tile the
    folded command reads. Folded chains and trees become one
    `mtia.vec_loop` (device.h vecLoop, at most 8 inputs and 16 steps) at
    the last command's place; the folded commands and their pops go.
    Each step computes what its command did, so results do not change
    (paper 4.2.2; FuseVectorLoops.cpp).
  }];
}

def MTIAPipelineCommands : Pass<"mtia-pipeline-commands", "::mlir::func::FuncOp"> {
  let summary = "Issue the next iteration's loads and dots before this iteration's tail";
  let description = [{
    Units run their commands in issue order, so in fused attention the next
    block's q k^T waits on the DPE behind this block's p v, which waits for
    the whole softmax: the DPE and the SE take turns. The pass splits an
    scf.for body into stage 0 (loads, dots and the SE commands they need,
    computed from the induction variable and values defined before the
    loop) and stage 1 (the rest), and issues stage 0 of iteration i + 1,
    under `scf.if (i + step < ub)`, before stage 1 of iteration i, with the
    first iteration's stage 0 before the loop (paper 4.1.3). Each CB that
    stage 0 fills holds one tile per iteration, so stage 1 still reads its
    own tile at the front. Loops that store, scatter, use atomics or
    barriers are left alone (a load of the next iteration would pass this
    one's store), as are loops whose stage 0 only loads.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def MTIADualIssue : Pass<"mtia-dual-issue", "::mlir::func::FuncOp"> {
  let summary = "Split command issue between the PE's two RISC-V cores";
  let description = [{
    A PE has two RISC-V cores, each able to issue commands to every unit
    (paper 4.1.2); the core pays `issue_cycles` per command and the cycles
    of the scalar code around it, so a kernel of many small commands
    (layernorm over chunks, a small GEMM) is bound by one core's issue. The
    pass gives the fabric interface's commands (DMAs, gathers, scatters,
    atomics, fences) to the scalar core 0 and the compute units' commands
    (SE, DPE, MLU, the vector unit) to the vector core 1, a static split by
    unit: each unit's queue is then fed by one core, in program order, and
    the cores meet only in the CBs, whose producers and consumers the units
    already synchronize. A `cb_pop` goes to the core of the command that
    last used its CB before it in program order (its last reader), so a
    core only releases what its own commands have read; reads, prints and
    asserts stay on core 0.
    Commands on core 1 get `mtia.core = 1`. Each scalar op gets in
    `mtia.issue_cores` the cores that need its value (bit 0: core 0, bit 1:
    core 1; absent: core 0 only), so that mtia-scalar-cost charges address
    arithmetic to the core that issues the command and loop control, branch
    conditions and values both need to both. A function with commands for
    only one of the cores is left alone. Results do not change: the units
    run the same commands in the same order.
  }];
}

def MTIAReplaceFront : Pass<"mtia-replace-front", "::mlir::func::FuncOp"> {
  let summary = "Let an accumulator's new tile take the room of the one it replaces";
  let description = [{
    `acc += x` in a loop appends the new accumulator to its CB behind the
    old one and pops the old one after, so the CB needs room for two. When
    an elementwise command (`mtia.se`, either unit) reads the front tile of
    its own CB and the next use of that CB in the block is a `mtia.cb_pop`
    of as many bytes as the command appends, the pop is erased and the
    command marked `mtia.replace_front`: it pops the front tile as it reads
    it and its result takes that room (device.h replaceFront), and
    mtia-assign-cbs sizes the CB for one tile (ReplaceFront.cpp).
  }];
}

#endif // TRITON_MTIA_MTIA_PASSES
