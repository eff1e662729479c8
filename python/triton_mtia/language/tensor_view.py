"""Kernel-side helpers for `triton_mtia.TensorView` (the paper's 6.2.2:
utility functions on the MTIA stack's common types).

    view = triton_mtia.tensor_view(t)            # host: shape, strides, base of t
    ptrs, mask = mtl.tensor_view_ptrs_2d(view, rows, cols)
    x = tl.load(ptrs, mask=mask)
"""

import triton
import triton.language as tl


@triton.jit
def tensor_view_ptrs_2d(view, offs0, offs1):
    """Pointers to the block `offs0` x `offs1` of the first two dimensions
    of `view` (a TensorView), and the mask of those inside its shape."""
    ptrs = view.base + offs0[:, None] * view.stride[0] + offs1[None, :] * view.stride[1]
    mask = (offs0[:, None] < view.shape[0]) & (offs1[None, :] < view.shape[1])
    return ptrs, mask


@triton.jit
def tensor_view_numel(view):
    """The number of elements `view` addresses."""
    return view.shape[0] * view.shape[1] * view.shape[2] * view.shape[3]
