"""`torch.device("mtia")`: PyTorch's MTIA device, backed by the simulated chip.

    import torch
    x = torch.randn(1024, device="mtia")      # lives in the chip's device memory
    my_kernel[grid](x, out, ...)               # runs on the simulated chip
    y = x.cpu()

PyTorch's CPU wheel carries the MTIA device type, `torch.mtia` and
Inductor's MTIA path, with nothing behind them. The C++ extension
`_mtia_device` (runtime/torch/) fills PyTorch's registries: MTIA hooks,
device guard, allocator, generator, the ATen kernels a backend must have
(creation, copies, views) and a host fallback for every other eager
operator. This module is its Python half: it loads the extension, answers
what the hooks ask of Python (device properties, memory statistics), and
reports what ran on the host.

Loading. PyTorch calls `_autoload()` at the end of `import torch` (the
"torch.backends" entry point of this package), so the device exists in
every process, Inductor's compile workers included, without an import of
triton_mtia; `TORCH_DEVICE_BACKEND_AUTOLOAD=0` turns that off, and then
`import triton_mtia` loads it. PyTorch answers `torch.mtia.is_available()`
once per process: asked before the extension is loaded, it stays False.

Memory. Device memory is host memory in one reserved range, carved by a
deterministic allocator (runtime/include/mtia/runtime/device_memory.h):
the same program puts its tensors at the same LPDDR addresses in every
process, so its simulated cycles do not depend on the host allocator.

What runs where. Triton kernels (a user's, or those Inductor generates)
run on the chip, and so do the ATen operators of `triton_mtia.aten` (the
GEMM family, eager or as Inductor's extern kernels). Other eager operators
than creation, copies and views run on the host CPU over the same memory,
and `host_fallbacks()` counts them.
The device's clock is simulated time: `torch.mtia.Event.elapsed_time` is
the simulated time of the launches between two events.
"""

from __future__ import annotations

import sys
import types
from typing import Dict, Optional

#: Compute capability reported for the simulated chip (MTIA 2i).
CAPABILITY = (2, 0)

_module = None


def _extension():
    global _module
    if _module is None:
        import torch  # noqa: F401  (the extension needs libtorch loaded)

        from . import _mtia_device
        _module = _mtia_device
    return _module


def loaded() -> bool:
    """Whether the mtia device is registered with PyTorch in this process."""
    return _module is not None


#: What PyTorch's MTIA path imports from Meta's internal runtime, which we
#: provide: module -> {attribute: value}.
_META_RUNTIME = {
    # Inductor's `_precompile_config` (triton_heuristics.py), in compile
    # workers too: the target's arch.
    "mtia.host_runtime.torch_mtia.acc_flags": {"build_codename": lambda: "mtia2i"},
    # Imported by every wrapper PythonWrapperMtia generates; loading it
    # registers Meta's runtime, which `_autoload` has already done for ours.
    "mtia.host_runtime.torch_mtia.dynamic_library": {},
}


def _install_meta_shims() -> None:
    """Provides `_META_RUNTIME` as modules in `sys.modules` only: no package
    named `mtia` on disk that could shadow a real one."""
    for name, attributes in _META_RUNTIME.items():
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            qualified = ".".join(parts[:i])
            if qualified not in sys.modules:
                module = types.ModuleType(qualified, "triton-mtia: stands in for Meta's MTIA runtime")
                module.__path__ = []  # a package, so the next level imports
                sys.modules[qualified] = module
                if i > 1:
                    setattr(sys.modules[".".join(parts[:i - 1])], parts[i - 1], module)
        for attribute, value in attributes.items():
            setattr(sys.modules[name], attribute, value)


def _empty_strided_mtia(size, stride, dtype):
    import torch
    return torch.empty_strided(size, stride, dtype=dtype, device="mtia")


def _install_allocation_fast_path() -> None:
    """Inductor's generated wrappers allocate mtia buffers with
    `torch._C._dynamo.guards._empty_strided_mtia`, which the CPU wheel builds
    as a stub that raises ("compiled without support for the specified
    device"): it is replaced by one that allocates device memory."""
    import torch
    torch._C._dynamo.guards._empty_strided_mtia = _empty_strided_mtia


def _register() -> None:
    import torch

    ext = _extension()
    if not torch.mtia.default_generators:
        torch.mtia.default_generators = ext.default_generators()
    _install_meta_shims()
    _install_allocation_fast_path()
    from . import aten, inductor
    aten.register()
    inductor.install()


#: Why the device could not be registered, once that was tried and failed.
unavailable_reason: Optional[str] = None


def ensure_loaded() -> bool:
    """Registers the device unless it already is; True when it is. A device
    that cannot load (the extension not built, or built against another
    torch) is a warning, once, never an error: `import torch` runs this (see
    `_autoload`) and must not fail for it, and CPU tensors still work."""
    global unavailable_reason
    if _module is None and unavailable_reason is None:
        try:
            _register()
        except Exception as exc:
            import warnings
            unavailable_reason = f"{type(exc).__name__}: {exc}"
            warnings.warn(f"triton-mtia: torch.device('mtia') is not available ({unavailable_reason})",
                          RuntimeWarning, stacklevel=2)
    return _module is not None


def _autoload() -> None:
    """The "torch.backends" entry point: runs at the end of `import torch`."""
    ensure_loaded()


# ----------------------------------------------------------------------------
# What the C++ hooks ask of Python (runtime/torch/device.cpp)
# ----------------------------------------------------------------------------


class DeviceProperties(dict):
    """`torch.mtia.get_device_properties()`: a dict, whose keys are also
    attributes because Inductor reads them as attributes (`props.warp_size`).
    GPU names are used where Inductor looks for them, with the chip's
    meaning: a "multiprocessor" is a PE, the "L2" is the on-chip SRAM."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def _check_index(index: int) -> None:
    if index not in (-1, 0):
        raise ValueError(f"mtia:{index} does not exist: the simulated chip is one device (mtia:0)")


def _device_properties(index: int) -> DeviceProperties:
    _check_index(index)
    from . import runtime
    cfg = runtime.simulator().config
    memory = _extension().memory_stats()
    return DeviceProperties(
        name="MTIA-2i (simulated)",
        type="mtia",
        major=CAPABILITY[0],
        minor=CAPABILITY[1],
        total_memory=memory["capacity_bytes"],
        multi_processor_count=int(cfg["pe_rows"] * cfg["pe_cols"]),
        # One program per PE runs at a time; its RISC-V core is the "thread".
        warp_size=1,
        max_threads_per_block=1,
        max_threads_per_multi_processor=1,
        max_shared_memory_per_block=int(cfg["local_memory_bytes"]),
        L2_cache_size=int(cfg["sram_bytes"]),
        clock_rate=int(cfg["clock_ghz"] * 1e6),  # kHz, as CUDA reports it
        regs_per_multiprocessor=0,
    )


def _device_capability(index: int):
    _check_index(index)
    return CAPABILITY


def _memory_stats(index: int) -> Dict[str, Dict[str, int]]:
    """In the layout torch/mtia/memory.py reads."""
    _check_index(index)
    s = _extension().memory_stats()
    return {"dram": {"allocated_bytes": s["allocated_bytes"], "peak_bytes": s["peak_bytes"],
                     "reserved_bytes": s["capacity_bytes"], "live_blocks": s["live_blocks"],
                     "allocations": s["allocations"], "frees": s["frees"]}}


# ----------------------------------------------------------------------------
# For users and the rest of the package
# ----------------------------------------------------------------------------


def host_fallbacks() -> Dict[str, int]:
    """Eager operators on mtia tensors that ran on the host CPU instead of
    the chip since the last `reset_host_fallbacks()`: {"aten::add.Tensor": 3, ...}."""
    return dict(_extension().host_fallbacks()) if loaded() else {}


def reset_host_fallbacks() -> None:
    if loaded():
        _extension().reset_host_fallbacks()


def memory_range() -> Optional[tuple]:
    """(host address, bytes) of device memory, or None before it is loaded."""
    return tuple(_extension().memory_range()) if loaded() else None


def advance_clock(seconds: float) -> None:
    """Called by the runtime after every launch (runtime.launch_listeners)."""
    if loaded():
        _extension().advance_clock(seconds)


def _listen_to_launches() -> None:
    from . import runtime
    if advance_clock not in runtime.launch_listeners:
        runtime.launch_listeners.append(advance_clock)


_listen_to_launches()
