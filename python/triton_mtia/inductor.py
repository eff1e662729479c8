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
* Inductor's autotuning measures CPU kernels with a wall clock; a registered
  "cpu" benchmarker measures kernels that ran on the simulated chip in
  simulated time instead (others keep the wall clock);
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

import os
from typing import Any, Callable, Dict, Optional

from .backend.compiler import BACKEND_NAME, INDUCTOR_ENV

#: Inductor's name of the device it generates Triton code for, and the
#: Triton backend name it looks up for it.
CPU = "cpu"

_saved: Optional[Dict[str, Any]] = None


def _simulated_benchmark(benchmarker, fn: Callable[[], Any], *, warmup=None, rep=None, **kwargs) -> float:
    """Inductor's benchmark of a CPU callable, in milliseconds: simulated
    time when the callable launched kernels on the simulated chip, else the
    host's wall clock (an ATen kernel, for instance)."""
    from . import runtime
    before, launches = runtime.simulated_seconds_total, runtime.launch_count
    fn()
    if runtime.launch_count != launches:
        return (runtime.simulated_seconds_total - before) * 1e3
    timing = {k: v for k, v in (("warmup", warmup), ("rep", rep)) if v is not None}
    return benchmarker.benchmark_cpu(fn, **timing, **kwargs)


def _fix_raw_stream_import() -> Optional[Callable]:
    """torch 2.13's CPU device op overrides return a two-line definition that
    Inductor splices into an indented benchmark-module template, which then
    fails to import (IndentationError) under max-autotune with epilogue
    benchmark fusion. One line means the same: CPU has no streams. Returns
    what it replaced."""
    try:
        from torch._inductor.codegen.cpu_device_op_overrides import CpuDeviceOpOverrides
    except ImportError:
        return None
    original = CpuDeviceOpOverrides.import_get_raw_stream_as
    if "\n" in original(CpuDeviceOpOverrides(), "probe").strip():
        CpuDeviceOpOverrides.import_get_raw_stream_as = lambda self, name: f"{name} = lambda device: 0"
        return original
    return None


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
    from torch._inductor.runtime import benchmarking

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
        "benchmarker": benchmarking._BENCHMARK_DISPATCH.get(CPU),
        "was_active": mtia_driver.opted_in(),
    }
    os.environ[INDUCTOR_ENV] = "1"
    # Inductor's workers resolve Triton's default driver by themselves.
    os.environ["TRITON_DEFAULT_BACKEND"] = BACKEND_NAME
    backends[CPU] = triton.backends.Backend(compiler=_cpu_alias_compiler(), driver=MTIADriver)
    inductor_config.cpu_backend = "triton"
    benchmarking.register_benchmarker(CPU, _simulated_benchmark, override=True)
    _saved["raw_stream"] = _fix_raw_stream_import()
    _clear_triton_probe()
    activate()


def disable() -> None:
    """Undoes `enable()`: Inductor generates C++ for CPU again."""
    global _saved
    if _saved is None:
        return
    import triton.backends
    import torch._inductor.config as inductor_config
    from torch._inductor.runtime import benchmarking

    from . import deactivate

    triton.backends.backends.pop(CPU, None)
    inductor_config.cpu_backend = _saved["cpu_backend"]
    for name, value in _saved["env"].items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    if _saved["benchmarker"] is None:
        benchmarking._BENCHMARK_DISPATCH.pop(CPU, None)
    else:
        benchmarking.register_benchmarker(CPU, _saved["benchmarker"], override=True)
    if _saved["raw_stream"] is not None:
        from torch._inductor.codegen.cpu_device_op_overrides import CpuDeviceOpOverrides
        CpuDeviceOpOverrides.import_get_raw_stream_as = _saved["raw_stream"]
    was_active = _saved["was_active"]
    _saved = None
    _clear_triton_probe()
    if not was_active:
        deactivate()


def enabled() -> bool:
    return _saved is not None
