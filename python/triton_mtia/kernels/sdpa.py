"""`F.scaled_dot_product_attention` as fused kernels, forward and backward:
what `_scaled_dot_product_fused_attention_overrideable` and its backward
compute on the chip (aten/attention.py).

Forward (`sdpa_forward`): one program per (query block, batch x head). K
and V stream through in blocks with the online softmax (as
`kernels/flash.py`), the scores never leave the PE; besides the output it
writes each row's log-sum-exp, which the backward needs. What the math
path allows, the kernel takes: any strides, a head dim that is not a power
of two (masked lanes), key length other than query length, an additive
mask broadcast over any dims (a boolean one arrives as 0 / -inf), the
causal mask of `is_causal` (query i sees keys j <= i), grouped-query
attention (query head h reads key head h // (H / H_kv)), any scale, and
dropout on the probabilities: a keep decision per (batch x head, row,
column) from `tl.rand(seed, offset)`, so the backward draws the same ones.
A row that sees no key (all masked) gives 0, as the math path's
`_safe_softmax` does, and a log-sum-exp of -inf.

Backward (`sdpa_backward`), FlashAttention-2's recomputation: the
probabilities are recomputed from q, k and the log-sum-exp, never stored.
`_sdpa_backward_dq` (one program per query block) computes
delta = rowsum(dO * O), then dQ over the key blocks, and the mask's
gradient dS where one is asked for; `_sdpa_backward_dkdv` (one program per
key block of a key head) dK and dV over the query blocks of every query
head of its group. Accumulation is fp32; products of two fp16 / bf16
tiles are rounded to the inputs' type first, as on a GPU.
"""

from __future__ import annotations

from typing import Optional, Tuple

import torch
import triton
import triton.language as tl

#: log2(e) and ln(2): the kernels take exponentials in base 2.
LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453

#: The widest head the kernels take (runtime/torch/attention.cpp's
#: kMaxHeadDim: the choice of the fused path checks the same).
MAX_HEAD_DIM = 256


@triton.jit
def _query_rows(BLOCK_M: tl.constexpr, H, GROUP, L):
    """A forward or dQ program's rows: (first row, batch x head, batch,
    head, key head, rows, which rows exist)."""
    start_m = tl.program_id(0) * BLOCK_M
    bh = tl.program_id(1)
    h = bh % H
    offs_m = start_m + tl.arange(0, BLOCK_M)
    return start_m, bh, bh // H, h, h // GROUP, offs_m, offs_m < L


@triton.jit
def _scores(q, k, bias_ptrs, valid, offs_m, cols, scale_log2, CAUSAL: tl.constexpr, HAS_BIAS: tl.constexpr):
    """One block of base-2 scores q k^T * scale (+ the mask), -inf where
    masked or outside `valid` (the rows and columns that exist): the
    forward's, and what the dQ kernel recomputes. (The dK/dV kernel, over
    key blocks, writes the same in its own order, which the compiler
    schedules 4% faster there.)"""
    s = tl.dot(q, tl.trans(k)) * scale_log2
    if HAS_BIAS:
        s += tl.load(bias_ptrs, mask=valid, other=0.0).to(tl.float32) * 1.4426950408889634
    if CAUSAL:
        valid = valid & (offs_m[:, None] >= cols[None, :])
    return tl.where(valid, s, float("-inf"))


@triton.jit
def _lse2(lse_ptr, bh, L, offs_m):
    """The rows' log-sum-exp in base 2, 0 where a row saw no key (its
    recomputed scores are all -inf, and so its probabilities 0)."""
    lse = tl.load(lse_ptr + bh * L + offs_m, mask=offs_m < L, other=0.0)
    return tl.where(lse == float("-inf"), 0.0, lse * 1.4426950408889634)


@triton.jit
def _keep(seed, bh, offs_m, cols, L, S, dropout_p):
    """The dropout's keep decisions of a block: one draw per (batch x head,
    row, column), the same in the forward and the backward."""
    offsets = (bh * L + offs_m[:, None]) * S + cols[None, :]
    return tl.rand(seed, offsets) >= dropout_p


@triton.jit
def _sdpa_forward(q_ptr, k_ptr, v_ptr, bias_ptr, o_ptr, lse_ptr,  #
                  sqb, sqh, sqm, sqd, skb, skh, skn, skd, svb, svh, svn, svd,  #
                  sbb, sbh, sbm, sbn, sob, soh, som, sod,  #
                  H, L, S, D, DV, GROUP, scale_log2, dropout_p, seed,  #
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_DV: tl.constexpr,
                  CAUSAL: tl.constexpr, HAS_BIAS: tl.constexpr, DROPOUT: tl.constexpr):
    start_m, bh, b, h, hk, offs_m, row_ok = _query_rows(BLOCK_M, H, GROUP, L)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    offs_dv = tl.arange(0, BLOCK_DV)
    q = tl.load(q_ptr + b * sqb + h * sqh + offs_m[:, None] * sqm + offs_d[None, :] * sqd,
                mask=row_ok[:, None] & (offs_d[None, :] < D), other=0.0)
    m_i = tl.full((BLOCK_M, ), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M, ), tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_DV), tl.float32)
    hi = tl.minimum(start_m + BLOCK_M, S) if CAUSAL else S
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        col_ok = cols < S
        k = tl.load(k_ptr + b * skb + hk * skh + cols[:, None] * skn + offs_d[None, :] * skd,
                    mask=col_ok[:, None] & (offs_d[None, :] < D), other=0.0)
        s = _scores(q, k, bias_ptr + b * sbb + h * sbh + offs_m[:, None] * sbm + cols[None, :] * sbn,
                    row_ok[:, None] & col_ok[None, :], offs_m, cols, scale_log2, CAUSAL, HAS_BIAS)
        m_new = tl.maximum(m_i, tl.max(s, 1))
        # A row that has seen no key yet keeps its maximum at -inf: its
        # exponentials are taken against 0 (all 0), not -inf - -inf.
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        p = tl.math.exp2(s - m_safe[:, None])
        alpha = tl.math.exp2(m_i - m_safe)
        l_i = l_i * alpha + tl.sum(p, 1)
        if DROPOUT:
            p = tl.where(_keep(seed, bh, offs_m, cols, L, S, dropout_p), p / (1.0 - dropout_p), 0.0)
        v = tl.load(v_ptr + b * svb + hk * svh + cols[:, None] * svn + offs_dv[None, :] * svd,
                    mask=col_ok[:, None] & (offs_dv[None, :] < DV), other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    seen = l_i > 0.0
    out = tl.where(seen[:, None], acc / tl.where(seen, l_i, 1.0)[:, None], 0.0)
    tl.store(o_ptr + b * sob + h * soh + offs_m[:, None] * som + offs_dv[None, :] * sod,
             out.to(o_ptr.dtype.element_ty), mask=row_ok[:, None] & (offs_dv[None, :] < DV))
    lse = tl.where(seen, (m_i + tl.math.log2(tl.where(seen, l_i, 1.0))) * 0.6931471805599453, float("-inf"))
    tl.store(lse_ptr + bh * L + offs_m, lse, mask=row_ok)


@triton.jit
def _sdpa_backward_dq(q_ptr, k_ptr, v_ptr, bias_ptr, o_ptr, do_ptr, lse_ptr, delta_ptr, dq_ptr, ds_ptr,  #
                      sqb, sqh, sqm, sqd, skb, skh, skn, skd, svb, svh, svn, svd,  #
                      sbb, sbh, sbm, sbn, sob, soh, som, sod, sdob, sdoh, sdom, sdod,  #
                      sdqb, sdqh, sdqm, sdqd,  #
                      H, L, S, D, DV, GROUP, scale, dropout_p, seed,  #
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_DV: tl.constexpr,
                      CAUSAL: tl.constexpr, HAS_BIAS: tl.constexpr, DROPOUT: tl.constexpr, WRITE_DS: tl.constexpr):
    start_m, bh, b, h, hk, offs_m, row_ok = _query_rows(BLOCK_M, H, GROUP, L)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    offs_dv = tl.arange(0, BLOCK_DV)
    q_ok = row_ok[:, None] & (offs_d[None, :] < D)
    o_ok = row_ok[:, None] & (offs_dv[None, :] < DV)
    q = tl.load(q_ptr + b * sqb + h * sqh + offs_m[:, None] * sqm + offs_d[None, :] * sqd, mask=q_ok, other=0.0)
    do = tl.load(do_ptr + b * sdob + h * sdoh + offs_m[:, None] * sdom + offs_dv[None, :] * sdod, mask=o_ok,
                 other=0.0)
    o = tl.load(o_ptr + b * sob + h * soh + offs_m[:, None] * som + offs_dv[None, :] * sod, mask=o_ok, other=0.0)
    delta = tl.sum(do.to(tl.float32) * o.to(tl.float32), 1)
    tl.store(delta_ptr + bh * L + offs_m, delta, mask=row_ok)
    lse2 = _lse2(lse_ptr, bh, L, offs_m)
    dq = tl.zeros((BLOCK_M, BLOCK_D), tl.float32)
    hi = tl.minimum(start_m + BLOCK_M, S) if CAUSAL else S
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        col_ok = cols < S
        k = tl.load(k_ptr + b * skb + hk * skh + cols[:, None] * skn + offs_d[None, :] * skd,
                    mask=col_ok[:, None] & (offs_d[None, :] < D), other=0.0)
        s = _scores(q, k, bias_ptr + b * sbb + h * sbh + offs_m[:, None] * sbm + cols[None, :] * sbn,
                    row_ok[:, None] & col_ok[None, :], offs_m, cols, scale * 1.4426950408889634, CAUSAL, HAS_BIAS)
        p = tl.math.exp2(s - lse2[:, None])
        v = tl.load(v_ptr + b * svb + hk * svh + cols[:, None] * svn + offs_dv[None, :] * svd,
                    mask=col_ok[:, None] & (offs_dv[None, :] < DV), other=0.0)
        dp = tl.dot(do, tl.trans(v)).to(tl.float32)
        if DROPOUT:
            dp = tl.where(_keep(seed, bh, offs_m, cols, L, S, dropout_p), dp / (1.0 - dropout_p), 0.0)
        ds = p * (dp - delta[:, None])
        if WRITE_DS:
            tl.store(ds_ptr + (bh * L + offs_m[:, None]) * S + cols[None, :], ds,
                     mask=row_ok[:, None] & col_ok[None, :])
        dq = tl.dot(ds.to(k.dtype), k, dq)
    tl.store(dq_ptr + b * sdqb + h * sdqh + offs_m[:, None] * sdqm + offs_d[None, :] * sdqd,
             (dq * scale).to(dq_ptr.dtype.element_ty), mask=q_ok)


@triton.jit
def _sdpa_backward_dkdv(q_ptr, k_ptr, v_ptr, bias_ptr, do_ptr, lse_ptr, delta_ptr, dk_ptr, dv_ptr,  #
                        sqb, sqh, sqm, sqd, skb, skh, skn, skd, svb, svh, svn, svd,  #
                        sbb, sbh, sbm, sbn, sdob, sdoh, sdom, sdod,  #
                        sdkb, sdkh, sdkn, sdkd, sdvb, sdvh, sdvn, sdvd,  #
                        H, HK, L, S, D, DV, GROUP, scale, dropout_p, seed,  #
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
                        BLOCK_DV: tl.constexpr, CAUSAL: tl.constexpr, HAS_BIAS: tl.constexpr,
                        DROPOUT: tl.constexpr):
    start_n = tl.program_id(0) * BLOCK_N
    bhk = tl.program_id(1)
    b = bhk // HK
    hk = bhk % HK
    cols = start_n + tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    offs_dv = tl.arange(0, BLOCK_DV)
    col_ok = cols < S
    k_ok = col_ok[:, None] & (offs_d[None, :] < D)
    v_ok = col_ok[:, None] & (offs_dv[None, :] < DV)
    k = tl.load(k_ptr + b * skb + hk * skh + cols[:, None] * skn + offs_d[None, :] * skd, mask=k_ok, other=0.0)
    v = tl.load(v_ptr + b * svb + hk * svh + cols[:, None] * svn + offs_dv[None, :] * svd, mask=v_ok, other=0.0)
    dk = tl.zeros((BLOCK_N, BLOCK_D), tl.float32)
    dv = tl.zeros((BLOCK_N, BLOCK_DV), tl.float32)
    # Causal: the query rows before this block's first key see none of it.
    lo = (start_n // BLOCK_M) * BLOCK_M if CAUSAL else 0
    for g in range(0, GROUP):
        h = hk * GROUP + g
        bh = b * H + h
        for start_m in range(lo, L, BLOCK_M):
            offs_m = start_m + tl.arange(0, BLOCK_M)
            row_ok = offs_m < L
            q = tl.load(q_ptr + b * sqb + h * sqh + offs_m[:, None] * sqm + offs_d[None, :] * sqd,
                        mask=row_ok[:, None] & (offs_d[None, :] < D), other=0.0)
            s = tl.dot(q, tl.trans(k)) * (scale * 1.4426950408889634)
            if HAS_BIAS:
                s += tl.load(bias_ptr + b * sbb + h * sbh + offs_m[:, None] * sbm + cols[None, :] * sbn,
                             mask=row_ok[:, None] & col_ok[None, :], other=0.0).to(tl.float32) * 1.4426950408889634
            valid = row_ok[:, None] & col_ok[None, :]
            if CAUSAL:
                valid = valid & (offs_m[:, None] >= cols[None, :])
            lse2 = _lse2(lse_ptr, bh, L, offs_m)
            p = tl.where(valid, tl.math.exp2(s - lse2[:, None]), 0.0)
            do = tl.load(do_ptr + b * sdob + h * sdoh + offs_m[:, None] * sdom + offs_dv[None, :] * sdod,
                         mask=row_ok[:, None] & (offs_dv[None, :] < DV), other=0.0)
            delta = tl.load(delta_ptr + bh * L + offs_m, mask=row_ok, other=0.0)
            dp = tl.dot(do, tl.trans(v)).to(tl.float32)
            if DROPOUT:
                keep = _keep(seed, bh, offs_m, cols, L, S, dropout_p)
                p_dropped = tl.where(keep, p / (1.0 - dropout_p), 0.0)
                dp = tl.where(keep, dp / (1.0 - dropout_p), 0.0)
            else:
                p_dropped = p
            dv = tl.dot(tl.trans(p_dropped.to(do.dtype)), do, dv)
            ds = p * (dp - delta[:, None])
            dk = tl.dot(tl.trans(ds.to(q.dtype)), q, dk)
    tl.store(dk_ptr + b * sdkb + hk * sdkh + cols[:, None] * sdkn + offs_d[None, :] * sdkd,
             (dk * scale).to(dk_ptr.dtype.element_ty), mask=k_ok)
    tl.store(dv_ptr + b * sdvb + hk * sdvh + cols[:, None] * sdvn + offs_dv[None, :] * sdvd,
             dv.to(dv_ptr.dtype.element_ty), mask=v_ok)


def _blocks(d: int, dv: int) -> Tuple[int, int, int, int]:
    """(BLOCK_M, BLOCK_N, BLOCK_D, BLOCK_DV): heads padded to a power of two
    (16 at least, the DPE's narrowest tile), rows in blocks that keep a
    program's tiles within a PE's local memory."""
    block_d, block_dv = max(16, triton.next_power_of_2(d)), max(16, triton.next_power_of_2(dv))
    rows = 64 if max(block_d, block_dv) <= 64 else 32 if max(block_d, block_dv) <= 128 else 16
    return rows, rows, block_d, block_dv


def _four_d(t: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
    return t if t is None or t.dim() == 4 else t.unsqueeze(0)


def _bias_view(bias: Optional[torch.Tensor], b: int, h: int, l: int, s: int):
    """The mask as a [b, h, l, s] view (broadcast dims of stride 0), or a
    dummy pointer and zero strides."""
    if bias is None:
        return None, (0, 0, 0, 0)
    view = bias.expand(b, h, l, s)
    return view, tuple(view.stride())


def _like(q: torch.Tensor, shape) -> torch.Tensor:
    """A new tensor of `shape` whose dims are laid out in q's order (the
    meta kernel's `alloc_with_matching_layout`: Inductor checks an extern
    kernel's results against it)."""
    if tuple(q.shape) == tuple(shape):
        return torch.empty_like(q)
    order = sorted(range(q.dim()), key=lambda i: q.stride(i), reverse=True)
    strides, stride = [0] * q.dim(), 1
    for i in reversed(order):
        strides[i] = stride
        stride *= shape[i]
    return torch.empty_strided(shape, strides, dtype=q.dtype, device=q.device)


def _strides(t: torch.Tensor):
    return tuple(t.stride())


def sdpa_forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, bias: Optional[torch.Tensor] = None,
                 dropout_p: float = 0.0, causal: bool = False, scale: Optional[float] = None,
                 seed: int = 0) -> Tuple[torch.Tensor, torch.Tensor]:
    """(out, logsumexp) of softmax(q k^T * scale + bias) v, for q of
    [B, H, L, D] (or [H, L, D]), k and v of [B, H_kv, S, D / Dv] with H_kv
    dividing H; `bias` broadcasts to [B, H, L, S]. `out` is laid out as q;
    `logsumexp` is fp32 [B, H, L] (natural log)."""
    three_d = q.dim() == 3
    q4, k4, v4, = _four_d(q), _four_d(k), _four_d(v)
    batch, heads, l, d = q4.shape
    kv_heads, s, dv = k4.shape[1], k4.shape[2], v4.shape[3]
    out = _like(q, tuple(q.shape[:-1]) + (dv, ))
    o4 = _four_d(out)
    lse = torch.empty((batch, heads, l), dtype=torch.float32, device=q.device)
    scale = d**-0.5 if scale is None else scale
    bias4, bias_strides = _bias_view(bias, batch, heads, l, s)
    block_m, block_n, block_d, block_dv = _blocks(d, dv)
    grid = (triton.cdiv(l, block_m), batch * heads)
    _sdpa_forward[grid](q4, k4, v4, bias4 if bias4 is not None else q4, o4, lse, *_strides(q4), *_strides(k4),
                        *_strides(v4), *bias_strides, *_strides(o4), heads, l, s, d, dv, heads // kv_heads,
                        scale * LOG2E, float(dropout_p), seed, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_D=block_d,
                        BLOCK_DV=block_dv, CAUSAL=causal, HAS_BIAS=bias is not None, DROPOUT=dropout_p > 0)
    return out, (lse[0] if three_d else lse)


def sdpa_backward(grad_out: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                  bias: Optional[torch.Tensor], out: torch.Tensor, lse: torch.Tensor, dropout_p: float = 0.0,
                  causal: bool = False, scale: Optional[float] = None, seed: int = 0,
                  bias_grad: bool = False):
    """(dq, dk, dv, dbias) of `sdpa_forward`'s call with the same arguments
    (its `out` and `lse`); dbias, of `bias`'s shape, only if `bias_grad`."""
    q4, k4, v4, o4, do4 = (_four_d(t) for t in (q, k, v, out, grad_out))
    lse3 = lse if lse.dim() == 3 else lse.unsqueeze(0)
    batch, heads, l, d = q4.shape
    kv_heads, s, dv = k4.shape[1], k4.shape[2], v4.shape[3]
    scale = d**-0.5 if scale is None else scale
    bias4, bias_strides = _bias_view(bias, batch, heads, l, s)
    dq, dk, dvv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    dq4, dk4, dv4 = _four_d(dq), _four_d(dk), _four_d(dvv)
    delta = torch.empty((batch, heads, l), dtype=torch.float32, device=q.device)
    write_ds = bias is not None and bias_grad
    ds = torch.empty((batch, heads, l, s), dtype=torch.float32, device=q.device) if write_ds else delta
    block_m, block_n, block_d, block_dv = _blocks(d, dv)
    block_m, block_n = min(block_m, 32), min(block_n, 32)
    group = heads // kv_heads
    common = dict(BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_D=block_d, BLOCK_DV=block_dv, CAUSAL=causal,
                  HAS_BIAS=bias is not None, DROPOUT=dropout_p > 0)
    # do's strides may differ from out's (a gradient need not be laid out
    # as its tensor).
    _sdpa_backward_dq[(triton.cdiv(l, block_m), batch * heads)](
        q4, k4, v4, bias4 if bias4 is not None else q4, o4, do4, lse3, delta, dq4, ds, *_strides(q4),
        *_strides(k4), *_strides(v4), *bias_strides, *_strides(o4), *_strides(do4), *_strides(dq4), heads, l, s,
        d, dv, group,
        scale, float(dropout_p), seed, WRITE_DS=write_ds, **common)
    _sdpa_backward_dkdv[(triton.cdiv(s, block_n), batch * kv_heads)](
        q4, k4, v4, bias4 if bias4 is not None else q4, do4, lse3, delta, dk4, dv4, *_strides(q4), *_strides(k4),
        *_strides(v4), *bias_strides, *_strides(do4), *_strides(dk4), *_strides(dv4), heads, kv_heads, l, s, d, dv, group, scale,
        float(dropout_p), seed, **common)
    dbias = ds.to(bias.dtype).sum_to_size(bias.shape) if write_ds else None
    return dq, dk, dvv, dbias
