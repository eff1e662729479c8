"""Loads and stores: masks, `other`, strided and indirect addressing,
scalar pointers, int64 offsets, several dtypes."""

import pytest
import torch
import triton
import triton.language as tl

from _conf import BLOCK, N, grid1d, ids, make


@triton.jit
def masked_copy_kernel(x_ptr, out_ptr, n, OTHER: tl.constexpr, BLOCK: tl.constexpr):
    # Loads the whole block (lanes past n masked, filled with OTHER) and
    # stores it all: out has room for the block.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=OTHER)
    tl.store(out_ptr + offs, x)


@pytest.mark.parametrize("other", [0.0, -1.5, float("-inf")])
def test_masked_load_other(other, gen):
    x = make(N, torch.float32, gen)
    blocks = triton.cdiv(N, BLOCK)
    out = torch.empty(blocks * BLOCK)
    masked_copy_kernel[(blocks, )](x, out, N, OTHER=other, BLOCK=BLOCK)
    torch.testing.assert_close(out[:N], x)
    assert (out[N:] == other).all()


@triton.jit
def masked_store_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Stores only even elements: the odd ones keep their previous value.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, x * 2, mask=(offs < n) & (offs % 2 == 0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.int8], ids=ids)
def test_masked_store(dtype, gen):
    x = make(N, dtype, gen, low=-50, high=50)
    out = torch.full((N, ), 7, dtype=dtype)
    masked_store_kernel[grid1d()](x, out, N, BLOCK=BLOCK)
    ref = torch.full((N, ), 7, dtype=dtype)
    ref[::2] = (x[::2].double() * 2).to(dtype)
    torch.testing.assert_close(out, ref)


@triton.jit
def strided_kernel(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs * stride, mask=mask), mask=mask)


def test_strided_load(gen):
    base = make(3 * N, torch.float32, gen)
    out = torch.empty(N)
    strided_kernel[grid1d()](base, out, N, 3, BLOCK=BLOCK)
    torch.testing.assert_close(out, base[::3])


@triton.jit
def gather_kernel(x_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    tl.store(out_ptr + offs, tl.load(x_ptr + idx, mask=mask), mask=mask)


def test_indirect_load(gen):
    x = make(N, torch.float32, gen)
    idx = torch.randint(0, N, (N, ), generator=gen, dtype=torch.int32)
    out = torch.empty(N)
    gather_kernel[grid1d()](x, idx, out, N, BLOCK=BLOCK)
    torch.testing.assert_close(out, x[idx.long()])


@triton.jit
def scatter_kernel(x_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    tl.store(out_ptr + idx, tl.load(x_ptr + offs, mask=mask), mask=mask)


def test_indirect_store(gen):
    x = make(N, torch.float32, gen)
    idx = torch.randperm(N, generator=gen).int()
    out = torch.zeros(N)
    scatter_kernel[grid1d()](x, idx, out, N, BLOCK=BLOCK)
    ref = torch.zeros(N)
    ref[idx.long()] = x
    torch.testing.assert_close(out, ref)


@triton.jit
def scalar_ptr_kernel(x_ptr, out_ptr, i):
    # Scalar load and store through a pointer plus a runtime offset.
    v = tl.load(x_ptr + i)
    tl.store(out_ptr, v * 2 + 1)
    tl.store(out_ptr + 1, tl.load(x_ptr))


def test_scalar_pointer(gen):
    x = make(17, torch.float32, gen)
    out = torch.zeros(2)
    scalar_ptr_kernel[(1, )](x, out, 11)
    torch.testing.assert_close(out, torch.stack([x[11] * 2 + 1, x[0]]))


@triton.jit
def int64_offset_kernel(x_ptr, out_ptr, row, row_stride, BLOCK: tl.constexpr):
    # int64 arithmetic on the offset, as kernels do against overflow.
    offs = row.to(tl.int64) * row_stride + tl.arange(0, BLOCK)
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.load(x_ptr + offs))


def test_int64_offsets(gen):
    x = make((9, 64), torch.float32, gen)
    out = torch.empty(64)
    int64_offset_kernel[(1, )](x, out, 7, 64, BLOCK=64)
    torch.testing.assert_close(out, x[7])


# Choosing between pointers: how cat/stack kernels pick their source. Triton
# folds a two-way `if` on program_id into an arith.select of scalar
# pointers; a three-way one with side effects stays scf.if; tl.where picks
# per lane between pointer tiles.
@triton.jit
def cat2_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    if pid == 0:
        src = a_ptr
    else:
        src = b_ptr
    tl.store(out_ptr + pid * n + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)


def test_select_scalar_pointer(gen):
    a, b = torch.randn(10, generator=gen), torch.randn(10, generator=gen)
    out = torch.empty(20)
    cat2_kernel[(2, )](a, b, out, 10, BLOCK=16)
    assert torch.equal(out, torch.cat([a, b]))


@triton.jit
def stack3_kernel(a_ptr, b_ptr, c_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    if pid == 0:
        src = a_ptr
        scale = 1.0
    elif pid == 1:
        src = b_ptr + 1
        scale = 2.0
    else:
        src = c_ptr
        tl.store(out_ptr + 3 * n + offs, tl.full((BLOCK, ), 7.0, tl.float32), mask=offs < 1)
        scale = 3.0
    tl.store(out_ptr + pid * n + offs, scale * tl.load(src + offs, mask=offs < n), mask=offs < n)


def test_if_elif_selects_pointer(gen):
    a, b, c = (torch.randn(k, generator=gen) for k in (10, 11, 10))
    out = torch.zeros(31)
    stack3_kernel[(3, )](a, b, c, out, 10, BLOCK=16)
    assert torch.equal(out[:30], torch.cat([a, 2 * b[1:], 3 * c]))
    assert out[30] == 7.0


@triton.jit
def where_pointer_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.where(offs % 2 == 0, a_ptr + offs, b_ptr + offs)
    tl.store(out_ptr + offs, tl.load(p, mask=offs < n, other=-1.0))


def test_where_between_pointer_tiles(gen):
    a, b = torch.randn(16, generator=gen), torch.randn(16, generator=gen)
    out = torch.zeros(16)
    where_pointer_kernel[(1, )](a, b, out, 13, BLOCK=16)
    expect = torch.where(torch.arange(16) % 2 == 0, a, b)
    expect[13:] = -1
    assert torch.equal(out, expect)
