"""Communication between PEs: `mtl.re_reduce` over the reduction network
and `mtl.broadcast` over the NoC (the paper's 6.1.2).

    import triton_mtia.language as mtl

    @triton.jit
    def kernel(...):                      # launched with pid_mapping="user"
        is_top = mtl.get_pe_id(0) == 0
        is_bottom = mtl.get_pe_id(0) == mtl.get_pe_grid_size(0) - 1
        total = mtl.re_reduce("add", partial, is_top, is_bottom)
        if is_bottom:
            tl.store(out_ptrs, total)

Each PE has a reduction engine (RE) with a link to each grid neighbour. A
chain of PEs along a column (axis 0, north to south) or a row (axis 1,
west to east) reduces one tile per PE: the first PE sends its tile on,
each later PE combines what arrives with its own tile and forwards the
result, and the last PE's result is the reduction over the whole chain.
What each PE gets back is the reduction of the chain up to and including
itself (an inclusive scan along the chain), so only the last one holds
the full result.

`mtl.broadcast(values, is_source, axis=1)` sends the source PE's tile to
every other PE of its PE row (axis 1) or column (axis 0) over the NoC:

        is_left = mtl.get_pe_id(1) == 0
        a = mtl.broadcast(a, is_left)     # the row's A tile, loaded once

Each builtin emits a `tt.extern_elementwise` of a reserved symbol
(`__mtia_re_reduce_<op>_<axis>`, `__mtia_broadcast_<axis>`) on the values
and the flags, marked not pure so that no pass erases, duplicates or moves
it; our compiler lowers it to `mtia.re_send` / `mtia.re_recv` and
`mtia.noc_broadcast` / `mtia.noc_recv` (compiler/lib/Conversion/TTToMTIA/
Language.cpp), and the generated C++ to the device API's reSend / reRecv
and nocBroadcast / nocRecv.
"""

from triton.language import core

from .pe import _extension

#: The reductions the RE performs, by the name a kernel passes.
RE_REDUCE_OPS = ("add", "max", "min")
#: Element types the RE combines.
_RE_DTYPES = (core.float32, core.float16, core.bfloat16, core.int32, core.int16, core.int8, core.uint32,
              core.uint16, core.uint8)


def _flag(name, x, what, _semantic):
    """A scalar condition as an i1 (integers compare with 0, as `if x:`)."""
    x = _semantic.to_tensor(core._unwrap_if_constexpr(x))
    if x.type.is_block():
        raise ValueError(f"mtl.{name}: {what} must be a scalar condition (one per PE), not a tensor of "
                         f"shape {[core._unwrap_if_constexpr(d) for d in x.shape]}")
    if x.dtype.is_int1():
        return x
    if x.dtype.is_int():
        return _semantic.not_equal(x, 0)
    raise ValueError(f"mtl.{name}: {what} must be a boolean scalar, not {x.dtype}")


def _axis(name, axis):
    axis = core._unwrap_if_constexpr(axis)
    if type(axis) is not int or axis not in (0, 1):
        raise ValueError(f"mtl.{name}: axis must be the constant 0 (along a PE column) or 1 (along a PE row), "
                         f"not {axis!r}")
    return axis


def _one_program_per_pe(name, _semantic):
    mapping = getattr(_semantic.builder.options, "pid_mapping", None)
    if mapping != "user":
        raise ValueError(f"mtl.{name} needs one program per PE, so that PE ids say which programs are "
                         f"neighbours: launch with pid_mapping=\"user\" (this kernel is compiled for {mapping!r})")


def _tile(name, values, _semantic):
    values = _semantic.to_tensor(values)
    if not values.type.is_block():
        raise ValueError(f"mtl.{name}: values must be a tensor (a block); make a scalar a 1-element tensor")
    return values


def _call(symbol, values, flags, _semantic):
    """The not-pure extern call our compiler lowers (Language.cpp)."""
    handle = _semantic.builder.create_extern_elementwise("", "", symbol, [values.handle] + [f.handle for f in flags],
                                                         values.type.to_ir(_semantic.builder), False)
    return core.tensor(handle, values.type)


@_extension
def re_reduce(op, values, is_first, is_last, axis=0, _semantic=None):
    """Reduces `values` over a chain of PEs on the reduction network.

    `op` is "add", "max" or "min" (a constant); `values` a tensor of float32,
    float16, bfloat16 or an integer type of up to 32 bits, the same shape on
    every PE of the chain; `is_first` and `is_last` scalar conditions that
    say where this PE stands in its chain; `axis` (a constant) is 0 for a
    chain down a PE column (north to south: the first PE is the northmost)
    or 1 for one along a PE row (west to east). Returns the reduction of
    the chain's values from its first PE up to this one, rounded to the
    values' type at every step: the last PE holds the full result.

    The kernel must run one program per PE (`pid_mapping="user"`), so that
    the PE ids say which programs are neighbours; a chain's PEs must be
    adjacent and each must call re_reduce the same number of times with
    tiles of the same size (a PE waiting for a tile that is never sent is
    reported as a deadlock).
    """
    op = core._unwrap_if_constexpr(op)
    if op not in RE_REDUCE_OPS:
        raise ValueError(f"mtl.re_reduce: op must be one of {', '.join(map(repr, RE_REDUCE_OPS))}, not {op!r}")
    axis = _axis("re_reduce", axis)
    _one_program_per_pe("re_reduce", _semantic)
    values = _tile("re_reduce", values, _semantic)
    if values.dtype not in _RE_DTYPES:
        raise ValueError(f"mtl.re_reduce: the RE combines float32, float16, bfloat16 and integers of up to 32 "
                         f"bits, not {values.dtype}")
    flags = [_flag("re_reduce", is_first, "is_first", _semantic), _flag("re_reduce", is_last, "is_last", _semantic)]
    return _call(f"__mtia_re_reduce_{op}_{axis}", values, flags, _semantic)


@_extension
def broadcast(values, is_source, axis=1, _semantic=None):
    """The source PE's `values` on every PE of its PE row or column.

    `values` is a tensor of any type and shape, the same on every PE of the
    line (only the source's are read); `is_source` a scalar condition, true
    on exactly one PE of each line; `axis` (a constant) is 1 (default) for
    the PE row, 0 for the PE column. Returns the source's values on every PE
    of the line, the source included. The tile travels over the NoC, from
    the source's local memory to the others', without touching SRAM or
    LPDDR.

    The kernel must run one program per PE (`pid_mapping="user"`); every PE
    of a line makes the same sequence of broadcast calls (a PE waiting for a
    tile that is never sent is reported as a deadlock).
    """
    axis = _axis("broadcast", axis)
    _one_program_per_pe("broadcast", _semantic)
    values = _tile("broadcast", values, _semantic)
    if values.dtype.is_ptr():
        raise ValueError("mtl.broadcast: values must be numbers, not pointers (addresses are the PE's own)")
    return _call(f"__mtia_broadcast_{axis}", values, [_flag("broadcast", is_source, "is_source", _semantic)],
                 _semantic)
