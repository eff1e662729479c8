"""Math functions: the core language's (tl.exp, tl.sqrt, ...) and
`triton.language.extra.libdevice` (our triton_mtia.language.libdevice),
against torch on fp32; the functions the compiler does not lower yet are
strict xfails."""

import math

import pytest
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

from triton_mtia.language import libdevice as mtia_libdevice
from _conf import BLOCK, N, grid1d


@triton.jit
def unary_kernel(x_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, FN(tl.load(x_ptr + offs, mask=mask)), mask=mask)


@triton.jit
def binary_kernel(x_ptr, y_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, FN(tl.load(x_ptr + offs, mask=mask), tl.load(y_ptr + offs, mask=mask)), mask=mask)


def _inputs(domain, gen):
    x = torch.randn(N, generator=gen) * 3
    if domain == "positive":
        x = x.abs() + 1e-3
    elif domain == "unit":
        x = torch.rand(N, generator=gen) * 1.98 - 0.99
    elif domain == "halves":  # exact halves test the rounding rules
        x = torch.randint(-40, 40, (N, ), generator=gen).float() / 4
    elif domain == "small":
        x = torch.randn(N, generator=gen) * 1e-3
    elif domain == "above1":
        x = x.abs() + 1.001
    return x


CORE = {
    "exp": (tl.exp, torch.exp, "any"),
    "exp2": (tl.exp2, torch.exp2, "any"),
    "log": (tl.log, torch.log, "positive"),
    "log2": (tl.log2, torch.log2, "positive"),
    "sqrt": (tl.sqrt, torch.sqrt, "positive"),
    "sqrt_rn": (tl.sqrt_rn, torch.sqrt, "positive"),
    "rsqrt": (tl.rsqrt, torch.rsqrt, "positive"),
    "sin": (tl.sin, torch.sin, "any"),
    "cos": (tl.cos, torch.cos, "any"),
    "abs": (tl.abs, torch.abs, "any"),
    "floor": (tl.floor, torch.floor, "halves"),
    "ceil": (tl.ceil, torch.ceil, "halves"),
    "erf": (tl.erf, torch.erf, "any"),
    "sigmoid": (tl.sigmoid, torch.sigmoid, "any"),
}


@pytest.mark.parametrize("name", list(CORE))
def test_core_math(name, gen):
    fn, ref, domain = CORE[name]
    x = _inputs(domain, gen)
    out = torch.empty_like(x)
    unary_kernel[grid1d()](x, out, N, FN=fn, BLOCK=BLOCK)
    torch.testing.assert_close(out, ref(x), rtol=1e-5, atol=1e-6)


#: Functions the compiler lowers today only as strict xfails (the reason is
#: the missing `__mtia_<name>` symbol, docs/python.md "libdevice").
PENDING = set(mtia_libdevice.PENDING)


def _ld(name, ref, domain, arity=1):
    marks = [pytest.mark.xfail(reason=f"compiler: no lowering of __mtia_{name}", strict=True)] if name in PENDING else []
    return pytest.param(name, ref, domain, arity, marks=marks, id=name)


LIBDEVICE = [
    _ld("exp", torch.exp, "any"),
    _ld("fast_expf", torch.exp, "any"),
    _ld("exp2", torch.exp2, "any"),
    _ld("log", torch.log, "positive"),
    _ld("log2", torch.log2, "positive"),
    _ld("log10", torch.log10, "positive"),
    _ld("sqrt", torch.sqrt, "positive"),
    _ld("rsqrt", torch.rsqrt, "positive"),
    _ld("tanh", torch.tanh, "any"),
    _ld("fast_tanhf", torch.tanh, "any"),
    _ld("erf", torch.erf, "any"),
    _ld("pow", torch.pow, "positive", 2),
    _ld("abs", torch.abs, "any"),
    _ld("floor", torch.floor, "halves"),
    _ld("ceil", torch.ceil, "halves"),
    _ld("trunc", torch.trunc, "halves"),
    _ld("round", lambda x: torch.sign(x) * torch.floor(x.abs() + 0.5), "halves"),
    _ld("rint", torch.round, "halves"),  # torch.round rounds half to even
    _ld("nearbyint", torch.round, "halves"),
    _ld("fmod", torch.fmod, "any", 2),
    _ld("hypot", torch.hypot, "any", 2),
    _ld("copysign", torch.copysign, "any", 2),
    _ld("fdim", lambda x, y: torch.clamp(x - y, min=0), "any", 2),
    _ld("tan", torch.tan, "unit"),
    _ld("cosh", torch.cosh, "any"),
    _ld("saturatef", lambda x: torch.clamp(x, 0, 1), "any"),
    _ld("div_rn", torch.div, "any", 2),
    _ld("mul_rn", torch.mul, "any", 2),
    _ld("log1p", torch.log1p, "small"),
    _ld("expm1", torch.expm1, "small"),
    _ld("sinh", torch.sinh, "small"),
    _ld("atan", torch.atan, "any"),
    _ld("asin", torch.asin, "unit"),
    _ld("acos", torch.acos, "unit"),
    _ld("atan2", torch.atan2, "any", 2),
    _ld("asinh", torch.asinh, "any"),
    _ld("acosh", torch.acosh, "above1"),
    _ld("atanh", torch.atanh, "unit"),
    _ld("erfc", torch.erfc, "any"),
    _ld("erfinv", torch.erfinv, "unit"),
    _ld("erfcx", torch.special.erfcx, "any"),
    _ld("cyl_bessel_i0", torch.special.i0, "any"),
    _ld("cyl_bessel_i1", torch.special.i1, "any"),
    _ld("j0", torch.special.bessel_j0, "any"),
    _ld("j1", torch.special.bessel_j1, "any"),
    _ld("y0", torch.special.bessel_y0, "positive"),
    _ld("y1", torch.special.bessel_y1, "positive"),
    _ld("exp10", lambda x: torch.pow(10.0, x), "unit"),
    _ld("lgamma", torch.lgamma, "positive"),
    _ld("cbrt", lambda x: torch.sign(x) * x.abs().pow(1 / 3), "any"),
]


@pytest.mark.parametrize("name, ref, domain, arity", LIBDEVICE)
def test_libdevice(name, ref, domain, arity, gen):
    fn = getattr(mtia_libdevice, name)
    x = _inputs(domain, gen)
    out = torch.empty_like(x)
    if arity == 1:
        unary_kernel[grid1d()](x, out, N, FN=fn, BLOCK=BLOCK)
        expected = ref(x)
    else:
        y = _inputs("positive" if name == "pow" else "any", gen)
        y[::13] = -y[::13]
        binary_kernel[grid1d()](x, y, out, N, FN=fn, BLOCK=BLOCK)
        expected = ref(x, y)
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-6)


@triton.jit
def predicates_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    code = tl.where(libdevice.isnan(x), 1, 0) + tl.where(libdevice.isinf(x), 2, 0) + tl.where(
        libdevice.finitef(x), 4, 0)
    tl.store(out_ptr + offs, code, mask=mask)


def test_libdevice_predicates(gen):
    # Imported from triton.language.extra.libdevice, as GPU kernels do.
    x = torch.randn(N, generator=gen)
    x[::5], x[1::7], x[2::9] = float("nan"), float("inf"), float("-inf")
    out = torch.empty(N, dtype=torch.int32)
    predicates_kernel[grid1d()](x, out, N, BLOCK=BLOCK)
    ref = x.isnan().int() + 2 * x.isinf().int() + 4 * x.isfinite().int()
    torch.testing.assert_close(out, ref)


@triton.jit
def inductor_style_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    # What Inductor emits for gelu(approximate="tanh") and x.pow(2.5).
    g = 0.5 * x * (1 + libdevice.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    tl.store(out_ptr + offs, g + libdevice.pow(tl.abs(x), 2.5), mask=mask)


def test_libdevice_module_map(gen):
    x = torch.randn(N, generator=gen)
    out = torch.empty_like(x)
    inductor_style_kernel[grid1d()](x, out, N, BLOCK=BLOCK)
    torch.testing.assert_close(out, torch.nn.functional.gelu(x, approximate="tanh") + x.abs().pow(2.5), rtol=1e-5,
                               atol=1e-5)
    assert math.isfinite(out.sum().item())


@triton.jit
def frexp_kernel(x_ptr, m_ptr, e_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    e = libdevice.ilogb(x) + 1
    tl.store(m_ptr + offs, libdevice.ldexp(x, -e), mask=mask)
    tl.store(e_ptr + offs, e, mask=mask)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_libdevice_ilogb_ldexp_make_frexp(dtype, gen):
    """ilogb and ldexp (what Inductor's frexp uses) are exact, subnormals
    and large exponents included."""
    x = torch.randn(N, generator=gen, dtype=dtype) * torch.exp2(torch.randint(-60, 60, (N, ), generator=gen)).to(dtype)
    tiny = torch.finfo(dtype).tiny
    x[:8] = torch.tensor([tiny / 8, -tiny / 3, tiny, torch.finfo(dtype).max, 1.0, -0.75, 3.0, 2.0 ** -20], dtype=dtype)
    m, e = torch.empty_like(x), torch.empty(N, dtype=torch.int32)
    frexp_kernel[grid1d()](x, m, e, N, BLOCK=BLOCK)
    m_ref, e_ref = torch.frexp(x)
    assert torch.equal(e, e_ref.int())
    assert torch.equal(m, m_ref)
    # Special values, as CUDA's ilogb.
    special = torch.tensor([0.0, float("inf"), float("nan"), -float("inf")] * 16, dtype=dtype)
    m2, e2 = torch.empty_like(special), torch.empty(64, dtype=torch.int32)
    frexp_kernel[(1, )](special, m2, e2, 64, BLOCK=64)
    assert e2[:4].tolist() == [-2147483648 + 1, 2147483647 + 1 - 2 ** 32, -2147483648 + 1, 2147483647 + 1 - 2 ** 32]


#: The special functions on the vector core, {libdevice name: torch's}.
SPECIAL = {
    "erfinv": torch.erfinv,
    "erfcx": torch.special.erfcx,
    "cyl_bessel_i0": torch.special.i0,
    "cyl_bessel_i1": torch.special.i1,
    "j0": torch.special.bessel_j0,
    "j1": torch.special.bessel_j1,
    "y0": torch.special.bessel_y0,
    "y1": torch.special.bessel_y1,
}


@pytest.mark.parametrize("name", list(SPECIAL))
def test_libdevice_special_functions_at_special_values(name):
    """Parity at negative x (i0, j0 even; i1, j1 odd; y0, y1 NaN), signed
    zeros, erfinv's +-1 and outside [-1, 1], overflow (i0, i1, erfcx at
    -30) and erfcx past exp(x^2)'s range."""
    v = [0.0, -0.0, 1.0, -1.0, 1.5, -1.5, 0.5, -0.5, 1e-30, -1e-30, 7.25, -7.25, 30.0, -30.0, 100.0, -100.0,
         1e4, -1e4, float("nan")]
    x = torch.tensor(v * 4, dtype=torch.float32)
    out = torch.empty_like(x)
    unary_kernel[(1, )](x, out, x.numel(), FN=getattr(mtia_libdevice, name), BLOCK=128)
    # torch's fp32 Bessel functions lose digits at 1e4: the reference is
    # torch's fp64, rounded.
    expected = SPECIAL[name](x.double()).float()
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-6, equal_nan=True)
    number = ~expected.isnan()
    if name in ("erfinv", "cyl_bessel_i1", "j1"):
        # Odd: -0 at -0 (torch's i1 gives +0 there).
        assert out[1].item() == 0 and out.signbit()[1]
        number &= x != 0
    assert torch.equal(out.signbit()[number], expected.signbit()[number])


def test_libdevice_special_functions_at_infinity():
    # The limits (torch gives NaN for the Bessel functions there; C's j0,
    # y0 and the limits below agree).
    x = torch.tensor([float("inf"), -float("inf")] * 8)
    inf = float("inf")
    expected = {"erfinv": [inf, inf], "erfcx": [0.0, inf], "cyl_bessel_i0": [inf, inf],
                "cyl_bessel_i1": [inf, -inf], "j0": [0.0, 0.0], "j1": [0.0, 0.0], "y0": [0.0, float("nan")],
                "y1": [0.0, float("nan")]}
    for name, (at_inf, at_minus_inf) in expected.items():
        if name == "erfinv":  # erfinv is +-inf at +-1, NaN at +-inf
            xs, at_inf, at_minus_inf = torch.tensor([1.0, -1.0] * 8), inf, -inf
        else:
            xs = x
        out = torch.empty_like(xs)
        unary_kernel[(1, )](xs, out, 16, FN=getattr(mtia_libdevice, name), BLOCK=16)
        torch.testing.assert_close(out[:2], torch.tensor([at_inf, at_minus_inf]), equal_nan=True, msg=name)


@pytest.mark.parametrize("name", list(SPECIAL))
def test_libdevice_special_functions_fp64(name, gen):
    """fp64 (the vector core computes in double) to a few ulp, against
    mpmath: torch's own fp64 Bessel J and Y are off by up to 3e-7 near x = 5.5."""
    mpmath = pytest.importorskip("mpmath")
    ref = {
        "erfinv": mpmath.erfinv, "erfcx": lambda v: mpmath.exp(v * v) * mpmath.erfc(v),
        "cyl_bessel_i0": lambda v: mpmath.besseli(0, v), "cyl_bessel_i1": lambda v: mpmath.besseli(1, v),
        "j0": lambda v: mpmath.besselj(0, v), "j1": lambda v: mpmath.besselj(1, v),
        "y0": lambda v: mpmath.bessely(0, v), "y1": lambda v: mpmath.bessely(1, v)
    }[name]
    x = torch.randn(200, generator=gen, dtype=torch.float64) * 8
    if name == "erfinv":
        x = torch.rand(200, generator=gen, dtype=torch.float64) * 2 - 1
    elif name in ("y0", "y1"):
        x = x.abs() + 1e-3
    out = torch.empty_like(x)
    unary_kernel[(1, )](x, out, 200, FN=getattr(mtia_libdevice, name), BLOCK=256)
    with mpmath.workdps(30):
        expected = torch.tensor([float(ref(mpmath.mpf(v))) for v in x.tolist()], dtype=torch.float64)
    # Relative to the function's scale (J and Y cross zero).
    torch.testing.assert_close(out, expected, rtol=1e-14, atol=1e-15)


@triton.jit
def scalar_special_kernel(out_ptr, a, b):
    # On scalars, the vector-core functions run as one-element tiles.
    tl.store(out_ptr + 0, libdevice.erfinv(a))
    tl.store(out_ptr + 1, libdevice.j0(b))
    tl.store(out_ptr + 2, libdevice.cyl_bessel_i1(-b))
    tl.store(out_ptr + 3, libdevice.nextafter(a, b))
    tl.store(out_ptr + 4, libdevice.erfcx(b * 12.0))  # 30: past exp(x^2)'s range
    tl.store(out_ptr + 5, libdevice.cyl_bessel_i0(-b))
    tl.store(out_ptr + 6, libdevice.j1(-b))
    tl.store(out_ptr + 7, libdevice.y0(b))
    tl.store(out_ptr + 8, libdevice.y1(b))
    tl.store(out_ptr + 9, libdevice.erfcx(-a))
    tl.store(out_ptr + 10, libdevice.nextafter(b, -a))


def test_libdevice_vector_core_functions_on_scalars():
    out = torch.empty(11)
    a, b = 0.25, 2.5
    scalar_special_kernel[(1, )](out, a, b)
    t = lambda v: torch.tensor(v, dtype=torch.float32)  # noqa: E731
    expected = torch.stack([
        torch.erfinv(t(a)),
        torch.special.bessel_j0(t(b)),
        torch.special.i1(t(-b)),
        torch.nextafter(t(a), t(b)),
        torch.special.erfcx(t(b * 12.0)),
        torch.special.i0(t(-b)),
        torch.special.bessel_j1(t(-b)),
        torch.special.bessel_y0(t(b)),
        torch.special.bessel_y1(t(b)),
        torch.special.erfcx(t(-a)),
        torch.nextafter(t(b), t(-a)),
    ])
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-6)
    assert out[3].item() > a and out[10].item() < b  # one ulp, not equal


@triton.jit
def scalar_loop_kernel(out_ptr, x0, n):
    # Scalar vector-core calls in a loop and under a branch: each iteration
    # pushes and pops its one-element tile.
    acc = 0.0
    for i in range(n):
        x = x0 + i * 0.5
        acc += libdevice.y0(x) + libdevice.cyl_bessel_i1(-x)
        if i % 2 == 0:
            acc += libdevice.erfinv(1.0 / (x + 1.0))
    tl.store(out_ptr, acc)


def test_libdevice_scalar_special_functions_in_a_loop():
    out = torch.empty(1)
    x0, n = 0.75, 9
    scalar_loop_kernel[(1, )](out, x0, n)
    x = torch.tensor([x0 + i * 0.5 for i in range(n)], dtype=torch.float64)
    ref = (torch.special.bessel_y0(x) - torch.special.i1(x)).sum() + torch.erfinv(1 / (x[::2] + 1)).sum()
    torch.testing.assert_close(out, ref.float().reshape(1), rtol=1e-5, atol=1e-5)


@triton.jit
def scalar_rounding_kernel(x_ptr, out_ptr, N: tl.constexpr):
    # The SE's rounding opcodes on scalars become the core's own rounding.
    for i in tl.static_range(N):
        x = tl.load(x_ptr + i)
        tl.store(out_ptr + i, libdevice.rint(x))
        tl.store(out_ptr + N + i, libdevice.nearbyint(x))
        tl.store(out_ptr + 2 * N + i, libdevice.trunc(x))
        tl.store(out_ptr + 3 * N + i, libdevice.float2int_rn(x).to(tl.float32))


def test_libdevice_rounding_on_scalars():
    x = torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.7, 1.7, 3.0, -0.0])
    out = torch.empty(4 * x.numel())
    scalar_rounding_kernel[(1, )](x, out, N=x.numel())
    even = torch.round(x)  # half to even
    torch.testing.assert_close(out.view(4, -1), torch.stack([even, even, torch.trunc(x), even]))
