"""Split-K GEMM, C = A @ B for a small M and a long K, three ways.

With M = 32 a GEMM has few C tiles (N / BLOCK_N of them), too few to keep
64 PEs busy, so the K dimension is split too: each of SPLIT parts sums a
slice of K into a partial C tile, and the partial tiles are added. The
three kernels differ only in how they add them:

* `matmul_splitk_re`: the MTIA language extension (docs/extensions.md).
  One program per PE (`pid_mapping="user"`): PE column c owns the C tiles
  c, c + 8, ...; the 8 PEs of a column take the 8 slices of K, and
  `mtl.re_reduce` adds their partial tiles down the column over the
  reduction network; the bottom PE stores the sum. With `broadcast_a`, the
  8 PEs of a PE row, which all need the same slice of A, no longer load it
  8 times: the leftmost loads each A tile and `mtl.broadcast`s it along
  the row over the NoC.
* `matmul_splitk_atomic`: portable Triton. Program (tile, part) adds its
  partial tile to a zeroed fp32 C with `tl.atomic_add`.
* `matmul_splitk_two_pass`: portable Triton. Program (tile, part) stores
  its partial tile to a workspace [SPLIT, M, N]; a second kernel sums the
  parts.

Shared by test/python/test_language_extensions.py and
`python -m triton_mtia.bench.extensions`.
"""

import torch
import triton
import triton.language as tl

import triton_mtia.language as mtl


@triton.jit
def _partial_tile(a_ptr, b_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, offs_m, offs_n, k_begin, k_end,
                  loads_a, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  A_FROM_ROW: tl.constexpr):
    """sum over k in [k_begin, min(k_end, K)) of A[offs_m, k] B[k, offs_n], fp32.
    With A_FROM_ROW, only the PE where `loads_a` holds loads the A tiles and
    broadcasts them along its PE row (the others' masked loads move nothing)."""
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(k_begin, k_end, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K) & loads_a, other=0.0)
        if A_FROM_ROW:
            a = mtl.broadcast(a, loads_a, axis=1)
        b = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    return acc


@triton.jit
def matmul_splitk_re(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                     BROADCAST_A: tl.constexpr):
    row = mtl.get_pe_id(0)
    col = mtl.get_pe_id(1)
    rows = mtl.get_pe_grid_size(0)
    cols = mtl.get_pe_grid_size(1)
    # This PE's slice of K: one of `rows`, whole blocks of BLOCK_K.
    k_slice = tl.cdiv(tl.cdiv(K, rows), BLOCK_K) * BLOCK_K
    k_begin = row * k_slice
    is_top = row == 0
    is_bottom = row == rows - 1
    if BROADCAST_A:
        loads_a = col == 0  # the leftmost PE of each PE row loads A for the row
    else:
        loads_a = True
    # Every PE makes the same number of passes (a PE whose last C tile lies
    # past N computes a masked one), so that the PEs of a row broadcast and
    # receive the same A tiles in the same order.
    for m0 in range(0, M, BLOCK_M):
        for j in range(0, tl.cdiv(tl.cdiv(N, BLOCK_N), cols)):
            offs_m = m0 + tl.arange(0, BLOCK_M)
            offs_n = (j * cols + col) * BLOCK_N + tl.arange(0, BLOCK_N)
            acc = _partial_tile(a_ptr, b_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, offs_m, offs_n,
                                k_begin, k_begin + k_slice, loads_a, BLOCK_M, BLOCK_N, BLOCK_K,
                                BROADCAST_A)
            total = mtl.re_reduce("add", acc, is_top, is_bottom)
            if is_bottom:
                tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn,
                         total.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def _program_part(a_ptr, b_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT: tl.constexpr):
    """The portable split: program (tile, part) of a grid (C tiles, SPLIT)
    sums part `part` of K for C tile `tile`: its rows, columns, part and sum."""
    tile = tl.program_id(0)
    part = tl.program_id(1)
    tiles_n = tl.cdiv(N, BLOCK_N)
    offs_m = (tile // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = (tile % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    k_slice = tl.cdiv(tl.cdiv(K, SPLIT), BLOCK_K) * BLOCK_K
    acc = _partial_tile(a_ptr, b_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, offs_m, offs_n,
                        part * k_slice, (part + 1) * k_slice, True, BLOCK_M, BLOCK_N, BLOCK_K, False)
    return offs_m, offs_n, part, acc


@triton.jit
def matmul_splitk_atomic(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                         stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         SPLIT: tl.constexpr):
    offs_m, offs_n, part, acc = _program_part(a_ptr, b_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                                              BLOCK_M, BLOCK_N, BLOCK_K, SPLIT)
    tl.atomic_add(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc,
                  mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def matmul_splitk_partials(a_ptr, b_ptr, w_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT: tl.constexpr):
    offs_m, offs_n, part, acc = _program_part(a_ptr, b_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                                              BLOCK_M, BLOCK_N, BLOCK_K, SPLIT)
    tl.store(w_ptr + part * M * N + offs_m[:, None] * N + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def sum_partials(w_ptr, c_ptr, MN, SPLIT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    parts = tl.load(w_ptr + tl.arange(0, SPLIT)[:, None] * MN + offs[None, :], mask=offs[None, :] < MN, other=0.0)
    tl.store(c_ptr + offs, tl.sum(parts, axis=0).to(c_ptr.dtype.element_ty), mask=offs < MN)


def _check(a, b):
    assert a.dim() == 2 and b.dim() == 2 and a.shape[1] == b.shape[0], "A is [M, K], B is [K, N]"
    return a.shape[0], b.shape[1], a.shape[1]


def splitk_re(a, b, block=(32, 64, 64), broadcast_a=False):
    """C = A @ B in fp32, the partial tiles added over the reduction network:
    one launch of 64 programs, one per PE (an 8x8 chip); with `broadcast_a`
    each A tile is loaded once per PE row and broadcast along it."""
    M, N, K = _check(a, b)
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    bm, bn, bk = block
    matmul_splitk_re[(64, )](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                             c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, BROADCAST_A=broadcast_a,
                             pid_mapping="user")
    return c


def splitk_atomic(a, b, block=(32, 64, 64), split=8):
    """C = A @ B in fp32, the partial tiles added by atomics into a zeroed C."""
    M, N, K = _check(a, b)
    c = torch.zeros((M, N), dtype=torch.float32, device=a.device)
    bm, bn, bk = block
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn), split)
    matmul_splitk_atomic[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                               c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, SPLIT=split)
    return c


def splitk_two_pass(a, b, block=(32, 64, 64), split=8, sum_block=512):
    """C = A @ B in fp32, the partial tiles stored, then summed by a second
    kernel. Returns C and the two launches' kernels (for their statistics)."""
    M, N, K = _check(a, b)
    work = torch.empty((split, M, N), dtype=torch.float32, device=a.device)
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    bm, bn, bk = block
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn), split)
    matmul_splitk_partials[grid](a, b, work, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                 BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, SPLIT=split)
    sum_partials[(triton.cdiv(M * N, sum_block), )](work, c, M * N, SPLIT=split, BLOCK=sum_block)
    return c
