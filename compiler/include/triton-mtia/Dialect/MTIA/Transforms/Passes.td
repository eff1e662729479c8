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

#endif // TRITON_MTIA_MTIA_PASSES
