"""Elementwise arithmetic per dtype (fp32, fp16, bf16, int32, int8, and
unsigned through casts of int32), at a size that is not a multiple of the
block, against PyTorch."""

import pytest
import torch
import triton
import triton.language as tl

from _conf import BLOCK, FLOAT_DTYPES, INT_DTYPES, N, grid1d, ids, make


@triton.jit
def binary_kernel(x_ptr, y_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    if OP == "add":
        z = x + y
    elif OP == "sub":
        z = x - y
    elif OP == "mul":
        z = x * y
    elif OP == "div":
        z = x / y
    elif OP == "floordiv":
        z = x // y
    elif OP == "mod":
        z = x % y
    elif OP == "max":
        z = tl.maximum(x, y)
    elif OP == "min":
        z = tl.minimum(x, y)
    elif OP == "and":
        z = x & y
    elif OP == "or":
        z = x | y
    elif OP == "xor":
        z = x ^ y
    elif OP == "shl":
        z = x << (y & 7)
    elif OP == "shr":
        z = x >> (y & 7)
    else:
        tl.static_assert(False, "unknown op")
    tl.store(out_ptr + offs, z, mask=mask)


def _torch_binary(op, x, y):
    if op == "add":
        return x + y
    if op == "sub":
        return x - y
    if op == "mul":
        return x * y
    if op == "div":
        return x / y
    if op == "floordiv":  # Triton's integer // truncates (C), unlike Python
        return torch.div(x, y, rounding_mode="trunc")
    if op == "mod":  # ... and % takes the dividend's sign (C fmod)
        return torch.fmod(x, y)
    if op == "max":
        return torch.maximum(x, y)
    if op == "min":
        return torch.minimum(x, y)
    if op == "and":
        return x & y
    if op == "or":
        return x | y
    if op == "xor":
        return x ^ y
    if op == "shl":
        return x << (y & 7)
    if op == "shr":
        return x >> (y & 7)
    raise ValueError(op)


def _run_binary(op, x, y, out_dtype=None):
    out = torch.empty(N, dtype=out_dtype or x.dtype)
    binary_kernel[grid1d()](x, y, out, N, OP=op, BLOCK=BLOCK)
    return out


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "max", "min", "mod"])
def test_float_binary(op, dtype, gen):
    x, y = make(N, dtype, gen), make(N, dtype, gen, nonzero=True)
    expected = _torch_binary(op, x.float(), y.float()).to(dtype)
    torch.testing.assert_close(_run_binary(op, x, y), expected)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=ids)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "floordiv", "mod", "max", "min", "and", "or", "xor", "shl", "shr"])
def test_int_binary(op, dtype, gen):
    x, y = make(N, dtype, gen), make(N, dtype, gen, nonzero=True)
    # Integer arithmetic wraps in the operand width, as in Triton.
    expected = _torch_binary(op, x.long(), y.long()).to(dtype)
    torch.testing.assert_close(_run_binary(op, x, y), expected)


@triton.jit
def unsigned_kernel(x_ptr, y_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    # int32 storage seen as uint32: division, remainder, shifts, comparison
    # and max take the unsigned forms.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.uint32, bitcast=True)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.uint32, bitcast=True)
    if OP == "div":
        z = x // y
    elif OP == "mod":
        z = x % y
    elif OP == "shr":
        z = x >> (y & 7)
    elif OP == "max":
        z = tl.maximum(x, y)
    else:
        z = tl.where(x < y, x, y)
    tl.store(out_ptr + offs, z.to(tl.int32, bitcast=True), mask=mask)


@pytest.mark.parametrize("op", ["div", "mod", "shr", "max", "lt"])
def test_unsigned_via_casts(op, gen):
    x = make(N, torch.int32, gen, low=-2**31, high=2**31 - 1)
    y = make(N, torch.int32, gen, low=-2**31, high=2**31 - 1, nonzero=True)
    out = torch.empty_like(x)
    unsigned_kernel[grid1d()](x, y, out, N, OP=op, BLOCK=BLOCK)
    ux, uy = x.long() & 0xFFFFFFFF, y.long() & 0xFFFFFFFF
    ref = {"div": ux // uy, "mod": ux % uy, "shr": ux >> (uy & 7), "max": torch.maximum(ux, uy),
           "lt": torch.where(ux < uy, ux, uy)}[op]
    expected = torch.where(ref >= 2**31, ref - 2**32, ref).to(torch.int32)
    torch.testing.assert_close(out, expected)


@triton.jit
def unary_kernel(x_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if OP == "neg":
        z = -x
    elif OP == "abs":
        z = tl.abs(x)
    elif OP == "not":
        z = ~x
    else:  # fused multiply-add with scalar constants
        z = x * 3 + 2
    tl.store(out_ptr + offs, z, mask=mask)


# `~` is defined on integers only: no float cases are generated for it.
UNARY_CASES = [(op, dtype) for op in ["neg", "abs", "axpb", "not"] for dtype in FLOAT_DTYPES + INT_DTYPES
               if not (op == "not" and dtype.is_floating_point)]


@pytest.mark.parametrize("op,dtype", UNARY_CASES, ids=[f"{op}-{ids(dtype)}" for op, dtype in UNARY_CASES])
def test_unary(op, dtype, gen):
    x = make(N, dtype, gen)
    out = torch.empty_like(x)
    unary_kernel[grid1d()](x, out, N, OP=op, BLOCK=BLOCK)
    wide = x.float() if dtype.is_floating_point else x.long()
    ref = {"neg": -wide, "abs": wide.abs(), "axpb": wide * 3 + 2, "not": ~wide if not dtype.is_floating_point else None}
    tol = {}
    if op == "axpb" and dtype in (torch.float16, torch.bfloat16):
        # x * 3 + 2 rounds once (fused) or twice: one ulp apart, and near
        # x = -2/3 the cancellation leaves an absolute error of one ulp of 2.
        eps = torch.finfo(dtype).eps
        tol = {"rtol": eps, "atol": 2 * eps}
    torch.testing.assert_close(out, ref[op].to(dtype), **tol)


@triton.jit
def mixed_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Type promotion: fp16 + fp32 -> fp32, int32 * fp32 -> fp32.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a + b, mask=mask)


def test_promotion_fp16_fp32(gen):
    a, b = make(N, torch.float16, gen), make(N, torch.float32, gen)
    out = torch.empty(N)
    mixed_kernel[grid1d()](a, b, out, N, BLOCK=BLOCK)
    torch.testing.assert_close(out, a.float() + b)
