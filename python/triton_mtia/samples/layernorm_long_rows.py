"""LayerNorm forward of a few very long rows, each split over a PE column.

A portable layer norm (`samples.layernorm`) runs one row per program: with
8 rows of 64 Ki elements, 8 of the 64 PEs work, each walking 256 KiB three
times. Here the 8 PEs of PE column c share the rows c, c + 8, ...: PE row
r holds segment r of the row in its local memory (one tile, loaded once),
and the row's statistics are put together over the chip's networks:

    sum of the segment    --mtl.re_reduce("add", ..., axis=0)-->  the bottom PE
    the row's sum         --mtl.broadcast(..., axis=0)-->         every PE of the column
    (then the same for the sum of squared deviations from the mean)

so every PE normalises its own segment with the row's mean and rstd: an
all-reduce down and up the PE column. One program per PE
(`pid_mapping="user"`); all the PEs of a column make the same passes, so
their chains and broadcasts line up.

Shared by test/python/test_language_extensions.py and
`python -m triton_mtia.bench.extensions`.
"""

import torch
import triton
import triton.language as tl

import triton_mtia.language as mtl


@triton.jit
def _column_total(value, is_top, is_bottom):
    """`value` (a scalar) summed over the PE column, on every PE of it."""
    pair = tl.zeros([2], dtype=tl.float32) + value  # the RE and the NoC move tiles
    total = mtl.re_reduce("add", pair, is_top, is_bottom, axis=0)
    total = mtl.broadcast(total, is_bottom, axis=0)
    return tl.max(total, axis=0)


@triton.jit
def layernorm_long_rows_kernel(x_ptr, y_ptr, weight_ptr, bias_ptr, n_rows, n_cols, row_stride, eps,
                               SEGMENT: tl.constexpr):
    pe_row = mtl.get_pe_id(0)
    col = mtl.get_pe_id(1)
    pe_rows = mtl.get_pe_grid_size(0)
    pe_cols = mtl.get_pe_grid_size(1)
    is_top = pe_row == 0
    is_bottom = pe_row == pe_rows - 1
    offs = pe_row * SEGMENT + tl.arange(0, SEGMENT)
    in_row = offs < n_cols
    w = tl.load(weight_ptr + offs, mask=in_row, other=0.0)
    b = tl.load(bias_ptr + offs, mask=in_row, other=0.0)
    for row in range(col, n_rows, pe_cols):
        x = tl.load(x_ptr + row * row_stride + offs, mask=in_row, other=0.0).to(tl.float32)
        mean = _column_total(tl.sum(x, axis=0), is_top, is_bottom) / n_cols
        centered = tl.where(in_row, x - mean, 0.0)
        var = _column_total(tl.sum(centered * centered, axis=0), is_top, is_bottom) / n_cols
        rstd = 1.0 / tl.sqrt(var + eps)
        tl.store(y_ptr + row * row_stride + offs, (centered * rstd * w + b).to(y_ptr.dtype.element_ty), mask=in_row)


def layernorm_long_rows(x, weight, bias, eps=1e-5):
    """y = layer_norm(x) over the last dimension, each row over a PE column.
    A row's segment (a PE row's share) must fit a PE's local memory with its
    weight and bias: up to 8 x 8192 fp32 elements per row."""
    n_rows, n_cols = x.shape
    segment = triton.next_power_of_2(triton.cdiv(n_cols, 8))
    if segment > 8192:
        raise ValueError(f"rows of {n_cols} elements need segments of {segment}; at most 8192 per PE")
    y = torch.empty_like(x)
    layernorm_long_rows_kernel[(64, )](x, y, weight, bias, n_rows, n_cols, x.stride(0), eps, SEGMENT=segment,
                                       pid_mapping="user")
    return y
