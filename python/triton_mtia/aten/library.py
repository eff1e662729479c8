"""Operators the kernel library has kernels for, on the chip in eager mode:
`_softmax` (softmax over the last dimension, kernels/longtail.py
`softmax`), `embedding` (rows of a table gathered, `index_select`) and
`_embedding_bag` with its backward (sum and mean bags, `embedding_bag`);
and batch norm, which needs the device's conventions around Inductor's
kernel of it (per_op.py).

Each serves the calls its kernel computes exactly as PyTorch defines them
and sends the rest to the host (`on_host`, counted): softmax over another
dimension than the last, or in a dtype other than fp32, fp16 and bf16, or
rows longer than a PE holds; an embedding of a table that is not 2-D; a
bag with per-sample weights, a padding index or max pooling. The backward
operators of softmax and embedding are Inductor's per-operator kernels.
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


# Embedding bags: the library's kernel, sum and mean pooling.

_SUM, _MEAN = 0, 1


def _bag_on_chip(weight, indices, mode, per_sample_weights, padding_idx, scale_grad_by_freq=False) -> bool:
    return (weight.device.type == "mtia" and indices.device.type == "mtia" and weight.dtype in FLOATS
            and weight.dim() == 2 and indices.dim() == 1 and indices.dtype in (torch.int32, torch.int64)
            and mode in (_SUM, _MEAN) and per_sample_weights is None and (padding_idx is None or padding_idx < 0)
            and not scale_grad_by_freq)


@implements("_embedding_bag", "_embedding_bag_forward_only")
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=-1):
    """Sum or mean pooling of bags of rows (kernels/longtail.py
    `embedding_bag`), with the bookkeeping an accelerator's kernel returns
    for the backward (as PyTorch's meta function says for a device):
    offset2bag [indices] (the bag of each index), bag_size [offsets] (rows
    per bag) and an empty max_indices."""
    if not _bag_on_chip(weight, indices, mode, per_sample_weights, padding_idx) or offsets.device.type != "mtia":
        return on_host(torch.ops.aten._embedding_bag.default, weight, indices, offsets, scale_grad_by_freq, mode,
                       sparse, per_sample_weights, include_last_offset, padding_idx)
    from ..kernels.longtail import embedding_bag as library_bag
    bags = offsets.numel() - 1 if include_last_offset else offsets.numel()
    count = indices.numel()
    starts = offsets[:bags].to(indices.dtype)
    bounds = torch.cat([starts, torch.full((1, ), count, dtype=indices.dtype, device=indices.device)])
    sizes = bounds[1:] - bounds[:-1]
    out = library_bag(weight, indices, bounds) if bags else weight.new_zeros(0, weight.shape[1])
    if mode == _MEAN and bags:
        out = out / sizes.clamp(min=1).to(out.dtype)[:, None]
    bag_size = torch.cat([sizes, sizes.new_zeros(offsets.numel() - bags)]) if include_last_offset else sizes
    positions = torch.arange(count, dtype=indices.dtype, device=indices.device)
    offset2bag = torch.searchsorted(starts, positions, right=True) - 1
    return out, offset2bag, bag_size, indices.new_empty(0)


def _bag_gradient(grad, indices, offset2bag, bag_size, num_weights, mode):
    """dL/dweight of a sum or mean bag: each index's row of `grad` (its
    bag's), divided by the bag's size for a mean, added into its row."""
    rows = grad.index_select(0, offset2bag)
    if mode == _MEAN:
        rows = rows / bag_size.index_select(0, offset2bag).clamp(min=1).to(rows.dtype)[:, None]
    return grad.new_zeros(num_weights, grad.shape[1]).index_add_(0, indices, rows)


@implements("_embedding_bag_backward")
def embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices, num_weights,
                           scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx=-1):
    if sparse or not _bag_on_chip(grad, indices, mode, per_sample_weights, padding_idx, scale_grad_by_freq):
        return on_host(torch.ops.aten._embedding_bag_backward.default, grad, indices, offsets, offset2bag, bag_size,
                       maximum_indices, num_weights, scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx)
    return _bag_gradient(grad, indices, offset2bag, bag_size, num_weights, mode)


@implements("_embedding_bag_dense_backward")
def embedding_bag_dense_backward(grad, indices, offset2bag, bag_size, maximum_indices, num_weights, scale_grad_by_freq,
                                 mode, per_sample_weights, padding_idx=-1):
    if not _bag_on_chip(grad, indices, mode, per_sample_weights, padding_idx, scale_grad_by_freq):
        return on_host(torch.ops.aten._embedding_bag_dense_backward.default, grad, indices, offset2bag, bag_size,
                       maximum_indices, num_weights, scale_grad_by_freq, mode, per_sample_weights, padding_idx)
    return _bag_gradient(grad, indices, offset2bag, bag_size, num_weights, mode)
