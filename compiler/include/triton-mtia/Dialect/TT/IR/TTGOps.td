//===- TTGOps.td - The one ttg op that reaches ttir --------*- tablegen -*-===//
//
// Triton's GPU dialect `ttg` has a single op that appears in ttir:
// `ttg.barrier all`, which `tl.debug_barrier()` produces. We define a tiny
// dialect with only that op, in Triton's syntax, so the text parses and the
// lowering can turn it into `mtia.barrier`. See docs/dialects/tt.md.
//
//===----------------------------------------------------------------------===//

#ifndef TRITON_MTIA_TTG_OPS
#define TRITON_MTIA_TTG_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"

def TTG_Dialect : Dialect {
  let name = "ttg";
  let cppNamespace = "::mlir::triton_mtia::ttg";
  let summary = "the part of Triton's GPU dialect that ttir can contain";
}

def TTG_BarrierOp : Op<TTG_Dialect, "barrier"> {
  let summary = "block until every earlier memory operation has completed";
  let description = [{
    `ttg.barrier all` (or a `|`-separated list of address spaces such as
    `local|global_read`). The address spaces are kept as written; on a PE the
    barrier always waits for every command the core issued.
  }];
  let arguments = (ins StrAttr:$addrSpace);
  let hasCustomAssemblyFormat = 1;
}

#endif // TRITON_MTIA_TTG_OPS
