"""mtia-share-vector-core with `split` (docs/compiler.md, "Sharing
elementwise work with the vector core") runs an elementwise command on both
the SIMD engine and the vector core, by rows, where both finish sooner.
These kernels run with the switch on and off: the results must be the same
bits, and PyTorch's, whatever the element types of the views the two parts
read (their offsets move by rows in elements of each view's type)."""

import pytest
import torch
import triton
import triton.language as tl



@triton.jit
def row_softmax_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    # A [R, C] tile per program: a chain of full-tile SE commands, with a
    # per-row broadcast (the max and the sum) and an f16 result.
    rows = tl.program_id(0) * R + tl.arange(0, R)
    cols = tl.arange(0, C)
    x = tl.load(x_ptr + rows[:, None] * C + cols[None, :])
    p = tl.exp(x - tl.max(x, 1)[:, None])
    tl.store(out_ptr + rows[:, None] * C + cols[None, :], (p / tl.sum(p, 1)[:, None]).to(tl.float16))


@pytest.mark.parametrize("rows", [2, 8, 64])
def test_softmax_rows_split_between_the_units(rows, gen, on_and_off):
    x = torch.randn(4 * rows, 128, generator=gen)

    def launch(**opts):
        out = torch.empty(4 * rows, 128, dtype=torch.float16)
        row_softmax_kernel[(4, )](x, out, R=rows, C=128, **opts)
        return [out]

    (out, ), on, off = on_and_off(launch, "elementwise_splitting")
    torch.testing.assert_close(out, torch.softmax(x, -1).half(), atol=1e-3, rtol=1e-3)
    if rows == 64:
        # Measured 0.976: the SE chain shared with the idle vector core,
        # whose port to local memory (a load and a store per strip of 16
        # fp32) makes it a quarter of the SE's rate on these commands.
        assert on.cycles < 0.985 * off.cycles, (on.cycles, off.cycles)


@triton.jit
def masked_mix_kernel(x_ptr, y_ptr, out_ptr, n, R: tl.constexpr, C: tl.constexpr):
    # Views of four element types in one command chain: i32 indices, an i1
    # mask, f16 and f32 data.
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    idx = rows[:, None] * C + cols[None, :]
    x = tl.load(x_ptr + idx).to(tl.float32)
    y = tl.load(y_ptr + idx)
    keep = (idx % 3) < n
    out = tl.where(keep, x * y + idx.to(tl.float32), -y)
    tl.store(out_ptr + idx, out)


def test_views_of_mixed_element_types(gen, on_and_off):
    x = torch.randn(64, 64, generator=gen).half()
    y = torch.randn(64, 64, generator=gen)

    def launch(**opts):
        out = torch.empty(64, 64)
        masked_mix_kernel[(1, )](x, y, out, 2, R=64, C=64, **opts)
        return [out]

    (out, ), _, _ = on_and_off(launch, "elementwise_splitting")
    idx = torch.arange(64 * 64, dtype=torch.float32).reshape(64, 64)
    keep = (torch.arange(64 * 64).reshape(64, 64) % 3) < 2
    torch.testing.assert_close(out, torch.where(keep, x.float() * y + idx, -y))
