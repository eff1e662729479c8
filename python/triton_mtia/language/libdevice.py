"""`triton.language.extra.libdevice` for MTIA.

GPU kernels call libdevice for math the core language lacks. For a kernel
compiled for MTIA, Triton's frontend replaces `triton.language.extra.libdevice`
(the module, and every function imported from it) by this module
(`MTIABackend.get_module_map`). Each function here is one of four kinds:

* **SE functions** (`_SE`): a `tt.extern_elementwise` with the reserved symbol
  `__mtia_<name>`, which the compiler lowers onto the SIMD Engine (its lookup
  tables, FMA lanes and rounding opcodes: `rint` and `trunc` are one SE
  command each); no device library is linked. One symbol serves every
  float type: the operand type tells the compiler which variant to emit.
  GPU spellings of the same function (`fast_expf`, `sqrt_rn`, ...) are aliases.
* **Composed functions**: written here with core Triton ops (floor, ceil,
  abs, where, bit casts, shifts, ...), only where the composition is exact or
  within a few ulp of the correctly rounded result (`round`, `isnan`,
  `copysign`, `hypot`, `log10`, `tan`, ...; the integer bit tricks `clz`,
  `popc`, `brev`, `mulhi`, ...; float <-> integer conversions in every
  rounding mode; fp32 arithmetic in directed rounding).
* **Vector-core functions** (`_VECTOR_CORE`): math the SE has no lookup
  table for and no accurate composition covers (`log1p` near 0, `expm1`,
  `sinh`, `atan`, `erfinv`, Bessel functions, ...). They emit
  `__mtia_<name>` too; the compiler places them on the PE's RISC-V vector
  core instead (on scalars too, as a one-element tile).
* **Pending functions** (`_PENDING`): emitted as `__mtia_<name>` but not
  lowered yet (`erfcinv`, `normcdf`, ...): the compiler reports
  "library function '__mtia_<name>'" at the kernel's source line.

The other names of upstream libdevice (`jn`, `yn`, `rcp64h`) are defined
too, so that a module importing one still compiles its other kernels;
calling one fails at the call's source line with a message naming it.
"""

import triton
import triton.language as tl
from triton.language import core

#: Prefix of the symbols reserved for the compiler.
SYMBOL_PREFIX = "__mtia_"

_FLOATS = ("fp32", "fp64")

#: {name: arity} of the functions with an SE opcode in the compiler
#: (compiler/lib/Conversion/TTToMTIA/OpMapping.cpp, libdeviceOpcode).
_SE = {
    "exp": 1, "exp2": 1, "log": 1, "log2": 1, "sqrt": 1, "rsqrt": 1, "tanh": 1, "erf": 1, "pow": 2, "rint": 1,
    "trunc": 1
}

#: GPU spellings that mean the same function on MTIA: `fast_*` are
#: approximations on NVIDIA (ours are not worse), `*_rn` round to nearest,
#: which is IEEE's default and what the SE does.
_SE_ALIASES = {
    "fast_expf": "exp", "fast_logf": "log", "fast_log2f": "log2", "fast_tanhf": "tanh", "fast_powf": "pow",
    "sqrt_rn": "sqrt", "rsqrt_rn": "rsqrt", "nearbyint": "rint"
}

#: {name: arity} of the functions the compiler places on the RISC-V vector
#: core, because the SE has no lookup table for them (MTIA_VEC_OP in
#: runtime/include/mtia/se_ops.def; libdeviceOpcode in OpMapping.cpp).
_VECTOR_CORE = {
    "log1p": 1, "expm1": 1, "exp10": 1, "sinh": 1, "asinh": 1, "acosh": 1, "atanh": 1, "atan": 1, "asin": 1,
    "acos": 1, "atan2": 2, "erfc": 1, "lgamma": 1, "tgamma": 1, "cbrt": 1, "remainder": 2, "nextafter": 2,
    "logb": 1, "erfinv": 1, "erfcx": 1, "j0": 1, "j1": 1, "y0": 1, "y1": 1, "cyl_bessel_i0": 1,
    "cyl_bessel_i1": 1
}

#: Float functions the compiler does not lower yet: emitted as
#: `__mtia_<name>`, {name: arity}; the compiler reports them at the call.
_PENDING = {
    "erfcinv": 1, "normcdf": 1, "normcdfinv": 1, "rcbrt": 1, "sinpi": 1, "cospi": 1, "fast_exp10f": 1,
    "fast_log10f": 1
}


def _signatures(symbol: str, arity: int) -> dict:
    """{argument dtypes: (symbol, result dtype)} for every float type."""
    return {(core.dtype(t), ) * arity: (symbol, core.dtype(t)) for t in _FLOATS}


def _make_extern(name: str, symbol_name: str, arity: int):
    """A libdevice function of `arity` float arguments emitting `__mtia_<symbol_name>`."""
    symbol = SYMBOL_PREFIX + symbol_name

    if arity == 1:

        def fn(arg0, _semantic=None):
            return core.extern_elementwise("", "", [arg0], _signatures(symbol, 1), is_pure=True, _semantic=_semantic)
    else:

        def fn(arg0, arg1, _semantic=None):
            return core.extern_elementwise("", "", [arg0, arg1], _signatures(symbol, 2), is_pure=True,
                                           _semantic=_semantic)

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = __name__
    fn.__doc__ = f"libdevice.{name}: the `{symbol}` extern function of the MTIA compiler."
    return core.extern(fn)


for _name, _arity in _SE.items():
    globals()[_name] = _make_extern(_name, _name, _arity)

_pow_float = pow  # noqa: F821 - defined by the loop above


@core.extern
def pow(arg0, arg1, _semantic=None):
    """libdevice.pow, also with an integer exponent (CUDA's `powi`): the
    exponent is converted to the base's float type (exact for |n| < 2^24 in
    fp32, 2^53 in fp64), and the SE's pow of an integral exponent keeps the
    sign of a negative base."""
    arg0 = _semantic.to_tensor(arg0)
    arg1 = _semantic.to_tensor(arg1)
    if arg1.dtype.is_int():
        arg1 = _semantic.cast(arg1, arg0.dtype)
    return _pow_float(arg0, arg1, _semantic=_semantic)

for _name, _target in _SE_ALIASES.items():
    globals()[_name] = _make_extern(_name, _target, _SE[_target])
for _name, _arity in (_VECTOR_CORE | _PENDING).items():
    globals()[_name] = _make_extern(_name, _name, _arity)

# ---------------------------------------------------------------------------
# Composed from core ops (exact, or within a few ulp).


@triton.jit
def abs(arg0):
    return tl.abs(arg0)


@triton.jit
def floor(arg0):
    return tl.floor(arg0)


@triton.jit
def ceil(arg0):
    return tl.ceil(arg0)


@triton.jit
def round(arg0):
    # Halfway cases away from zero (C round). x - trunc(x) is exact.
    t = trunc(arg0)
    step = tl.where(arg0 < 0, -1.0, 1.0).to(t.dtype)
    return tl.where(tl.abs(arg0 - t) >= 0.5, t + step, t)


@triton.jit
def isnan(arg0):
    return arg0 != arg0


@triton.jit
def isinf(arg0):
    return tl.abs(arg0) == float("inf")


@triton.jit
def finitef(arg0):
    return tl.abs(arg0) < float("inf")


@triton.jit
def isfinited(arg0):
    return tl.abs(arg0) < float("inf")


@triton.jit
def signbit(arg0):
    # int32, nonzero when the sign bit is set (also for -0.0 and -NaN).
    if arg0.dtype == tl.float64:
        return (arg0.to(tl.int64, bitcast=True) < 0).to(tl.int32)
    else:
        return (arg0.to(tl.float32).to(tl.int32, bitcast=True) < 0).to(tl.int32)


@triton.jit
def copysign(arg0, arg1):
    return tl.where(signbit(arg1) != 0, -tl.abs(arg0), tl.abs(arg0))


@triton.jit
def fma(arg0, arg1, arg2):
    return tl.fma(arg0, arg1, arg2)


@triton.jit
def fma_rn(arg0, arg1, arg2):
    return tl.fma(arg0, arg1, arg2)


@triton.jit
def add_rn(arg0, arg1):
    return arg0 + arg1


@triton.jit
def sub_rn(arg0, arg1):
    return arg0 - arg1


@triton.jit
def mul_rn(arg0, arg1):
    return arg0 * arg1


@triton.jit
def div_rn(arg0, arg1):
    return arg0 / arg1


@triton.jit
def fast_dividef(arg0, arg1):
    return arg0 / arg1


@triton.jit
def rcp_rn(arg0):
    return 1.0 / arg0


@triton.jit
def fmod(arg0, arg1):
    # Triton's float % is arith.remf: C fmod (the result has x's sign).
    return arg0 % arg1


@triton.jit
def fdim(arg0, arg1):
    return tl.where(arg0 <= arg1, 0.0, arg0 - arg1)


@triton.jit
def hypot(arg0, arg1):
    # Scaled so that x*x + y*y neither overflows nor underflows.
    a = tl.abs(arg0)
    b = tl.abs(arg1)
    big = tl.maximum(a, b)
    small = tl.minimum(a, b)
    safe = tl.where(big == 0, 1.0, big)
    r = small / safe
    result = big * tl.sqrt(1.0 + r * r)
    result = tl.where(big == float("inf"), big, result)
    return tl.where((arg0 != arg0) | (arg1 != arg1), arg0 + arg1, result)


@triton.jit
def log10(arg0):
    return tl.log2(arg0) * 0.30102999566398119521


@triton.jit
def sin(arg0):
    return tl.sin(arg0)


@triton.jit
def cos(arg0):
    return tl.cos(arg0)


@triton.jit
def fast_sinf(arg0):
    return tl.sin(arg0)


@triton.jit
def fast_cosf(arg0):
    return tl.cos(arg0)


@triton.jit
def tan(arg0):
    return tl.sin(arg0) / tl.cos(arg0)


@triton.jit
def fast_tanf(arg0):
    return tl.sin(arg0) / tl.cos(arg0)


@triton.jit
def cosh(arg0):
    # No cancellation: both terms are positive.
    e = tl.exp(tl.abs(arg0))
    return 0.5 * e + 0.5 / e


@triton.jit
def saturatef(arg0):
    # NaN -> 0, like CUDA's __saturatef.
    return tl.where(arg0 > 0.0, tl.where(arg0 < 1.0, arg0, 1.0), 0.0).to(arg0.dtype)


@triton.jit
def _pow2_f32(k):
    # 2^k for integer k in [-126, 127], exactly: the exponent field.
    return ((k + 127) << 23).to(tl.float32, bitcast=True)


@triton.jit
def _pow2_f64(k):
    # 2^k for integer k in [-1022, 1023], exactly.
    return ((k.to(tl.int64) + 1023) << 52).to(tl.float64, bitcast=True)


@triton.jit
def ilogb(arg0):
    # int32: the unbiased exponent, from the bits (subnormals scaled up
    # first); INT_MIN for 0 and NaN, INT_MAX for infinities, as CUDA's.
    if arg0.dtype == tl.float64:
        a = tl.abs(arg0)
        sub = a < 2.2250738585072014e-308
        scaled = tl.where(sub, a * 4503599627370496.0, a)  # 2^52
        e = ((scaled.to(tl.int64, bitcast=True) >> 52) & 0x7FF).to(tl.int32) - 1023
        e = tl.where(sub, e - 52, e)
    else:
        a = tl.abs(arg0.to(tl.float32))
        sub = a < 1.1754943508222875e-38
        scaled = tl.where(sub, a * 8388608.0, a)  # 2^23
        e = ((scaled.to(tl.int32, bitcast=True) >> 23) & 0xFF) - 127
        e = tl.where(sub, e - 23, e)
    e = tl.where(a == float("inf"), 2147483647, e)
    return tl.where((a == 0) | (a != a), -2147483648, e)


@triton.jit
def ldexp(arg0, arg1):
    # arg0 * 2^arg1, by three exact powers of two, so that neither overflows
    # nor underflows on the way where the result does not; arg1 is clamped
    # to where the result saturates anyway.
    if arg0.dtype == tl.float64:
        n = tl.minimum(tl.maximum(arg1.to(tl.int32), -2200), 2200)
        n1 = n // 3
        n2 = (n - n1) // 2
        return arg0 * _pow2_f64(n1) * _pow2_f64(n2) * _pow2_f64(n - n1 - n2)
    else:
        n = tl.minimum(tl.maximum(arg1.to(tl.int32), -300), 300)
        n1 = n // 3
        n2 = (n - n1) // 2
        return arg0 * _pow2_f32(n1) * _pow2_f32(n2) * _pow2_f32(n - n1 - n2)


@triton.jit
def float_as_int(arg0):
    return arg0.to(tl.int32, bitcast=True)


@triton.jit
def int_as_float(arg0):
    return arg0.to(tl.float32, bitcast=True)


@triton.jit
def float_as_uint(arg0):
    return arg0.to(tl.uint32, bitcast=True)


@triton.jit
def uint_as_float(arg0):
    return arg0.to(tl.float32, bitcast=True)


@triton.jit
def double_as_longlong(arg0):
    return arg0.to(tl.int64, bitcast=True)


@triton.jit
def longlong_as_double(arg0):
    return arg0.to(tl.float64, bitcast=True)


@triton.jit
def float2int_rz(arg0):
    return arg0.to(tl.int32)


@triton.jit
def int2float_rn(arg0):
    return arg0.to(tl.float32)


@triton.jit
def double2float_rn(arg0):
    return arg0.to(tl.float32)


# ---------------------------------------------------------------------------
# Directed rounding (CUDA's _rz, _rd, _ru forms) of fp32 arithmetic and
# conversions. The SE rounds to nearest; these compute the exact result as an
# unevaluated sum hi + lo of doubles (the product and, by TwoSum, the sum of
# two floats are exact; a quotient or square root of floats that is not an
# fp32 value lies further from every fp32 value than a double's rounding
# error, so its double is enough), round it to nearest fp32, and step one
# ulp when that landed on the wrong side for the mode.


@triton.jit
def _f32_directed(hi, lo, MODE: tl.constexpr):
    f = hi.to(tl.float32)
    # The sign of f - (hi + lo): f - hi is exact (they are within an fp32
    # ulp), and lo only decides when that difference is 0.
    diff = (f.to(tl.float64) - hi) - lo
    bits = f.to(tl.int32, bitcast=True)
    if MODE == "rz":
        # Past the exact value in magnitude: one step toward zero.
        f = tl.where((diff * f.to(tl.float64)) > 0, (bits - 1).to(tl.float32, bitcast=True), f)
    elif MODE == "rd":
        down = tl.where(f > 0, bits - 1, tl.where(f < 0, bits + 1, -2147483647))
        f = tl.where(diff > 0, down.to(tl.float32, bitcast=True), f)
    else:
        up = tl.where(f > 0, bits + 1, tl.where(f < 0, bits - 1, 1))
        f = tl.where(diff < 0, up.to(tl.float32, bitcast=True), f)
    return f


@triton.jit
def _two_sum_f32(a, b, MODE: tl.constexpr):
    x = a.to(tl.float64)
    y = b.to(tl.float64)
    s = x + y
    bb = s - x
    err = (x - (s - bb)) + (y - bb)
    return _f32_directed(s, err, MODE)


@triton.jit
def add_rz(arg0, arg1):
    return _two_sum_f32(arg0, arg1, "rz")


@triton.jit
def add_rd(arg0, arg1):
    return _two_sum_f32(arg0, arg1, "rd")


@triton.jit
def add_ru(arg0, arg1):
    return _two_sum_f32(arg0, arg1, "ru")


@triton.jit
def sub_rz(arg0, arg1):
    return _two_sum_f32(arg0, -arg1, "rz")


@triton.jit
def sub_rd(arg0, arg1):
    return _two_sum_f32(arg0, -arg1, "rd")


@triton.jit
def sub_ru(arg0, arg1):
    return _two_sum_f32(arg0, -arg1, "ru")


@triton.jit
def mul_rz(arg0, arg1):
    return _f32_directed(arg0.to(tl.float64) * arg1.to(tl.float64), 0.0, "rz")


@triton.jit
def mul_rd(arg0, arg1):
    return _f32_directed(arg0.to(tl.float64) * arg1.to(tl.float64), 0.0, "rd")


@triton.jit
def mul_ru(arg0, arg1):
    return _f32_directed(arg0.to(tl.float64) * arg1.to(tl.float64), 0.0, "ru")


@triton.jit
def div_rz(arg0, arg1):
    return _f32_directed(arg0.to(tl.float64) / arg1.to(tl.float64), 0.0, "rz")


@triton.jit
def div_rd(arg0, arg1):
    return _f32_directed(arg0.to(tl.float64) / arg1.to(tl.float64), 0.0, "rd")


@triton.jit
def div_ru(arg0, arg1):
    return _f32_directed(arg0.to(tl.float64) / arg1.to(tl.float64), 0.0, "ru")


@triton.jit
def rcp_rz(arg0):
    return _f32_directed(1.0 / arg0.to(tl.float64), 0.0, "rz")


@triton.jit
def rcp_rd(arg0):
    return _f32_directed(1.0 / arg0.to(tl.float64), 0.0, "rd")


@triton.jit
def rcp_ru(arg0):
    return _f32_directed(1.0 / arg0.to(tl.float64), 0.0, "ru")


@triton.jit
def sqrt_rz(arg0):
    return _f32_directed(tl.sqrt(arg0.to(tl.float64)), 0.0, "rz")


@triton.jit
def sqrt_rd(arg0):
    return _f32_directed(tl.sqrt(arg0.to(tl.float64)), 0.0, "rd")


@triton.jit
def sqrt_ru(arg0):
    return _f32_directed(tl.sqrt(arg0.to(tl.float64)), 0.0, "ru")


@triton.jit
def double2float_rz(arg0):
    return _f32_directed(arg0.to(tl.float64), 0.0, "rz")


@triton.jit
def double2float_rd(arg0):
    return _f32_directed(arg0.to(tl.float64), 0.0, "rd")


@triton.jit
def double2float_ru(arg0):
    return _f32_directed(arg0.to(tl.float64), 0.0, "ru")


@triton.jit
def int2float_rz(arg0):
    return _f32_directed(arg0.to(tl.float64), 0.0, "rz")


@triton.jit
def int2float_rd(arg0):
    return _f32_directed(arg0.to(tl.float64), 0.0, "rd")


@triton.jit
def int2float_ru(arg0):
    return _f32_directed(arg0.to(tl.float64), 0.0, "ru")


@triton.jit
def uint2float_rz(arg0):
    return _f32_directed(arg0.to(tl.float64), 0.0, "rz")


@triton.jit
def uint2float_rd(arg0):
    return _f32_directed(arg0.to(tl.float64), 0.0, "rd")


@triton.jit
def uint2float_ru(arg0):
    return _f32_directed(arg0.to(tl.float64), 0.0, "ru")


@triton.jit
def fma_rz(arg0, arg1, arg2):
    tl.static_assert(arg0.dtype == tl.float32, "libdevice.fma_rz is supported on fp32 only by the MTIA backend")
    return _fma_f32(arg0, arg1, arg2, "rz")


@triton.jit
def fma_rd(arg0, arg1, arg2):
    tl.static_assert(arg0.dtype == tl.float32, "libdevice.fma_rd is supported on fp32 only by the MTIA backend")
    return _fma_f32(arg0, arg1, arg2, "rd")


@triton.jit
def fma_ru(arg0, arg1, arg2):
    tl.static_assert(arg0.dtype == tl.float32, "libdevice.fma_ru is supported on fp32 only by the MTIA backend")
    return _fma_f32(arg0, arg1, arg2, "ru")


@triton.jit
def _fma_f32(a, b, c, MODE: tl.constexpr):
    # a * b is exact in a double (48 bits); TwoSum makes the sum with c exact.
    x = a.to(tl.float64) * b.to(tl.float64)
    y = c.to(tl.float64)
    s = x + y
    bb = s - x
    err = (x - (s - bb)) + (y - bb)
    return _f32_directed(s, err, MODE)


@triton.jit
def _int64_remainder(arg0, d, UNSIGNED: tl.constexpr):
    # The (small, exact) integer r with arg0 = d + r, d being arg0's nearest
    # double; where d rounded up past the integer range (2^63, 2^64), r is
    # taken in wrapping arithmetic, where arg0 - 2^63 (2^64) is exact.
    if UNSIGNED:
        top = d >= 18446744073709551616.0
        back = tl.where(top, 0, d).to(tl.uint64)
        return (arg0 - back).to(tl.int64, bitcast=True)
    else:
        top = d >= 9223372036854775808.0
        back = tl.where(top, 0, d).to(tl.int64)
        return tl.where(top, arg0 + (-9223372036854775807 - 1), arg0 - back)


@triton.jit
def _int64_to_f32_directed(arg0, UNSIGNED: tl.constexpr, MODE: tl.constexpr):
    # hi + lo is the integer exactly.
    hi = arg0.to(tl.float64)
    return _f32_directed(hi, _int64_remainder(arg0, hi, UNSIGNED).to(tl.float64), MODE)


@triton.jit
def _int64_to_f64_directed(arg0, UNSIGNED: tl.constexpr, MODE: tl.constexpr):
    d = arg0.to(tl.float64)
    rem = _int64_remainder(arg0, d, UNSIGNED)
    # d - x: positive when d rounded away from the integer upward.
    above = rem < 0
    below = rem > 0
    bits = d.to(tl.int64, bitcast=True)
    if MODE == "rz":
        d = tl.where((above & (d > 0)) | (below & (d < 0)), (bits - 1).to(tl.float64, bitcast=True), d)
    elif MODE == "rd":
        down = tl.where(d > 0, bits - 1, bits + 1)
        d = tl.where(above, down.to(tl.float64, bitcast=True), d)
    else:
        up = tl.where(d > 0, bits + 1, bits - 1)
        d = tl.where(below, up.to(tl.float64, bitcast=True), d)
    return d


@triton.jit
def ll2float_rn(arg0):
    return arg0.to(tl.float32)


@triton.jit
def ll2float_rz(arg0):
    return _int64_to_f32_directed(arg0, False, "rz")


@triton.jit
def ll2float_rd(arg0):
    return _int64_to_f32_directed(arg0, False, "rd")


@triton.jit
def ll2float_ru(arg0):
    return _int64_to_f32_directed(arg0, False, "ru")


@triton.jit
def ull2float_rn(arg0):
    return arg0.to(tl.float32)


@triton.jit
def ull2float_rz(arg0):
    return _int64_to_f32_directed(arg0, True, "rz")


@triton.jit
def ull2float_rd(arg0):
    return _int64_to_f32_directed(arg0, True, "rd")


@triton.jit
def ull2float_ru(arg0):
    return _int64_to_f32_directed(arg0, True, "ru")


@triton.jit
def ll2double_rn(arg0):
    return arg0.to(tl.float64)


@triton.jit
def ll2double_rz(arg0):
    return _int64_to_f64_directed(arg0, False, "rz")


@triton.jit
def ll2double_rd(arg0):
    return _int64_to_f64_directed(arg0, False, "rd")


@triton.jit
def ll2double_ru(arg0):
    return _int64_to_f64_directed(arg0, False, "ru")


@triton.jit
def ull2double_rn(arg0):
    return arg0.to(tl.float64)


@triton.jit
def ull2double_rz(arg0):
    return _int64_to_f64_directed(arg0, True, "rz")


@triton.jit
def ull2double_rd(arg0):
    return _int64_to_f64_directed(arg0, True, "rd")


@triton.jit
def ull2double_ru(arg0):
    return _int64_to_f64_directed(arg0, True, "ru")


@triton.jit
def uint2float_rn(arg0):
    return arg0.to(tl.float32)


@triton.jit
def int2double_rn(arg0):
    return arg0.to(tl.float64)


@triton.jit
def uint2double_rn(arg0):
    return arg0.to(tl.float64)


# Float -> integer in a rounding mode: round to an integral float first, then
# convert (which is then exact wherever the result is in range).


@triton.jit
def _rounded(arg0, MODE: tl.constexpr):
    if MODE == "rn":
        return rint(arg0)
    elif MODE == "rz":
        return trunc(arg0)
    elif MODE == "rd":
        return tl.floor(arg0)
    else:
        return tl.ceil(arg0)


@triton.jit
def float2int_rn(arg0):
    return _rounded(arg0, "rn").to(tl.int32)


@triton.jit
def float2int_rd(arg0):
    return _rounded(arg0, "rd").to(tl.int32)


@triton.jit
def float2int_ru(arg0):
    return _rounded(arg0, "ru").to(tl.int32)


@triton.jit
def float2uint_rn(arg0):
    return _rounded(arg0, "rn").to(tl.uint32)


@triton.jit
def float2uint_rz(arg0):
    return _rounded(arg0, "rz").to(tl.uint32)


@triton.jit
def float2uint_rd(arg0):
    return _rounded(arg0, "rd").to(tl.uint32)


@triton.jit
def float2uint_ru(arg0):
    return _rounded(arg0, "ru").to(tl.uint32)


@triton.jit
def double2int_rn(arg0):
    return _rounded(arg0, "rn").to(tl.int32)


@triton.jit
def double2int_rz(arg0):
    return _rounded(arg0, "rz").to(tl.int32)


@triton.jit
def double2int_rd(arg0):
    return _rounded(arg0, "rd").to(tl.int32)


@triton.jit
def double2int_ru(arg0):
    return _rounded(arg0, "ru").to(tl.int32)


@triton.jit
def double2uint_rn(arg0):
    return _rounded(arg0, "rn").to(tl.uint32)


@triton.jit
def double2uint_rz(arg0):
    return _rounded(arg0, "rz").to(tl.uint32)


@triton.jit
def double2uint_rd(arg0):
    return _rounded(arg0, "rd").to(tl.uint32)


@triton.jit
def double2uint_ru(arg0):
    return _rounded(arg0, "ru").to(tl.uint32)


@triton.jit
def float2ll_rn(arg0):
    return _rounded(arg0, "rn").to(tl.int64)


@triton.jit
def float2ll_rz(arg0):
    return _rounded(arg0, "rz").to(tl.int64)


@triton.jit
def float2ll_rd(arg0):
    return _rounded(arg0, "rd").to(tl.int64)


@triton.jit
def float2ll_ru(arg0):
    return _rounded(arg0, "ru").to(tl.int64)


@triton.jit
def float2ull_rn(arg0):
    return _rounded(arg0, "rn").to(tl.uint64)


@triton.jit
def float2ull_rz(arg0):
    return _rounded(arg0, "rz").to(tl.uint64)


@triton.jit
def float2ull_rd(arg0):
    return _rounded(arg0, "rd").to(tl.uint64)


@triton.jit
def float2ull_ru(arg0):
    return _rounded(arg0, "ru").to(tl.uint64)


@triton.jit
def double2ll_rn(arg0):
    return _rounded(arg0, "rn").to(tl.int64)


@triton.jit
def double2ll_rz(arg0):
    return _rounded(arg0, "rz").to(tl.int64)


@triton.jit
def double2ll_rd(arg0):
    return _rounded(arg0, "rd").to(tl.int64)


@triton.jit
def double2ll_ru(arg0):
    return _rounded(arg0, "ru").to(tl.int64)


@triton.jit
def double2ull_rn(arg0):
    return _rounded(arg0, "rn").to(tl.uint64)


@triton.jit
def double2ull_rz(arg0):
    return _rounded(arg0, "rz").to(tl.uint64)


@triton.jit
def double2ull_rd(arg0):
    return _rounded(arg0, "rd").to(tl.uint64)


@triton.jit
def double2ull_ru(arg0):
    return _rounded(arg0, "ru").to(tl.uint64)


@triton.jit
def llrint(arg0):
    return rint(arg0).to(tl.int64)


@triton.jit
def llround(arg0):
    return round(arg0).to(tl.int64)


@triton.jit
def hiloint2double(arg0, arg1):
    bits = (arg0.to(tl.int64) << 32) | (arg1.to(tl.uint32, bitcast=True).to(tl.int64))
    return bits.to(tl.float64, bitcast=True)


@triton.jit
def double2loint(arg0):
    return arg0.to(tl.int64, bitcast=True).to(tl.int32)


@triton.jit
def double2hiint(arg0):
    return (arg0.to(tl.int64, bitcast=True) >> 32).to(tl.int32)


# ---------------------------------------------------------------------------
# Integer bit tricks, from shifts, masks and selects on the SE (CUDA's
# __clz, __popc, __brev, __ffs, __byte_perm, __mulhi, __mul24, __hadd,
# __rhadd, __sad). Signed inputs are read as their unsigned bits.


@triton.jit
def clz(arg0):
    if arg0.dtype.primitive_bitwidth == 64:
        x = arg0.to(tl.uint64, bitcast=True)
        n = tl.zeros_like(x).to(tl.int32)
        c = x <= 0xFFFFFFFF
        n += tl.where(c, 32, 0)
        x = tl.where(c, x << 32, x)
        c = x <= 0xFFFFFFFFFFFF
        n += tl.where(c, 16, 0)
        x = tl.where(c, x << 16, x)
        c = x <= 0xFFFFFFFFFFFFFF
        n += tl.where(c, 8, 0)
        x = tl.where(c, x << 8, x)
        c = x <= 0xFFFFFFFFFFFFFFF
        n += tl.where(c, 4, 0)
        x = tl.where(c, x << 4, x)
        c = x <= 0x3FFFFFFFFFFFFFFF
        n += tl.where(c, 2, 0)
        x = tl.where(c, x << 2, x)
        n += tl.where(x <= 0x7FFFFFFFFFFFFFFF, 1, 0)
        return tl.where(arg0 == 0, 64, n)
    else:
        x = arg0.to(tl.uint32, bitcast=True)
        n = tl.zeros_like(x).to(tl.int32)
        c = x <= 0xFFFF
        n += tl.where(c, 16, 0)
        x = tl.where(c, x << 16, x)
        c = x <= 0xFFFFFF
        n += tl.where(c, 8, 0)
        x = tl.where(c, x << 8, x)
        c = x <= 0xFFFFFFF
        n += tl.where(c, 4, 0)
        x = tl.where(c, x << 4, x)
        c = x <= 0x3FFFFFFF
        n += tl.where(c, 2, 0)
        x = tl.where(c, x << 2, x)
        n += tl.where(x <= 0x7FFFFFFF, 1, 0)
        return tl.where(arg0 == 0, 32, n)


@triton.jit
def popc(arg0):
    if arg0.dtype.primitive_bitwidth == 64:
        x = arg0.to(tl.uint64, bitcast=True)
        x = x - ((x >> 1) & 0x5555555555555555)
        x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
        return ((x * 0x0101010101010101) >> 56).to(tl.int32)
    else:
        x = arg0.to(tl.uint32, bitcast=True)
        x = x - ((x >> 1) & 0x55555555)
        x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
        x = (x + (x >> 4)) & 0x0F0F0F0F
        return ((x * 0x01010101) >> 24).to(tl.int32, bitcast=True)


@triton.jit
def brev(arg0):
    if arg0.dtype.primitive_bitwidth == 64:
        x = arg0.to(tl.uint64, bitcast=True)
        x = ((x >> 1) & 0x5555555555555555) | ((x & 0x5555555555555555) << 1)
        x = ((x >> 2) & 0x3333333333333333) | ((x & 0x3333333333333333) << 2)
        x = ((x >> 4) & 0x0F0F0F0F0F0F0F0F) | ((x & 0x0F0F0F0F0F0F0F0F) << 4)
        x = ((x >> 8) & 0x00FF00FF00FF00FF) | ((x & 0x00FF00FF00FF00FF) << 8)
        x = ((x >> 16) & 0x0000FFFF0000FFFF) | ((x & 0x0000FFFF0000FFFF) << 16)
        x = (x >> 32) | (x << 32)
        return x.to(tl.int64, bitcast=True)
    else:
        x = arg0.to(tl.uint32, bitcast=True)
        x = ((x >> 1) & 0x55555555) | ((x & 0x55555555) << 1)
        x = ((x >> 2) & 0x33333333) | ((x & 0x33333333) << 2)
        x = ((x >> 4) & 0x0F0F0F0F) | ((x & 0x0F0F0F0F) << 4)
        x = ((x >> 8) & 0x00FF00FF) | ((x & 0x00FF00FF) << 8)
        x = (x >> 16) | (x << 16)
        return x.to(tl.int32, bitcast=True)


@triton.jit
def ffs(arg0):
    # The lowest set bit alone is x & -x; its position is width - 1 - clz.
    low = arg0 & (0 - arg0)
    width: tl.constexpr = arg0.dtype.primitive_bitwidth
    return tl.where(arg0 == 0, 0, width - clz(low))


@triton.jit
def byte_perm(arg0, arg1, arg2):
    # Byte i of the result is byte (arg2 >> 4i) & 7 of the 8 bytes arg1:arg0.
    x = arg0.to(tl.uint32, bitcast=True)
    y = arg1.to(tl.uint32, bitcast=True)
    s = arg2.to(tl.uint32, bitcast=True)
    r = tl.zeros_like(x)
    for i in tl.static_range(4):
        sel = (s >> (4 * i)) & 7
        byte = tl.where(sel < 4, x >> ((sel & 3) * 8), y >> ((sel & 3) * 8)) & 0xFF
        r = r | (byte << (8 * i))
    return r.to(tl.int32, bitcast=True)


@triton.jit
def _umulhi64(a, b):
    # The high 64 bits of a 128-bit product, from 32-bit halves.
    a0 = a & 0xFFFFFFFF
    a1 = a >> 32
    b0 = b & 0xFFFFFFFF
    b1 = b >> 32
    p00 = a0 * b0
    p01 = a0 * b1
    p10 = a1 * b0
    p11 = a1 * b1
    mid = (p00 >> 32) + (p01 & 0xFFFFFFFF) + (p10 & 0xFFFFFFFF)
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32)


@triton.jit
def mulhi(arg0, arg1):
    if arg0.dtype == tl.int64:
        a = arg0.to(tl.uint64, bitcast=True)
        b = arg1.to(tl.uint64, bitcast=True)
        hi = _umulhi64(a, b)
        # Signed: subtract b where a < 0 and a where b < 0 (mod 2^64).
        hi = hi - tl.where(arg0 < 0, b, 0) - tl.where(arg1 < 0, a, 0)
        return hi.to(tl.int64, bitcast=True)
    elif arg0.dtype == tl.uint64:
        return _umulhi64(arg0, arg1)
    elif arg0.dtype == tl.uint32:
        return ((arg0.to(tl.uint64) * arg1.to(tl.uint64)) >> 32).to(tl.uint32)
    else:
        return ((arg0.to(tl.int64) * arg1.to(tl.int64)) >> 32).to(tl.int32)


@triton.jit
def mul24(arg0, arg1):
    # The low 32 bits of the product of the low 24 bits (sign-extended for
    # signed inputs).
    if arg0.dtype == tl.uint32:
        return (arg0 & 0xFFFFFF) * (arg1 & 0xFFFFFF)
    else:
        a = (arg0 << 8) >> 8
        b = (arg1 << 8) >> 8
        return (a.to(tl.int64) * b.to(tl.int64)).to(tl.int32)


@triton.jit
def hadd(arg0, arg1):
    # floor((x + y) / 2) without the sum's overflow.
    return (arg0 & arg1) + ((arg0 ^ arg1) >> 1)


@triton.jit
def rhadd(arg0, arg1):
    # ceil((x + y) / 2) without the sum's overflow.
    return (arg0 | arg1) - ((arg0 ^ arg1) >> 1)


@triton.jit
def sad(arg0, arg1, arg2):
    # |x - y| + z, modulo 2^32.
    d = arg0.to(tl.int64) - arg1.to(tl.int64)
    d = tl.where(d < 0, -d, d)
    r = (d + arg2.to(tl.int64)).to(tl.uint32)
    if arg0.dtype == tl.uint32:
        return r
    else:
        return r.to(tl.int32, bitcast=True)


@triton.jit
def scalbn(arg0, arg1):
    return ldexp(arg0, arg1)


@triton.jit
def rhypot(arg0, arg1):
    return 1.0 / hypot(arg0, arg1)


@triton.jit
def norm3d(arg0, arg1, arg2):
    # Scaled by the largest magnitude (hypot's way); an infinity wins over NaN.
    a = tl.abs(arg0)
    b = tl.abs(arg1)
    c = tl.abs(arg2)
    big = tl.maximum(tl.maximum(a, b), c)
    safe = tl.where(big == 0, 1.0, big)
    x = a / safe
    y = b / safe
    z = c / safe
    result = big * tl.sqrt(x * x + y * y + z * z)
    result = tl.where((arg0 != arg0) | (arg1 != arg1) | (arg2 != arg2), arg0 + arg1 + arg2, result)
    return tl.where((a == float("inf")) | (b == float("inf")) | (c == float("inf")), float("inf"), result)


@triton.jit
def rnorm3d(arg0, arg1, arg2):
    return 1.0 / norm3d(arg0, arg1, arg2)


@triton.jit
def norm4d(arg0, arg1, arg2, arg3):
    a = tl.abs(arg0)
    b = tl.abs(arg1)
    c = tl.abs(arg2)
    d = tl.abs(arg3)
    big = tl.maximum(tl.maximum(a, b), tl.maximum(c, d))
    safe = tl.where(big == 0, 1.0, big)
    x = a / safe
    y = b / safe
    z = c / safe
    w = d / safe
    result = big * tl.sqrt(x * x + y * y + z * z + w * w)
    nan = (arg0 != arg0) | (arg1 != arg1) | (arg2 != arg2) | (arg3 != arg3)
    result = tl.where(nan, arg0 + arg1 + arg2 + arg3, result)
    inf = (a == float("inf")) | (b == float("inf")) | (c == float("inf")) | (d == float("inf"))
    return tl.where(inf, float("inf"), result)


@triton.jit
def rnorm4d(arg0, arg1, arg2, arg3):
    return 1.0 / norm4d(arg0, arg1, arg2, arg3)


DIRECTED = ("fma_rz", "fma_rd", "fma_ru", "ll2float_rz", "ll2float_rd", "ll2float_ru", "ull2float_rz",
            "ull2float_rd", "ull2float_ru", "ll2double_rz", "ll2double_rd", "ll2double_ru", "ull2double_rz",
            "ull2double_rd", "ull2double_ru", "add_rz", "add_rd", "add_ru", "sub_rz", "sub_rd", "sub_ru", "mul_rz", "mul_rd", "mul_ru", "div_rz", "div_rd", "div_ru", "rcp_rz", "rcp_rd", "rcp_ru", "sqrt_rz", "sqrt_rd", "sqrt_ru", "double2float_rz", "double2float_rd", "double2float_ru", "int2float_rz", "int2float_rd", "int2float_ru", "uint2float_rz", "uint2float_rd", "uint2float_ru")

#: Functions composed above (for the docs and the tests).
COMPOSED = ("abs", "floor", "ceil", "round", "isnan", "isinf", "finitef",
            "isfinited", "signbit", "copysign", "fma", "fma_rn", "add_rn", "sub_rn", "mul_rn", "div_rn",
            "fast_dividef", "rcp_rn", "fmod", "fdim", "hypot", "log10", "sin", "cos", "fast_sinf", "fast_cosf",
            "tan", "fast_tanf", "cosh", "saturatef", "ilogb", "ldexp", "float_as_int", "int_as_float", "float_as_uint",
            "uint_as_float", "double_as_longlong", "longlong_as_double", "float2int_rz", "int2float_rn",
            "double2float_rn", "ll2float_rn", "ull2float_rn", "ll2double_rn", "ull2double_rn", "uint2float_rn",
            "int2double_rn", "uint2double_rn", "llrint", "llround", "hiloint2double", "double2loint",
            "double2hiint", "scalbn", "rhypot", "norm3d", "rnorm3d", "norm4d", "rnorm4d") + tuple(
                f"{src}2{dst}_{mode}" for src in ("float", "double") for dst in ("int", "uint", "ll", "ull")
                for mode in ("rn", "rz", "rd", "ru") if f"{src}2{dst}_{mode}" != "float2int_rz")

#: Integer bit tricks composed above.
BIT_TRICKS = ("clz", "popc", "brev", "ffs", "byte_perm", "mulhi", "mul24", "hadd", "rhadd", "sad")
SE_FUNCTIONS = tuple(_SE) + tuple(_SE_ALIASES)
VECTOR_CORE_FUNCTIONS = tuple(_VECTOR_CORE)
PENDING = tuple(_PENDING)

# ---------------------------------------------------------------------------
# Every other name of upstream libdevice: defined (so that importing it does
# not break the module's other kernels) and failing at the call.


def _make_unsupported(name: str):

    def fn(*args, _semantic=None):
        raise NotImplementedError(f"libdevice.{name} is not supported by the MTIA backend "
                                  f"(see python/triton_mtia/language/libdevice.py)")

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = __name__
    return core.extern(fn)


def _upstream_names():
    try:
        from triton.language.extra import libdevice as upstream
    except ImportError:  # pragma: no cover - Triton without the proxy module
        return []
    return [n for n, v in vars(upstream).items() if callable(v) and not n.startswith("_")]


UNSUPPORTED = tuple(n for n in _upstream_names() if n not in globals())
for _name in UNSUPPORTED:
    globals()[_name] = _make_unsupported(_name)
del _name


def __getattr__(name):
    # Python looks here only for names not defined above (PEP 562).
    raise AttributeError(f"libdevice.{name} is not implemented by the MTIA backend "
                         f"(see python/triton_mtia/language/libdevice.py)")
