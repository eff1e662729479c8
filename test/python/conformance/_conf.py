"""Helpers shared by the conformance tests: odd sizes, inputs per dtype and
the grids that cover them."""

import torch
import triton

#: Sizes that are not multiples of the blocks the kernels use.
N = 1000
BLOCK = 256

FLOAT_DTYPES = [torch.float32, torch.float16, torch.bfloat16]
INT_DTYPES = [torch.int32, torch.int8]


def ids(dtype):
    return str(dtype).replace("torch.", "")


def make(shape, dtype, gen, low=-100, high=100, nonzero=False):
    """Random values of `dtype`: normal floats, integers in [low, high)."""
    if dtype.is_floating_point:
        x = torch.randn(shape, generator=gen).to(dtype)
        if nonzero:
            x = torch.where(x.abs() < 0.1, torch.full_like(x, 0.5), x)
        return x
    shape = shape if isinstance(shape, tuple) else (shape, )
    x = torch.randint(low, high, shape, generator=gen, dtype=torch.int64).to(dtype)
    if nonzero:
        x = torch.where(x == 0, torch.ones_like(x), x)
    return x


def grid1d(n=N, block=BLOCK):
    return (triton.cdiv(n, block), )
