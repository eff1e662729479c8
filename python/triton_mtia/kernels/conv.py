"""Convolution as an implicit GEMM on the DPE.

    y = conv(x, w, bias, stride, padding, dilation, groups)            # 1-D to 3-D
    y = conv_transpose(x, w, bias, stride, padding, output_padding, dilation, groups)

A convolution is the GEMM Y[m, co] = sum_k X[m, k] W[k, co] of its output
positions m (batch and output coordinates), output channels co, and
reduction k (input channels of the group and kernel taps). Implicit: X
is never built. Each program computes one [BLOCK_M, BLOCK_N] block of Y,
and for every BLOCK_K step of the reduction gathers its X tile straight
from the input, the address of each element computed from (m, k) - the
input coordinate `o * stride - padding + tap * dilation`, masked where it
falls in the padding - and multiplies it with a tile of the weights on the
DPE (`tl.dot`, fp32 sums). A transposed convolution is the same GEMM read
the other way: an output coordinate o takes the input coordinate
`(o + padding - tap * dilation) / stride` where that divides exactly.

1-D and 2-D convolutions are 3-D ones with unit leading dimensions, so one
kernel (two specializations: plain and transposed) serves them all, groups
being the third grid axis. The backward operators are convolutions too
(`conv_backward`): the input's gradient is the transposed convolution of
the output's gradient (or the plain one, for a transposed convolution),
the weights' gradient a convolution of the input with the output's
gradient as its weights, batch and channels swapped.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

import torch
import triton
import triton.language as tl

#: The dtypes the DPE multiplies for a convolution (sums in fp32).
CONV_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


@triton.jit
def conv_kernel(x_ptr, w_ptr, bias_ptr, y_ptr,
                D, H, W, sxn, sxc, sxd, sxh, sxw,
                OD, OH, OW, syn, syc, syd, syh, syw,
                KD, KH, KW, swo, swi, swd, swh, sww,
                stride_d, stride_h, stride_w, pad_d, pad_h, pad_w, dil_d, dil_h, dil_w,
                M, C_PER_GROUP, CO_PER_GROUP, x_group, w_group, y_group,
                TRANSPOSED: tl.constexpr, HAS_BIAS: tl.constexpr,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """One [BLOCK_M output positions, BLOCK_N output channels] block of the
    output of group program_id(2), which starts x_group, w_group and
    y_group elements into x, w and y (channels of a grouped convolution; a
    batched weight gradient's own). `swo` / `swi` are the weights' strides
    along their output- and input-channel dimensions (dims 0 and 1 of a
    convolution's weights, 1 and 0 of a transposed one's)."""
    group = tl.program_id(2)
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    # Output position m -> (n, od, oh, ow).
    ow = rm % OW
    oh = (rm // OW) % OH
    od = (rm // (OW * OH)) % OD
    n = rm // (OW * OH * OD)
    x_base = n * sxn + group * x_group
    taps = KD * KH * KW
    K = C_PER_GROUP * taps
    w_base = rn * swo + group * w_group
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        # Reduction index k -> (input channel, kd, kh, kw).
        kw = rk % KW
        kh = (rk // KW) % KH
        kd = (rk // (KW * KH)) % KD
        ci = rk // taps
        inside = (rm < M)[:, None] & (rk < K)[None, :]
        if TRANSPOSED:
            td = od[:, None] + pad_d - kd[None, :] * dil_d
            th = oh[:, None] + pad_h - kh[None, :] * dil_h
            tw = ow[:, None] + pad_w - kw[None, :] * dil_w
            inside &= (td >= 0) & (th >= 0) & (tw >= 0)
            inside &= (td % stride_d == 0) & (th % stride_h == 0) & (tw % stride_w == 0)
            id = td // stride_d
            ih = th // stride_h
            iw = tw // stride_w
            inside &= (id < D) & (ih < H) & (iw < W)
        else:
            id = od[:, None] * stride_d - pad_d + kd[None, :] * dil_d
            ih = oh[:, None] * stride_h - pad_h + kh[None, :] * dil_h
            iw = ow[:, None] * stride_w - pad_w + kw[None, :] * dil_w
            inside &= (id >= 0) & (id < D) & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
        # Out-of-range coordinates are masked; keep their addresses in range.
        id = tl.where(inside, id, 0)
        ih = tl.where(inside, ih, 0)
        iw = tl.where(inside, iw, 0)
        x = tl.load(x_ptr + x_base[:, None] + ci[None, :] * sxc + id * sxd + ih * sxh + iw * sxw, mask=inside,
                    other=0.0)
        w_offsets = ci[:, None] * swi + (kd * swd + kh * swh + kw * sww)[:, None] + w_base[None, :]
        w = tl.load(w_ptr + w_offsets, mask=(rk < K)[:, None] & (rn < CO_PER_GROUP)[None, :], other=0.0)
        acc = tl.dot(x, w, acc)
    if HAS_BIAS:
        acc += tl.load(bias_ptr + group * CO_PER_GROUP + rn, mask=rn < CO_PER_GROUP, other=0.0).to(tl.float32)[None, :]
    y_offsets = (n * syn + od * syd + oh * syh + ow * syw)[:, None] + rn[None, :] * syc + group * y_group
    tl.store(y_ptr + y_offsets, acc.to(y_ptr.dtype.element_ty), mask=(rm < M)[:, None] & (rn < CO_PER_GROUP)[None, :])


def _as_3d(t: torch.Tensor) -> torch.Tensor:
    """[N, C, *spatial] with 1 to 3 spatial dims as [N, C, D, H, W] (a view)."""
    while t.dim() < 5:
        t = t.unsqueeze(2)
    return t


def _per_dim(values: Sequence[int], spatial: int):
    values = list(values)
    return values * spatial if len(values) == 1 else values


def _triple(values: Sequence[int], spatial: int, fill: int) -> Tuple[int, int, int]:
    """A per-dimension parameter of `spatial` dimensions for the 3-D
    kernel: the leading unit dimensions get `fill`."""
    return tuple([fill] * (3 - spatial) + _per_dim(values, spatial))


def output_shape(input_shape, weight_shape, stride, padding, dilation, transposed, output_padding,
                 groups) -> Tuple[int, ...]:
    """The output's shape, as ATen's convolution computes it."""
    spatial = len(input_shape) - 2
    out = [input_shape[0], weight_shape[1] * groups if transposed else weight_shape[0]]
    for i in range(spatial):
        s, p, d = stride[i % len(stride)], padding[i % len(padding)], dilation[i % len(dilation)]
        k, size = weight_shape[2 + i], input_shape[2 + i]
        if transposed:
            out.append((size - 1) * s - 2 * p + d * (k - 1) + output_padding[i % len(output_padding)] + 1)
        else:
            out.append((size + 2 * p - d * (k - 1) - 1) // s + 1)
    return tuple(out)


def _block(size: int, lo: int, hi: int) -> int:
    block = lo
    while block < size and block < hi:
        block *= 2
    return block


def _launch(x5, w5, bias, y5, stride3, padding3, dilation3, transposed, groups, batch, c_per_group, co_per_group,
            x_group, w_group, y_group) -> None:
    """`conv_kernel` over 5-D views: groups of `batch` images, `c_per_group`
    reduction channels and `co_per_group` output channels, at the given
    offsets."""
    M = batch * y5.shape[2] * y5.shape[3] * y5.shape[4]
    swo, swi = (w5.stride(1), w5.stride(0)) if transposed else (w5.stride(0), w5.stride(1))
    block_m = 32
    block_n = _block(co_per_group, 16, 64)
    block_k = _block(c_per_group * w5.shape[2] * w5.shape[3] * w5.shape[4], 16, 32)
    grid = (triton.cdiv(M, block_m), triton.cdiv(co_per_group, block_n), groups)
    conv_kernel[grid](x5, w5, bias if bias is not None else x5, y5,
                      x5.shape[2], x5.shape[3], x5.shape[4], *x5.stride(),
                      y5.shape[2], y5.shape[3], y5.shape[4], *y5.stride(),
                      w5.shape[2], w5.shape[3], w5.shape[4], swo, swi, *w5.stride()[2:],
                      *stride3, *padding3, *dilation3, M, c_per_group, co_per_group, x_group, w_group, y_group,
                      TRANSPOSED=transposed, HAS_BIAS=bias is not None,
                      BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k)


def conv_into(x: torch.Tensor, w: torch.Tensor, bias: Optional[torch.Tensor], y: torch.Tensor,
              stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int], transposed: bool,
              groups: int) -> torch.Tensor:
    """The convolution (transposed or not) of `x` by `w`, plus `bias`,
    written into `y` of the shape `output_shape` gives; any strides."""
    spatial = x.dim() - 2
    x5, w5, y5 = _as_3d(x), _as_3d(w), _as_3d(y)
    C, CO = x.shape[1], y.shape[1]
    c_per_group, co_per_group = C // groups, CO // groups
    if y.numel() == 0:
        return y
    if w.numel() == 0:  # nothing to sum: the bias, or zeros
        return y.copy_(bias.view(1, -1, *([1] * spatial)).expand_as(y)) if bias is not None else y.zero_()
    # A group's slices: of x's and y's channels, and of w's first dimension,
    # which holds the input channels of a transposed convolution and the
    # output channels of a plain one.
    w_group = c_per_group * w5.stride(0) if transposed else co_per_group * w5.stride(0)
    _launch(x5, w5, bias, y5, *(_triple(v, spatial, f) for v, f in ((stride, 1), (padding, 0), (dilation, 1))),
            transposed, groups, y.shape[0], c_per_group, co_per_group, c_per_group * x5.stride(1), w_group,
            co_per_group * y5.stride(1))
    return y


def conv(x, w, bias=None, stride=(1, ), padding=(0, ), dilation=(1, ), transposed=False, output_padding=(0, ),
         groups=1) -> torch.Tensor:
    """ATen's `convolution` on the chip: a new output in x's dtype."""
    shape = output_shape(x.shape, w.shape, stride, padding, dilation, transposed, output_padding, groups)
    y = torch.empty(shape, dtype=x.dtype, device=x.device)
    return conv_into(x, w, bias, y, stride, padding, dilation, transposed, groups)


def conv_backward(grad_out, x, w, stride, padding, dilation, transposed, output_padding, groups, output_mask):
    """ATen's `convolution_backward` on the chip: (grad_input, grad_weight,
    grad_bias), each None where `output_mask` does not ask for it."""
    spatial = x.dim() - 2
    stride, padding, dilation = (_per_dim(v, spatial) for v in (stride, padding, dilation))
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        # The input's gradient: the output's gradient convolved the other way
        # with the same weights (a transposed convolution's: a plain one).
        grad_input = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        conv_into(grad_out, w, None, grad_input, stride, padding, dilation, not transposed, groups)
    if output_mask[1]:
        grad_weight = _weight_gradient(grad_out, x, w, stride, padding, dilation, transposed, groups)
    if output_mask[2]:
        grad_bias = grad_out.sum(dim=[0] + list(range(2, grad_out.dim())))
    return grad_input, grad_weight, grad_bias


def _weight_gradient(grad_out, x, w, stride, padding, dilation, transposed, groups):
    """dL/dw as one convolution of the batch-major input by the batch-major
    output gradient, every group a grid slice: for a convolution,
        gw[co, ci, t] = sum_{n, o} go[n, co, o] * x[n, ci, o * s - p + t * d]
    is conv(x^T [ci, n, ...], go^T [co, n, ...]) with stride d, padding p and
    dilation s, cropped to the kernel's size; for a transposed one, the
    roles of x and go swap. A group's batch (its channels of x^T) and output
    channels (its channels of go^T) are its slices of the two."""
    spatial = x.dim() - 2
    inp = (grad_out if transposed else x).transpose(0, 1)  # [groups * batch, N, ...]
    weights = (x if transposed else grad_out).transpose(0, 1)  # [groups * outputs, N, ...]
    batch, outputs = inp.shape[0] // groups, weights.shape[0] // groups
    shape = output_shape((batch, ) + tuple(inp.shape[1:]), (outputs, ) + tuple(weights.shape[1:]), dilation, padding,
                         stride, False, [0], 1)
    full = torch.empty((groups * batch, ) + shape[1:], dtype=torch.float32, device=x.device)
    inp5, weights5, full5 = _as_3d(inp), _as_3d(weights), _as_3d(full)
    _launch(inp5, weights5, None, full5, *(_triple(v, spatial, f) for v, f in ((dilation, 1), (padding, 0),
                                                                               (stride, 1))),
            False, groups, batch, inp.shape[1], outputs, batch * inp5.stride(0), outputs * weights5.stride(0),
            batch * full5.stride(0))
    taps = tuple(w.shape[2:])
    crop = full[(slice(None), slice(None)) + tuple(slice(0, t) for t in taps)]
    # crop[g * batch + b, o]: the gradient of w[g * outputs + o, b], b a
    # channel of the group's batch (of x for a convolution, of go for a
    # transposed one), o one of its outputs (of go, of x): w's first
    # dimension holds outputs, its second the batch, in both layouts.
    gw = crop.reshape(groups, batch, outputs, *taps).transpose(1, 2).reshape(groups * outputs, batch, *taps)
    # Contiguous, as every result here: what PyTorch's fake convolution says
    # for a backend it does not know (`_conv_determine_backend_memory_format`
    # of the Overrideable backend), which Inductor checks an extern kernel's
    # results against. A copy, not a view.
    return torch.empty(w.shape, dtype=w.dtype, device=w.device).copy_(gw.reshape(w.shape))
