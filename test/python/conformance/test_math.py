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


@triton.jit
def scalar_special_kernel(out_ptr, a, b):
    # On scalars, the vector-core functions run as one-element tiles.
    tl.store(out_ptr + 0, libdevice.erfinv(a))
    tl.store(out_ptr + 1, libdevice.j0(b))
    tl.store(out_ptr + 2, libdevice.cyl_bessel_i1(-b))
    tl.store(out_ptr + 3, libdevice.nextafter(a, b))
    tl.store(out_ptr + 4, libdevice.erfcx(b * 12.0))  # 30: past exp(x^2)'s range


def test_libdevice_vector_core_functions_on_scalars():
    out = torch.empty(5)
    a, b = 0.25, 2.5
    scalar_special_kernel[(1, )](out, a, b)
    t = lambda v: torch.tensor(v, dtype=torch.float32)  # noqa: E731
    expected = torch.stack([torch.erfinv(t(a)), torch.special.bessel_j0(t(b)), torch.special.i1(t(-b)),
                            torch.nextafter(t(a), t(b)), torch.special.erfcx(t(b * 12.0))])
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-6)
