"""Convolutions on the chip: `convolution` and `convolution_backward`, 1-D
to 3-D, plain and transposed, with groups, stride, padding and dilation,
as implicit GEMMs on the DPE (kernels/conv.py). So `F.conv1d/2d/3d`, their
transposes, `nn.Conv*` layers and their gradients in eager mode, and the
extern convolution of Inductor's generated code.

A call the kernel cannot serve - a dtype the DPE has no mode for, mixed
dtypes, a tensor on another device - runs as before: ATen's composite
kernel, whose `convolution_overrideable` the device's C++ extension runs
on the host, counted.
"""

from __future__ import annotations

import torch

from . import implements

_COMPOSITE = torch._C.DispatchKey.CompositeExplicitAutograd


def _on_chip(*tensors) -> bool:
    from ..kernels.conv import CONV_DTYPES
    dtype = tensors[0].dtype
    return dtype in CONV_DTYPES and all(t is None or (t.dtype == dtype and t.device.type == "mtia") for t in tensors)


@implements("convolution")
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    if not _on_chip(input, weight, bias) or input.dim() not in (3, 4, 5):
        return torch.ops.aten.convolution.default._op_dk(_COMPOSITE, input, weight, bias, stride, padding, dilation,
                                                         transposed, output_padding, groups)
    from ..kernels.conv import conv
    return conv(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)


@implements("convolution_backward")
def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                         output_padding, groups, output_mask):
    if not _on_chip(grad_output, input, weight) or input.dim() not in (3, 4, 5):
        return torch.ops.aten.convolution_backward.default._op_dk(
            _COMPOSITE, grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
            output_padding, groups, output_mask)
    from ..kernels.conv import conv_backward
    return conv_backward(grad_output, input, weight, stride, padding, dilation, transposed, output_padding, groups,
                         output_mask)
