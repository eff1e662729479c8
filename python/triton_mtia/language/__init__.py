"""The MTIA backend's language: extensions for kernels, and device-specific
modules.

    import triton_mtia.language as mtl

* `mtl.get_pe_id(axis)`, `mtl.get_pe_grid_size(axis)` (pe.py): the PE a
  program runs on, for kernels that map their work to PEs
  (docs/extensions.md). Triton's `tl` namespace is upstream's and stays
  unmodified, so the spelling is `mtl.`, not `tl.mtia.`.
* `mtl.re_reduce(op, values, is_first, is_last, axis=0)`,
  `mtl.broadcast(values, is_source, axis=1)` (network.py): a reduction over
  a chain of PEs on the reduction network, a broadcast along a PE row or
  column over the NoC.
* `mtl.extract_slice(input, offsets, sizes)` (slicing.py): a part of a
  tensor, without reloading it (a view of its tile at constant offsets).
* `mtl.core_hint(x, core)`, `mtl.unit_hint(x, unit)` (placement.py): the
  RISC-V core that issues, the unit that computes the command behind `x`.
* `mtl.tensor_view_ptrs_2d`, `mtl.tensor_view_numel` (tensor_view.py):
  helpers for kernels that take a `triton_mtia.TensorView` (struct types:
  triton_mtia/structs.py).
* `libdevice` replaces `triton.language.extra.libdevice` for kernels compiled
  for MTIA (through `MTIABackend.get_module_map`).
"""

from .network import broadcast, re_reduce
from .pe import get_pe_grid_size, get_pe_id
from .placement import core_hint, unit_hint
from .slicing import extract_slice
from .tensor_view import tensor_view_numel, tensor_view_ptrs_2d

__all__ = [
    "get_pe_id", "get_pe_grid_size", "re_reduce", "broadcast", "extract_slice", "core_hint", "unit_hint",
    "tensor_view_ptrs_2d", "tensor_view_numel"
]
