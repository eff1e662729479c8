"""Long-tail kernels of recommendation and generative models (the paper's
7.1.3): 17 operators, each a Triton kernel with a PyTorch-like wrapper.

Row-wise operators run one program per row with the row in one block
(`BLOCK = next_power_of_2(columns)`, masked), which a PE's local memory
holds for the rows these models use (up to 8,192 fp32 columns). Jagged
operators take a values tensor [total, D] with `offsets` [B + 1] (row b is
values[offsets[b]:offsets[b + 1]]), as torchrec's jagged tensors do, and
run one program per segment over tiles of `JAGGED_ROWS` of its rows.

`LONG_TAIL` lists every operator with its PyTorch reference and the shapes
that tests and `bench.paper` run it on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import torch
import triton
import triton.language as tl



def _block(n: int) -> int:
    return max(16, triton.next_power_of_2(n))


def _processors(t: torch.Tensor) -> int:
    """The processors of t's device (PEs on MTIA, SMs on a GPU)."""
    backend = getattr(torch, t.device.type, None)
    if backend is None or not hasattr(backend, "get_device_properties"):
        return 64
    return backend.get_device_properties(t.device).multi_processor_count


def _rows_per_program(rows: int, t: torch.Tensor, most: int = 16, programs_per_processor: int = 1) -> int:
    """Rows each program of a row-batched kernel takes: about enough for
    `programs_per_processor` programs on every processor, a power of two
    (a tile dimension), at most `most`. Several programs on a processor
    overlap one's loads with another's compute; one program per processor
    issues the fewest commands."""
    share = max(1, rows // (_processors(t) * programs_per_processor))
    return min(most, triton.next_power_of_2(share))


def _rows(x: torch.Tensor) -> torch.Tensor:
    if x.dim() != 2:
        raise ValueError(f"expected a 2-D tensor [rows, columns], not {tuple(x.shape)}")
    return x if x.stride(1) == 1 else x.contiguous()


# ---------------------------------------------------------------------------
# softmax, layer norm, RMS norm, group norm
# ---------------------------------------------------------------------------


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, scale, rows_per_matrix, CAUSAL: tl.constexpr,
                   BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    if CAUSAL:  # row r of each square score matrix sees columns 0..r
        valid = valid & (cols <= row % rows_per_matrix)
    x = tl.load(x_ptr + row * x_stride + cols, mask=valid, other=float("-inf")).to(tl.float32) * scale
    x = tl.where(valid, x, float("-inf"))
    e = tl.exp(x - tl.max(x, 0))
    y = e / tl.sum(e, 0)
    tl.store(y_ptr + row * y_stride + cols, y.to(y_ptr.dtype.element_ty), mask=cols < n_cols)


def softmax(x: torch.Tensor, scale: float = 1.0, causal: bool = False, out_dtype=None) -> torch.Tensor:
    """softmax(x * scale) over the last dimension of x [rows, columns] or
    [batch, rows, columns]; with `causal`, row r of each matrix over columns
    0..r only (the rest 0), as attention's masked scores."""
    rows_per_matrix = x.shape[-2] if x.dim() == 3 else x.shape[0]
    flat = _rows(x.reshape(-1, x.shape[-1]))
    y = torch.empty(flat.shape, dtype=out_dtype or x.dtype, device=x.device)
    softmax_kernel[(flat.shape[0], )](flat, y, flat.shape[1], flat.stride(0), y.stride(0), scale, rows_per_matrix,
                                      CAUSAL=causal, BLOCK=_block(flat.shape[1]))
    return y.reshape(x.shape)


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, stride, eps, SIGMOID: tl.constexpr, BLOCK: tl.constexpr):
    # The row in one block, two passes over it in local memory; with
    # SIGMOID, sigmoid(layer_norm(x)) fused, the kernel an author writes by
    # hand for what recommendation models run often.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, 0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, 0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = d * rstd * w + b
    if SIGMOID:
        y = tl.sigmoid(y)
    tl.store(y_ptr + row * stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def _layer_norm(x, weight, bias, eps, sigmoid):
    x = _rows(x).contiguous()
    y = torch.empty_like(x)
    layer_norm_kernel[(x.shape[0], )](x, weight, bias, y, x.shape[1], x.stride(0), eps, SIGMOID=sigmoid,
                                      BLOCK=_block(x.shape[1]))
    return y


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    """Layer norm over each row of x [rows, columns]."""
    return _layer_norm(x, weight, bias, eps, sigmoid=False)


def layer_norm_sigmoid(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    """sigmoid(layer_norm(x, weight, bias)) over each row, one fused kernel
    (the handwritten baseline of the paper's Figure 9)."""
    return _layer_norm(x, weight, bias, eps, sigmoid=True)


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    rms = tl.sqrt(tl.sum(x * x, 0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride + cols, (x / rms * w).to(y_ptr.dtype.element_ty), mask=mask)


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    x = _rows(x)
    y = torch.empty_like(x)
    rms_norm_kernel[(x.shape[0], )](x, weight, y, x.shape[1], x.stride(0), eps, BLOCK=_block(x.shape[1]))
    return y


@triton.jit
def group_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, hw, channels_per_group, num_groups, eps, BLOCK_C: tl.constexpr,
                      BLOCK_HW: tl.constexpr):
    # One program per (sample, group): the group's channels x spatial
    # elements, contiguous in NCHW, as a [channels, spatial] tile, so that
    # each channel's weight and bias broadcast along its row.
    pid = tl.program_id(0)
    group = pid % num_groups
    c = tl.arange(0, BLOCK_C)
    s = tl.arange(0, BLOCK_HW)
    mask = (c[:, None] < channels_per_group) & (s[None, :] < hw)
    offs = pid * channels_per_group * hw + c[:, None] * hw + s[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    size = channels_per_group * hw
    mean = tl.sum(x) / size
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d) / size + eps)
    channel = group * channels_per_group + c
    w = tl.load(w_ptr + channel, mask=c < channels_per_group, other=0.0)
    b = tl.load(b_ptr + channel, mask=c < channels_per_group, other=0.0)
    tl.store(y_ptr + offs, (d * rstd * w[:, None] + b[:, None]).to(y_ptr.dtype.element_ty), mask=mask)


def group_norm(x: torch.Tensor, num_groups: int, weight: torch.Tensor, bias: torch.Tensor,
               eps: float = 1e-5) -> torch.Tensor:
    """torch.nn.functional.group_norm of x [N, C, *spatial]."""
    x = x.contiguous()
    n, c = x.shape[:2]
    hw = x[0, 0].numel()
    per_group = c // num_groups
    y = torch.empty_like(x)
    group_norm_kernel[(n * num_groups, )](x, weight, bias, y, hw, per_group, num_groups, eps,
                                          BLOCK_C=triton.next_power_of_2(per_group), BLOCK_HW=_block(hw))
    return y


# ---------------------------------------------------------------------------
# SwiGLU, RoPE, cross-entropy
# ---------------------------------------------------------------------------


@triton.jit
def swiglu_kernel(a_ptr, b_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (a * tl.sigmoid(a) * b).to(y_ptr.dtype.element_ty), mask=mask)


def swiglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """silu(a) * b, elementwise (the gate of a SwiGLU MLP)."""
    a, b = a.contiguous(), b.contiguous()
    y = torch.empty_like(a)
    n = a.numel()
    block = 1024
    swiglu_kernel[(triton.cdiv(n, block), )](a, b, y, n, BLOCK=block)
    return y


@triton.jit
def rope_kernel(x_ptr, cos_ptr, sin_ptr, y_ptr, seq, heads, POSITIONS: tl.constexpr, BLOCK_H: tl.constexpr,
                HALF: tl.constexpr):
    # POSITIONS positions per program, all their heads: each head's two
    # halves rotate by its position's angles (the "rotate half" form of
    # rotary embeddings), which broadcast over the heads.
    p = tl.program_id(0) * POSITIONS + tl.arange(0, POSITIONS)
    h = tl.arange(0, BLOCK_H)
    d = tl.arange(0, HALF)
    mask = (p[:, None, None] < seq) & (h[None, :, None] < heads)
    at = (p[:, None, None] * heads + h[None, :, None]) * 2 * HALF + d[None, None, :]
    x1 = tl.load(x_ptr + at, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + at + HALF, mask=mask, other=0.0).to(tl.float32)
    angles = p[:, None] * HALF + d[None, :]
    c = tl.load(cos_ptr + angles, mask=p[:, None] < seq, other=0.0)[:, None, :]
    s = tl.load(sin_ptr + angles, mask=p[:, None] < seq, other=0.0)[:, None, :]
    tl.store(y_ptr + at, (x1 * c - x2 * s).to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(y_ptr + at + HALF, (x2 * c + x1 * s).to(y_ptr.dtype.element_ty), mask=mask)


def rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotary position embedding of x [seq, heads, dim] with cos / sin
    [seq, dim / 2] (fp32)."""
    x = x.contiguous()
    seq, heads, dim = x.shape
    if dim % 2 or triton.next_power_of_2(dim // 2) != dim // 2:
        raise ValueError(f"rope: the head dimension must be twice a power of two, not {dim}")
    y = torch.empty_like(x)
    positions = _rows_per_program(seq, x)
    rope_kernel[(triton.cdiv(seq, positions), )](x, cos.contiguous(), sin.contiguous(), y, seq, heads,
                                                 POSITIONS=positions, BLOCK_H=triton.next_power_of_2(heads),
                                                 HALF=dim // 2)
    return y


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(logits_ptr + row * stride + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
    m = tl.max(x, 0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), 0))
    target = tl.load(target_ptr + row)
    picked = tl.load(logits_ptr + row * stride + target).to(tl.float32)
    tl.store(loss_ptr + row, lse - picked)


def cross_entropy(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Per-row cross-entropy loss (reduction="none") of logits [rows, classes]."""
    logits = _rows(logits)
    loss = torch.empty(logits.shape[0], dtype=torch.float32, device=logits.device)
    cross_entropy_kernel[(logits.shape[0], )](logits, target, loss, logits.shape[1], logits.stride(0),
                                              BLOCK=_block(logits.shape[1]))
    return loss


# ---------------------------------------------------------------------------
# Embedding bag, index_select, scatter_add
# ---------------------------------------------------------------------------


#: The most indices of a bag that an embedding-bag program gathers at once,
#: as one [rows, dim] tile of table rows summed along the rows; a bigger bag
#: takes several.
BAG_ROWS = 32


@triton.jit
def embedding_bag_kernel(weight_ptr, indices_ptr, offsets_ptr, out_ptr, dim, ROWS: tl.constexpr,
                         BLOCK_D: tl.constexpr):
    # One program per bag: the sum of its rows of the table.
    bag = tl.program_id(0)
    start = tl.load(offsets_ptr + bag)
    end = tl.load(offsets_ptr + bag + 1)
    r = tl.arange(0, ROWS)
    d = tl.arange(0, BLOCK_D)
    acc = tl.zeros((BLOCK_D, ), tl.float32)
    for i in range(start, end, ROWS):
        picked = i + r < end
        row = tl.load(indices_ptr + i + r, mask=picked, other=0)
        rows = tl.load(weight_ptr + row[:, None] * dim + d[None, :], mask=picked[:, None] & (d[None, :] < dim),
                       other=0.0)
        acc += tl.sum(rows.to(tl.float32), 0)
    tl.store(out_ptr + bag * dim + d, acc.to(out_ptr.dtype.element_ty), mask=d < dim)


def embedding_bag(weight: torch.Tensor, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """torch.nn.functional.embedding_bag(indices, weight, offsets,
    mode="sum") with `offsets` [bags + 1] (include_last_offset)."""
    weight = weight.contiguous()
    bags = offsets.numel() - 1
    dim = weight.shape[1]
    out = torch.empty((bags, dim), dtype=weight.dtype, device=weight.device)
    # Tiles of about a bag's mean size (a power of two, at most BAG_ROWS):
    # rows past a bag's end cost address and mask work too.
    rows = min(BAG_ROWS, triton.next_power_of_2(max(1, indices.numel() // max(1, bags))))
    embedding_bag_kernel[(bags, )](weight, indices, offsets, out, dim, ROWS=rows, BLOCK_D=_block(dim))
    return out


@triton.jit
def index_select_kernel(x_ptr, index_ptr, y_ptr, dim, ROWS: tl.constexpr, BLOCK_D: tl.constexpr):
    # ROWS output rows per program, each a row of x picked by the index.
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    d = tl.arange(0, BLOCK_D)
    src = tl.load(index_ptr + rows)
    values = tl.load(x_ptr + src[:, None] * dim + d[None, :], mask=d[None, :] < dim)
    tl.store(y_ptr + rows[:, None] * dim + d[None, :], values, mask=d[None, :] < dim)


def index_select(x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """x.index_select(0, index) of x [rows, dim]."""
    x = x.contiguous()
    n = index.numel()
    rows = 8 if n % 8 == 0 else 1
    y = torch.empty((n, x.shape[1]), dtype=x.dtype, device=x.device)
    index_select_kernel[(n // rows, )](x, index, y, x.shape[1], ROWS=rows, BLOCK_D=_block(x.shape[1]))
    return y


@triton.jit
def scatter_add_kernel(src_ptr, index_ptr, out_ptr, n, dim, ROWS: tl.constexpr, BLOCK_D: tl.constexpr):
    # ROWS source rows per program, each added to its destination row
    # atomically (rows of one or several programs may share a destination).
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    d = tl.arange(0, BLOCK_D)
    mask = (rows[:, None] < n) & (d[None, :] < dim)
    dst = tl.load(index_ptr + rows, mask=rows < n, other=0)
    values = tl.load(src_ptr + rows[:, None] * dim + d[None, :], mask=mask, other=0.0)
    tl.atomic_add(out_ptr + dst[:, None] * dim + d[None, :], values, mask=mask)


def scatter_add(out: torch.Tensor, index: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    """out.index_add_(0, index, src) in place (rows of src [n, dim] added
    to rows `index` of out); returns out."""
    src = src.contiguous()
    n, dim = src.shape
    rows = _rows_per_program(n, src)
    scatter_add_kernel[(triton.cdiv(n, rows), )](src, index, out, n, dim, ROWS=rows, BLOCK_D=_block(dim))
    return out


# ---------------------------------------------------------------------------
# cumsum, top-k
# ---------------------------------------------------------------------------


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride + cols, tl.cumsum(x, 0).to(y_ptr.dtype.element_ty), mask=cols < n_cols)


def cumsum(x: torch.Tensor) -> torch.Tensor:
    """x.cumsum(1) of x [rows, columns] (accumulated in fp32)."""
    x = _rows(x)
    y = torch.empty_like(x)
    cumsum_kernel[(x.shape[0], )](x, y, x.shape[1], x.stride(0), BLOCK=_block(x.shape[1]))
    return y


@triton.jit
def topk_kernel(x_ptr, values_ptr, indices_ptr, n_rows, n_cols, stride, K: tl.constexpr, ROWS: tl.constexpr,
                BLOCK: tl.constexpr):
    # ROWS rows per program, K rounds of: each row's maximum and its first
    # position, then masked out.
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=(rows[:, None] < n_rows) & (cols[None, :] < n_cols),
                other=float("-inf")).to(tl.float32)
    for k in tl.static_range(K):
        best = tl.max(x, 1)
        where = tl.min(tl.where(x == best[:, None], cols[None, :], BLOCK), 1)
        tl.store(values_ptr + rows * K + k, best, mask=rows < n_rows)
        tl.store(indices_ptr + rows * K + k, where.to(tl.int64), mask=rows < n_rows)
        x = tl.where(cols[None, :] == where[:, None], float("-inf"), x)


def topk(x: torch.Tensor, k: int) -> Tuple[torch.Tensor, torch.Tensor]:
    """x.topk(k, dim=1) (largest, sorted; ties to the first position) of a
    fp32 x [rows, columns] without NaN; small k (the recommendation case)."""
    x = _rows(x)
    n_rows, n_cols = x.shape
    values = torch.empty((n_rows, k), dtype=torch.float32, device=x.device)
    indices = torch.empty((n_rows, k), dtype=torch.int64, device=x.device)
    # K rounds of passes over a row outweigh its load: programs small enough
    # that a processor runs several overlap one's load with another's rounds.
    rows = _rows_per_program(n_rows, x, programs_per_processor=4)
    topk_kernel[(triton.cdiv(n_rows, rows), )](x, values, indices, n_rows, n_cols, x.stride(0), K=k, ROWS=rows,
                                               BLOCK=_block(n_cols))
    return values, indices


# ---------------------------------------------------------------------------
# Jagged tensors
# ---------------------------------------------------------------------------


#: Rows of a segment that a jagged program holds at once, as one [ROWS, dim]
#: tile (one DMA, reductions along the rows); a longer segment takes several
#: tiles. 32 covers the sequences of recommendation models' jagged features.
JAGGED_ROWS = 32


@triton.jit
def jagged_dense_add_kernel(values_ptr, offsets_ptr, dense_ptr, out_ptr, max_len, dim, ROWS: tl.constexpr,
                            BLOCK_D: tl.constexpr):
    # One program per segment: its rows plus the first rows of its dense
    # slab, ROWS rows at a time.
    seg = tl.program_id(0)
    start = tl.load(offsets_ptr + seg)
    n = tl.minimum(tl.load(offsets_ptr + seg + 1) - start, max_len)
    r = tl.arange(0, ROWS)
    d = tl.arange(0, BLOCK_D)
    for i in range(0, n, ROWS):
        rows = i + r
        mask = (rows[:, None] < n) & (d[None, :] < dim)
        v = tl.load(values_ptr + (start + rows)[:, None] * dim + d[None, :], mask=mask, other=0.0)
        x = tl.load(dense_ptr + (seg * max_len + rows)[:, None] * dim + d[None, :], mask=mask, other=0.0)
        tl.store(out_ptr + (start + rows)[:, None] * dim + d[None, :], v + x, mask=mask)


def jagged_dense_add(values: torch.Tensor, offsets: torch.Tensor, dense: torch.Tensor) -> torch.Tensor:
    """values + dense on the jagged rows: row i of segment b gets
    dense[b, i] (dense [B, max_len, dim]; rows past max_len keep 0)."""
    out = torch.zeros_like(values)
    b, max_len, dim = dense.shape
    jagged_dense_add_kernel[(b, )](values, offsets, dense.contiguous(), out, max_len, dim, ROWS=JAGGED_ROWS,
                                   BLOCK_D=_block(dim))
    return out


@triton.jit
def jagged_sum_kernel(values_ptr, offsets_ptr, out_ptr, dim, ROWS: tl.constexpr, BLOCK_D: tl.constexpr):
    seg = tl.program_id(0)
    start = tl.load(offsets_ptr + seg)
    n = tl.load(offsets_ptr + seg + 1) - start
    r = tl.arange(0, ROWS)
    d = tl.arange(0, BLOCK_D)
    acc = tl.zeros((BLOCK_D, ), tl.float32)
    for i in range(0, n, ROWS):
        rows = i + r
        x = tl.load(values_ptr + (start + rows)[:, None] * dim + d[None, :],
                    mask=(rows[:, None] < n) & (d[None, :] < dim), other=0.0)
        acc += tl.sum(x.to(tl.float32), 0)
    tl.store(out_ptr + seg * dim + d, acc.to(out_ptr.dtype.element_ty), mask=d < dim)


def jagged_sum(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """The sum of each segment's rows: [B, dim]."""
    b = offsets.numel() - 1
    dim = values.shape[1]
    out = torch.empty((b, dim), dtype=values.dtype, device=values.device)
    jagged_sum_kernel[(b, )](values, offsets, out, dim, ROWS=JAGGED_ROWS, BLOCK_D=_block(dim))
    return out


@triton.jit
def jagged_softmax_kernel(values_ptr, offsets_ptr, out_ptr, dim, ROWS: tl.constexpr, BLOCK_D: tl.constexpr):
    # Softmax over each segment's rows, column by column. The first ROWS
    # rows stay in registers: a segment no longer than that is read once;
    # a longer one folds its further tiles into an online maximum and sum,
    # then is read again to normalize.
    seg = tl.program_id(0)
    start = tl.load(offsets_ptr + seg)
    n = tl.load(offsets_ptr + seg + 1) - start
    r = tl.arange(0, ROWS)
    d = tl.arange(0, BLOCK_D)
    ptrs = values_ptr + (start + r)[:, None] * dim + d[None, :]
    mask = (r[:, None] < n) & (d[None, :] < dim)
    x = tl.load(ptrs, mask=mask, other=float("-inf")).to(tl.float32)
    m = tl.max(x, 0)
    s = tl.sum(tl.exp(x - m[None, :]), 0)
    for i in range(ROWS, n, ROWS):
        rows = i + r
        xi = tl.load(values_ptr + (start + rows)[:, None] * dim + d[None, :],
                     mask=(rows[:, None] < n) & (d[None, :] < dim), other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(xi, 0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(xi - m_new[None, :]), 0)
        m = m_new
    if n <= ROWS:
        tl.store(out_ptr + (start + r)[:, None] * dim + d[None, :],
                 (tl.exp(x - m[None, :]) / s[None, :]).to(out_ptr.dtype.element_ty), mask=mask)
    else:
        for i in range(0, n, ROWS):
            rows = i + r
            at = (start + rows)[:, None] * dim + d[None, :]
            mask_i = (rows[:, None] < n) & (d[None, :] < dim)
            xi = tl.load(values_ptr + at, mask=mask_i, other=0.0).to(tl.float32)
            tl.store(out_ptr + at, (tl.exp(xi - m[None, :]) / s[None, :]).to(out_ptr.dtype.element_ty), mask=mask_i)


def jagged_softmax(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """Softmax over the rows of each segment, per column."""
    out = torch.empty_like(values)
    jagged_softmax_kernel[(offsets.numel() - 1, )](values, offsets, out, values.shape[1], ROWS=JAGGED_ROWS,
                                                   BLOCK_D=_block(values.shape[1]))
    return out


# ---------------------------------------------------------------------------
# Row-wise quantization
# ---------------------------------------------------------------------------


@triton.jit
def quantize_rows_kernel(x_ptr, q_ptr, scale_ptr, n_cols, stride, QMAX: tl.constexpr, TO_INT: tl.constexpr,
                         BLOCK: tl.constexpr):
    # scale = max |x| / QMAX per row; q = x / scale, rounded to nearest
    # (int8, saturated) or to the fp8 type of q.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    amax = tl.max(tl.abs(x), 0)
    scale = tl.where(amax > 0, amax / QMAX, 1.0)
    y = x / scale
    if TO_INT:
        y = tl.extra.libdevice.rint(y)
        y = tl.minimum(tl.maximum(y, -QMAX), QMAX)
    tl.store(q_ptr + row * n_cols + cols, y.to(q_ptr.dtype.element_ty), mask=mask)
    tl.store(scale_ptr + row, scale)


def quantize_rows(x: torch.Tensor, dtype: torch.dtype = torch.int8) -> Tuple[torch.Tensor, torch.Tensor]:
    """Per-row symmetric quantization of x [rows, columns] to int8 (scale
    max|x| / 127) or fp8 e4m3 (max|x| / 448): (q, scale [rows] fp32),
    x ~ q * scale."""
    x = _rows(x)
    qmax = {torch.int8: 127.0, torch.float8_e4m3fn: 448.0}.get(dtype)
    if qmax is None:
        raise ValueError(f"quantize_rows: dtype is torch.int8 or torch.float8_e4m3fn, not {dtype}")
    q = torch.empty(x.shape, dtype=dtype, device=x.device)
    scale = torch.empty(x.shape[0], dtype=torch.float32, device=x.device)
    quantize_rows_kernel[(x.shape[0], )](x, q, scale, x.shape[1], x.stride(0), QMAX=qmax,
                                         TO_INT=dtype == torch.int8, BLOCK=_block(x.shape[1]))
    return q, scale


# ---------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------


def _jagged(gen: torch.Generator, segments: int, max_len: int, dim: int):
    lengths = torch.randint(0, max_len + 1, (segments, ), generator=gen)
    offsets = torch.zeros(segments + 1, dtype=torch.int64)
    offsets[1:] = lengths.cumsum(0)
    values = torch.randn(int(offsets[-1]), dim, generator=gen)
    return values, offsets


def _jagged_reference(fn, values, offsets):
    return [fn(values[offsets[b]:offsets[b + 1]]) for b in range(offsets.numel() - 1)]


def _ref_jagged_dense_add(values, offsets, dense):
    out = torch.zeros_like(values)
    for b in range(offsets.numel() - 1):
        n = min(int(offsets[b + 1] - offsets[b]), dense.shape[1])
        out[offsets[b]:offsets[b] + n] = values[offsets[b]:offsets[b] + n] + dense[b, :n]
    return out


def _ref_rope(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half].float(), x[..., half:].float()
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1).to(x.dtype)


def _ref_quantize(x, dtype):
    qmax = 127.0 if dtype == torch.int8 else 448.0
    amax = x.abs().amax(1)
    scale = torch.where(amax > 0, amax / qmax, torch.ones_like(amax))
    y = x / scale[:, None]
    if dtype == torch.int8:
        y = y.round().clamp(-qmax, qmax)
    return y.to(dtype), scale


@dataclass(frozen=True)
class LongTailOp:
    """One long-tail operator: `run` (the Triton kernel's wrapper) and
    `reference` (PyTorch) take the tensors `make_inputs(gen, *shape)`
    makes, for each shape of `shapes` (`quick`: the first only)."""
    name: str
    run: Callable
    reference: Callable
    make_inputs: Callable
    shapes: Sequence[Tuple[int, ...]]
    #: (rtol, atol) of the comparison with PyTorch.
    tolerance: Tuple[float, float] = (1e-5, 1e-5)
    #: (bytes read, bytes written) the operator needs, from its inputs and
    #: output, where it is not all of them: a gather reads only the rows it
    #: picks (None: every input read and every output written once).
    traffic: Optional[Callable] = None

    def bytes_moved(self, inputs: Sequence[torch.Tensor], outputs: Sequence[torch.Tensor]) -> Tuple[int, int]:
        """(bytes read, bytes written) of one call on `inputs` giving `outputs`."""
        if self.traffic is not None:
            return self.traffic(*inputs, *outputs)
        return _nbytes(*inputs), _nbytes(*outputs)


def _nbytes(*tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


def _rows_gathered(index: torch.Tensor, table: torch.Tensor) -> int:
    """Bytes of the rows of `table` that `index` picks."""
    return index.numel() * table.shape[1] * table.element_size()


def _ops() -> List[LongTailOp]:
    F = torch.nn.functional
    rand = torch.randn
    ops = [
        LongTailOp("softmax", softmax, lambda x: torch.softmax(x, 1),
                   lambda g, r, c: (rand(r, c, generator=g), ), [(300, 781), (1024, 512), (64, 4096)]),
        LongTailOp("layer_norm", layer_norm, lambda x, w, b: F.layer_norm(x, (x.shape[1], ), w, b),
                   lambda g, r, c: (rand(r, c, generator=g), rand(c, generator=g), rand(c, generator=g)),
                   [(256, 1000), (1024, 512), (64, 4096)], (1e-4, 1e-4)),
        LongTailOp("rms_norm", rms_norm, lambda x, w: F.rms_norm(x, (x.shape[1], ), w, eps=1e-6),
                   lambda g, r, c: (rand(r, c, generator=g), rand(c, generator=g)),
                   [(256, 1000), (1024, 512), (64, 4096)], (1e-4, 1e-4)),
        LongTailOp("group_norm", lambda x, w, b: group_norm(x, 8, w, b), lambda x, w, b: F.group_norm(x, 8, w, b),
                   lambda g, n, c, hw: (rand(n, c, hw, generator=g), rand(c, generator=g), rand(c, generator=g)),
                   [(8, 64, 49), (4, 128, 64)], (1e-4, 1e-4)),
        LongTailOp("swiglu", swiglu, lambda a, b: F.silu(a) * b,
                   lambda g, r, c: (rand(r, c, generator=g), rand(r, c, generator=g)),
                   [(512, 1000), (64, 8192)], (1e-5, 1e-5)),
        LongTailOp("rope", rope, _ref_rope,
                   lambda g, s, h, d: (rand(s, h, d, generator=g), rand(s, d // 2, generator=g),
                                       rand(s, d // 2, generator=g)), [(128, 8, 64), (512, 4, 128)]),
        LongTailOp("cross_entropy", cross_entropy, lambda x, t: F.cross_entropy(x, t, reduction="none"),
                   lambda g, r, c: (rand(r, c, generator=g), torch.randint(0, c, (r, ), generator=g)),
                   [(256, 1000), (64, 8192)], (1e-4, 1e-4)),
        LongTailOp("embedding_bag", embedding_bag,
                   lambda w, i, o: F.embedding_bag(i, w, o, mode="sum", include_last_offset=True),
                   lambda g, rows, dim, bags: (rand(rows, dim, generator=g),
                                               torch.randint(0, rows, (bags * 4, ), generator=g),
                                               torch.arange(0, bags * 4 + 1, 4)), [(1000, 64, 256), (5000, 128, 128)],
                   (1e-5, 1e-5), lambda w, i, o, out: (_nbytes(i, o) + _rows_gathered(i, w), _nbytes(out))),
        LongTailOp("index_select", index_select, lambda x, i: x.index_select(0, i),
                   lambda g, rows, dim, n: (rand(rows, dim, generator=g), torch.randint(0, rows, (n, ), generator=g)),
                   [(1000, 64, 512), (4096, 256, 256)],
                   traffic=lambda x, i, out: (_nbytes(i) + _rows_gathered(i, x), _nbytes(out))),
        LongTailOp("scatter_add", lambda o, i, s: scatter_add(o.clone(), i, s),
                   lambda o, i, s: o.clone().index_add_(0, i, s),
                   lambda g, rows, dim, n: (torch.zeros(rows, dim), torch.randint(0, rows, (n, ), generator=g),
                                            rand(n, dim, generator=g)), [(100, 64, 512), (1000, 128, 256)],
                   (1e-4, 1e-4),
                   # Each source row read-modify-writes one row of out.
                   lambda o, i, s, out: (_nbytes(i, s) + _rows_gathered(i, o), _rows_gathered(i, o))),
        LongTailOp("cumsum", cumsum, lambda x: x.cumsum(1), lambda g, r, c: (rand(r, c, generator=g), ),
                   [(256, 1000), (64, 4096)], (1e-4, 1e-3)),
        LongTailOp("topk", lambda x: topk(x, 8), lambda x: tuple(x.topk(8, 1)),
                   lambda g, r, c: (rand(r, c, generator=g), ), [(256, 1000), (64, 4096)]),
        LongTailOp("jagged_dense_add", jagged_dense_add, _ref_jagged_dense_add,
                   lambda g, b, max_len, dim: (*_jagged(g, b, max_len, dim), rand(b, max_len, dim, generator=g)),
                   [(64, 32, 64), (128, 16, 128)]),
        LongTailOp("jagged_sum", jagged_sum,
                   lambda v, o: torch.stack([s.sum(0) for s in _jagged_reference(lambda s: s, v, o)]),
                   lambda g, b, max_len, dim: _jagged(g, b, max_len, dim), [(64, 32, 64), (128, 16, 128)],
                   (1e-4, 1e-4)),
        LongTailOp("jagged_softmax", jagged_softmax,
                   lambda v, o: torch.cat(_jagged_reference(lambda s: torch.softmax(s, 0), v, o)),
                   lambda g, b, max_len, dim: _jagged(g, b, max_len, dim), [(64, 32, 64), (128, 16, 128)]),
        LongTailOp("quantize_int8", quantize_rows, lambda x: _ref_quantize(x, torch.int8),
                   lambda g, r, c: (rand(r, c, generator=g), ), [(256, 1000), (64, 4096)]),
        LongTailOp("quantize_fp8", lambda x: quantize_rows(x, torch.float8_e4m3fn),
                   lambda x: _ref_quantize(x, torch.float8_e4m3fn),
                   lambda g, r, c: (rand(r, c, generator=g), ), [(256, 1000), (64, 4096)]),
    ]
    return ops


#: The 17 long-tail operators, by name.
LONG_TAIL: Dict[str, LongTailOp] = {op.name: op for op in _ops()}
