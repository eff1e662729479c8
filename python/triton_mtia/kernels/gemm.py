"""GEMM: three variants behind one dispatcher (the paper's 7.1.1).

    C = gemm(A, B)            # A [M, K], B [K, N]: fp16, bf16, fp32 or int8

The variants differ in how the 64 PEs share the work, and each is the best
one for a class of shapes; `gemm_plan` picks one by a static policy of the
shape and dtype, which `gemm(..., variant=...)` overrides:

* ``tiles`` (output-stationary): one C tile per program, its K loop
  streaming A and B (`gemm_kernel`, which `bmm` runs over a batch), the tile the
  largest that still gives every PE a program. The default: with tiles
  that small, even a small-batch GEMM reads each weight once per row block
  and keeps all PEs busy.
* ``split_k``: every PE of a PE column computes a partial C tile over its
  slice of K, and the partials are added over the reduction network, down
  the column (`mtl.re_reduce`; `kernels/splitk.py`). For a C too small to
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
import triton.language as tl

from ..roofline import DPE_DTYPES
from . import splitk as _splitk

#: Processing elements of the chip (the 8x8 grid).
PES = 64
VARIANTS = ("tiles", "split_k", "weight_streaming")


@dataclass(frozen=True)
class GemmPlan:
    """What `gemm` runs: the variant and its block (BLOCK_M, BLOCK_N,
    BLOCK_K)."""
    variant: str
    block: Tuple[int, int, int]


@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
                stride_cb, stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # One BLOCK_M x BLOCK_N tile of C per program (axis 0), of matrix
    # `batch` (axis 1). Consecutive programs, which run at the same time on
    # neighbouring PEs, walk GROUP_M rows of tiles column by column, so that
    # they share A's rows and B's columns in the SRAM in front of LPDDR
    # (2048^3: 67.9% of the roofline with groups of 4, 59.3% row-major).
    tile = tl.program_id(0)
    batch = tl.program_id(1)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (tile // per_group) * GROUP_M
    rows_in_group = min(tiles_m - first_m, GROUP_M)
    offs_m = (first_m + (tile % per_group) % rows_in_group) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = ((tile % per_group) // rows_in_group) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + batch * stride_ab + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + batch * stride_bb + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    # int8 operands accumulate exactly in int32 (the DPE's I8 mode).
    acc_dtype = tl.int32 if a_ptr.dtype.element_ty == tl.int8 else tl.float32
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=acc_dtype)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + batch * stride_cb + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _launch_tiles(a, b, c, block):
    """gemm_kernel over a batch: a [B, M, K], b [B, K, N], c [B, M, N]."""
    batch, M, K = a.shape
    N = b.shape[2]
    bm, bn, bk = block
    gemm_kernel[(triton.cdiv(M, bm) * triton.cdiv(N, bn), batch)](
        a, b, c, M, N, K, a.stride(0), a.stride(1), a.stride(2), b.stride(0), b.stride(1), b.stride(2),
        c.stride(0), c.stride(1), c.stride(2), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=4)


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
    return GemmPlan(variant, _tiles_block(M, N, dtype))


def _tiles_block(M: int, N: int, dtype: torch.dtype, programs_per_matrix: int = PES) -> Tuple[int, int, int]:
    """The tiles variant's block: the largest square-ish tile that still
    gives every PE a program."""
    bk = 64 if dtype != torch.float32 else 32
    for bm, bn in ((128, 128), (64, 128), (64, 64), (32, 64), (32, 32)):
        if triton.cdiv(M, bm) * triton.cdiv(N, bn) >= programs_per_matrix:
            return bm, bn, bk
    return 32, 32, bk


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
    c = torch.empty((M, N), dtype=out_dtype, device=a.device)
    _launch_tiles(a[None], b[None], c[None], plan.block)
    return c


def matmul_into(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """C[i] = A[i] @ B[i] written into `c`, for A [batch, M, K], B [batch,
    K, N] and C [batch, M, N] of any strides, in C's dtype (the sums in fp32,
    or int32 for int8): one matrix by the variant `gemm_plan` chooses, a
    batch as `bmm` runs it. The GEMMs of the device's ATen operators
    (triton_mtia/aten/gemm.py)."""
    batch, M, K = a.shape
    N = b.shape[2]
    if batch == 1:
        plan = gemm_plan(M, N, K, a.dtype)
        if plan.variant == "split_k":
            c[0].copy_(_splitk.splitk_re(a[0], b[0], block=plan.block))
            return c
        _launch_tiles(a, b, c, plan.block)
        return c
    _launch_tiles(a, b, c, _tiles_block(M, N, a.dtype, programs_per_matrix=-(-PES // batch)))
    return c


@triton.jit
def scale_add_kernel(c_ptr, bias_ptr, out_ptr, M, N, stride_cb, stride_cm, stride_cn, stride_bb, stride_bm, stride_bn,
                     stride_ob, stride_om, stride_on, alpha, beta, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     HAS_BIAS: tl.constexpr):
    """out = alpha * c + beta * bias over [batch, M, N] (bias broadcast by
    its strides), in fp32, rounded once to out's dtype: addmm's and
    baddbmm's epilogue. One [BLOCK_M, BLOCK_N] block per program."""
    blocks_n = tl.cdiv(N, BLOCK_N)
    batch = tl.program_id(1)
    rows = (tl.program_id(0) // blocks_n) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    cols = (tl.program_id(0) % blocks_n) * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    m = (rows < M) & (cols < N)
    acc = tl.load(c_ptr + batch * stride_cb + rows * stride_cm + cols * stride_cn, mask=m).to(tl.float32) * alpha
    if HAS_BIAS:
        bias = tl.load(bias_ptr + batch * stride_bb + rows * stride_bm + cols * stride_bn, mask=m)
        acc += bias.to(tl.float32) * beta
    tl.store(out_ptr + batch * stride_ob + rows * stride_om + cols * stride_on, acc.to(out_ptr.dtype.element_ty),
             mask=m)


def scale_add_into(c: torch.Tensor, bias: Optional[torch.Tensor], out: torch.Tensor, alpha: float,
                   beta: float) -> torch.Tensor:
    """out = alpha * c + beta * bias for c, bias (broadcast to c's shape
    already: a view) and out [batch, M, N]; no bias read where it is None."""
    batch, M, N = c.shape
    bias_strides = bias.stride() if bias is not None else (0, 0, 0)
    block_m = min(32, triton.next_power_of_2(M))
    block_n = min(128, triton.next_power_of_2(N))
    scale_add_kernel[(triton.cdiv(M, block_m) * triton.cdiv(N, block_n), batch)](
        c, bias if bias is not None else c, out, M, N, *c.stride(), *bias_strides, *out.stride(), float(alpha),
        float(beta), BLOCK_M=block_m, BLOCK_N=block_n, HAS_BIAS=bias is not None)
    return out


def bmm(a: torch.Tensor, b: torch.Tensor, out_dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    """C[i] = A[i] @ B[i] for A [batch, M, K] and B [batch, K, N], in one
    launch: the tiles variant over every matrix of the batch (its tiles
    chosen so that the whole batch gives every PE a program)."""
    if a.dim() != 3 or b.dim() != 3 or a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise ValueError(f"bmm: A is [batch, M, K] and B is [batch, K, N], not {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    batch, M, K = a.shape
    N = b.shape[2]
    if out_dtype is None:
        out_dtype = torch.int32 if a.dtype == torch.int8 else torch.float32
    c = torch.empty((batch, M, N), dtype=out_dtype, device=a.device)
    _launch_tiles(a, b, c, _tiles_block(M, N, a.dtype, programs_per_matrix=-(-PES // batch)))
    return c


#: The roofline's dtype names (roofline.DPE_DTYPES) of GEMM operand dtypes.
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
    rate_key, esize = DPE_DTYPES[_ROOFLINE_DTYPE[dtype]]
    compute = M * N * K / (config[rate_key] * PES)
    bytes_moved = (M * K + K * N) * esize
    bytes_per_cycle = config[f"{level}_gbps"] / config["clock_ghz"]
    return max(compute, bytes_moved / bytes_per_cycle)
