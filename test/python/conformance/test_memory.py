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
