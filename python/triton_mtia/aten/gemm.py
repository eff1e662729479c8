"""The GEMM family on the chip: mm, addmm, bmm, baddbmm and their out= forms
(so `F.linear`, `torch.matmul` and `@`, which PyTorch decomposes into
them, and Inductor's `extern_kernels.mm / addmm / bmm / baddbmm`).

Each runs the kernel library's GEMM (kernels/gemm.py `matmul_into`: the
variant its dispatcher picks for one matrix, the tiles variant over a
batch) on operands of any strides, in the dtypes the DPE multiplies:
fp32, fp16 and bf16 (summed in fp32, the result rounded once to the
operands' dtype, as PyTorch's CPU kernels do) and int8 (summed exactly in
int32; the result wraps to int8 as PyTorch's does). addmm and baddbmm add
`beta * input` in a second kernel (`scale_add_into`). Anything else - other
dtypes, mixed dtypes, empty K, an `out` of another dtype, operands on
another device - runs on the host (`on_host`), counted as a fallback.
"""

from __future__ import annotations

import torch

from . import implements, on_host

#: Operand dtypes the DPE multiplies.
DPE_DTYPES = (torch.float32, torch.float16, torch.bfloat16, torch.int8)


def _on_chip(*tensors: torch.Tensor, out=None) -> bool:
    dtype = tensors[0].dtype
    return (dtype in DPE_DTYPES and all(t.dtype == dtype and t.device.type == "mtia" for t in tensors)
            and (out is None or (out.dtype == dtype and out.device.type == "mtia"))
            and tensors[0].shape[-1] > 0)


def _result(out, shape, like: torch.Tensor) -> torch.Tensor:
    """`out` resized to `shape` (the out= contract), or a new tensor."""
    if out is None:
        return torch.empty(shape, dtype=like.dtype, device=like.device)
    if tuple(out.shape) != tuple(shape):
        out.resize_(shape)
    return out


def _matmul(a3: torch.Tensor, b3: torch.Tensor, c3: torch.Tensor) -> None:
    from ..kernels.gemm import matmul_into
    if c3.numel():
        matmul_into(a3, b3, c3)


def _scaled(a3, b3, bias3, out3, alpha, beta) -> None:
    """out = beta * bias + alpha * (a @ b), bias broadcast to out's shape."""
    from ..kernels.gemm import matmul_into, scale_add_into
    if out3.numel() == 0:
        return
    if beta == 0 and alpha == 1:  # the input is ignored, NaN or not (PyTorch's rule)
        matmul_into(a3, b3, out3)
        return
    # The product in fp32 first: the sum is rounded once, with the bias.
    product = torch.empty(out3.shape, dtype=torch.float32, device=out3.device)
    matmul_into(a3, b3, product)
    scale_add_into(product, None if beta == 0 else bias3.expand(out3.shape), out3, alpha, beta)


@implements("mm", "mm.out")
def mm(self, mat2, *, out=None):
    if not _on_chip(self, mat2, out=out):
        return on_host(torch.ops.aten.mm.default if out is None else torch.ops.aten.mm.out, self, mat2,
                       **({} if out is None else {"out": out}))
    c = _result(out, (self.shape[0], mat2.shape[1]), self)
    _matmul(self[None], mat2[None], c[None])
    return c


@implements("bmm", "bmm.out")
def bmm(self, mat2, *, out=None):
    if not _on_chip(self, mat2, out=out):
        return on_host(torch.ops.aten.bmm.default if out is None else torch.ops.aten.bmm.out, self, mat2,
                       **({} if out is None else {"out": out}))
    c = _result(out, (self.shape[0], self.shape[1], mat2.shape[2]), self)
    _matmul(self, mat2, c)
    return c


def _float_on_chip(*tensors, out=None) -> bool:
    return _on_chip(*tensors, out=out) and tensors[0].dtype != torch.int8


@implements("addmm", "addmm.out")
def addmm(self, mat1, mat2, *, beta=1, alpha=1, out=None):
    if not _float_on_chip(mat1, mat2, self, out=out):
        op = torch.ops.aten.addmm.default if out is None else torch.ops.aten.addmm.out
        return on_host(op, self, mat1, mat2, beta=beta, alpha=alpha,
                       **({} if out is None else {"out": out}))
    c = _result(out, (mat1.shape[0], mat2.shape[1]), mat1)
    _scaled(mat1[None], mat2[None], self.expand(c.shape)[None], c[None], alpha, beta)
    return c


@implements("baddbmm", "baddbmm.out")
def baddbmm(self, batch1, batch2, *, beta=1, alpha=1, out=None):
    if not _float_on_chip(batch1, batch2, self, out=out):
        op = torch.ops.aten.baddbmm.default if out is None else torch.ops.aten.baddbmm.out
        return on_host(op, self, batch1, batch2, beta=beta, alpha=alpha,
                       **({} if out is None else {"out": out}))
    c = _result(out, (batch1.shape[0], batch1.shape[1], batch2.shape[2]), batch1)
    _scaled(batch1, batch2, self.expand(c.shape), c, alpha, beta)
    return c
