"""Attention forward: the fused FlashAttention kernel and the decomposed
baseline it is measured against (the paper's 7.1.2).

* `attention`: one fused kernel (`flash.py`): K and V stream
  through each program in blocks with the online softmax, the scores never
  leave the PE. Causal attention deals programs to PEs in zigzag order
  (`pid_mapping="zigzag"`), so that the long rows near the end of the
  sequence and the short ones near its start share PEs.
* `attention_decomposed`: what a model runs without a fused kernel, made of
  this library's own kernels, each one launch over all heads: S = Q K^T
  (`bmm`, scores in fp32 in memory), P = softmax(S / sqrt(d)) with the
  causal mask (`softmax`, rounded to fp16), O = P V (`bmm`).
"""

from __future__ import annotations

import torch

from . import flash as _fused
from .gemm import bmm
from .longtail import softmax


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False) -> torch.Tensor:
    """softmax(q k^T / sqrt(d)) v for fp16 q, k, v [heads, seq, d]."""
    options = {"pid_mapping": "zigzag"} if causal else {}
    return _fused.attention(q, k, v, causal=causal, **options)


def attention_decomposed(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False) -> torch.Tensor:
    """The same as three launches: a batched GEMM, a softmax and a batched
    GEMM over every head."""
    dim = q.shape[-1]
    scores = bmm(q, k.transpose(1, 2))
    p = softmax(scores, scale=dim**-0.5, causal=causal, out_dtype=q.dtype)
    return bmm(p, v).to(q.dtype)
