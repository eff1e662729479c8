//===- Passes.td - Transformations of the tt ingest dialect -*- tablegen -*-===//
//
// Rewrites within Triton IR that bring it to what the lowering to the mtia
// dialect takes: the ingest stage of the pipeline (docs/compiler.md).
//
//===----------------------------------------------------------------------===//

#ifndef TRITON_MTIA_TT_PASSES
#define TRITON_MTIA_TT_PASSES

include "mlir/Pass/PassBase.td"

def TTDecomposeDotScaled : Pass<"tt-decompose-dot-scaled", "::mlir::ModuleOp"> {
  let summary = "Rewrite tt.dot_scaled as a tt.dot of scaled bf16 (or f32) operands";
  let description = [{
    The DPE multiplies 16-bit floats, f32, fp8 and i8, not microscaled
    operands. Each operand of a tt.dot_scaled is decoded to f32 (e2m1
    nibbles from their bit fields, fp8 and 16-bit floats by extension),
    multiplied by its scale broadcast over the K group the scale covers (an
    e8m0 byte s is exactly 2^(s - 127), with 255 NaN; an fp8 scale is its
    value), and rounded to bf16, which holds every scaled e2m1, fp8 and bf16
    value exactly in its normal range. When an operand is fp16, whose
    10-bit mantissa bf16 would cut, both stay f32. One tt.dot with f32
    accumulation follows: exact products summed in f32, the semantics of
    hardware MX dot products.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TTSplitBlocks : Pass<"tt-split-blocks", "::mlir::ModuleOp"> {
  let summary = "Process an elementwise kernel's block in parts that fit a PE";
  let description = [{
    When every tensor op of a kernel works on its 1-D block element by
    element, the tensor ops move into an scf.for over `factor` parts and
    each tensor<N x T> becomes tensor<N/factor x T> (the index range gains
    the part's offset). Kernels of any other form are left as they are;
    a split function gets the `mtia.split_factor` attribute.
    triton-mtia-compile applies it only to kernels whose tiles do not fit
    in local memory otherwise (SplitBlocks.cpp).
  }];
  let options = [
    Option<"factor", "factor", "int64_t", "1", "number of parts">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def TTSplitMaskedLoops : Pass<"tt-split-masked-loops", "::mlir::ModuleOp"> {
  let summary = "Split a loop where the masks it computes are all true";
  let description = [{
    In a loop over blocks, a mask against the end of the data (`cols < n`)
    or a diagonal (`offs_m >= kv_rows`) is true everywhere on every block
    but the last ones, yet the SE computes and applies it on every
    iteration. A signed comparison of two integer ranges (splats of
    scalars plus `tt.make_range`, through `addi`, `subi`, `expand_dims`
    and `broadcast`) is all true when the largest element of the smaller
    side is below the smallest of the other: when the induction variable
    raises only the smaller side, that holds while iv <= T, for a prefix of
    the iterations. The pass computes T for each such comparison in the
    body (the least of them) and splits the `scf.for` at the first
    iteration past it: a copy runs the prefix with the comparisons
    replaced by true (their `and`s, selects and load masks folded away),
    then the loop runs the rest as written, from the copy's results.
    Bounds are computed in 64 bits; the kernel's own index arithmetic is
    assumed not to wrap, as Triton assumes.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def TTDecomposeCat : Pass<"tt-decompose-cat", "::mlir::ModuleOp"> {
  let summary = "Rewrite tt.cat as tt.join, tt.trans and tt.reshape";
  let description = [{
    tt.cat (tl.cat with can_reorder=True) may order the elements of its
    result as it likes; this takes the order of a concatenation, a's
    elements then b's, which is what the interpreter and Triton 3.10's
    deterministic tl.cat give: join to [d0, ..., 2], bring the new
    dimension to the front, and reshape [2, d0, ...] to [2 * d0, ...]. The
    lowering then does with these ops what it does for any kernel that uses
    them.
  }];
}

def TTI1ArithToLogic : Pass<"tt-i1-arith-to-logic", "::mlir::ModuleOp"> {
  let summary = "Rewrite integer arithmetic on i1 as the logic op it equals";
  let description = [{
    Triton types a comparison as i1 and does not promote it in arithmetic:
    `(a > 0) + (b > 0)` is an arith.addi on i1, which wraps as a 1-bit
    integer (true + true = false, the xor the GPU computes). The SE and the
    C++ of scalar code have no 1-bit integer arithmetic, only logic, so each
    integer op on i1 (or on tensors of i1) becomes the logic op with the
    same 1-bit result, in regions too (a tt.reduce combine):

      addi, subi -> xori            muli -> andi
      maxsi, minui -> andi          minsi, maxui -> ori
      divsi, divui -> x | !y        remsi, remui, shli, shrui -> x & !y
      shrsi -> x

    i1 is 0 / -1 signed and 0 / 1 unsigned. Division by zero and shifts by
    the width or more follow device.h's integer semantics (x / 0 = -1,
    x % 0 = x, a too-wide shift gives 0, or the sign for shrsi), so the
    tile and the scalar path agree with each other and with wider types.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TTInlineCalls : Pass<"tt-inline-calls", "::mlir::ModuleOp"> {
  let summary = "Inline the calls of noinline device functions";
  let description = [{
    Triton keeps noinline device functions out of line; a PE has no call
    stack for tiles, so each tt.call is replaced by a copy of its callee's
    body (its early returns structurized first). Recursion, and a call of a
    function without a body, are errors at the call (Structurize.cpp).
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def TTStructurizeReturns : Pass<"tt-structurize-returns", "::mlir::ModuleOp"> {
  let summary = "Make each kernel one block of structured code";
  let description = [{
    `if cond: return` reaches ttir as cf.cond_br / cf.br between blocks
    ending in tt.return. In each kernel (public tt.func), each cond_br
    becomes an scf.if whose branches hold the successor blocks; a branch
    that falls through to a merge block continues after the scf.if, and
    code after a one-sided return moves into the branch that does not
    return. Any other acyclic CFG is predicated: each block in an scf.if on
    whether it is reached (Structurize.cpp).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def TTRematerialize : Pass<"tt-rematerialize", "::mlir::ModuleOp"> {
  let summary = "Recompute tiles instead of holding them, for kernels over a PE's CBs";
  let description = [{
    Every later use of a loaded tile gets its own copy of the load (moved
    down to its first use); from strength 2, tiles computed by pure,
    region-free ops are recomputed too (strength 3 with the loads moved).
    A load is copied only where no op between may write memory. The
    compiler runs it, in increasing strengths, only on a kernel that needs
    more CBs than a PE has otherwise (Rematerialize.cpp).
  }];
  let options = [
    Option<"strength", "strength", "unsigned", "1", "1: loads; 2: computed tiles too; 3: and loads moved">,
  ];
}

#endif // TRITON_MTIA_TT_PASSES
