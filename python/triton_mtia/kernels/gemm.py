"""GEMM: three variants behind one dispatcher (the paper's 7.1.1).

    C = gemm(A, B)            # A [M, K], B [K, N]: fp16, bf16, fp32 or int8

The variants differ in how the 64 PEs share the work, and each is the best
one for a class of shapes; `gemm_plan` picks one by a static policy of the
shape and dtype, which `gemm(..., variant=...)` overrides:

* ``tiles`` (output-stationary): one C tile per program, its K loop
  streaming A and B (`samples.matmul`, the GPU-style kernel), the tile the
  largest that still gives every PE a program. The default: with tiles
  that small, even a small-batch GEMM reads each weight once per row block
  and keeps all PEs busy.
* ``split_k``: every PE of a PE column computes a partial C tile over its
  slice of K, and the partials are added over the reduction network, down
  the column (`mtl.re_reduce`; `samples.splitk`). For a C too small to
  give the PEs work (fewer than 16 tiles of 32x32) and a long K (4096 or
  more): measured on the simulator, 64x64x16384 takes 37.5k cycles split
  over K against 48.6k in tiles, 16x64x32768 38.1k against 66.1k; with 16
  tiles or more, tiles win (128x128x8192: 32.5k against 40.8k).
* ``weight_streaming``: the tiles kernel with one block of rows covering
  all of M (M <= 64) and 128-deep K blocks, so that each weight (B)
  element is read from memory exactly once, and programs split N. For
  recommendation-style GEMMs (small batch M, wide weights of at least 64
  column blocks of 32), which are bound by LPDDR reading B; it ties with
  tiles there (32x4096x1024: 57,955 cycles both), at 93-98% of the
  roofline.

int8 operands accumulate exactly in int32 (the DPE's I8 mode) and run the
tiles or weight-streaming variant; fp16 / bf16 / fp32 accumulate in fp32.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import torch
import triton

from ..samples import matmul as _tiles
from ..samples import splitk as _splitk

#: Processing elements of the chip (the 8x8 grid).
PES = 64
VARIANTS = ("tiles", "split_k", "weight_streaming")


@dataclass(frozen=True)
class GemmPlan:
    """What `gemm` runs: the variant and its block (BLOCK_M, BLOCK_N,
    BLOCK_K)."""
    variant: str
    block: Tuple[int, int, int]


def _pow2_at_least(n: int, lo: int) -> int:
    return max(lo, triton.next_power_of_2(n))


def gemm_plan(M: int, N: int, K: int, dtype: torch.dtype, variant: Optional[str] = None) -> GemmPlan:
    """The static dispatch policy (module docstring). Blocks keep a
    program's tiles within a PE's local memory with pipelining (fp16:
    256x128 C tiles with 64-deep K blocks at most)."""
    if variant is None:
        small_tiles = triton.cdiv(M, 32) * triton.cdiv(N, 32)
        if dtype != torch.int8 and small_tiles < 16 and K >= 4096:
            variant = "split_k"
        elif M <= 64 and triton.cdiv(N, 32) >= PES:
            variant = "weight_streaming"
        else:
            variant = "tiles"
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
    if variant == "split_k":
        if dtype == torch.int8:
            raise ValueError("the split_k variant adds fp32 partials over the reduction network; int8 GEMMs "
                             "use tiles or weight_streaming")
        return GemmPlan(variant, (32, 64, 64))
    bk = 64 if dtype != torch.float32 else 32
    if variant == "weight_streaming":
        if M > 64:
            raise ValueError(f"the weight_streaming variant covers M in one block (M <= 64), not M = {M}")
        bm = _pow2_at_least(M, 16)
        # As many column blocks as PEs where N allows, at least 32 wide.
        bn = min(128, _pow2_at_least(triton.cdiv(N, PES), 32))
        return GemmPlan(variant, (bm, bn, bk * 2 if bm <= 32 else bk))
    # tiles: the largest square-ish tile that still gives every PE a program.
    for bm, bn in ((128, 128), (64, 128), (64, 64), (32, 64), (32, 32)):
        if triton.cdiv(M, bm) * triton.cdiv(N, bn) >= PES:
            return GemmPlan(variant, (bm, bn, bk))
    return GemmPlan(variant, (32, 32, bk))


def gemm(a: torch.Tensor, b: torch.Tensor, out_dtype: Optional[torch.dtype] = None,
         variant: Optional[str] = None) -> torch.Tensor:
    """C = A @ B with the variant `gemm_plan` chooses (or `variant`). C is
    fp32 for float inputs unless `out_dtype` says otherwise, int32 for
    int8 inputs."""
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"gemm: A is [M, K] and B is [K, N], not {tuple(a.shape)} and {tuple(b.shape)}")
    if a.dtype != b.dtype:
        raise ValueError(f"gemm: A and B have one dtype, not {a.dtype} and {b.dtype}")
    M, K = a.shape
    N = b.shape[1]
    plan = gemm_plan(M, N, K, a.dtype, variant)
    if out_dtype is None:
        out_dtype = torch.int32 if a.dtype == torch.int8 else torch.float32
    if plan.variant == "split_k":
        c = _splitk.splitk_re(a, b, block=plan.block)
        return c if out_dtype == torch.float32 else c.to(out_dtype)
    return _tiles.matmul(a, b, out_dtype=out_dtype, block=plan.block)


#: The roofline's dtype names (runtime.DPE_DTYPES) of GEMM operand dtypes.
_ROOFLINE_DTYPE = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.int8: "int8", torch.float32: "fp32"}


def roofline_cycles(M: int, N: int, K: int, dtype: torch.dtype, level: str = "lpddr") -> float:
    """The chip's lower bound on a GEMM's cycles (the roofline Figure 6 of
    the paper plots a fraction of): its MACs at the DPE's peak over the 64
    PEs, or the bytes of A and B read once each at the bandwidth of `level`
    ("lpddr" or "sram", where the operands come from), whichever is longer.
    C is written once, into the SRAM that fronts LPDDR: its bytes are not
    on the memory's critical path (a 512^3 GEMM writes its 1 MiB of C and
    finishes in fewer cycles than that many bytes take at LPDDR rate)."""
    from .. import runtime
    config = runtime.simulator().config
    rate_key, esize = runtime.DPE_DTYPES[_ROOFLINE_DTYPE[dtype]]
    compute = M * N * K / (config[rate_key] * PES)
    bytes_moved = (M * K + K * N) * esize
    bytes_per_cycle = config[f"{level}_gbps"] / config["clock_ghz"]
    return max(compute, bytes_moved / bytes_per_cycle)
