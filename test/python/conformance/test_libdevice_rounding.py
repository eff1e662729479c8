"""libdevice's directed-rounding forms (_rz toward zero, _rd down, _ru up)
of fp32 add, sub, mul, div, rcp, sqrt and the double/int -> float
conversions, against exact rational arithmetic; and pow with an integer
exponent (CUDA's powi)."""

import math
from fractions import Fraction

import numpy as np
import pytest
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

MODES = ("rz", "rd", "ru")


def _round_f32(exact: Fraction, mode: str) -> float:
    """The fp32 value `exact` rounds to in `mode`."""
    near = np.float32(float(exact))  # float() is correctly rounded; then one more rounding
    # Walk to the fp32 neighbours around exact.
    lo = near if Fraction(float(near)) <= exact else np.nextafter(near, np.float32(-np.inf))
    while Fraction(float(np.nextafter(lo, np.float32(np.inf)))) <= exact:
        lo = np.nextafter(lo, np.float32(np.inf))
    hi = lo if Fraction(float(lo)) == exact else np.nextafter(lo, np.float32(np.inf))
    if mode == "rd":
        return float(lo)
    if mode == "ru":
        return float(hi)
    return float(lo) if exact >= 0 else float(hi)


@triton.jit
def binary_kernel(x_ptr, y_ptr, out_ptr, OP: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    if OP == "add_rz":
        r = libdevice.add_rz(x, y)
    elif OP == "add_rd":
        r = libdevice.add_rd(x, y)
    elif OP == "add_ru":
        r = libdevice.add_ru(x, y)
    elif OP == "sub_rz":
        r = libdevice.sub_rz(x, y)
    elif OP == "mul_rd":
        r = libdevice.mul_rd(x, y)
    elif OP == "mul_ru":
        r = libdevice.mul_ru(x, y)
    elif OP == "div_rz":
        r = libdevice.div_rz(x, y)
    elif OP == "div_rd":
        r = libdevice.div_rd(x, y)
    else:
        r = libdevice.div_ru(x, y)
    tl.store(out_ptr + offs, r)


@triton.jit
def unary_kernel(x_ptr, out_ptr, OP: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    if OP == "rcp_rz":
        r = libdevice.rcp_rz(x)
    elif OP == "sqrt_rd":
        r = libdevice.sqrt_rd(x)
    elif OP == "sqrt_ru":
        r = libdevice.sqrt_ru(x)
    elif OP == "double2float_rz":
        r = libdevice.double2float_rz(x)
    elif OP == "double2float_rd":
        r = libdevice.double2float_rd(x)
    elif OP == "double2float_ru":
        r = libdevice.double2float_ru(x)
    else:
        r = libdevice.int2float_rz(x)
    tl.store(out_ptr + offs, r)


def _operands(gen, n=64):
    x = torch.randn(n, generator=gen) * 10
    y = torch.randn(n, generator=gen)
    # Cases where the sum's tiny operand only decides the rounding.
    x[:4] = torch.tensor([1.0, -1.0, 3.0e8, 1.0])
    y[:4] = torch.tensor([1e-30, 1e-30, -1e-20, -1e-30])
    return x, y


EXACT = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
}


@pytest.mark.parametrize("op", ["add_rz", "add_rd", "add_ru", "sub_rz", "mul_rd", "mul_ru", "div_rz", "div_rd",
                                "div_ru"])
def test_binary_directed(op, gen):
    x, y = _operands(gen)
    out = torch.empty_like(x)
    binary_kernel[(1, )](x, y, out, op, 64)
    name, mode = op.split("_")
    want = [_round_f32(EXACT[name](Fraction(a), Fraction(b)), mode) for a, b in zip(x.tolist(), y.tolist())]
    assert out.tolist() == want


def test_unary_directed(gen):
    x = torch.rand(64, generator=gen) * 100 + 0.01
    out = torch.empty_like(x)
    unary_kernel[(1, )](x, out, "rcp_rz", 64)
    assert out.tolist() == [_round_f32(1 / Fraction(a), "rz") for a in x.tolist()]
    # sqrt: the exact root is irrational where it is no fp32; bracket it.
    for mode in ("rd", "ru"):
        unary_kernel[(1, )](x, out, f"sqrt_{mode}", 64)
        for a, r in zip(x.tolist(), out.tolist()):
            lo, hi = (r, float(np.nextafter(np.float32(r), np.float32(np.inf)))) if mode == "rd" else (float(
                np.nextafter(np.float32(r), np.float32(-np.inf))), r)
            assert Fraction(lo)**2 <= Fraction(a) <= Fraction(hi)**2 and (Fraction(r)**2 == Fraction(a)
                                                                           or lo != hi)
    d = torch.randn(64, generator=gen, dtype=torch.float64) * 1e3
    d[0] = 1e300  # overflows: rz and rd give the largest float, ru inf
    for mode in MODES:
        outf = torch.empty(64)
        unary_kernel[(1, )](d, outf, f"double2float_{mode}", 64)
        want = [_round_f32(Fraction(v), mode) if abs(v) < 1e39 else None for v in d.tolist()]
        assert outf[1:].tolist() == want[1:]
        assert outf[0].item() == (math.inf if mode == "ru" else float(np.finfo(np.float32).max))
    i = torch.tensor([2**24 + 1, -(2**24 + 1), 2**31 - 1, 7] * 16, dtype=torch.int32)
    unary_kernel[(1, )](i, out, "int2float_rz", 64)
    assert out.tolist() == [_round_f32(Fraction(v), "rz") for v in i.tolist()]


@triton.jit
def powi_kernel(x_ptr, out_ptr, n, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, libdevice.pow(x, 3))
    tl.store(out_ptr + N + offs, libdevice.pow(x, n))


def test_pow_integer_exponent(gen):
    x = torch.randn(16, generator=gen)
    out = torch.empty(32)
    powi_kernel[(1, )](x, out, -2, 16)
    torch.testing.assert_close(out[:16], x**3)
    torch.testing.assert_close(out[16:], x**-2.0)
