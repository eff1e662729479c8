"""Comparisons and tl.where, per dtype, with NaNs among the floats."""

import pytest
import torch
import triton
import triton.language as tl

from _conf import BLOCK, N, grid1d, ids, make


@triton.jit
def compare_kernel(x_ptr, y_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    if OP == "eq":
        c = x == y
    elif OP == "ne":
        c = x != y
    elif OP == "lt":
        c = x < y
    elif OP == "le":
        c = x <= y
    elif OP == "gt":
        c = x > y
    else:
        c = x >= y
    # The predicate selects between the operands (tensor where) ...
    tl.store(out_ptr + offs, tl.where(c, x, y), mask=mask)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32, torch.int8], ids=ids)
@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_compare_where(op, dtype, gen):
    x, y = make(N, dtype, gen, low=-3, high=3), make(N, dtype, gen, low=-3, high=3)
    y[::7] = x[::7]  # equal pairs
    if dtype.is_floating_point:
        x[::11] = float("nan")
    out = torch.empty_like(x)
    compare_kernel[grid1d()](x, y, out, N, OP=op, BLOCK=BLOCK)
    c = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[op]
    torch.testing.assert_close(out, torch.where(c, x, y), equal_nan=True)


@triton.jit
def where_scalar_kernel(x_ptr, out_ptr, n, threshold, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    # ... and scalar branches, a runtime scalar, and boolean combinations.
    y = tl.where((x > threshold) & (x < 2.0), 1.0, tl.where((x < -threshold) | (x > 2.0), x, 0.0))
    tl.store(out_ptr + offs, y, mask=mask)


def test_where_scalars_and_logic(gen):
    x = make(N, torch.float32, gen)
    out = torch.empty_like(x)
    where_scalar_kernel[grid1d()](x, out, N, 0.5, BLOCK=BLOCK)
    ref = torch.where((x > 0.5) & (x < 2.0), 1.0, torch.where((x < -0.5) | (x > 2.0), x, 0.0))
    torch.testing.assert_close(out, ref)
