"""Blocks whose inner dimension strides through memory move in memory order.

A [columns, rows] block of a row-major matrix (Inductor's reduction over
the rows, a GPU author's K^T block) strides by the row length along its
inner dimension. The DMA engine walks a box in the order of its dimensions
and merges only neighbouring accesses, so walked as written every element
costs a whole memory granule. The compiler walks such a box with its
unit-stride dimension innermost and has the block's readers see the tile
through a transposed view; a store of such a block is the value copied into
that order first (docs/compiler.md, "Transposed blocks move in memory
order"). Results are checked against PyTorch with every mask and offset the
box can carry; the memory traffic shows the order."""

import pytest
import torch
import triton
import triton.language as tl

import triton_mtia


@triton.jit
def column_sum_kernel(x_ptr, out_ptr, rows, cols, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    # out[c] = sum_r x[r, c] as Inductor writes it: [columns, rows] blocks.
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < cols
    acc = tl.zeros([XBLOCK, RBLOCK], tl.float32)
    for r0 in range(0, rows, RBLOCK):
        rindex = r0 + tl.arange(0, RBLOCK)[None, :]
        rmask = rindex < rows
        acc += tl.load(x_ptr + (xindex + cols * rindex), xmask & rmask, other=0.0)
    tl.store(out_ptr + xindex, tl.sum(acc, 1)[:, None], xmask)


@pytest.mark.parametrize("rows,cols,xblock,rblock", [(2048, 576, 8, 64), (300, 37, 16, 32)])
def test_column_sum_reads_each_byte_once(rows, cols, xblock, rblock):
    x = torch.randn(rows, cols)
    out = torch.empty(cols, device="mtia")
    column_sum_kernel[(triton.cdiv(cols, xblock), )](x.to("mtia"), out, rows, cols, XBLOCK=xblock, RBLOCK=rblock)
    torch.testing.assert_close(out.cpu(), x.sum(0), rtol=1e-4, atol=1e-4)
    # Walked as written, each fp32 would be a 32-byte granule (8x the data);
    # in memory order a run of a block's columns widens to whole granules
    # only at its ends.
    served = triton_mtia.last_launch().stats["memory"]["sram"]["bytes_read"]
    assert served < 2 * x.numel() * 4


@triton.jit
def transpose_kernel(x_ptr, y_ptr, m, n, FROM_T: tl.constexpr, TO_T: tl.constexpr, BM: tl.constexpr,
                     BN: tl.constexpr):
    # y = (x * 2 + 1).T for x [m, n]. The block is [BM, BN] of x; with FROM_T
    # it is loaded as its transpose [BN, BM] (inner stride n), with TO_T
    # stored as y's [BN, BM] block through a transposed pointer block.
    i = tl.program_id(0) * BM + tl.arange(0, BM)
    j = tl.program_id(1) * BN + tl.arange(0, BN)
    if FROM_T:
        t = tl.load(x_ptr + j[:, None] + i[None, :] * n, mask=(j[:, None] < n) & (i[None, :] < m), other=0.0)
        v = tl.trans(t)
    else:
        v = tl.load(x_ptr + i[:, None] * n + j[None, :], mask=(i[:, None] < m) & (j[None, :] < n), other=0.0)
    v = v * 2 + 1
    if TO_T:
        # y[j, i] at j * m + i: the [BM, BN] block strides m along j.
        tl.store(y_ptr + i[:, None] + j[None, :] * m, v, mask=(i[:, None] < m) & (j[None, :] < n))
    else:
        w = tl.trans(v)
        tl.store(y_ptr + j[:, None] * m + i[None, :], w, mask=(j[:, None] < n) & (i[None, :] < m))


@pytest.mark.parametrize("from_t,to_t", [(True, False), (False, True), (True, True)])
def test_transposed_loads_and_stores(from_t, to_t):
    m, n = 77, 45
    x = torch.randn(m, n)
    y = torch.full((n, m), -7.0, device="mtia")
    grid = (triton.cdiv(m, 16), triton.cdiv(n, 32))
    transpose_kernel[grid](x.to("mtia"), y, m, n, FROM_T=from_t, TO_T=to_t, BM=16, BN=32)
    torch.testing.assert_close(y.cpu(), (x * 2 + 1).T.contiguous())


@triton.jit
def copy_transposed_kernel(x_ptr, y_ptr, n, B: tl.constexpr):
    # A block loaded through a transposed pointer block and stored through
    # the same one, masked to a window that starts past 0 in both
    # dimensions: y[1:n, 2:n] = x[1:n, 2:n], the rest untouched.
    a = tl.arange(0, B)
    ptrs = a[:, None] + a[None, :] * n
    mask = (a[:, None] >= 2) & (a[:, None] < n) & (a[None, :] >= 1) & (a[None, :] < n)
    tl.store(y_ptr + ptrs, tl.load(x_ptr + ptrs, mask=mask), mask=mask)


def test_a_window_moves_through_both_orders():
    n = 29
    x = torch.randn(n, n)
    y = torch.zeros(n, n, device="mtia")
    copy_transposed_kernel[(1, )](x.to("mtia"), y, n, B=32)
    want = torch.zeros(n, n)
    want[1:, 2:] = x[1:, 2:]
    torch.testing.assert_close(y.cpu(), want)


@triton.jit
def dot_kt_kernel(q_ptr, k_ptr, out_ptr, D: tl.constexpr, N: tl.constexpr, M: tl.constexpr):
    # q @ k^T with K^T loaded directly as a [D, N] block (inner stride D),
    # as the first fused-attention tutorials wrote it.
    m = tl.arange(0, M)
    d = tl.arange(0, D)
    nn = tl.arange(0, N)
    q = tl.load(q_ptr + m[:, None] * D + d[None, :])
    kt = tl.load(k_ptr + nn[None, :] * D + d[:, None])
    tl.store(out_ptr + m[:, None] * N + nn[None, :], tl.dot(q, kt))


def test_a_dot_reads_a_transposed_load():
    q, k = torch.randn(32, 64).half(), torch.randn(64, 64).half()
    out = torch.empty(32, 64, device="mtia")
    dot_kt_kernel[(1, )](q.to("mtia"), k.to("mtia"), out, D=64, N=64, M=32)
    torch.testing.assert_close(out.cpu(), q.float() @ k.float().T, rtol=1e-2, atol=1e-2)


@triton.jit
def three_d_kernel(x_ptr, y_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    # x [C, A, B] read as the [A, B, C] block (inner stride A * B), summed
    # over C: y[a, b] = sum_c x[c, a, b].
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    v = tl.load(x_ptr + c * (A * B) + a * B + b)
    tl.store(y_ptr + tl.arange(0, A)[:, None] * B + tl.arange(0, B)[None, :], tl.sum(v, 2))


def test_a_three_dimensional_block():
    x = torch.randn(16, 4, 8)
    y = torch.empty(4, 8, device="mtia")
    three_d_kernel[(1, )](x.to("mtia"), y, A=4, B=8, C=16)
    torch.testing.assert_close(y.cpu(), x.sum(0), rtol=1e-5, atol=1e-5)
