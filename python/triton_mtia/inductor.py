"""TorchInductor on the simulated MTIA-2i.

    import torch, triton_mtia
    triton_mtia.inductor.enable()
    y = torch.compile(model)(x)        # x: CPU tensors
    print(triton_mtia.last_launch().cycles)

How it works. The simulated chip reads and writes host memory, so the
tensors of a compiled model stay CPU tensors, and Inductor's own Triton code
generation for CPU (`torch._inductor.config.cpu_backend = "triton"`) makes the
kernels. Inductor hands such a kernel to Triton with the target
`GPUTarget("cpu", ...)` and, before each launch, makes the Triton backend
registered under the name "cpu" the active driver. `enable()` makes both ours:

* `MTIABackend.supports_target` accepts "cpu" targets while
  TRITON_MTIA_INDUCTOR=1 (`backend/compiler.py`). An environment variable,
  because Inductor compiles in worker processes that inherit the environment
  but never run this function;
* the name "cpu" in `triton.backends.backends` maps to our compiler and
  driver, which is also what makes Inductor believe Triton is usable on CPU
  (`torch.utils._triton.has_triton`);
* Inductor's autotuning measures CPU kernels with a wall clock; its CPU
  benchmark measures kernels that ran on the simulated chip in simulated
  time instead (others keep the wall clock);
* a kernel config that needs more CBs or local memory than a PE has fails
  with Triton's `OutOfResources` (`errors.py`), which Inductor answers by
  trying its other configs, as it does for shared memory on a GPU.

Operators that Inductor leaves to ATen (a matmul without max-autotune, for
instance) run on the host CPU as they would without us: only Triton kernels
run on the chip. With `torch._inductor.config.max_autotune_gemm_backends =
"TRITON"` and `max_autotune = True`, matmuls become Triton template kernels
too. `disable()` undoes everything.
"""

from __future__ import annotations

import functools
import os
from typing import Any, Callable, Dict, Optional

from .backend.compiler import BACKEND_NAME, INDUCTOR_ENV

#: Inductor's name of the device it generates Triton code for, and the
#: Triton backend name it looks up for it.
CPU = "cpu"

_saved: Optional[Dict[str, Any]] = None


def _simulated_benchmark(wall_clock: Callable[..., float], fn: Callable[[], Any], **kwargs) -> float:
    """Inductor's `benchmark_cpu`, in milliseconds: simulated time when `fn`
    launched kernels on the simulated chip, else `wall_clock` (the original,
    for an ATen kernel, for instance)."""
    from . import runtime
    before, launches = runtime.simulated_seconds_total, runtime.launch_count
    fn()
    if runtime.launch_count != launches:
        return (runtime.simulated_seconds_total - before) * 1e3
    return wall_clock(fn, **kwargs)


def _fix_torch_cpu_triton() -> Dict[str, Any]:
    """Two gaps of torch 2.13 on the path of Triton kernels for CPU, both met
    under max-autotune; returns what was replaced, for `disable()`:

    * `CpuDeviceOpOverrides.import_get_raw_stream_as` returns a two-line
      definition that Inductor splices into an indented benchmark-module
      template, which then fails to import (IndentationError). One line
      means the same: CPU has no streams.
    * `CpuInterface` has no `device` context, which benchmark epilogue
      fusion enters (NotImplementedError). CPU has one device: entering it
      changes nothing."""
    import contextlib

    from torch._dynamo.device_interface import CpuInterface, DeviceInterface
    from torch._inductor.codegen.cpu_device_op_overrides import CpuDeviceOpOverrides

    replaced: Dict[str, Any] = {}
    original = CpuDeviceOpOverrides.import_get_raw_stream_as
    if "\n" in original(CpuDeviceOpOverrides(), "probe").strip():
        CpuDeviceOpOverrides.import_get_raw_stream_as = lambda self, name: f"{name} = lambda device: 0"
        replaced["import_get_raw_stream_as"] = (CpuDeviceOpOverrides, original)
    if CpuInterface.device is DeviceInterface.device:

        class device:
            def __new__(cls, device):
                return contextlib.nullcontext()

        CpuInterface.device = device
        replaced["device"] = (CpuInterface, None)  # inherited again once deleted
    return replaced


def _cpu_alias_compiler():
    from .backend.compiler import MTIABackend

    class CPUAliasBackend(MTIABackend):
        """MTIABackend under the name "cpu". Inductor looks that name up for
        its driver; Triton's make_backend asks every registered compiler
        whether it takes a target and wants one answer, which MTIABackend
        gives under its own name."""

        @staticmethod
        def supports_target(target) -> bool:
            return False

    return CPUAliasBackend


def _clear_triton_probe() -> None:
    # Inductor caches whether Triton is usable; the answer changes here.
    from torch.utils._triton import has_triton
    has_triton.cache_clear()


def enable() -> None:
    """Routes TorchInductor's Triton kernels for CPU tensors to the simulated
    MTIA-2i. Safe to call twice."""
    global _saved
    if _saved is not None:
        return
    import triton.backends
    import torch._inductor.config as inductor_config
    from torch._inductor.runtime.benchmarking import benchmarker

    from . import activate
    from .backend import driver as mtia_driver
    from .backend.driver import MTIADriver

    backends = triton.backends.backends
    if CPU in backends:
        raise RuntimeError(f"a Triton backend named 'cpu' is installed ({backends[CPU].compiler.__module__}); "
                           "the MTIA Inductor integration would replace it")

    _saved = {
        "cpu_backend": inductor_config.cpu_backend,
        "env": {name: os.environ.get(name) for name in (INDUCTOR_ENV, "TRITON_DEFAULT_BACKEND")},
        "benchmark_cpu": benchmarker.__dict__.get("benchmark_cpu"),
        "was_active": mtia_driver.opted_in(),
    }
    os.environ[INDUCTOR_ENV] = "1"
    # Inductor's workers resolve Triton's default driver by themselves.
    os.environ["TRITON_DEFAULT_BACKEND"] = BACKEND_NAME
    backends[CPU] = triton.backends.Backend(compiler=_cpu_alias_compiler(), driver=MTIADriver)
    inductor_config.cpu_backend = "triton"
    # On the one Benchmarker that Inductor's modules share: both its
    # generic `benchmark(device="cpu")` and the template autotuner's direct
    # `benchmark_cpu` calls end here.
    benchmarker.benchmark_cpu = functools.partial(_simulated_benchmark, benchmarker.benchmark_cpu)
    _saved["torch_fixes"] = _fix_torch_cpu_triton()
    _clear_triton_probe()
    activate()


def disable() -> None:
    """Undoes `enable()`: Inductor generates C++ for CPU again."""
    global _saved
    if _saved is None:
        return
    import triton.backends
    import torch._inductor.config as inductor_config
    from torch._inductor.runtime.benchmarking import benchmarker

    from . import deactivate

    triton.backends.backends.pop(CPU, None)
    inductor_config.cpu_backend = _saved["cpu_backend"]
    for name, value in _saved["env"].items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    if _saved["benchmark_cpu"] is None:
        del benchmarker.benchmark_cpu  # the class's method again
    else:
        benchmarker.benchmark_cpu = _saved["benchmark_cpu"]
    for name, (owner, original) in _saved["torch_fixes"].items():
        if original is None:
            delattr(owner, name)
        else:
            setattr(owner, name, original)
    was_active = _saved["was_active"]
    _saved = None
    _clear_triton_probe()
    if not was_active:
        deactivate()


def enabled() -> bool:
    return _saved is not None
