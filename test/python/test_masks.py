"""Masks with a lower bound (`offs >= lo`): shifted windows and stencils.

A DMA box moves the elements with begin[d] <= i_d < valid[d] of each
dimension, so such masks are DMAs, not gathers or scatters by address
(docs/compiler.md, "Structured accesses become DMAs")."""

import re

import pytest
import torch
import triton
import triton.language as tl

import triton_mtia


@pytest.fixture(autouse=True)
def dma_report(monkeypatch):
    # Each test compiles its kernels with the report, so metadata.dma_report
    # lists every access that is not a DMA.
    monkeypatch.setattr(triton_mtia.settings, "dma_report", True)


def assert_all_dmas(kernel):
    assert kernel.metadata.dma_report == [], kernel.metadata.dma_report
    cpp = kernel.asm["cpp"]
    assert "gatherIn(" not in cpp and "scatterOut(" not in cpp


@triton.jit
def shift_right_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    # out[i] = x[i - 1] for i >= 1, out[0] = 0.
    x = tl.load(x_ptr + offs - 1, mask=(offs >= 1) & (offs < n), other=0.0)
    tl.store(out_ptr + offs, x, mask=offs < n)


@pytest.mark.parametrize("n, block", [(100, 32), (7, 8), (64, 64)])
def test_shifted_copy_is_a_dma(n, block, gen):
    x = torch.randn(n, generator=gen)
    out = torch.full((n, ), -1.0)
    k = shift_right_kernel[(triton.cdiv(n, block), )](x, out, n, BLOCK=block)
    want = torch.cat([torch.zeros(1), x[:-1]])
    torch.testing.assert_close(out, want)
    assert_all_dmas(k)
    # The load's box carries a begin (a fifth member of Box); the store's,
    # bounded above only, does not. The first program's box begins at 1: its
    # address is one element before x, outside the tensor, and the launch
    # does not fault.
    boxes = re.findall(r"(dmaIn|dmaOut)\(.*Box\{1, \{\d+\}((?:, \{[^}]*\})*)\}", k.asm["cpp"])
    assert [(cmd, members.count("{")) for cmd, members in boxes] == [("dmaIn", 3), ("dmaOut", 2)]


@triton.jit
def window_kernel(x_ptr, out_ptr, lo, hi, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    # Only [lo, hi) is read; the rest of the tile is the pad.
    x = tl.load(x_ptr + offs, mask=(offs >= lo) & (hi > offs), other=-5.0)
    tl.store(out_ptr + offs, x, mask=offs < n)


@pytest.mark.parametrize("lo, hi", [(3, 11), (0, 16), (9, 4), (-2, 5), (12, 40)])
def test_window_load_pads_outside(lo, hi):
    n = 16
    x = torch.arange(n, dtype=torch.float32)
    out = torch.empty(n)
    k = window_kernel[(1, )](x, out, lo, hi, n, BLOCK=16)
    offs = torch.arange(n)
    want = torch.where((offs >= lo) & (offs < hi), x, torch.tensor(-5.0))
    torch.testing.assert_close(out, want)
    assert_all_dmas(k)


@triton.jit
def stencil_kernel(x_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    r = rows[:, None]
    c = cols[None, :]
    inside = (r < M) & (c < N)
    # A 3-point stencil along the columns and the rows, zero outside.
    left = tl.load(x_ptr + r * stride_m + c - 1, mask=(r < M) & (c >= 1) & (c < N + 1), other=0.0)
    mid = tl.load(x_ptr + r * stride_m + c, mask=inside, other=0.0)
    right = tl.load(x_ptr + r * stride_m + c + 1, mask=(r < M) & (c < N - 1), other=0.0)
    up = tl.load(x_ptr + (r - 1) * stride_m + c, mask=(r >= 1) & (r - 1 < M) & (c < N), other=0.0)
    down = tl.load(x_ptr + (r + 1) * stride_m + c, mask=(1 <= r + 1) & (r + 1 < M) & (c < N),
                   other=0.0)
    out = 2.0 * mid - 0.25 * (left + right) - 0.5 * (up + down)
    tl.store(out_ptr + r * N + c, out, mask=inside)


def stencil_reference(x):
    p = torch.nn.functional.pad(x, (1, 1, 1, 1))
    mid = p[1:-1, 1:-1]
    return 2.0 * mid - 0.25 * (p[1:-1, :-2] + p[1:-1, 2:]) - 0.5 * (p[:-2, 1:-1] + p[2:, 1:-1])


@pytest.mark.parametrize("M, N", [(20, 24), (16, 16), (5, 37)])
def test_2d_stencil_is_all_dmas(M, N, gen):
    x = torch.randn(M, N, generator=gen)
    out = torch.empty(M, N)
    grid = (triton.cdiv(M, 8), triton.cdiv(N, 16))
    k = stencil_kernel[grid](x, out, M, N, x.stride(0), BLOCK_M=8, BLOCK_N=16)
    torch.testing.assert_close(out, stencil_reference(x))
    assert_all_dmas(k)


@triton.jit
def store_tail_kernel(x_ptr, out_ptr, lo, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    # Writes only [lo, n); memory before lo keeps what it held.
    tl.store(out_ptr + offs, x * 3.0, mask=(lo <= offs) & (offs < n))


@pytest.mark.parametrize("lo", [0, 5, 40, 63, 64])
def test_masked_store_with_a_lower_bound_is_a_dma(lo, gen):
    n = 64
    x = torch.randn(n, generator=gen)
    out = torch.full((n, ), 7.0)
    k = store_tail_kernel[(triton.cdiv(n, 16), )](x, out, lo, n, BLOCK=16)
    want = torch.full((n, ), 7.0)
    want[lo:] = x[lo:] * 3.0
    torch.testing.assert_close(out, want)
    assert_all_dmas(k)


@triton.jit
def strict_bounds_kernel(x_ptr, out_ptr, lo, hi, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    # Strict lower bounds: offs > lo and lo < offs begin at lo + 1.
    x = tl.load(x_ptr + offs, mask=(offs > lo) & (offs <= hi), other=0)
    tl.store(out_ptr + offs, x, mask=(lo < offs) | (offs == 0))


def test_strict_lower_bounds(gen):
    x = torch.randint(-100, 100, (32, ), generator=gen, dtype=torch.int32)
    out = torch.full((32, ), 1, dtype=torch.int32)
    k = strict_bounds_kernel[(1, )](x, out, 4, 20, BLOCK=32)
    offs = torch.arange(32)
    loaded = torch.where((offs > 4) & (offs <= 20), x, torch.zeros_like(x))
    want = torch.where((offs > 4) | (offs == 0), loaded, torch.ones_like(x))
    torch.testing.assert_close(out, want)
    # The load is a DMA; the store's mask is an OR, which is no box: a scatter.
    report = k.metadata.dma_report
    assert len(report) == 1 and "store is not a DMA" in report[0], report


# Offsets carried by a loop: `offs += BLOCK` with a mask on `offs` (batched
# matmuls and K reductions). The offset tensor's base is a scalar iter_arg,
# so the load is a DMA whose box shrinks in the last iteration.
@triton.jit
def carried_offsets_kernel(x_ptr, out_ptr, K, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, ), tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK)):
        acc += tl.load(x_ptr + offs, mask=offs < K, other=0.0)
        offs += BLOCK
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)


@triton.jit
def carried_pointer_and_offsets_kernel(x_ptr, out_ptr, M, K, stride, BM: tl.constexpr,
                                       BK: tl.constexpr):
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BK)[None, :]
    ptrs = x_ptr + rows * stride + cols
    acc = tl.zeros((BM, BK), tl.float32)
    for k in range(0, K, BK):
        acc += tl.load(ptrs, mask=(rows < M) & (cols < K), other=0.0)
        ptrs += BK
        cols += BK
    tl.store(out_ptr + tl.arange(0, BM), tl.sum(acc, 1), mask=tl.arange(0, BM) < M)


def test_loop_carried_offsets_are_dmas(gen):
    x = torch.randn(100, generator=gen)
    out = torch.empty(32)
    k = carried_offsets_kernel[(1, )](x, out, 100, BLOCK=32)
    torch.testing.assert_close(out, torch.nn.functional.pad(x, (0, 28)).view(4, 32).sum(0))
    assert_all_dmas(k)

    x = torch.randn(13, 70, generator=gen)
    out = torch.empty(13)
    k = carried_pointer_and_offsets_kernel[(1, )](x, out, 13, 70, x.stride(0), BM=16, BK=32)
    torch.testing.assert_close(out, x.sum(1), rtol=1e-5, atol=1e-5)
    assert_all_dmas(k)


# The K loop of flag-gems' bmm and of many GPU GEMMs, in each spelling: the
# pointer tensors and the offset vector are carried and advanced, the mask
# comes from the carried offsets, by name or positional, with or without
# `other`, and the masked-off lanes may be cleared again with `tl.where`
# (which reads the carried offsets as data). Every form failed with "its
# pointers could not be computed" but the one with `other`.
@triton.jit
def carried_k_loop_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, BM: tl.constexpr,
                          BN: tl.constexpr, BK: tl.constexpr, FORM: tl.constexpr):
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * sam + offs_k[None, :] * sak
    b_ptrs = b_ptr + offs_k[:, None] * sbk + offs_n[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        if FORM == "positional-where":
            a = tl.load(a_ptrs, offs_k[None, :] < K)
            b = tl.load(b_ptrs, offs_k[:, None] < K)
            a = tl.where(offs_k[None, :] < K, a, 0.0)
            b = tl.where(offs_k[:, None] < K, b, 0.0)
        elif FORM == "named-other":
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K, other=0.0)
        elif FORM == "named-where":
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K)
            a = tl.where(offs_k[None, :] < K, a, 0.0)
            b = tl.where(offs_k[:, None] < K, b, 0.0)
        else:  # "mn-and-k": flag-gems with M and N not divisible
            mask_k = offs_k < K
            mask_a = (offs_m < M)[:, None] & mask_k[None, :]
            mask_b = mask_k[:, None] & (offs_n < N)[None, :]
            a = tl.where(mask_a, tl.load(a_ptrs, mask_a), 0.0)
            b = tl.where(mask_b, tl.load(b_ptrs, mask_b), 0.0)
        offs_k += BK
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
        acc += tl.dot(a, b)
    c_ptrs = c_ptr + offs_m[:, None] * N + offs_n[None, :]
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@pytest.mark.parametrize("form", ["positional-where", "named-other", "named-where", "mn-and-k"])
def test_carried_k_loop_in_every_spelling(form, gen):
    # Only the last form masks rows and columns; K is never a multiple of BK.
    M, N, K = (40, 48, 80) if form == "mn-and-k" else (64, 64, 80)
    a = torch.randn(M, K, generator=gen)
    b = torch.randn(K, N, generator=gen)
    c = torch.empty(M, N)
    k = carried_k_loop_kernel[(2, 2)](a, b, c, M, N, K, *a.stride(), *b.stride(), BM=32, BN=32, BK=32,
                                      FORM=form, dma_report=True)
    torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)
    assert_all_dmas(k)


# Pointers advanced by tensors: a uniform tensor and an affine one move a DMA
# (the latter's stride changes from one iteration to the next, so the loop
# carries it beside the base); loaded offsets are not affine, so the loop
# carries the addresses and the load is a gather.
@triton.jit
def tensor_step_kernel(x_ptr, s_ptr, out_ptr, ITERS, BLOCK: tl.constexpr, STEP: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    ptrs = x_ptr + tl.arange(0, 4)[:, None] * 1024 + cols[None, :]
    acc = tl.zeros((4, BLOCK), dtype=tl.float32)
    for _ in range(ITERS):
        acc += tl.load(ptrs)
        if STEP == "uniform":
            ptrs += tl.full((4, BLOCK), 3, tl.int32)
        elif STEP == "affine":
            ptrs += cols[None, :] + 1
        else:
            ptrs += tl.load(s_ptr + cols)[None, :]
    tl.store(out_ptr + tl.arange(0, 4)[:, None] * BLOCK + cols[None, :], acc)


@pytest.mark.parametrize("step", ["uniform", "affine", "loaded"])
def test_pointers_advanced_by_tensors(step, gen):
    BLOCK, ITERS = 16, 5
    x = torch.randn(4, 1024, generator=gen)
    s = torch.randint(0, 7, (BLOCK, ), dtype=torch.int32, generator=gen)
    out = torch.empty(4, BLOCK)
    k = tensor_step_kernel[(1, )](x, s, out, ITERS, BLOCK=BLOCK, STEP=step)
    cols = torch.arange(BLOCK)
    move = {"uniform": torch.full((BLOCK, ), 3), "affine": cols + 1, "loaded": s.long()}[step]
    want = sum(x[:, cols + i * move] for i in range(ITERS))
    torch.testing.assert_close(out, want, rtol=1e-5, atol=1e-5)
    assert ("gatherIn(" in k.asm["cpp"]) == (step == "loaded")


@triton.jit
def unsigned_bound_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs.to(tl.uint32) < n.to(tl.uint32)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m, other=-1.0) + 1.0, mask=m)


@triton.jit
def u64_bound_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Triton types an integer argument of 2^63 or more as u64; the compare
    # with the i32 offsets is unsigned.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m, other=-1.0) + 1.0, mask=m)


@triton.jit
def unsigned_window_kernel(x_ptr, out_ptr, lo, BLOCK: tl.constexpr):
    # lo <= offs < lo + 100 in one unsigned compare.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = (offs.to(tl.uint32) - lo.to(tl.uint32)) < 100
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m, other=-1.0) + 1.0, mask=m)


@pytest.mark.parametrize("kernel, arg, lo, hi", [
    (unsigned_bound_kernel, 130, 0, 130),
    (unsigned_bound_kernel, -1, 0, 256),  # 2^32 - 1 unsigned
    (unsigned_bound_kernel, 2**31 + 3, 0, 256),
    (u64_bound_kernel, 2**63 + 5, 0, 256),
    (unsigned_window_kernel, 50, 50, 150),
])
def test_unsigned_masks(kernel, arg, lo, hi):
    """Unsigned compares in masks (robustness issue, defect 4): a bound of
    2^31 or more became a negative signed box bound and nothing moved, and
    `(offs - lo) <u n` kept the indices below lo. The DMA box is taken only
    for a constant bound below 2^31; other unsigned bounds compare per
    element."""
    x = torch.arange(256, dtype=torch.float32)
    out = torch.zeros(256)
    compiled = kernel[(2, )](x, out, arg, BLOCK=128)
    want = torch.zeros(256)
    want[lo:hi] = x[lo:hi] + 1.0
    assert torch.equal(out, want)
    if kernel is unsigned_window_kernel:
        assert_all_dmas(compiled)


@triton.jit
def narrow_carried_offsets_kernel(x_ptr, out_ptr, offs_out_ptr, TRIPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK).to(tl.uint8) * 60
    acc = tl.zeros((BLOCK, ), tl.float32)
    for _ in range(TRIPS):
        acc += tl.load(x_ptr + offs)  # the offsets as addresses: wrapped at 8 bits
        offs += 100
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)
    tl.store(offs_out_ptr + tl.arange(0, BLOCK), offs)  # and as data


def test_narrow_carried_offsets_wrap_as_written():
    """uint8 offsets advanced past 255, read as addresses and as data: both
    wrap at 8 bits, as written (a loop carries such narrow offsets as scalars
    only where they are nothing but addresses)."""
    x = torch.arange(256, dtype=torch.float32)
    out = torch.empty(16)
    offs = torch.empty(16, dtype=torch.uint8)
    narrow_carried_offsets_kernel[(1, )](x, out, offs, TRIPS=5, BLOCK=16)
    start = (torch.arange(16) * 60) % 256
    want = sum((start + 100 * i) % 256 for i in range(5)).float()
    assert torch.equal(out, want) and torch.equal(offs, ((start + 500) % 256).to(torch.uint8))
