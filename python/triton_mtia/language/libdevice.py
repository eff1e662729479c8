"""`triton.language.extra.libdevice` for MTIA.

GPU kernels call libdevice for math the core language lacks. On MTIA these
calls become `tt.extern_elementwise` ops with reserved symbols ("__mtia_exp",
...) that the compiler lowers onto the SIMD Engine (its lookup tables and
FMA lanes), so no device library is linked. One symbol serves every float
type: the op's operand type tells the compiler which variant to emit.

Functions not defined here raise a clear error at compile time.
"""

from triton.language import core

#: Prefix of the symbols reserved for the compiler.
SYMBOL_PREFIX = "__mtia_"

_FLOATS = ("fp32", "fp64")


def _signatures(name: str, arity: int) -> dict:
    """{argument dtypes: (symbol, result dtype)} for every float type."""
    return {(core.dtype(t), ) * arity: (SYMBOL_PREFIX + name, core.dtype(t)) for t in _FLOATS}


def _call(name: str, args, _semantic):
    return core.extern_elementwise("", "", list(args), _signatures(name, len(args)), is_pure=True,
                                   _semantic=_semantic)


@core.extern
def exp(arg0, _semantic=None):
    return _call("exp", [arg0], _semantic)


@core.extern
def exp2(arg0, _semantic=None):
    return _call("exp2", [arg0], _semantic)


@core.extern
def log(arg0, _semantic=None):
    return _call("log", [arg0], _semantic)


@core.extern
def log2(arg0, _semantic=None):
    return _call("log2", [arg0], _semantic)


@core.extern
def sqrt(arg0, _semantic=None):
    return _call("sqrt", [arg0], _semantic)


@core.extern
def rsqrt(arg0, _semantic=None):
    return _call("rsqrt", [arg0], _semantic)


@core.extern
def tanh(arg0, _semantic=None):
    return _call("tanh", [arg0], _semantic)


@core.extern
def erf(arg0, _semantic=None):
    return _call("erf", [arg0], _semantic)


@core.extern
def pow(arg0, arg1, _semantic=None):
    return _call("pow", [arg0, arg1], _semantic)


def __getattr__(name):
    # Python looks here only for names not defined above (PEP 562).
    raise AttributeError(f"libdevice.{name} is not implemented by the MTIA backend yet "
                         f"(see python/triton_mtia/language/libdevice.py)")
