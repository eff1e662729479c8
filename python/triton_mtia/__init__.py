"""triton-mtia: run Triton kernels on a simulated MTIA-2i.

    import torch, triton, triton_mtia
    x = torch.randn(4096, device="mtia")         # the chip's device memory
    my_kernel[grid](x, y, out, n, BLOCK=1024)   # runs on the simulated chip
    print(triton_mtia.last_launch().cycles)

See docs/python.md for the design.
"""

from __future__ import annotations

__version__ = "0.1.0"

# Triton first: importing it discovers the installed backends, ours among
# them, and our backend imports .errors, which needs Triton's own exceptions.
import triton  # noqa: F401  (import order)

from . import device, inductor, profiler
from .errors import CompilationError, KernelFault, OutOfResources
from ._settings import OPTIMIZATIONS, settings
from .runtime import LaunchStats, TraceRecording, configure, last_launch, presets, simulator, trace
from .structs import TensorView, struct_type, tensor_view

# torch.device("mtia"), unless PyTorch's autoload already registered it.
device.ensure_loaded()

__all__ = [
    "activate",
    "reachable",
    "deactivate",
    "configure",
    "simulator",
    "presets",
    "last_launch",
    "trace",
    "settings",
    "OPTIMIZATIONS",
    "LaunchStats",
    "TraceRecording",
    "inductor",
    "device",
    "profiler",
    "CompilationError",
    "OutOfResources",
    "KernelFault",
    "struct_type",
    "TensorView",
    "tensor_view",
]


def reachable(*tensors):
    """Context manager: launches inside it may also access `tensors`, which
    kernels reach through pointers loaded from memory (see
    backend/driver.py)."""
    from .backend.driver import reachable as _reachable
    return _reachable(*tensors)


def activate():
    """Makes the MTIA driver Triton's active driver for this process.

    Kernels launched afterwards compile for MTIA and run on the simulator,
    whatever other backends are installed. Returns the driver."""
    from triton.runtime.driver import driver
    from .backend import driver as mtia_driver
    mtia_driver.set_opted_in(True)
    driver.set_active(mtia_driver.instance())
    return driver.active


def deactivate():
    """Undoes `activate()`: Triton resolves its default driver again on next use."""
    from triton.runtime.driver import driver
    from .backend import driver as mtia_driver
    mtia_driver.set_opted_in(False)
    # Peek at the set driver without resolving a default (which raises on a
    # machine with no other backend).
    if getattr(driver, "_active", None) is mtia_driver.instance():
        driver.set_active(None)
