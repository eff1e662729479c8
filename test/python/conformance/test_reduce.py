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


# A first-order linear recurrence h_j = a_j * h_{j-1} + b_j as an associative
# scan of (a, b) pairs (the "roll" combine of state-space models), of which
# only the second result is used: the unused one must be popped after the
# scan made it, not before.
@triton.jit
def _linear_recurrence(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@triton.jit
def recurrence_kernel(a_ptr, b_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr,
                      AXIS: tl.constexpr, REVERSE: tl.constexpr):
    r = tl.arange(0, M)[:, None]
    c = tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + r * N + c)
    b = tl.load(b_ptr + r * N + c)
    _, h = tl.associative_scan((a, b), AXIS, _linear_recurrence, reverse=REVERSE)
    tl.store(out_ptr + r * N + c, h)


def _recurrence(a, b, axis, reverse):
    if axis == 0:
        a, b = a.T, b.T
    if reverse:
        a, b = a.flip(1), b.flip(1)
    h = torch.empty_like(a)
    acc = b[:, 0].clone()
    h[:, 0] = acc
    for j in range(1, a.shape[1]):
        acc = acc * a[:, j] + b[:, j]
        h[:, j] = acc
    if reverse:
        h = h.flip(1)
    return h.T if axis == 0 else h


@pytest.mark.parametrize("m, n, axis, reverse", [(4, 8, 1, False), (4, 8, 0, False), (8, 4, 1, True),
                                                 (1, 16, 1, False), (8, 8, 0, True)])
def test_scan_tuple_combine_with_unused_result(m, n, axis, reverse, gen):
    a = torch.rand(m, n, generator=gen)
    b = torch.randn(m, n, generator=gen)
    out = torch.empty_like(a)
    recurrence_kernel[(1, )](a, b, out, m, n, axis, reverse)
    torch.testing.assert_close(out, _recurrence(a, b, axis, reverse), rtol=1e-5, atol=1e-5)


# NaN: tl.max / tl.min ignore it (their combine is maxnumf / minnumf, as on
# GPUs), a combine of tl.maximum / tl.minimum with propagate_nan=ALL
# propagates it, in reductions and elementwise, for every float width.
@triton.jit
def _max_nan(a, b):
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def _min_nan(a, b):
    return tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def nan_kernel(x_ptr, red_ptr, elt_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(red_ptr, tl.max(x, 0))
    tl.store(red_ptr + 1, tl.min(x, 0))
    tl.store(red_ptr + 2, tl.reduce(x, 0, _max_nan))
    tl.store(red_ptr + 3, tl.reduce(x, 0, _min_nan))
    tl.store(elt_ptr + offs, tl.maximum(x, 1.0, propagate_nan=tl.PropagateNan.ALL))
    tl.store(elt_ptr + N + offs, tl.minimum(x, 1.0, propagate_nan=tl.PropagateNan.ALL))
    tl.store(elt_ptr + 2 * N + offs, tl.maximum(x, 1.0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=ids)
def test_nan_propagation(dtype, gen):
    x = torch.randn(16, generator=gen).to(dtype)
    x[5] = float("nan")
    red = torch.zeros(4, dtype=dtype)
    elt = torch.zeros(48, dtype=dtype)
    nan_kernel[(1, )](x, red, elt, 16)
    finite = x[~x.isnan()]
    assert red[0] == finite.max() and red[1] == finite.min()
    assert red[2:].isnan().all()
    torch.testing.assert_close(elt[:16], torch.maximum(x, torch.tensor(1.0, dtype=dtype)), equal_nan=True)
    torch.testing.assert_close(elt[16:32], torch.minimum(x, torch.tensor(1.0, dtype=dtype)), equal_nan=True)
    torch.testing.assert_close(elt[32:], torch.fmax(x, torch.tensor(1.0, dtype=dtype)))


# tl.sort and tl.flip reshape to [2] * log2(n) dimensions: tiles of rank
# above the device's 4, which mtia-legalize-rank collapses or splits.
@triton.jit
def sort_kernel(x_ptr, out_ptr, N: tl.constexpr, DESCENDING: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs), descending=DESCENDING))


@pytest.mark.parametrize("n, descending", [(32, False), (256, True), (4096, False)])
def test_sort_high_rank(n, descending, gen):
    x = torch.randn(n, generator=gen)
    out = torch.empty(n)
    sort_kernel[(1, )](x, out, n, descending)
    assert torch.equal(out, x.sort(descending=descending).values)


@triton.jit
def flip_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)[:, None]
    c = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + r * N + c)
    y = tl.reshape(x, (M, 2, 2, 2, N // 8))
    y = tl.reshape(tl.flip(y, 4), (M, N))
    tl.store(out_ptr + r * N + c, tl.flip(y, 1))


def test_flip_rank5(gen):
    x = torch.randn(4, 64, generator=gen)
    out = torch.empty_like(x)
    flip_kernel[(1, )](x, out, 4, 64)
    want = x.view(4, 2, 2, 2, 8).flip(4).reshape(4, 64).flip(1)
    assert torch.equal(out, want)
