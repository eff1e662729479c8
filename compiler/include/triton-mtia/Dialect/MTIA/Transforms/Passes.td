//===- Passes.td - Transformations of the mtia dialect -----*- tablegen -*-===//

#ifndef TRITON_MTIA_MTIA_PASSES
#define TRITON_MTIA_MTIA_PASSES

include "mlir/Pass/PassBase.td"

def MTIAAssignCBs : Pass<"mtia-assign-cbs", "::mlir::func::FuncOp"> {
  let summary = "Map virtual circular buffers onto the PE's physical CBs";
  let description = [{
    Virtual CBs whose live ranges do not overlap share a physical CB (FIFO
    order keeps them apart). Each physical CB gets a capacity of
    `multiplier` x its largest outstanding bytes, the multiplier being the
    largest in {2, 1} for which everything fits in local memory (double
    buffering lets the producer of the next tile run ahead). The capacities
    are recorded in the `mtia.cb_capacity` function attribute.
  }];
  let options = [
    Option<"numCbs", "num-cbs", "int64_t", "15", "physical CBs per PE">,
    Option<"localMemoryBytes", "local-memory-bytes", "int64_t", "393216",
           "bytes of PE local memory">,
  ];
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

#endif // TRITON_MTIA_MTIA_PASSES
