"""Placement hints: which RISC-V core issues a command, and which unit
computes an elementwise one (the paper's 4.1.2 and 6.1.3).

    y = mtl.core_hint(x * scale, "scalar")            # issued by the scalar core
    e = mtl.unit_hint(libdevice.exp(x), "vector")     # computed by the vector core's RVV

A PE has a scalar and a vector RISC-V core that both issue commands to
the units; the compiler's dual-core scheduler (mtia-dual-issue) gives the
fabric interface's commands to the scalar core and the compute units' to
the vector core. `core_hint` overrides that for the command(s) that
computed its argument. Elementwise math runs on the SIMD engine (SE),
whose lookup tables cover the common functions, or on the vector core's
RVV; the compiler picks and its vector-core sharing may move commands
between them. `unit_hint` pins the command that computed its argument;
the compile option `libdevice_unit` ("auto", "se", "vec") does it for
every libdevice call of a kernel.

Both return their argument unchanged (the same tile, no copy). They emit
a `tt.extern_elementwise` of a reserved symbol (`__mtia_core_hint_<0|1>`,
`__mtia_unit_hint_<se|vec>`) that our compiler lowers to an attribute of
the command (compiler/lib/Conversion/TTToMTIA/Language.cpp): the hint
applies to a tensor computed by a command just before it, in the same
block.
"""

from triton.language import core as tlc

from .pe import _extension

_CORES = {"scalar": 0, "vector": 1, 0: 0, 1: 1}
_UNITS = {"se": "se", "vector": "vec", "vec": "vec"}


def _hint(name, x, symbol, _semantic):
    x = _semantic.to_tensor(x)
    if not x.type.is_block():
        raise ValueError(f"mtl.{name}: the argument must be a tensor (a block) that a command computes")
    handle = _semantic.builder.create_extern_elementwise("", "", symbol, [x.handle], x.type.to_ir(_semantic.builder),
                                                         False)
    return tlc.tensor(handle, x.type)


@_extension
def core_hint(x, core, _semantic=None):
    """`x`, whose command(s) the given RISC-V core issues: "scalar" (0) or
    "vector" (1). Consumed by the dual-core scheduler; without dual issue
    (`dual_issue=False`) one core issues everything and the hint is moot."""
    which = tlc._unwrap_if_constexpr(core)
    if which not in _CORES:
        raise ValueError(f"mtl.core_hint: core must be \"scalar\" or \"vector\" (0 or 1), not {which!r}")
    return _hint("core_hint", x, f"__mtia_core_hint_{_CORES[which]}", _semantic)


@_extension
def unit_hint(x, unit, _semantic=None):
    """`x`, an elementwise result (libdevice math, arithmetic), computed on
    the given unit: "se" (the SIMD engine's lookup tables) or "vector" (the
    vector core's RVV). The SE has no table for some functions (erf, tan,
    ...): those run on the vector core only, and "se" for them is an error."""
    which = tlc._unwrap_if_constexpr(unit)
    if which not in _UNITS:
        raise ValueError(f"mtl.unit_hint: unit must be \"se\" or \"vector\", not {which!r}")
    return _hint("unit_hint", x, f"__mtia_unit_hint_{_UNITS[which]}", _semantic)
