"""libdevice's integer bit tricks (clz, popc, brev, ffs, byte_perm, mulhi,
mul24, hadd, rhadd, sad), float <-> integer conversions in every rounding
mode, fma in directed rounding, and the norms, against exact Python
arithmetic. Called the way GPU kernels call them, through
triton.language.extra.libdevice."""

import math
from fractions import Fraction

import numpy as np
import pytest
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

from test_libdevice_rounding import _round_f32


@triton.jit
def int_unary_kernel(x_ptr, out_ptr, OP: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    if OP == "clz":
        r = libdevice.clz(x)
    elif OP == "popc":
        r = libdevice.popc(x)
    elif OP == "brev":
        r = libdevice.brev(x)
    else:
        r = libdevice.ffs(x)
    tl.store(out_ptr + offs, r)


@triton.jit
def int_nary_kernel(x_ptr, y_ptr, z_ptr, out_ptr, OP: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    z = tl.load(z_ptr + offs)
    if OP == "mulhi":
        r = libdevice.mulhi(x, y)
    elif OP == "mul24":
        r = libdevice.mul24(x, y)
    elif OP == "hadd":
        r = libdevice.hadd(x, y)
    elif OP == "rhadd":
        r = libdevice.rhadd(x, y)
    elif OP == "sad":
        r = libdevice.sad(x, y, z)
    else:
        r = libdevice.byte_perm(x, y, z)
    tl.store(out_ptr + offs, r)


def _bits(v, width):
    return v & ((1 << width) - 1)


def _signed(v, width):
    v = _bits(v, width)
    return v - (1 << width) if v >> (width - 1) else v


def _ints(dtype, gen, n=64):
    info = torch.iinfo(dtype)
    x = torch.randint(info.min, info.max, (n, ), generator=gen, dtype=torch.int64).to(dtype)
    special = [0, 1, -1, info.min, info.max, 2, 255, 256, -256, 1 << 20]
    x[:len(special)] = torch.tensor(special, dtype=torch.int64).to(dtype)
    return x


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64], ids=str)
@pytest.mark.parametrize("op", ["clz", "popc", "brev", "ffs"])
def test_bit_counts(op, dtype, gen):
    width = 32 if dtype == torch.int32 else 64
    x = _ints(dtype, gen)
    out_dtype = dtype if op == "brev" else torch.int32
    out = torch.empty(64, dtype=out_dtype)
    int_unary_kernel[(1, )](x, out, op, 64)
    for v, r in zip(x.tolist(), out.tolist()):
        u = _bits(v, width)
        if op == "clz":
            want = width - u.bit_length()
        elif op == "popc":
            want = bin(u).count("1")
        elif op == "brev":
            want = _signed(int(format(u, f"0{width}b")[::-1], 2), width)
        else:
            want = (u & -u).bit_length()
        assert r == want, (op, v)


@pytest.mark.parametrize("dtype", [torch.int32, torch.uint32, torch.int64, torch.uint64], ids=str)
def test_mulhi(dtype, gen):
    width = 32 if dtype in (torch.int32, torch.uint32) else 64
    signed = dtype in (torch.int32, torch.int64)
    base = torch.int32 if width == 32 else torch.int64
    x = _ints(base, gen).view(dtype) if not signed else _ints(base, gen)
    y = _ints(base, gen).flip(0)
    y = y.view(dtype) if not signed else y
    out = torch.empty(64, dtype=dtype)
    int_nary_kernel[(1, )](x, y, x, out, "mulhi", 64)
    read = (lambda t: [_signed(v, width) for v in t.view(base).tolist()]) if signed else (
        lambda t: [_bits(v, width) for v in t.view(base).tolist()])
    for a, b, r in zip(read(x), read(y), read(out)):
        want = (a * b) >> width
        assert (_signed(want, width) if signed else _bits(want, width)) == r, (a, b)


@pytest.mark.parametrize("op, signed", [(op, signed) for op in ("mul24", "hadd", "rhadd", "sad")
                                        for signed in (True, False)] + [("byte_perm", True)])
def test_int32_arithmetic(op, signed, gen):
    # byte_perm has only an int32 form; z is its selector.
    x, y = _ints(torch.int32, gen), _ints(torch.int32, gen).flip(0)
    z = torch.randint(0, 1 << 16, (64, ), generator=gen, dtype=torch.int32)
    dtype = torch.int32 if signed else torch.uint32
    xs, ys = (x, y) if signed else (x.view(dtype), y.view(dtype))
    zs = z.view(torch.uint32) if op == "sad" else z
    out = torch.empty(64, dtype=dtype)
    int_nary_kernel[(1, )](xs, ys, zs, out, op, 64)
    read = (lambda t: t.tolist()) if signed else (lambda t: [_bits(v, 32) for v in t.view(torch.int32).tolist()])
    for a, b, c, r in zip(read(xs), read(ys), z.tolist(), read(out)):
        if op == "mul24":
            a24 = _signed(a, 24) if signed else _bits(a, 24)
            b24 = _signed(b, 24) if signed else _bits(b, 24)
            want = a24 * b24
        elif op == "hadd":
            want = (a + b) // 2
        elif op == "rhadd":
            want = (a + b + 1) // 2
        elif op == "sad":
            want = abs(a - b) + c
        else:
            src = _bits(a, 32) | (_bits(b, 32) << 32)
            want = sum(((src >> (8 * ((c >> (4 * i)) & 7))) & 0xFF) << (8 * i) for i in range(4))
        assert r == (_signed(want, 32) if signed else _bits(want, 32)), (op, a, b, c)


@triton.jit
def convert_kernel(x_ptr, out_ptr, OP: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    if OP == "float2int_rn":
        r = libdevice.float2int_rn(x)
    elif OP == "float2int_rd":
        r = libdevice.float2int_rd(x)
    elif OP == "float2int_ru":
        r = libdevice.float2int_ru(x)
    elif OP == "double2ll_rn":
        r = libdevice.double2ll_rn(x)
    elif OP == "double2ll_rz":
        r = libdevice.double2ll_rz(x)
    elif OP == "float2ull_rd":
        r = libdevice.float2ull_rd(x)
    elif OP == "double2uint_ru":
        r = libdevice.double2uint_ru(x)
    elif OP == "llrint":
        r = libdevice.llrint(x)
    elif OP == "llround":
        r = libdevice.llround(x)
    elif OP == "ll2float_rz":
        r = libdevice.ll2float_rz(x)
    elif OP == "ll2float_rd":
        r = libdevice.ll2float_rd(x)
    elif OP == "ll2float_ru":
        r = libdevice.ll2float_ru(x)
    elif OP == "ull2float_ru":
        r = libdevice.ull2float_ru(x)
    elif OP == "ll2double_rz":
        r = libdevice.ll2double_rz(x)
    elif OP == "ll2double_rd":
        r = libdevice.ll2double_rd(x)
    elif OP == "ll2double_ru":
        r = libdevice.ll2double_ru(x)
    elif OP == "ull2double_rd":
        r = libdevice.ull2double_rd(x)
    elif OP == "double2hiint":
        r = libdevice.double2hiint(x)
    else:
        r = libdevice.double2loint(x)
    tl.store(out_ptr + offs, r)


_ROUND = {
    "rn": lambda q: round(q),  # Fraction rounds half to even
    "rz": lambda q: math.trunc(q),
    "rd": lambda q: math.floor(q),
    "ru": lambda q: math.ceil(q),
}


@pytest.mark.parametrize("op, src, dst", [
    ("float2int_rn", torch.float32, torch.int32),
    ("float2int_rd", torch.float32, torch.int32),
    ("float2int_ru", torch.float32, torch.int32),
    ("double2ll_rn", torch.float64, torch.int64),
    ("double2ll_rz", torch.float64, torch.int64),
    ("float2ull_rd", torch.float32, torch.uint64),
    ("double2uint_ru", torch.float64, torch.uint32),
])
def test_float_to_int_modes(op, src, dst, gen):
    x = (torch.randn(64, generator=gen, dtype=torch.float64) * 1000).to(src)
    x[:8] = torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, 3.0, -7.25, 7.75], dtype=src)
    if dst in (torch.uint32, torch.uint64):
        x = x.abs()
    out = torch.empty(64, dtype=dst)
    convert_kernel[(1, )](x, out, op, 64)
    mode = op.rsplit("_", 1)[1]
    assert [int(v) for v in out.tolist()] == [_ROUND[mode](Fraction(v)) for v in x.tolist()]


def test_llrint_llround(gen):
    x = torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5, 1e15 + 0.5, -3.7, 4.2] * 8, dtype=torch.float64)
    out = torch.empty(64, dtype=torch.int64)
    convert_kernel[(1, )](x, out, "llrint", 64)
    assert out.tolist() == [round(Fraction(v)) for v in x.tolist()]
    convert_kernel[(1, )](x, out, "llround", 64)
    away = [int(math.copysign(math.floor(abs(Fraction(v)) + Fraction(1, 2)), v)) for v in x.tolist()]
    assert out.tolist() == away


def _round_f64(exact: Fraction, mode: str) -> float:
    near = float(exact)
    lo = near if Fraction(near) <= exact else math.nextafter(near, -math.inf)
    hi = lo if Fraction(lo) == exact else math.nextafter(lo, math.inf)
    return {"rd": lo, "ru": hi, "rz": lo if exact >= 0 else hi}[mode]


def _wide_ints(gen, unsigned=False):
    hi = 2**64 if unsigned else 2**63
    vals = [2**53 + 1, 2**60 + 3, 2**63 - 1, 12345, 2**24 + 1, 2**62 + 2**38 + 1]
    vals += [-v for v in vals] if not unsigned else [2**64 - 1, 2**63 + 1, 2**64 - 2**11 - 1]
    r = np.random.default_rng(7)
    vals += [int(r.integers(0, hi // 2)) * (1 if unsigned or i % 2 else -1) * 2 + 1 for i in range(64 - len(vals))]
    return vals[:64]


@pytest.mark.parametrize("op", ["ll2float_rz", "ll2float_rd", "ll2float_ru", "ull2float_ru", "ll2double_rz",
                                "ll2double_rd", "ll2double_ru", "ull2double_rd"])
def test_wide_int_to_float_directed(op, gen):
    unsigned = op.startswith("ull")
    vals = _wide_ints(gen, unsigned)
    x = torch.tensor([v - 2**64 if v >= 2**63 else v for v in vals], dtype=torch.int64)
    if unsigned:
        x = x.view(torch.uint64)
    to_double = "double" in op
    out = torch.empty(64, dtype=torch.float64 if to_double else torch.float32)
    convert_kernel[(1, )](x, out, op, 64)
    mode = op.rsplit("_", 1)[1]
    rounder = _round_f64 if to_double else _round_f32
    assert out.tolist() == [rounder(Fraction(v), mode) for v in vals]


def test_double_halves(gen):
    x = torch.randn(64, generator=gen, dtype=torch.float64)
    bits = x.view(torch.int64).tolist()
    hi, lo = torch.empty(64, dtype=torch.int32), torch.empty(64, dtype=torch.int32)
    convert_kernel[(1, )](x, hi, "double2hiint", 64)
    convert_kernel[(1, )](x, lo, "double2loint", 64)
    assert hi.tolist() == [_signed(b >> 32, 32) for b in bits]
    assert lo.tolist() == [_signed(b, 32) for b in bits]
    back = torch.empty(64, dtype=torch.float64)
    hilo_kernel[(1, )](hi, lo, back, 64)
    assert torch.equal(back.view(torch.int64), x.view(torch.int64))


@triton.jit
def hilo_kernel(hi_ptr, lo_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, libdevice.hiloint2double(tl.load(hi_ptr + offs), tl.load(lo_ptr + offs)))


@triton.jit
def fma_norm_kernel(x_ptr, y_ptr, z_ptr, w_ptr, out_ptr, OP: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    z = tl.load(z_ptr + offs)
    w = tl.load(w_ptr + offs)
    if OP == "fma_rz":
        r = libdevice.fma_rz(x, y, z)
    elif OP == "fma_rd":
        r = libdevice.fma_rd(x, y, z)
    elif OP == "fma_ru":
        r = libdevice.fma_ru(x, y, z)
    elif OP == "norm3d":
        r = libdevice.norm3d(x, y, z)
    elif OP == "rnorm4d":
        r = libdevice.rnorm4d(x, y, z, w)
    elif OP == "rhypot":
        r = libdevice.rhypot(x, y)
    else:
        r = libdevice.scalbn(x, w.to(tl.int32))
    tl.store(out_ptr + offs, r)


@pytest.mark.parametrize("mode", ["rz", "rd", "ru"])
def test_fma_directed(mode, gen):
    x, y, z = (torch.randn(64, generator=gen) * 10 for _ in range(3))
    # c cancels a * b but for the product's low bits.
    z[:8] = -(x[:8].double() * y[:8].double()).float()
    out = torch.empty(64)
    fma_norm_kernel[(1, )](x, y, z, z, out, f"fma_{mode}", 64)
    want = [_round_f32(Fraction(a) * Fraction(b) + Fraction(c), mode) for a, b, c in zip(x.tolist(), y.tolist(),
                                                                                      z.tolist())]
    assert out.tolist() == want


def test_norms(gen):
    x, y, z, w = (torch.randn(64, generator=gen) * 1e20 for _ in range(4))
    x[0], y[1], z[2] = math.inf, math.nan, 0.0
    x[2] = y[2] = 0.0
    out = torch.empty(64)
    fma_norm_kernel[(1, )](x, y, z, w, out, "norm3d", 64)
    want = torch.sqrt(x.double()**2 + y.double()**2 + z.double()**2).float()
    want[0], want[1] = math.inf, math.nan
    torch.testing.assert_close(out, want, rtol=2e-7, atol=0, equal_nan=True)
    fma_norm_kernel[(1, )](x, y, z, w, out, "rnorm4d", 64)
    want = (1 / torch.sqrt(x.double()**2 + y.double()**2 + z.double()**2 + w.double()**2)).float()
    want[1] = math.nan
    torch.testing.assert_close(out, want, rtol=4e-7, atol=0, equal_nan=True)
    fma_norm_kernel[(1, )](x, y, z, w, out, "rhypot", 64)
    torch.testing.assert_close(out, (1 / torch.hypot(x.double(), y.double())).float(), rtol=4e-7, atol=0,
                               equal_nan=True)
    n = torch.randint(-40, 40, (64, ), generator=gen).float()
    fma_norm_kernel[(1, )](x, y, z, n, out, "scalbn", 64)
    torch.testing.assert_close(out, torch.ldexp(x, n), equal_nan=True)
