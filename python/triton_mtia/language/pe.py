"""Which PE a program runs on: `mtl.get_pe_id` and `mtl.get_pe_grid_size`
(the paper's 6.1.1).

    import triton_mtia.language as mtl

    @triton.jit
    def kernel(...):
        row, col = mtl.get_pe_id(0), mtl.get_pe_id(1)
        rows = mtl.get_pe_grid_size(0)

Both are builtins of our own module, so upstream Triton stays unmodified:
each emits a `tt.extern_elementwise` of a reserved symbol
(`__mtia_get_pe_id`, `__mtia_get_pe_grid_size`) on the constant axis,
which our compiler lowers to `mtia.pe_id` / `mtia.pe_grid_size` and the
generated C++ reads from the program's context. Axis 0 is the PE's row,
axis 1 its column, in the 8x8 grid of the MTIA-2i (the simulator's
`pe_rows` x `pe_cols`, so a smaller preset answers for its own grid).

Launched with `pid_mapping="user"`, a kernel runs exactly one program per
PE, program k on PE k in row-major order, so the PE ids are the author's
own mapping of work to PEs. Under the other mappings a PE runs several
programs and `get_pe_id` still names the PE that runs this one.
"""

import functools
import inspect

from triton.language import core

#: Reserved symbols, lowered by compiler/lib/Conversion/TTToMTIA/Language.cpp.
PE_ID_SYMBOL = "__mtia_get_pe_id"
PE_GRID_SIZE_SYMBOL = "__mtia_get_pe_grid_size"


def _extension(fn):
    """Like `triton.language.core.builtin`, with an error that says what the
    function is when it is called outside a kernel compiled by Triton
    (Triton's interpreter, or plain Python)."""

    @functools.wraps(fn)
    def wrapper(*args, _semantic=None, **kwargs):
        if _semantic is None:
            raise RuntimeError(f"mtl.{fn.__name__} is a language extension of the MTIA backend: call it in a "
                               "@triton.jit kernel that Triton compiles (Triton's interpreter does not run it)")
        return fn(*args, _semantic=_semantic, **kwargs)

    setattr(wrapper, core.TRITON_BUILTIN, True)
    wrapper.signature = inspect.signature(fn)
    return wrapper


def _query(name: str, symbol: str, axis, _semantic):
    axis = core._unwrap_if_constexpr(axis)
    if type(axis) is not int or axis not in (0, 1):
        raise ValueError(f"mtl.{name}(axis): axis must be the constant 0 (the PE's row) or 1 (its column), "
                         f"not {axis!r}")
    return core.extern_elementwise("", "", [axis], {(core.int32, ): (symbol, core.int32)}, is_pure=True,
                                   _semantic=_semantic)


@_extension
def get_pe_id(axis, _semantic=None):
    """The row (axis 0) or column (axis 1) of the PE running this program,
    an int32 scalar."""
    return _query("get_pe_id", PE_ID_SYMBOL, axis, _semantic)


@_extension
def get_pe_grid_size(axis, _semantic=None):
    """The number of PE rows (axis 0) or columns (axis 1) of the chip, an
    int32 scalar."""
    return _query("get_pe_grid_size", PE_GRID_SIZE_SYMBOL, axis, _semantic)
