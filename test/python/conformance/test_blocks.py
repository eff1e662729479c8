"""2-D and 3-D blocks, broadcasting, expand_dims, reshape, and the
program_id / num_programs of each grid axis."""

import pytest
import torch
import triton
import triton.language as tl

from _conf import make


@triton.jit
def add_2d_kernel(x_ptr, row_ptr, col_ptr, out_ptr, m, n, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rows[:, None] < m) & (cols[None, :] < n)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask)
    r = tl.load(row_ptr + rows, mask=rows < m)  # broadcast along columns
    c = tl.load(col_ptr + cols, mask=cols < n)  # broadcast along rows
    y = x * tl.expand_dims(r, 1) + c[None, :] + 1.0
    tl.store(out_ptr + rows[:, None] * n + cols[None, :], y, mask=mask)


def test_2d_broadcast(gen):
    m, n = 45, 70
    base = make((m, n + 5), torch.float32, gen)
    x = base[:, :n]  # row stride n + 5
    r, c = make(m, torch.float32, gen), make(n, torch.float32, gen)
    out = torch.empty(m, n)
    add_2d_kernel[(triton.cdiv(m, 16), triton.cdiv(n, 32))](x, r, c, out, m, n, x.stride(0), BM=16, BN=32)
    torch.testing.assert_close(out, x * r[:, None] + c[None, :] + 1.0)


@triton.jit
def block_3d_kernel(x_ptr, out_ptr, a, b, c, BA: tl.constexpr, BB: tl.constexpr, BC: tl.constexpr):
    i = tl.arange(0, BA)[:, None, None]
    j = tl.arange(0, BB)[None, :, None]
    k = tl.arange(0, BC)[None, None, :]
    mask = (i < a) & (j < b) & (k < c)
    x = tl.load(x_ptr + i * b * c + j * c + k, mask=mask, other=0.0)
    s = tl.sum(x, axis=2)  # (BA, BB)
    y = x - s[:, :, None] + j.to(tl.float32)
    tl.store(out_ptr + i * b * c + j * c + k, y, mask=mask)


def test_3d_block(gen):
    a, b, c = 3, 5, 7
    x = make((a, b, c), torch.float32, gen)
    out = torch.empty_like(x)
    block_3d_kernel[(1, )](x, out, a, b, c, BA=4, BB=8, BC=8)
    ref = x - x.sum(2, keepdim=True) + torch.arange(b).float()[None, :, None]
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)


@triton.jit
def reshape_kernel(x_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BM * BN))
    y = tl.reshape(x, (BM, BN))
    tl.store(out_ptr + tl.arange(0, BM), tl.sum(y, axis=1))


def test_reshape(gen):
    x = make(8 * 16, torch.float32, gen)
    out = torch.empty(8)
    reshape_kernel[(1, )](x, out, BM=8, BN=16)
    torch.testing.assert_close(out, x.view(8, 16).sum(1), rtol=1e-5, atol=1e-5)


@triton.jit
def program_id_kernel(out_ptr):
    pid = tl.program_id(0) + tl.num_programs(0) * (tl.program_id(1) + tl.num_programs(1) * tl.program_id(2))
    code = tl.program_id(0) * 10000 + tl.program_id(1) * 100 + tl.program_id(2)
    tl.store(out_ptr + 2 * pid, code)
    total = tl.num_programs(0) * 10000 + tl.num_programs(1) * 100 + tl.num_programs(2)
    tl.store(out_ptr + 2 * pid + 1, total)


@pytest.mark.parametrize("grid", [(70, 1, 1), (3, 5, 7), (1, 1, 66)])
def test_program_id_axes(grid):
    gx, gy, gz = grid
    out = torch.full((2 * gx * gy * gz, ), -1, dtype=torch.int32)
    program_id_kernel[grid](out)
    z, y, x = torch.meshgrid(torch.arange(gz), torch.arange(gy), torch.arange(gx), indexing="ij")
    codes = (x * 10000 + y * 100 + z).flatten().int()
    torch.testing.assert_close(out[0::2], codes)
    assert (out[1::2] == gx * 10000 + gy * 100 + gz).all()


@triton.jit
def cat_kernel(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, N))
    b = tl.load(b_ptr + tl.arange(0, N))
    c = tl.cat(a, b, can_reorder=True)  # Triton 3.9 takes 1-D blocks here
    tl.store(out_ptr + tl.arange(0, 2 * N), c)


@pytest.mark.filterwarnings("ignore:tl.cat")
@pytest.mark.parametrize("n, dtype", [(1, torch.float32), (16, torch.int32), (128, torch.float16)])
def test_cat_with_reordering_allowed(n, dtype, gen):
    """tl.cat(..., can_reorder=True) reaches the backend as tt.cat, which it
    did not know (conformance round three, item 1). Any order is allowed;
    ours is the concatenation's, as the interpreter's and Triton 3.10's."""
    a = torch.randint(-100, 100, (n, ), generator=gen).to(dtype)
    b = torch.randint(-100, 100, (n, ), generator=gen).to(dtype)
    out = torch.zeros(2 * n, dtype=dtype)
    cat_kernel[(1, )](a, b, out, N=n)
    assert torch.equal(out, torch.cat([a, b]))
