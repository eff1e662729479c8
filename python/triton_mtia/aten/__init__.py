"""ATen operators of the `mtia` device that run as kernels on the chip.

The device's C++ extension (runtime/torch/) registers the operators a
backend cannot do without (creation, copies, views) and one host fallback
for every other operator. The operators of this package are registered for
the MTIA dispatch key here, in Python, because they are Triton kernels of
the kernel library: so an eager call on `mtia` tensors and an extern kernel
of Inductor's generated code (`extern_kernels.mm(a, b, out=buf)` is
`aten::mm.out`) both run on the chip. Registered operators take precedence
over the fallback; a call they cannot serve (a dtype the DPE has no mode
for, say) runs the operator on the host as the fallback would, counted in
`triton_mtia.device.host_fallbacks()` under its ATen name.

    gemm.py    mm, addmm, bmm, baddbmm (and so linear and matmul), their
               out= forms: the kernel library's GEMM (kernels/gemm.py)
    library.py _softmax, embedding: the kernel library's (kernels/longtail.py)

Registration is cheap and happens when the device loads; the kernel
library is imported at the first call.
"""

from __future__ import annotations

from typing import Callable, Dict

import torch

#: The torch.library handle that owns this package's registrations (kept
#: alive for the life of the process: dropping it unregisters them).
_library = None

#: ATen name (with overload) -> implementation, filled by the modules.
IMPLEMENTATIONS: Dict[str, Callable] = {}


def implements(*names: str):
    """Registers the decorated function as the MTIA kernel of the ATen
    operators `names` (`"mm"`, `"mm.out"`)."""

    def register(fn):
        for name in names:
            IMPLEMENTATIONS[name] = fn
        return fn

    return register


def on_host(op, *args, **kwargs):
    """Runs the ATen operator overload `op` on the host, as the device's
    fallback does for operators without a kernel here: its tensor arguments
    copied to the CPU, its result (or `out`) copied back, the run counted in
    `host_fallbacks()` under the overload's name (`aten::mm`,
    `aten::mm.out`)."""
    from .. import device
    device._extension().count_host_fallback(op.name())
    target = next(t.device for t in _tensors(args, kwargs) if t.device.type == "mtia")
    out = kwargs.pop("out", None)
    cpu = lambda v: v.cpu() if isinstance(v, torch.Tensor) else v  # noqa: E731
    # The functional overload on the host; an out= call gets its result copied.
    result = op.overloadpacket.default(*[cpu(a) for a in args], **{k: cpu(v) for k, v in kwargs.items()})
    if out is None:
        return result.to(target)
    if out.shape != result.shape:
        out.resize_(result.shape)
    out.copy_(result)
    return out


def _tensors(args, kwargs):
    for v in (*args, *kwargs.values()):
        if isinstance(v, torch.Tensor):
            yield v


def register() -> None:
    """Registers every operator of the package for the MTIA key (once)."""
    global _library
    if _library is not None:
        return
    from . import gemm, library  # noqa: F401  (fill IMPLEMENTATIONS)
    library = torch.library.Library("aten", "IMPL")
    for name, fn in IMPLEMENTATIONS.items():
        library.impl(name, fn, "MTIA")
    _library = library
