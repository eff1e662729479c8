"""Operators the kernel library has kernels for, on the chip in eager mode:
`_softmax` (softmax over the last dimension, kernels/longtail.py
`softmax`) and `embedding` (rows of a table gathered, `index_select`).

Each serves the calls its kernel computes exactly as PyTorch defines them
and sends the rest to the host (`on_host`, counted): softmax over another
dimension than the last, or in a dtype other than fp32, fp16 and bf16, or
rows longer than a PE holds; an embedding of a table that is not 2-D. Their backward operators run on the
host for now.
"""

from __future__ import annotations

import torch

from . import implements, on_host

FLOATS = (torch.float32, torch.float16, torch.bfloat16)

#: The longest row the softmax kernel holds in a PE's local memory (one
#: program a row; fp32 working copies).
SOFTMAX_MAX_COLUMNS = 8192


@implements("_softmax")
def softmax(self, dim, half_to_float):
    dim = dim % max(self.dim(), 1)
    if (self.device.type != "mtia" or self.dtype not in FLOATS or self.dim() == 0 or dim != self.dim() - 1
            or self.numel() == 0 or self.shape[-1] > SOFTMAX_MAX_COLUMNS):
        return on_host(torch.ops.aten._softmax.default, self, dim, half_to_float)
    from ..kernels.longtail import softmax as library_softmax
    out_dtype = torch.float32 if half_to_float else self.dtype
    return library_softmax(self, out_dtype=out_dtype)


@implements("embedding")
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    if (weight.device.type != "mtia" or indices.device.type != "mtia" or weight.dim() != 2 or indices.numel() == 0
            or indices.dtype not in (torch.int32, torch.int64)):
        return on_host(torch.ops.aten.embedding.default, weight, indices, padding_idx, scale_grad_by_freq, sparse)
    from ..kernels.longtail import index_select
    rows = index_select(weight, indices.reshape(-1))
    return rows.view(*indices.shape, weight.shape[1])


# Batch norm: Inductor's per-operator kernel, with the device's conventions.

_WITH_STATS = torch.ops.aten._native_batch_norm_legit.default
_NO_STATS = torch.ops.aten._native_batch_norm_legit.no_stats


def _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """Batch norm by the overload that says what it writes (the running
    statistics, `Tensor(a!)`), so that its compiled kernel, or the host,
    updates them: `native_batch_norm` writes them unannounced. In inference
    the saved statistics are a device's, not the CPU's (empty): the running
    mean and 1/sqrt(running var + eps), as Inductor's decomposition and
    every accelerator's kernel save them."""
    from .per_op import NO_KERNEL, run_compiled
    if running_mean is None or running_var is None:
        op, args = _NO_STATS, (input, weight, bias, training, momentum, eps)
    else:
        op, args = _WITH_STATS, (input, weight, bias, running_mean, running_var, training, momentum, eps)
    result = run_compiled(op, *args)
    if result is not NO_KERNEL:
        return result
    out, save_mean, save_rstd = on_host(op, *args)
    if not training and running_mean is not None and running_var is not None:
        save_mean, save_rstd = running_mean.clone(), (running_var + eps).rsqrt()
    return out, save_mean, save_rstd


@implements("native_batch_norm")
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    return _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


@implements("_native_batch_norm_legit")
def native_batch_norm_legit(input, weight, bias, running_mean, running_var, training, momentum, eps):
    return _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
