"""Special float values (+-inf, NaN, -0.0, the largest finite, the smallest
subnormal) of every narrow float type, as tensor constants, as the `other`
of masked loads and as splats in a select. Triton prints 16- and 8-bit float
constants as hex bit patterns (`dense<0xFC00> : tensor<8xf16>`); they must
survive the lowering bit for bit, or a masked fp16 max pads with -0.0."""

import math

import pytest
import torch
import triton
import triton.language as tl

from _conf import ids

DTYPES = [torch.float16, torch.bfloat16, torch.float8_e5m2, torch.float8_e4m3fn]


def special_values(dtype):
    info = torch.finfo(dtype)
    if dtype == torch.bfloat16:
        # Triton's frontend builds a bf16 constant through fp16 (libtriton's
        # get_bf16): values outside fp16's range reach the ttir as 0 or inf,
        # the same on every backend. These are exact in both types.
        values = [-0.0, float("nan"), 2.0**15, -(2.0**15), 2.0**-14]
    else:
        values = [-0.0, float("nan"), info.max, -info.max, info.smallest_normal,
                  info.smallest_normal * info.eps]  # the smallest subnormal
    if dtype != torch.float8_e4m3fn:  # e4m3fn has no infinities
        values += [float("inf"), float("-inf")]
    return values


def assert_same(out, value, dtype):
    expect = torch.full_like(out, value, dtype=dtype)
    if math.isnan(value):
        assert out.float().isnan().all(), out
        return
    # Bit for bit: -0.0 must stay negative.
    assert torch.equal(out.contiguous().view(torch.uint8), expect.view(torch.uint8)), (out, expect)


@triton.jit
def full_kernel(out_ptr, VALUE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.full((BLOCK, ), VALUE, out_ptr.dtype.element_ty))


@triton.jit
def other_kernel(x_ptr, out_ptr, n, VALUE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=VALUE)
    tl.store(out_ptr + offs, x)


@triton.jit
def select_kernel(x_ptr, out_ptr, VALUE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    fill = tl.full((BLOCK, ), VALUE, x.dtype)
    tl.store(out_ptr + offs, tl.where(offs % 2 == 0, fill, x))


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
def test_constants(dtype):
    for value in special_values(dtype):
        out = torch.zeros(16, dtype=dtype)
        full_kernel[(1, )](out, VALUE=value, BLOCK=16)
        assert_same(out, value, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
def test_masked_load_other(dtype):
    x = torch.full((16, ), 1.0, dtype=dtype)
    for value in special_values(dtype):
        out = torch.zeros(16, dtype=dtype)
        other_kernel[(1, )](x, out, 5, VALUE=value, BLOCK=16)
        assert torch.equal(out[:5].float(), x[:5].float())
        assert_same(out[5:], value, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
def test_select_splat(dtype):
    x = torch.full((16, ), 1.0, dtype=dtype)
    for value in special_values(dtype):
        out = torch.zeros(16, dtype=dtype)
        select_kernel[(1, )](x, out, VALUE=value, BLOCK=16)
        assert_same(out[0::2], value, dtype)
        assert torch.equal(out[1::2].float(), x[1::2].float())


@triton.jit
def masked_max_kernel(x_ptr, out_ptr, idx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=float("-inf"))
    tl.store(out_ptr, tl.max(x, 0))
    tl.store(idx_ptr, tl.argmax(x, 0))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=ids)
def test_max_of_negative_row_padded_with_neg_inf(dtype, gen):
    x = (-1 - torch.rand(13, generator=gen)).to(dtype)
    out = torch.zeros(1, dtype=dtype)
    idx = torch.zeros(1, dtype=torch.int32)
    masked_max_kernel[(1, )](x, out, idx, 13, BLOCK=16)
    assert out.item() == x.max().item()
    assert idx.item() == x.argmax().item()
