"""Fused attention forward (FlashAttention's online softmax): one program
per (query block, head); K and V stream through in blocks of BLOCK_N, the
running maximum, sum and output rescaled as each block arrives. Causal
programs stop at their diagonal block.

The kernel library's fused attention (`kernels.attention`), measured by
`python -m triton_mtia.bench.ablation` and test/python/test_matmul.py.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def attention_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, seq_len, sm_scale, stride_h, stride_s, HEAD_DIM: tl.constexpr,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr, P_FP16: tl.constexpr):
    # One program per (query block, head); K and V are streamed in blocks of
    # BLOCK_N with the online-softmax rescaling of the running sum and output.
    # Written as for a GPU, in program order: the compiler issues the next
    # block's K load and q k^T before this block's softmax
    # (mtia-pipeline-commands), so that the DPE and the SE overlap.
    start_m = tl.program_id(0) * BLOCK_M
    head = tl.program_id(1)
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    offs_n = tl.arange(0, BLOCK_N)
    base = head * stride_h
    q = tl.load(q_ptr + base + offs_m[:, None] * stride_s + offs_d[None, :], mask=offs_m[:, None] < seq_len,
                other=0.0)
    m_i = tl.full((BLOCK_M, ), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M, ), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), tl.float32)
    qk_scale = sm_scale * 1.4426950408889634  # exp(x) = exp2(x * log2(e))
    hi = tl.minimum(start_m + BLOCK_M, seq_len) if CAUSAL else seq_len
    for start_n in range(0, hi, BLOCK_N):
        kv_rows = start_n + offs_n
        k = tl.load(k_ptr + base + kv_rows[:, None] * stride_s + offs_d[None, :], mask=kv_rows[:, None] < seq_len,
                    other=0.0)
        qk = tl.dot(q, tl.trans(k))
        valid = kv_rows[None, :] < seq_len
        if CAUSAL:
            valid = valid & (offs_m[:, None] >= kv_rows[None, :])
        qk = tl.where(valid, qk * qk_scale, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + kv_rows[:, None] * stride_s + offs_d[None, :], mask=kv_rows[:, None] < seq_len,
                    other=0.0)
        if P_FP16:  # the usual GPU choice: P rounded to the input type
            acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        else:
            acc = tl.dot(p, v.to(tl.float32), acc * alpha[:, None])
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * stride_s + offs_d[None, :], out.to(tl.float16),
             mask=offs_m[:, None] < seq_len)


def attention(q, k, v, causal=False, block_m=64, block_n=64, p_fp16=True, **launch_options):
    """softmax(q k^T / sqrt(d)) v for q, k, v of shape [heads, seq, d]
    (fp16); the output has q's dtype. `launch_options` go to the launch
    (pid_mapping, the optimization switches)."""
    heads, seq, dim = q.shape
    o = torch.empty_like(q)
    grid = (triton.cdiv(seq, block_m), heads)
    attention_fwd_kernel[grid](q, k, v, o, seq, dim**-0.5, q.stride(0), q.stride(1), HEAD_DIM=dim, BLOCK_M=block_m,
                               BLOCK_N=block_n, CAUSAL=causal, P_FP16=p_fp16, **launch_options)
    return o


def flops(heads, seq, dim, causal):
    """The two dots' floating-point operations (4 * seq^2 * d per head,
    about half of it when causal, counted by whole diagonal blocks as the
    kernel computes them)."""
    full = 4 * heads * seq * seq * dim
    return full // 2 if causal else full
