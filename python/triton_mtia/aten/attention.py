"""`F.scaled_dot_product_attention` on the chip as one fused kernel, forward
and backward (kernels/sdpa.py).

SDPA is a composite operator: on `mtia` it asks the device's choice
(runtime/torch/attention.cpp), which answers PyTorch's `overrideable`
backend wherever the fused kernel computes what the math path does; the
call then reaches `_scaled_dot_product_fused_attention_overrideable`, whose
autograd formula calls `_scaled_dot_product_fused_attention_overrideable_backward`.
This module implements both for the MTIA key, and switches the choice on
once they are registered (`register`). So eager attention (causal, masked,
with dropout, grouped-query) is one launch forward and two backward, and
under torch.compile Dynamo traces the same choice on fake tensors, so the
fused operator stays in the graph as an extern kernel of Inductor's (with
the meta kernel PyTorch ships for it).

Dropout: the forward draws a seed from the device's generator (so
`torch.manual_seed` makes it repeatable) and returns it as `philox_seed`;
the backward's kernels draw the same keep decisions from it. Elsewhere the
math path runs (each of its operators a kernel of its own).
"""

from __future__ import annotations

import torch

from . import implements


def _seed(device) -> int:
    """A dropout seed from the device's generator (the host draws it, as
    every random operator of the device)."""
    return int(torch.empty((), dtype=torch.int64, device=device).random_(0, 2**31 - 1))


@implements("_scaled_dot_product_fused_attention_overrideable")
def fused_attention(query, key, value, attn_bias=None, dropout_p=0.0, is_causal=False, return_debug_mask=False,
                    scale=None):
    from ..kernels.sdpa import sdpa_forward
    if is_causal and attn_bias is not None:
        raise RuntimeError("_scaled_dot_product_fused_attention_overrideable: an explicit attn_bias cannot be "
                           "given with is_causal=True (as scaled_dot_product_attention)")
    seed = _seed(query.device) if dropout_p > 0 else 0
    out, lse = sdpa_forward(query, key, value, attn_bias, dropout_p, is_causal, scale, seed)
    l, s = query.shape[-2], key.shape[-2]
    none = query.new_empty(0)
    return (out, lse, none, none, l, s, torch.tensor(seed, dtype=torch.int64), torch.tensor(0, dtype=torch.int64),
            none)


@implements("_scaled_dot_product_fused_attention_overrideable_backward")
def fused_attention_backward(grad_out, query, key, value, attn_bias, grad_input_mask, out, logsumexp, cum_seq_q,
                             cum_seq_k, max_q, max_k, dropout_p, is_causal, philox_seed, philox_offset, scale=None):
    from ..kernels.sdpa import sdpa_backward
    bias = attn_bias if attn_bias is not None and attn_bias.numel() > 0 else None
    dq, dk, dv, dbias = sdpa_backward(grad_out, query, key, value, bias, out, logsumexp, dropout_p, is_causal, scale,
                                      int(philox_seed), bias_grad=bias is not None and bool(grad_input_mask[3]))
    return dq, dk, dv, dbias if dbias is not None else query.new_empty(0)


def register() -> None:
    """Lets scaled_dot_product_attention choose the fused kernel (called
    once the operators above are registered for MTIA)."""
    from .. import device
    device._extension().set_fused_attention(True)
