"""Kernels that keep more tiles alive than a PE has circular buffers (15):
the compiler stacks tiles in one CB (each read at its offset behind the
others, mtia-assign-cbs) instead of refusing the kernel."""

import pytest
import torch
import triton
import triton.language as tl

# Without stacking, more live scans than CBs (which rematerialization cannot
# recompute) do not compile at all: stacking is what makes them fit.
pytestmark = pytest.mark.requires_optimization("cb_stacking")


@triton.jit
def _eighteen_scans(x):
    # Eighteen scans (which are never recomputed) live until the end.
    a0 = tl.cumsum(x, 0)
    a1 = tl.cumsum(x * 2, 0)
    a2 = tl.cumsum(x * 3, 0)
    a3 = tl.cumsum(x * 4, 0)
    a4 = tl.cumsum(x * 5, 0)
    a5 = tl.cumsum(x * 6, 0)
    a6 = tl.cumsum(x * 7, 0)
    a7 = tl.cumsum(x * 8, 0)
    a8 = tl.cumsum(x * 9, 0)
    a9 = tl.cumsum(x * 10, 0)
    b0 = tl.cumsum(x * 11, 0)
    b1 = tl.cumsum(x * 12, 0)
    b2 = tl.cumsum(x * 13, 0)
    b3 = tl.cumsum(x * 14, 0)
    b4 = tl.cumsum(x * 15, 0)
    b5 = tl.cumsum(x * 16, 0)
    b6 = tl.cumsum(x * 17, 0)
    b7 = tl.cumsum(x * 18, 0)
    r = b7 - b6 + b5 - b4 + b3 - b2 + b1 - b0 + a9 - a8 + a7 - a6 + a5 - a4 + a3 - a2 + a1 - a0
    return r * a0 + b7


@triton.jit
def eighteen_scans_kernel(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, _eighteen_scans(tl.load(x_ptr + i)))


def _expected(x):
    a = [torch.cumsum(x * (k + 1), 0) for k in range(18)]
    r = sum(a[17 - k] * (1 if k % 2 == 0 else -1) for k in range(18))
    return r * a[0] + a[17]


def test_more_live_tiles_than_cbs(gen):
    # Small integers: every sum is exact, so any misplaced tile shows.
    x = torch.randint(-3, 4, (256, ), generator=gen).float()
    out = torch.empty(256)
    eighteen_scans_kernel[(1, )](x, out, 256)
    assert torch.equal(out, _expected(x))


@triton.jit
def scans_in_loop_kernel(x_ptr, out_ptr, ROWS, N: tl.constexpr):
    # The same pressure inside a loop body, one row per iteration.
    i = tl.arange(0, N)
    for row in range(ROWS):
        tl.store(out_ptr + row * N + i, _eighteen_scans(tl.load(x_ptr + row * N + i)))


def test_more_live_tiles_than_cbs_in_a_loop(gen):
    x = torch.randint(-3, 4, (3, 128), generator=gen).float()
    out = torch.empty(3, 128)
    scans_in_loop_kernel[(1, )](x, out, 3, 128)
    assert torch.equal(out, torch.stack([_expected(row) for row in x]))


@triton.jit
def scans_read_by_a_loop_kernel(x_ptr, out_ptr, ROWS, N: tl.constexpr):
    # Sixteen scans of one row are made before a loop and read by every
    # iteration of it: they live across the loop, stacked in one CB where
    # each stays put while the loop runs.
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    a = tl.cumsum(x, 0)
    b = tl.cumsum(x * 2, 0)
    c = tl.cumsum(x * 3, 0)
    d = tl.cumsum(x * 4, 0)
    e = tl.cumsum(x * 5, 0)
    f = tl.cumsum(x * 6, 0)
    g = tl.cumsum(x * 7, 0)
    h = tl.cumsum(x * 8, 0)
    k = tl.cumsum(x * 9, 0)
    m = tl.cumsum(x * 10, 0)
    p = tl.cumsum(x * 11, 0)
    q = tl.cumsum(x * 12, 0)
    r = tl.cumsum(x * 13, 0)
    s = tl.cumsum(x * 14, 0)
    t = tl.cumsum(x * 15, 0)
    u = tl.cumsum(x * 16, 0)
    for row in range(ROWS):
        y = tl.load(x_ptr + (row + 1) * N + i)
        v = ((((a * y + b) * y + c) * y + d) * y + e) - ((((f * y + g) * y + h) * y + k) * y + m)
        w = (((p * y + q) * y + r) * y + s) * (t - u)
        tl.store(out_ptr + row * N + i, v + w)


def test_tiles_made_before_a_loop_and_read_in_it(gen):
    # Found by the fuzzer (seed 30308): a large loop-invariant expression
    # hoisted before its loop needed 18 CBs and did not compile.
    x = torch.randint(-2, 3, (4, 64), generator=gen).float()
    out = torch.empty(3, 64)
    scans_read_by_a_loop_kernel[(1, )](x, out, 3, 64)
    s = [torch.cumsum(x[0] * (k + 1), 0) for k in range(16)]
    a, b, c, d, e, f, g, h, k, m, p, q, r, t_, u_, v_ = s
    expected = []
    for row in range(3):
        y = x[row + 1]
        v = ((((a * y + b) * y + c) * y + d) * y + e) - ((((f * y + g) * y + h) * y + k) * y + m)
        w = (((p * y + q) * y + r) * y + t_) * (u_ - v_)
        expected.append(v + w)
    assert torch.equal(out, torch.stack(expected))
