"""Layer norm as a Triton template of Inductor's (the paper's section 5.2).

Inductor's templates are kernels written by hand with holes where Inductor
fills in the inputs' sizes and strides and, at the store, the pointwise
operators that consume the result (epilogue fusion): `sigmoid(layer_norm(x))`
compiles to one kernel, `triton_tem_fused_native_layer_norm_sigmoid_0`.
Upstream has them for matmuls, convolutions and attention; this is one for
layer norm, whose rows are the unit of work a PE takes.

Inductor sees `aten.native_layer_norm`, three results (the normalized
tensor, the mean and the reciprocal standard deviation of every row), in
the graph of an mtia model. The decomposition (installed by
`triton_mtia.inductor`) turns it into

* `triton_mtia::layer_norm`, a custom operator for the first result, which
  the lowering below turns into the template; eager, it is PyTorch's
  `layer_norm`, so the operator also runs outside Inductor;
* Inductor's own decomposition for the mean and the rstd, which Inductor
  drops when nothing reads them (inference) and computes in a reduction of
  its own when the backward pass needs them.

Where the template does not apply (`applies`: a shape not known at compile
time, a row that does not fit a PE's local memory, the setting
`layer_norm_template` off), the whole op is Inductor's decomposition, as
before.
"""

from __future__ import annotations

import functools
import math
from typing import List, Optional

import torch

from . import heuristics

#: One program normalizes BLOCK_M rows of X ([M, N], N padded to BLOCK_N)
#: in float32 and stores them through Inductor's `store_output`, which
#: appends the fused epilogue (always with a mask: Inductor's epilogue code
#: names one). The parts in %(...)s are filled in per variant: the affine
#: loads and lines, and the loads' masks and the select only where M or N do not
#: divide into the blocks.
_SOURCE = r"""
{{def_kernel(%(inputs)s)}}
    M = {{size("X", 0)}}
    N = {{size("X", 1)}}
    stride_xm = {{stride("X", 0)}}
    stride_xn = {{stride("X", 1)}}
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    inside = (rows < M) & (cols < N)
    x = tl.load(X + rows * stride_xm + cols * stride_xn%(load_mask)s).to(tl.float32)
%(affine_loads)s    mean = tl.sum(x, axis=1)[:, None] / N
    centred = %(centred)s
    variance = tl.sum(centred * centred, axis=1)[:, None] / N
    y = centred * tl.rsqrt(variance + EPS)
%(affine)s    idx_m = rows
    idx_n = cols
    {{store_output(("idx_m", "idx_n"), "y", "inside", val_shape=("BLOCK_M", "BLOCK_N"))}}
"""


@torch.library.custom_op("triton_mtia::layer_norm", mutates_args=())
def layer_norm(input: torch.Tensor, normalized_shape: List[int], weight: Optional[torch.Tensor],
               bias: Optional[torch.Tensor], eps: float) -> torch.Tensor:
    """The normalized result of `aten.native_layer_norm`, contiguous."""
    return torch.nn.functional.layer_norm(input, normalized_shape, weight, bias, eps).contiguous()


@layer_norm.register_fake
def _(input, normalized_shape, weight, bias, eps):
    return torch.empty_like(input, memory_format=torch.contiguous_format)


#: Input dtypes the template computes in float32.
_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def _padded(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def applies(input: torch.Tensor, normalized_shape) -> bool:
    """Whether the template computes this layer norm: on mtia, with the
    setting on, sizes known at compile time, a dtype that float32 math
    serves (not float64), and at least one padded row in a PE's local
    memory."""
    from .. import settings
    if not (settings.layer_norm_template and input.is_mtia and input.dtype in _DTYPES):
        return False
    sizes = list(input.shape)
    if not all(isinstance(s, int) for s in sizes) or not all(isinstance(s, int) for s in normalized_shape):
        return False
    n = math.prod(normalized_shape)
    rows = math.prod(sizes) // n if n else 0
    return n > 0 and rows > 0 and bool(heuristics.block_rows(rows, _padded(n), max_autotune=True))


def decompose(native_layer_norm, input, normalized_shape, weight, bias, eps):
    """`aten.native_layer_norm` for Inductor: the template's operator for the
    result where it `applies`, and `native_layer_norm` (Inductor's
    decomposition) for the rest."""
    out, mean, rstd = native_layer_norm(input, normalized_shape, weight, bias, eps)
    if applies(input, normalized_shape):
        out = layer_norm(input, list(normalized_shape), weight, bias, eps)
    return out, mean, rstd


@functools.lru_cache(maxsize=None)
def _template(has_weight: bool, has_bias: bool, even_rows: bool, even_columns: bool):
    from torch._inductor.select_algorithm import SymbolicGridFn, TritonTemplate

    @SymbolicGridFn
    def row_blocks(m, n, meta, *, cdiv):
        return (cdiv(m, meta["BLOCK_M"]), 1, 1)

    inputs = ['"X"'] + (['"W"'] if has_weight else []) + (['"B"'] if has_bias else [])
    column_mask = "" if even_columns else ", mask=cols < N, other=0.0"
    # The weight and bias are loaded with the rows, so that their DMAs run
    # while the rows are reduced instead of after.
    affine = [(name, op) for name, op, present in (("W", "*", has_weight), ("B", "+", has_bias)) if present]
    affine_loads = "".join(f"    {name.lower()} = tl.load({name} + cols{column_mask}).to(tl.float32)\n"
                           for name, _ in affine)
    even = even_rows and even_columns
    source = _SOURCE % {
        "inputs": ", ".join(inputs),
        "load_mask": "" if even else ", mask=inside, other=0.0",
        "centred": "x - mean" if even_columns else "tl.where(inside, x - mean, 0.0)",
        "affine_loads": affine_loads,
        "affine": "".join(f"    y = y {op} {name.lower()}\n" for name, op in affine),
    }
    name = "mtia_layer_norm" + "".join(suffix for suffix, present in (
        ("_weight", has_weight), ("_bias", has_bias), ("_even_rows", even_rows), ("_even_columns", even_columns))
        if present)
    return TritonTemplate(name=name, grid=row_blocks, source=source)


def lower(input, normalized_shape, weight, bias, eps):
    """Inductor's lowering of `triton_mtia::layer_norm`: the template over the
    input seen as [rows, N], one choice of rows per program (several under
    max-autotune, timed in simulated time), viewed back to the input's
    shape."""
    from torch._inductor import config, ir
    from torch._inductor.lowering import fallback_handler, lowerings
    from torch._inductor.select_algorithm import autotune_select_algorithm

    view = lowerings[torch.ops.aten.view.default]
    sizes = [int(s) for s in input.get_size()]
    n = math.prod(normalized_shape)
    rows = math.prod(sizes) // n

    def as_input(node, shape):
        return ir.ExternKernel.realize_input(view(ir.ExternKernel.require_contiguous(node), shape))

    inputs = [as_input(input, [rows, n])] + [as_input(t, [n]) for t in (weight, bias) if t is not None]
    layout = ir.FixedLayout(input.get_device(), input.get_dtype(), [rows, n])
    choices = []
    for block_rows in heuristics.block_rows(rows, _padded(n), config.max_autotune):
        template = _template(weight is not None, bias is not None, rows % block_rows == 0, n == _padded(n))
        template.maybe_append_choice(choices, input_nodes=inputs, layout=layout, num_stages=1, num_warps=1,
                                     BLOCK_M=block_rows, BLOCK_N=_padded(n), EPS=float(eps))
    if not choices:  # the template could not be generated: the operator itself (its eager kernel)
        return fallback_handler(torch.ops.triton_mtia.layer_norm.default, add_to_fallback_set=False)(
            input, normalized_shape, weight, bias, eps)
    node, _ = autotune_select_algorithm("mtia_layer_norm", choices, inputs, layout)
    return view(node, sizes)


def register_lowering(lowering_module) -> None:
    """Registers `lower` in Inductor's lowerings (of `lowering_module`,
    torch._inductor.lowering)."""
    op = torch.ops.triton_mtia.layer_norm.default
    if op not in lowering_module.lowerings:
        lowering_module.register_lowering(op, type_promotion_kind=None)(lower)
