"""out = x + y, one BLOCK of elements per program."""

import torch
import triton
import triton.language as tl

NAME = "vector_add"
DESCRIPTION = "elementwise add, masked tail block"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    in_bounds = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=in_bounds)
    y = tl.load(y_ptr + offsets, mask=in_bounds)
    tl.store(out_ptr + offsets, x + y, mask=in_bounds)


KERNEL = add_kernel
BLOCK = 1024


def make_inputs(gen: torch.Generator, scale: int = 1):
    # 98 programs of 1024 at scale 1, the last one partly masked.
    n = 100_003 * scale
    return torch.randn(n, generator=gen), torch.randn(n, generator=gen)


def run_triton(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    compiled = add_kernel[(triton.cdiv(n, BLOCK), )](x, y, out, n, BLOCK=BLOCK)
    return out, compiled


def run_torch(x, y):
    return x + y
