"""tt-split-masked-loops (docs/compiler.md, "Loop splitting") runs the
iterations of a loop where its masks are all true without them, and the rest
as written. These kernels run with the switch on and off: the results must
be the same bits, and PyTorch's, for every place the split can fall: no
iteration before it, all of them, one in between, a loop that runs zero
times, a grid-stride loop with a run-time step."""

import pytest
import torch
import triton
import triton.language as tl

from triton_mtia.kernels.flash import attention


@triton.jit
def clipped_row_sum_kernel(x_ptr, out_ptr, n, lo, BLOCK: tl.constexpr):
    # A row in chunks; where(cols < n) is a tile the SE computes, and so is
    # the lower clip (cols >= lo, which holds on a suffix: not split on).
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK, ), tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=1.0)
        x = tl.where(cols < n, x * 2.0, 0.0)
        acc += tl.where(cols >= lo, x, 0.0)
    tl.store(out_ptr + row * BLOCK + tl.arange(0, BLOCK), acc)


@pytest.mark.parametrize("n", [0, 5, 64, 200, 256])
def test_split_falls_anywhere(n, gen, on_and_off):
    x = torch.randn(3, n, generator=gen)

    def launch(**opts):
        out = torch.full((3, 64), 7.0)
        clipped_row_sum_kernel[(3, )](x, out, n, 10, BLOCK=64, **opts)
        return [out]

    (out, ), _, _ = on_and_off(launch, "loop_splitting")
    blocks = triton.cdiv(n, 64) * 64
    padded = torch.zeros(3, blocks)
    padded[:, :n] = x * 2.0
    padded[:, :10] = 0.0
    expected = padded.reshape(3, -1, 64).sum(1) if n else torch.zeros(3, 64)
    torch.testing.assert_close(out, expected)


@triton.jit
def grid_stride_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # A run-time step (the number of programs) and a lower bound per program.
    for start in range(tl.program_id(0) * BLOCK, n, tl.num_programs(0) * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        tl.store(out_ptr + offs, tl.where(offs < n, x + 1.0, -1.0), mask=offs < n)


@pytest.mark.parametrize("n", [1000, 4096])
def test_grid_stride_loop(n, gen, on_and_off):
    x = torch.randn(n, generator=gen)

    def launch(**opts):
        out = torch.empty(n)
        grid_stride_kernel[(3, )](x, out, n, BLOCK=128, **opts)
        return [out]

    (out, ), _, _ = on_and_off(launch, "loop_splitting")
    torch.testing.assert_close(out, x + 1.0)


@pytest.mark.parametrize("seq", [100, 256])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_with_partial_and_diagonal_blocks(seq, causal, gen, on_and_off):
    q, k, v = (torch.randn(2, seq, 64, generator=gen).half() for _ in range(3))

    def launch(**opts):
        return [attention(q, k, v, causal=causal, **opts)]

    (o, ), _, _ = on_and_off(launch, "loop_splitting")
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
    torch.testing.assert_close(o.float(), ref, atol=2e-2, rtol=2e-2)


def test_causal_attention_skips_the_mask_below_the_diagonal(gen, on_and_off):
    # L = 1024: each program's blocks before the diagonal compute no mask.
    q, k, v = (torch.randn(2, 1024, 64, generator=gen).half() for _ in range(3))

    def launch(**opts):
        return [attention(q, k, v, causal=True, pid_mapping="zigzag", **opts)]

    _, on, off = on_and_off(launch, "loop_splitting")
    # Measured 0.83 (the SE's two mask passes and the select gone).
    assert on.cycles < 0.9 * off.cycles, (on.cycles, off.cycles)
