"""Inductor's index math: `//` and `%` by constants in addresses.

Inductor flattens an N-D tensor's index into one range and recovers the
coordinates with `x // d` and `x % d`. Where the divisors split the block
into whole digits (docs/compiler.md, "Index math"), the access is one N-D
DMA over those digits; elsewhere it stays a gather, with the same result.
Every kernel here is checked against PyTorch; the form of its accesses
(DMAs or gathers) only with the optimization on, so the file also runs with
it off (`--mtia-off=index_math`, test_optimization_switches.py)."""

import pytest
import torch
import triton
import triton.language as tl

import triton_mtia


@pytest.fixture(autouse=True)
def dma_report(monkeypatch):
    monkeypatch.setattr(triton_mtia.settings, "dma_report", True)


def by_address():
    """Gathers and scatters of the last launch, or None when the run has
    index math switched off (then only results are checked)."""
    return triton_mtia.last_launch().accesses_by_address if triton_mtia.settings.index_math else None


@triton.jit
def permute_kernel(in_ptr0, out_ptr0, XBLOCK: tl.constexpr):
    # out = in.permute(0, 2, 1) for in of shape [64, 16, 8], written the way
    # Inductor writes a pointwise kernel.
    xnumel = 8192
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex % 16
    x1 = (xindex // 16) % 8
    x2 = xindex // 128
    tmp0 = tl.load(in_ptr0 + (x1 + 8 * x0 + 128 * x2), xmask)
    tl.store(out_ptr0 + xindex, tmp0, xmask)


@pytest.mark.parametrize("block", [1024, 128, 64, 16, 4])
def test_permute_is_one_dma_per_block(block, gen):
    x = torch.randn(64, 16, 8, generator=gen)
    out = torch.empty(8192)
    k = permute_kernel[(8192 // block,)](x, out, XBLOCK=block)
    assert torch.equal(out, x.permute(0, 2, 1).reshape(-1))
    if by_address() is not None:
        assert by_address() == 0 and k.metadata.dma_report == []
        assert "gatherIn(" not in k.asm["cpp"]


def test_switched_off_it_gathers_the_same_values(gen):
    x = torch.randn(64, 16, 8, generator=gen)
    on, off = torch.empty(8192), torch.empty(8192)
    permute_kernel[(8,)](x, on, XBLOCK=1024, index_math=True)
    fast = triton_mtia.last_launch()
    permute_kernel[(8,)](x, off, XBLOCK=1024, index_math=False)
    slow = triton_mtia.last_launch()
    assert torch.equal(on, off)
    assert slow.accesses_by_address == 8 and fast.accesses_by_address == 0
    assert fast.cycles < slow.cycles


@triton.jit
def middle_sum_kernel(in_ptr0, out_ptr0, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    # out[a, c] = sum_b in[a, b, c] for in of shape [4, 32, 24]: rows of 24
    # in the flattened x index, the reduction index strided by 24.
    xnumel = 96
    rnumel = 32
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rindex = tl.arange(0, RBLOCK)[None, :]
    rmask = rindex < rnumel
    x0 = xindex % 24
    x1 = xindex // 24
    tmp0 = tl.load(in_ptr0 + (x0 + 24 * rindex + 768 * x1), xmask & rmask, other=0.0)
    tmp1 = tl.sum(tmp0, 1)[:, None]
    tl.store(out_ptr0 + xindex, tmp1, xmask)


@pytest.mark.parametrize("block, dma", [(8, True), (4, True), (32, False), (128, False)])
def test_reduction_over_a_strided_dimension(block, dma, gen):
    # Blocks of 8 or 4 lie inside rows of 24 (x // 24 is uniform over the
    # block); blocks of 32 or 128 straddle rows, which no box describes.
    x = torch.randn(4, 32, 24, generator=gen)
    out = torch.empty(96)
    k = middle_sum_kernel[(triton.cdiv(96, block),)](x, out, XBLOCK=block, RBLOCK=32)
    torch.testing.assert_close(out, x.sum(1).reshape(-1))
    if by_address() is None:
        return
    assert (by_address() == 0) == dma
    if not dma:
        (remark,) = k.metadata.dma_report
        assert "does not split the block into whole digits" in remark


@triton.jit
def channels_last_kernel(in_ptr0, out_ptr0, C: tl.constexpr, HW: tl.constexpr, XBLOCK: tl.constexpr):
    # NCHW -> NHWC over a flattened index of the output, unsigned division.
    xoffset = tl.program_id(0) * XBLOCK
    xindex = (xoffset + tl.arange(0, XBLOCK)).to(tl.uint32)
    c = xindex % C
    hw = (xindex // C) % HW
    n = xindex // (C * HW)
    tmp0 = tl.load(in_ptr0 + (hw + HW * c + C * HW * n))
    tl.store(out_ptr0 + xindex, tmp0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.int32])
@pytest.mark.parametrize("channels, block, dma", [(8, 256, True), (3, 128, False)])
def test_unsigned_index_math_channels_last(dtype, channels, block, dma, gen):
    # 3 channels do not split a block of 128 into digits: gathers, zero-
    # extended unsigned addresses computed on the SIMD engine.
    x = torch.randn(2, channels, 4, 16, generator=gen).to(dtype)
    out = torch.empty(x.numel(), dtype=dtype)
    channels_last_kernel[(x.numel() // block,)](x, out, C=channels, HW=64, XBLOCK=block)
    assert torch.equal(out, x.permute(0, 2, 3, 1).reshape(-1))
    assert by_address() is None or (by_address() == 0) == dma


@triton.jit
def offset_rows_kernel(in_ptr0, out_ptr0, start, XBLOCK: tl.constexpr):
    # The block starts at a kernel argument, which may be negative and is
    # only known to be a multiple of 16: `%` by 32 stays a gather.
    xindex = start + tl.arange(0, XBLOCK)
    x0 = xindex % 32
    tmp0 = tl.load(in_ptr0 + x0)
    tl.store(out_ptr0 + tl.arange(0, XBLOCK), tmp0)


@pytest.mark.parametrize("start", [0, 16, 48])
def test_unknown_block_start_still_right(start, gen):
    x = torch.randn(32, generator=gen)
    out = torch.empty(64)
    offset_rows_kernel[(1,)](x, out, start, XBLOCK=64)
    assert torch.equal(out, x[torch.arange(start, start + 64) % 32])
    assert by_address() in (None, 1)


def test_inductor_permute_add_has_no_gathers():
    # What Inductor writes for a permuted add is a tiled kernel over
    # (yindex % 16, yindex // 16): one DMA per operand.
    import torch._dynamo

    torch._dynamo.reset()
    try:
        x, y = torch.randn(64, 16, 8), torch.randn(64, 8, 16)
        fn = torch.compile(lambda a, b: a.permute(0, 2, 1) + b)
        torch.testing.assert_close(fn(x.to("mtia"), y.to("mtia")).cpu(), x.permute(0, 2, 1) + y)
        assert by_address() in (None, 0)
    finally:
        torch._dynamo.reset()
