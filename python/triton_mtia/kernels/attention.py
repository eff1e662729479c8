"""Attention forward: the fused FlashAttention kernel and the decomposed
baseline it is measured against (the paper's 7.1.2).

* `attention`: one fused kernel (`samples.attention`): K and V stream
  through each program in blocks with the online softmax, the scores never
  leave the PE. Causal attention deals programs to PEs in zigzag order
  (`pid_mapping="zigzag"`), so that the long rows near the end of the
  sequence and the short ones near its start share PEs.
* `attention_decomposed`: what a model runs without a fused kernel, made of
  this library's own kernels: per head, S = Q K^T (`gemm`, scores in fp32
  in memory), P = softmax(S / sqrt(d)) with the causal mask (`softmax`,
  rounded to fp16), O = P V (`gemm`).
"""

from __future__ import annotations

import torch

from ..samples import attention as _fused
from .gemm import gemm
from .longtail import softmax


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False) -> torch.Tensor:
    """softmax(q k^T / sqrt(d)) v for fp16 q, k, v [heads, seq, d]."""
    options = {"pid_mapping": "zigzag"} if causal else {}
    return _fused.attention(q, k, v, causal=causal, **options)


def attention_decomposed(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False,
                         launches: list = None) -> torch.Tensor:
    """The same with one GEMM, softmax and GEMM per head. `launches`, if a
    list, receives each launch's LaunchStats (the cost is their sum)."""
    import triton_mtia
    heads, seq, dim = q.shape
    out = torch.empty_like(q)

    def record():
        if launches is not None:
            launches.append(triton_mtia.last_launch())

    for h in range(heads):
        scores = gemm(q[h], k[h].t())
        record()
        p = softmax(scores, scale=dim**-0.5, causal=causal, out_dtype=q.dtype)
        record()
        out[h] = gemm(p, v[h]).to(q.dtype)
        record()
    return out
