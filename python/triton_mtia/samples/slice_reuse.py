"""The paper's listing for `mtl.extract_slice` (6.2.1): a GEMM whose
programs walk every block of N, each over the whole of K, so the same
A rows are used N / BLOCK_N times.

* reload (the baseline, portable Triton): every inner iteration loads its
  A tile again, as a GPU kernel would and a GPU cache would catch;
* reuse: the program loads its A rows [BLOCK_M, K] once, before the loops,
  and the inner loop takes `mtl.extract_slice(A, [0, k], [BLOCK_M,
  BLOCK_K])`; at the constant offsets of a `tl.static_range` the slices
  are views of A's tile in local memory, and no A byte is read twice.

Shared by test/python/test_language_extensions.py and
`python -m triton_mtia.bench.extensions`.
"""

import torch
import triton
import triton.language as tl

import triton_mtia.language as mtl


@triton.jit
def gemm_rows_kernel(a_ptr, b_ptr, c_ptr, M, N, K: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr, REUSE: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rows = offs_m[:, None] < M
    if REUSE:
        A = tl.load(a_ptr + offs_m[:, None] * K + tl.arange(0, K)[None, :], mask=rows, other=0.0)
    for n0 in range(0, N, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in tl.static_range(0, K, BLOCK_K):
            offs_k = k + tl.arange(0, BLOCK_K)
            if REUSE:
                a = mtl.extract_slice(A, [0, k], [BLOCK_M, BLOCK_K])
            else:
                a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :], mask=rows, other=0.0)
            b = tl.load(b_ptr + offs_k[:, None] * N + offs_n[None, :], mask=offs_n[None, :] < N, other=0.0)
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc, mask=rows & (offs_n[None, :] < N))


def gemm_rows(a, b, reuse, block=(32, 64, 64)):
    """C = A @ B in fp32 (A [M, K], B [K, N], contiguous; K a power of two
    that the A rows of a program fit a PE with: BLOCK_M x K)."""
    M, K = a.shape
    _, N = b.shape
    assert a.is_contiguous() and b.is_contiguous() and K & (K - 1) == 0
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    bm, bn, bk = block
    gemm_rows_kernel[(triton.cdiv(M, bm), )](a, b, c, M, N, K=K, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, REUSE=reuse)
    return c
