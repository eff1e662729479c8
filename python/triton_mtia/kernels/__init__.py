"""The kernel library: Triton kernels for the simulated MTIA-2i, the ones the
paper's evaluation (section 7.1) measures, each checked against PyTorch
(test/python/test_kernels.py):

* `gemm` (gemm.py): three GEMM variants (output-stationary tiles, split-K
  over the reduction network, weight streaming) for fp16 / bf16 / fp32 and
  int8, behind a dispatcher with a static policy (`gemm_plan`); `bmm`, a
  batch of GEMMs in one launch;
* `attention`, `attention_decomposed` (attention.py): fused FlashAttention
  forward, causal or not, and the baseline built from the library's GEMM
  and softmax;
* 17 long-tail operators of recommendation and generative models
  (longtail.py, listed in `LONG_TAIL`): softmax, layer / RMS / group norm,
  SwiGLU, RoPE, cross-entropy, embedding bag, index_select, scatter_add,
  cumsum, top-k, jagged-dense add, jagged sum, jagged softmax, int8 and
  fp8 row quantization; and `layer_norm_sigmoid`, the handwritten fused
  kernel Inductor's layer-norm template is measured against.

`expert` (expert.py) launches the hand-written C++ baselines on the same
tensors: every long-tail operator (runtime/kernels/expert_longtail.cpp,
`expert.EXPERTS`) and fused attention (expert_attention.cpp,
`expert.attention`).

Every function takes and returns torch tensors (on the `mtia` device for
deterministic cycles) and launches Triton kernels, written as a GPU author
would, through the MTIA backend.
"""

from .attention import attention, attention_decomposed
from .gemm import GemmPlan, bmm, gemm, gemm_plan, roofline_cycles
from .longtail import (LONG_TAIL, LongTailOp, cross_entropy, cumsum, embedding_bag, group_norm, index_select,
                       jagged_dense_add, jagged_softmax, jagged_sum, layer_norm, layer_norm_sigmoid, quantize_rows,
                       rms_norm, rope, scatter_add, softmax, swiglu, topk)

__all__ = [
    "GemmPlan", "LONG_TAIL", "LongTailOp", "attention", "attention_decomposed", "bmm", "cross_entropy", "cumsum",
    "embedding_bag", "gemm", "gemm_plan", "group_norm", "index_select", "jagged_dense_add", "jagged_softmax",
    "jagged_sum", "layer_norm", "layer_norm_sigmoid", "quantize_rows", "rms_norm", "rope", "roofline_cycles",
    "scatter_add", "softmax", "swiglu", "topk"
]
