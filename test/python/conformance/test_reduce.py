"""Reductions: sum / max / min / argmax / custom combine, per axis, with
keep_dims, on 2-D blocks over odd shapes (masked tails)."""

import pytest
import torch
import triton
import triton.language as tl

from _conf import ids, make

M, K = 37, 53  # rows, columns: neither a power of two


@triton.jit
def reduce_kernel(x_ptr, out_ptr, m, k, OP: tl.constexpr, AXIS: tl.constexpr, KEEP: tl.constexpr,
                  BM: tl.constexpr, BK: tl.constexpr):
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BK)[None, :]
    mask = (rows < m) & (cols < k)
    if OP == "sum":
        x = tl.load(x_ptr + rows * k + cols, mask=mask, other=0)
        r = tl.sum(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "max":
        x = tl.load(x_ptr + rows * k + cols, mask=mask, other=-float("inf"))
        r = tl.max(x, axis=AXIS, keep_dims=KEEP)
    else:
        x = tl.load(x_ptr + rows * k + cols, mask=mask, other=float("inf"))
        r = tl.min(x, axis=AXIS, keep_dims=KEEP)
    if AXIS == 0:
        offs = tl.arange(0, BK)
        if KEEP:
            tl.store(out_ptr + offs[None, :], r, mask=offs[None, :] < k)
        else:
            tl.store(out_ptr + offs, r, mask=offs < k)
    else:
        offs = tl.arange(0, BM)
        if KEEP:
            tl.store(out_ptr + offs[:, None], r, mask=offs[:, None] < m)
        else:
            tl.store(out_ptr + offs, r, mask=offs < m)


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_reduce_fp32(op, axis, keep, gen):
    x = make((M, K), torch.float32, gen)
    out = torch.empty(K if axis == 0 else M)
    reduce_kernel[(1, )](x, out, M, K, OP=op, AXIS=axis, KEEP=keep, BM=64, BK=64)
    ref = {"sum": x.sum(axis), "max": x.amax(axis), "min": x.amin(axis)}[op]
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)


@triton.jit
def int_sum_kernel(x_ptr, out_ptr, m, k, BM: tl.constexpr, BK: tl.constexpr):
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BK)[None, :]
    x = tl.load(x_ptr + rows * k + cols, mask=(rows < m) & (cols < k), other=0)
    tl.store(out_ptr + tl.arange(0, BM), tl.sum(x, axis=1), mask=tl.arange(0, BM) < m)
    tl.store(out_ptr + m + tl.arange(0, BK), tl.max(x, axis=0), mask=tl.arange(0, BK) < k)


@pytest.mark.parametrize("dtype", [torch.int32], ids=ids)
def test_reduce_int(dtype, gen):
    x = make((M, K), dtype, gen)
    out = torch.empty(M + K, dtype=dtype)
    int_sum_kernel[(1, )](x, out, M, K, BM=64, BK=64)
    torch.testing.assert_close(out, torch.cat([x.sum(1, dtype=dtype), x.amax(0)]))


@triton.jit
def full_reduce_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(x))
    tl.store(out_ptr + 1, tl.max(tl.where(offs < n, x, -float("inf")), axis=0))


def test_reduce_to_scalar(gen):
    x = make(999, torch.float32, gen)
    out = torch.empty(2)
    full_reduce_kernel[(1, )](x, out, 999, BLOCK=1024)
    torch.testing.assert_close(out, torch.stack([x.sum(), x.max()]), rtol=1e-5, atol=1e-4)


@triton.jit
def _mul_combine(a, b):
    return a * b


@triton.jit
def custom_reduce_kernel(x_ptr, out_ptr, idx_ptr, m, k, BM: tl.constexpr, BK: tl.constexpr):
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BK)[None, :]
    x = tl.load(x_ptr + rows * k + cols, mask=(rows < m) & (cols < k), other=1.0)
    tl.store(out_ptr + tl.arange(0, BM), tl.reduce(x, 1, _mul_combine), mask=tl.arange(0, BM) < m)
    x = tl.where(cols < k, x, -float("inf"))
    tl.store(idx_ptr + tl.arange(0, BM), tl.argmax(x, axis=1), mask=tl.arange(0, BM) < m)


def test_reduce_custom_combine_and_argmax(gen):
    x = 1 + 0.01 * make((M, K), torch.float32, gen)
    out, idx = torch.empty(M), torch.empty(M, dtype=torch.int32)
    custom_reduce_kernel[(1, )](x, out, idx, M, K, BM=64, BK=64)
    torch.testing.assert_close(out, x.prod(1), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(idx, x.argmax(1).int())
