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
def gather_rows_kernel(x_ptr, idx_ptr, out_ptr, n_rows, dim, INDUCTOR: tl.constexpr, ROWS: tl.constexpr,
                       BLOCK_D: tl.constexpr):
    # Rows of x picked by loaded indices, masked past n_rows and dim: the
    # pointer moved by the rows first (as an author writes it) or one offset
    # of two broadcasts (as Inductor does).
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    d = tl.arange(0, BLOCK_D)
    idx = tl.load(idx_ptr + r, mask=r < n_rows, other=0)
    mask = (r[:, None] < n_rows) & (d[None, :] < dim)
    if INDUCTOR:
        v = tl.load(x_ptr + (d[None, :] + dim * idx[:, None]), mask=mask, other=-1.0)
    else:
        v = tl.load(x_ptr + idx[:, None] * dim + d[None, :], mask=mask, other=-1.0)
    tl.store(out_ptr + r[:, None] * BLOCK_D + d[None, :], v, mask=r[:, None] < n_rows)


@pytest.mark.parametrize("inductor", [False, True])
def test_gathered_rows(inductor, gen):
    # The addresses are made per row and per column, then added once
    # (docs/compiler.md, "Structured accesses become DMAs"), whichever way
    # they are written; the results are the same.
    x = make(300 * 50, torch.float32, gen).reshape(300, 50)
    idx = torch.randint(0, 300, (37, ), generator=gen, dtype=torch.int32)
    out = torch.empty(37, 64)
    gather_rows_kernel[(triton.cdiv(37, 16), )](x, idx, out, 37, 50, INDUCTOR=inductor, ROWS=16, BLOCK_D=64)
    want = torch.full((37, 64), -1.0)
    want[:, :50] = x[idx.long()]
    torch.testing.assert_close(out, want)


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


# Blocks of rank above 4: DMA boxes have 8 dimensions, gathers and atomics
# read dense tiles and become 1-D, and tl.join of rank-4 halves is rank 5.
@triton.jit
def descriptor_rank5_kernel(in_ptr, out_ptr, s0, s1, s2, s3, s4, B0: tl.constexpr,
                            B1: tl.constexpr, B2: tl.constexpr, B3: tl.constexpr,
                            B4: tl.constexpr):
    src = tl.make_tensor_descriptor(in_ptr, shape=[s0, s1, s2, s3, s4],
                                    strides=[s1 * s2 * s3 * s4, s2 * s3 * s4, s3 * s4, s4, 1],
                                    block_shape=[B0, B1, B2, B3, B4])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[s0, s1, s2, s3, s4],
                                    strides=[s1 * s2 * s3 * s4, s2 * s3 * s4, s3 * s4, s4, 1],
                                    block_shape=[B0, B1, B2, B3, B4])
    p = tl.program_id(0)
    x = src.load([p * B0, 0, 0, 0, 0])
    dst.store([p * B0, 0, 0, 0, 0], x * 2 + 1)


def test_tensor_descriptor_rank5(gen):
    # Blocks overhang dimension 0 (5 rows in blocks of 2) and dimension 1 (3
    # in a block of 4): padded on load, clipped on store.
    x = torch.randn(5, 3, 4, 2, 8, generator=gen)
    out = torch.zeros_like(x)
    descriptor_rank5_kernel[(3, )](x, out, *x.shape, 2, 4, 4, 2, 8)
    assert torch.equal(out, x * 2 + 1)


@triton.jit
def host_descriptor_rank5_kernel(d_in, d_out, B0: tl.constexpr):
    p = tl.program_id(0)
    d_out.store([p * B0, 0, 0, 0, 0], d_in.load([p * B0, 0, 0, 0, 0]) - 3)


def test_host_tensor_descriptor_rank5(gen):
    from triton.tools.tensor_descriptor import TensorDescriptor
    x = torch.randn(5, 3, 4, 2, 8, generator=gen)
    out = torch.zeros_like(x)
    host_descriptor_rank5_kernel[(3, )](TensorDescriptor.from_tensor(x, [2, 4, 4, 2, 8]),
                                        TensorDescriptor.from_tensor(out, [2, 4, 4, 2, 8]), 2)
    assert torch.equal(out, x - 3)


@triton.jit
def pointer_rank6_kernel(in_ptr, out_ptr, lo):
    # Every dimension reversed in memory order on load, a lower-bound mask
    # on one dimension, an upper-bound mask on another on store.
    i0 = tl.arange(0, 2)[:, None, None, None, None, None]
    i1 = tl.arange(0, 2)[None, :, None, None, None, None]
    i2 = tl.arange(0, 2)[None, None, :, None, None, None]
    i3 = tl.arange(0, 2)[None, None, None, :, None, None]
    i4 = tl.arange(0, 2)[None, None, None, None, :, None]
    i5 = tl.arange(0, 4)[None, None, None, None, None, :]
    src = i0 + i1 * 2 + i2 * 4 + i3 * 8 + i4 * 16 + i5 * 32
    x = tl.load(in_ptr + src, mask=i3 >= lo, other=7.0)
    dst = i0 * 64 + i1 * 32 + i2 * 16 + i3 * 8 + i4 * 4 + i5
    tl.store(out_ptr + dst, x, mask=i1 < 1)


def test_pointer_block_rank6(gen):
    x = torch.randn(128, generator=gen)
    out = torch.zeros(128)
    pointer_rank6_kernel[(1, )](x, out, 1)
    loaded = x.reshape(4, 2, 2, 2, 2, 2).permute(5, 4, 3, 2, 1, 0).clone()
    loaded[:, :, :, 0] = 7.0
    expect = torch.zeros(2, 2, 2, 2, 2, 4)
    expect[:, 0] = loaded[:, 0]
    assert torch.equal(out, expect.reshape(-1))


@triton.jit
def gather_atomic_rank5_kernel(in_ptr, idx_ptr, out_ptr, D: tl.constexpr):
    i = tl.arange(0, D * D * D * D * 2)
    idx = tl.reshape(tl.load(idx_ptr + i), [D, D, D, D, 2])
    x = tl.load(in_ptr + idx)
    tl.atomic_add(out_ptr + tl.reshape(i, [D, D, D, D, 2]), x)


def test_gather_and_atomic_rank5(gen):
    src = torch.randn(64, generator=gen)
    idx = torch.randint(0, 64, (32, ), generator=gen, dtype=torch.int32)
    out = torch.ones(32)
    gather_atomic_rank5_kernel[(1, )](src, idx, out, 2)
    assert torch.equal(out, 1 + src[idx.long()])


@triton.jit
def join_rank4_kernel(a_ptr, b_ptr, out_ptr, D: tl.constexpr):
    i = tl.arange(0, D * D * D * D)
    a = tl.reshape(tl.load(a_ptr + i), [D, D, D, D])
    b = tl.reshape(tl.load(b_ptr + i), [D, D, D, D])
    j = tl.join(a, b)
    tl.store(out_ptr + tl.arange(0, 2 * D * D * D * D), tl.reshape(j, [2 * D * D * D * D]))


def test_join_rank4_halves(gen):
    a, b = torch.randn(16, generator=gen), torch.randn(16, generator=gen)
    out = torch.zeros(32)
    join_rank4_kernel[(1, )](a, b, out, 2)
    assert torch.equal(out, torch.stack([a, b], -1).reshape(-1))


@triton.jit
def masked_scalar_store_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    first = tl.program_id(0) * BLOCK
    # A masked scalar store, then a load of what it wrote.
    tl.store(out_ptr + first, tl.load(x_ptr + first) + 1, mask=first < n)
    again = tl.load(out_ptr + first, mask=first < n, other=-5.0)
    tl.store(out_ptr + first + 1, again * 2, mask=first + 1 < n)


def test_masked_scalar_store_and_read_back():
    """tl.store(ptr, scalar, mask=scalar_condition) was 'not supported:
    masked scalar stores'. Found by the fuzzer's read-your-writes programs."""
    x = torch.arange(40, dtype=torch.float32)
    out = torch.full((40, ), -1.0)
    masked_scalar_store_kernel[(5, )](x, out, 17, BLOCK=8)
    want = torch.full((40, ), -1.0)
    for first in range(0, 40, 8):
        if first < 17:
            want[first] = x[first] + 1
        if first + 1 < 17:
            want[first + 1] = want[first] * 2 if first < 17 else -10.0
    assert torch.equal(out, want), (out, want)
