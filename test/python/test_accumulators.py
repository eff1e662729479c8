"""An accumulator updated in a loop holds one tile of local memory, not two
(mtia-replace-front, docs/compiler.md): the command that computes the new
value takes the room of the old one. A radix-sort histogram with a
[16, 1024] int64 accumulator (128 KiB) needed more than a PE's 384 KiB
before; these kernels check that it runs and that the answers stay right
when the accumulator is read through a view or stored before its update."""

import pytest
import torch
import triton
import triton.language as tl


@triton.jit
def digit_histogram(x_ptr, out_ptr, n, TILE_N: tl.constexpr, TILE_R: tl.constexpr,
                    BITS: tl.constexpr, PASSES: tl.constexpr):
    # out[p, r] = how many x have digit r at pass p (BITS bits per digit):
    # the counting pass of a radix sort, one [TILE_R, TILE_N] int64 counter
    # tile per pass, summed over the row after the loop.
    R: tl.constexpr = 2**BITS
    for p in range(0, PASSES):
        shift = p * BITS
        for r0 in range(0, R, TILE_R):
            digits = r0 + tl.arange(0, TILE_R)
            counts = tl.zeros((TILE_R, TILE_N), dtype=tl.int64)
            for start in range(0, n, TILE_N):
                offs = start + tl.arange(0, TILE_N)
                valid = offs < n
                x = tl.load(x_ptr + offs, mask=valid)
                digit = (x >> shift) & (R - 1)
                counts += tl.where(valid, digits[:, None] == digit, False)
            tl.store(out_ptr + p * R + digits, tl.sum(counts, axis=1).to(tl.int32))


def test_radix_histogram_with_a_128_kib_accumulator():
    x = torch.randint(0, 1 << 16, (3000, ), dtype=torch.int32)
    out = torch.zeros(4, 16, dtype=torch.int32)
    kernel = digit_histogram[(1, )](x, out, x.numel(), TILE_N=1024, TILE_R=16, BITS=4, PASSES=4)
    expected = torch.stack([torch.bincount((x >> (4 * p)) & 15, minlength=16) for p in range(4)])
    torch.testing.assert_close(out, expected.to(torch.int32))
    assert "replaceFront(ctx" in kernel.asm["cpp"]


@triton.jit
def transposed_sum(x_ptr, out_ptr, steps, B: tl.constexpr):
    # acc = acc^T + x_i: the update reads the tile it replaces transposed.
    r = tl.arange(0, B)
    offs = r[:, None] * B + r[None, :]
    acc = tl.zeros((B, B), dtype=tl.float32)
    for i in range(steps):
        acc = tl.trans(acc) + tl.load(x_ptr + i * B * B + offs)
    tl.store(out_ptr + offs, acc)


def test_accumulator_read_through_a_transposed_view(gen):
    steps, b = 5, 32
    x = torch.randn(steps, b, b, generator=gen)
    out = torch.empty(b, b)
    transposed_sum[(1, )](x, out, steps, B=b)
    expected = torch.zeros(b, b)
    for i in range(steps):
        expected = expected.T + x[i]
    torch.testing.assert_close(out, expected)


@triton.jit
def running_sums(x_ptr, out_ptr, steps, B: tl.constexpr):
    # out[i] holds the sum of x[0..i-1]: each store reads the accumulator
    # before the update that replaces it.
    c = tl.arange(0, B)
    acc = tl.zeros((B, ), dtype=tl.float32)
    for i in range(steps):
        tl.store(out_ptr + i * B + c, acc)
        acc += tl.load(x_ptr + i * B + c)
    tl.store(out_ptr + steps * B + c, acc)


@pytest.mark.parametrize("block", [256, 4096])
def test_accumulator_stored_before_its_update(block, gen):
    steps = 6
    x = torch.randn(steps, block, generator=gen)
    out = torch.empty(steps + 1, block)
    running_sums[(1, )](x, out, steps, B=block)
    expected = torch.cat([torch.zeros(1, block), torch.cumsum(x, 0)])
    torch.testing.assert_close(out, expected)
