"""mtia-effective-shapes (docs/compiler.md, "Effective shapes"): SE commands
work on the box of a tile that a load's mask bounds, where nothing reads the
rest. These kernels run with the switch on and off: the results must be the
same bits, and PyTorch's, including boxes that are empty, whole, or bound two
dimensions; the SE must do less work where the box is smaller than the
block."""

import pytest
import torch
import triton
import triton.language as tl

import triton_mtia
from triton_mtia.bench.ablation import rms_norm_kernel
from triton_mtia.samples.softmax import softmax_kernel


def se_elements(stats):
    return stats.stats["units"]["se"]["amount"] + stats.stats["units"]["vec"]["amount"]


@pytest.mark.parametrize("n_cols", [1, 781, 1024])
def test_rms_norm(n_cols, gen, on_and_off):
    x = torch.randn(6, n_cols, generator=gen)
    w = torch.rand(n_cols, generator=gen) + 0.5

    def launch(**opts):
        y, rstd = torch.empty_like(x), torch.empty(6)
        rms_norm_kernel[(6, )](x, w, y, rstd, n_cols, 1e-6, BLOCK=1024, **opts)
        return [y, rstd]

    (y, rstd), on, off = on_and_off(launch, "effective_shapes")
    expected_rstd = torch.rsqrt(x.pow(2).mean(-1) + 1e-6)
    torch.testing.assert_close(rstd, expected_rstd)
    torch.testing.assert_close(y, x * expected_rstd[:, None] * w)
    if n_cols < 1024:
        # Every command on the row is restricted: x * x, the sum, and the
        # two products (and one scalar copy for the store of rstd).
        assert se_elements(on) == 6 * (4 * n_cols + 1)
        assert se_elements(off) == 6 * (4 * 1024 + 1)
        assert on.cycles < off.cycles
    else:
        assert se_elements(on) == se_elements(off)


@pytest.mark.parametrize("n_cols", [0, 781])
def test_softmax(n_cols, gen, on_and_off):
    # n_cols = 0: every box is empty, the rows are all padding.
    x = torch.randn(10, max(n_cols, 1), generator=gen)[:, :n_cols].contiguous()

    def launch(**opts):
        out = torch.full_like(x, 5.0)
        softmax_kernel[(4, )](out, x, x.stride(0), out.stride(0), 10, n_cols, BLOCK=1024, **opts)
        return [out]

    (out, ), on, off = on_and_off(launch, "effective_shapes")
    torch.testing.assert_close(out, torch.softmax(x, -1))
    if n_cols:
        # The max (its fill -inf, the load's `other`) and the divide by the
        # sum work on the box; x - max, exp and the sum do not: the lanes
        # outside the box hold exp(-inf - max), not a constant.
        assert off.stats["units"]["se"]["amount"] - on.stats["units"]["se"]["amount"] == 10 * 2 * (1024 - n_cols)


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps, CLIP: tl.constexpr, BLOCK: tl.constexpr):
    # One row per program; the centred row is masked by a tile compare,
    # tl.where(cols < n_cols, ...): past the box it is 0, so its square's
    # sum works on the box too. With CLIP the where masks one column less
    # than the load: no load has that bound, and the where stays whole.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    keep = cols < n_cols - 1 if CLIP else mask
    xc = tl.where(keep, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * n_cols + cols, xc * rstd * w + b, mask=mask)


@pytest.mark.parametrize("n_cols,clip", [(1, False), (781, False), (1024, False), (781, True)])
def test_layer_norm_masked_by_a_where(n_cols, clip, gen, on_and_off):
    x = torch.randn(5, n_cols, generator=gen)
    w, b = torch.rand(n_cols, generator=gen) + 0.5, torch.randn(n_cols, generator=gen)

    def launch(**opts):
        y = torch.empty_like(x)
        layer_norm_kernel[(5, )](x, w, b, y, n_cols, 1e-5, CLIP=clip, BLOCK=1024, **opts)
        return [y]

    (y, ), on, off = on_and_off(launch, "effective_shapes")
    if clip:
        xc = x - x.mean(-1, keepdim=True)
        xc[:, -1] = 0.0
        expected = xc * torch.rsqrt(xc.pow(2).mean(-1, keepdim=True) + 1e-5) * w + b
        torch.testing.assert_close(y, expected)
        # The sum of x, the last products and the add: not the where's chain.
        assert 0 < se_elements(off) - se_elements(on) < 5 * 7 * (1024 - n_cols)
    else:
        torch.testing.assert_close(y, torch.nn.functional.layer_norm(x, (n_cols, ), w, b, 1e-5))
        if n_cols < 1024:
            # The sum, sub, select, square, sum, two products and the add
            # work on the box; so does the mask's compare where its bound is
            # a constant (Triton specializes n_cols = 1), not where the bound
            # is computed after it.
            restricted = 9 if n_cols == 1 else 8
            assert se_elements(off) - se_elements(on) == 5 * restricted * (1024 - n_cols)


@triton.jit
def masked_tile_kernel(x_ptr, row_sum_ptr, y_ptr, rows, cols, BR: tl.constexpr, BC: tl.constexpr):
    # A 2-D box (rows x cols) and a row reduction whose result keeps the
    # row bound, broadcast back over the tile.
    r = tl.arange(0, BR)[:, None]
    c = tl.arange(0, BC)[None, :]
    mask = (r < rows) & (c < cols)
    x = tl.load(x_ptr + r * cols + c, mask=mask, other=0.0)
    s = tl.sum(x * 3.0, axis=1)
    tl.store(row_sum_ptr + tl.arange(0, BR), s, mask=tl.arange(0, BR) < rows)
    y = tl.exp(x) - s[:, None]
    tl.store(y_ptr + r * cols + c, y, mask=mask)


@pytest.mark.parametrize("rows,cols", [(0, 0), (5, 40), (16, 64), (3, 1)])
def test_two_dimensional_box(rows, cols, gen, on_and_off):
    x = torch.randn(rows, cols, generator=gen)

    def launch(**opts):
        row_sum, y = torch.full((16, ), 9.0), torch.full((rows, cols), 9.0)
        masked_tile_kernel[(1, )](x, row_sum, y, rows, cols, BR=16, BC=64, **opts)
        return [row_sum, y]

    (row_sum, y), on, off = on_and_off(launch, "effective_shapes")
    expected_sum = (x * 3.0).sum(1)
    torch.testing.assert_close(row_sum[:rows], expected_sum)
    torch.testing.assert_close(y, torch.exp(x) - expected_sum[:, None])
    assert (row_sum[rows:] == 9.0).all()
    if rows * cols < 16 * 64:
        assert se_elements(on) < se_elements(off)


@triton.jit
def whole_tile_reader_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # exp(x) is read whole by the unmasked store: it must stay whole.
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, tl.exp(x))


def test_a_whole_tile_reader_keeps_the_tile_whole(gen, on_and_off):
    x = torch.randn(100, generator=gen)

    def launch(**opts):
        out = torch.empty(128)
        whole_tile_reader_kernel[(1, )](x, out, 100, BLOCK=128, **opts)
        return [out]

    (out, ), on, off = on_and_off(launch, "effective_shapes")
    torch.testing.assert_close(out[:100], torch.exp(x))
    assert (out[100:] == 1.0).all()  # exp of the pad, as written
    assert se_elements(on) == se_elements(off)


def test_the_setting(gen):
    # A setting is read when a kernel compiles (docs/python.md), so each
    # run compiles anew: another BLOCK.
    x = torch.randn(4, 300, generator=gen)
    w = torch.ones(300)
    y, rstd = torch.empty_like(x), torch.empty(4)
    previous = triton_mtia.settings.effective_shapes
    try:
        triton_mtia.settings.effective_shapes = False
        rms_norm_kernel[(4, )](x, w, y, rstd, 300, 1e-6, BLOCK=512)
        assert se_elements(triton_mtia.last_launch()) == 4 * (4 * 512 + 1)
    finally:
        triton_mtia.settings.effective_shapes = previous
    rms_norm_kernel[(4, )](x, w, y, rstd, 300, 1e-6, BLOCK=2048)
    assert se_elements(triton_mtia.last_launch()) == 4 * (4 * 300 + 1)
