"""The driver half of the MTIA backend plugin: device queries and launches.

Kernels run on `mtia` tensors (torch.device("mtia"), see ../device.py) or
on CPU tensors: the simulated chip reads host memory, and device memory is
host memory too, so the addresses of both go to the simulator as they are.
Every launch names the memory regions the kernel may touch (the whole
storage of each tensor argument); a DMA outside them is a `KernelFault`,
not a crash.

The driver is active - Triton's default - where the mtia device is
registered and no other backend's driver is (no GPU); elsewhere only after
`triton_mtia.activate()` or with TRITON_DEFAULT_BACKEND=mtia, so installing
this package never changes which backend a GPU machine uses.
"""

from __future__ import annotations

import contextlib
import hashlib
import operator
import os
import sys
from pathlib import Path
from typing import Any, Callable, List, Sequence, Tuple

from triton import knobs
from triton.backends.driver import DriverBase, decompose_descriptor, expand_signature

from .. import device, runtime, structs
from .compiler import BACKEND_NAME, MTIA_TARGET, file_stem

#: Facts of the simulated chip that Triton's generic code asks the driver for.
NUM_PES = 64
LOCAL_MEMORY_BYTES = 384 * 1024

_opted_in = False
_instance = None


def set_opted_in(value: bool) -> None:
    """Called by `triton_mtia.activate()` / `deactivate()`."""
    global _opted_in
    _opted_in = value


def opted_in() -> bool:
    return _opted_in


def instance() -> "MTIADriver":
    """The process's one MTIADriver (so activating twice changes nothing)."""
    global _instance
    if _instance is None:
        _instance = MTIADriver()
    return _instance


# ----------------------------------------------------------------------------
# Argument conversion
# ----------------------------------------------------------------------------

_INT_TYPES = {"i1", "i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64"}
_FLOAT_TYPES = {"fp16", "bf16", "fp32", "f32", "fp64"}


def _arg_kinds(signature: Sequence[Any]) -> List[Any]:
    """Maps each Triton signature entry to how its value reaches the kernel:
    "p" pointer, "i" integer, "f" float, None (a constexpr: compiled in, no
    slot), or a list for a tuple argument (its elements are flattened, the
    way tt.func receives them)."""
    kinds = []
    for ty in signature:
        if isinstance(ty, tuple):
            kinds.append(_arg_kinds(ty))
        elif ty == "constexpr":
            kinds.append(None)
        elif ty.startswith("*"):
            kinds.append("p")
        elif ty in _INT_TYPES:
            kinds.append("i")
        elif ty in _FLOAT_TYPES:
            kinds.append("f")
        else:
            raise NotImplementedError(f"MTIA backend: kernel argument type '{ty}' is not supported")
    return kinds


def _is_descriptor(ty) -> bool:
    return isinstance(ty, str) and ty.startswith("tensordesc")


def _grid_dims(kernel: str, dims: Sequence[Any]) -> Tuple[int, int, int]:
    """The launch grid as three Python ints, or a clear error naming the
    kernel and the dimension: a grid is up to three integers (anything with
    __index__: int, numpy and 0-d integer torch values), each below 2^31
    (program ids are int32, as on GPUs)."""
    out = []
    for axis, value in enumerate(dims):
        try:
            n = operator.index(value)
        except TypeError:
            raise TypeError(f"kernel {kernel}: grid dimension {axis} is {value!r} "
                            f"({type(value).__name__}); a launch grid is up to 3 integers") from None
        if n >= 2**31:
            raise ValueError(f"kernel {kernel}: grid dimension {axis} is {n}; "
                             "each must be below 2^31 (program ids are int32)")
        out.append(n)
    return tuple(out)


def _has_descriptor(signature) -> bool:
    return any(_has_descriptor(ty) if isinstance(ty, tuple) else _is_descriptor(ty) for ty in signature)


def _decompose_descriptors(signature, args) -> list:
    """Replaces each host TensorDescriptor argument by the values its
    pointer-based lowering takes (base, shape, strides, padding, ...), as
    `expand_signature` does for the types: the ttir stage rewrites
    descriptors to pointer arithmetic."""
    out = []
    for ty, arg in zip(signature, args):
        if isinstance(ty, tuple):
            out.append(tuple(_decompose_descriptors(ty, arg)))
        elif _is_descriptor(ty):
            out.extend(decompose_descriptor(arg))
        else:
            out.append(arg)
    return out


def _storage_region(arg) -> Tuple[int, int]:
    """(address, bytes) of the whole allocation behind a pointer argument."""
    if isinstance(arg, structs.DevicePointer):
        return arg.allocation  # a pointer field of a ctypes structure
    tensor = arg
    if not hasattr(tensor, "untyped_storage") and hasattr(tensor, "base"):
        tensor = tensor.base  # triton.reinterpret() wraps the tensor
    if not hasattr(tensor, "untyped_storage"):
        raise TypeError(f"MTIA backend: pointer argument of type {type(arg).__name__} is not a torch tensor; "
                        "the simulator needs to know its allocation")
    if tensor.device.type not in ("mtia", "cpu"):
        raise ValueError(f"MTIA backend: tensors must live on the mtia device or the CPU (the simulated "
                         f"chip reads host memory); got one on {tensor.device}")
    storage = tensor.untyped_storage()
    return storage.data_ptr(), storage.nbytes()


#: Allocations kernels reach through pointers loaded from memory (pointer
#: arrays), which a launch cannot find among its arguments; see `reachable`.
_reachable_regions: List[Tuple[int, int]] = []


@contextlib.contextmanager
def reachable(*tensors):
    """Registers the allocations of `tensors` with every launch inside the
    block. The simulator faults on a DMA outside the allocations registered
    for a launch, and only pointer arguments are registered automatically;
    a kernel that loads addresses from a pointer array (grouped GEMM, ragged
    batches) needs the tensors behind them named here."""
    regions = [_storage_region(t) for t in tensors]
    _reachable_regions.extend(regions)
    try:
        yield
    finally:
        for region in regions:
            _reachable_regions.remove(region)


def _to_int64(value) -> int:
    """Two's-complement wrap to the signed 64-bit slot (u64 values >= 2**63)."""
    v = int(value) & 0xFFFF_FFFF_FFFF_FFFF
    return v - (1 << 64) if v >= (1 << 63) else v


def _flatten_args(kinds, values, out_args: list, regions: dict) -> None:
    for kind, value in zip(kinds, values):
        if kind is None:
            continue
        if isinstance(kind, list):
            _flatten_args(kind, value, out_args, regions)
        elif kind == "p":
            start, size = _storage_region(value)
            regions[start] = max(size, regions.get(start, 0))
            out_args.append(("p", int(value.data_ptr())))
        elif kind == "i":
            out_args.append(("i", _to_int64(value)))
        else:
            out_args.append(("f", float(value)))


class MTIALauncher:
    """Called by Triton for every launch of one compiled kernel."""

    def __init__(self, src, metadata):
        self.kernel_name = metadata.name
        # Kernels compiled before the entry point had a prefix export their name.
        self.entry = getattr(metadata, "entry", None) or metadata.name
        signature = list(src.signature.values())
        # Only kernels with descriptor arguments pay for decomposing them.
        self.descriptor_signature = signature if _has_descriptor(signature) else None
        self.kinds = _arg_kinds(expand_signature(signature, None, None))
        self.pid_mapping = getattr(metadata, "pid_mapping", None) or "linear"
        # The chip it was compiled for (MTIAOptions.chip; None: not recorded).
        chip = getattr(metadata, "chip", None)
        self.chip = None if chip is None else tuple(tuple(pair) for pair in chip)

    def __call__(self, grid_x, grid_y, grid_z, stream, function, packed_metadata, launch_metadata,
                 launch_enter_hook, launch_exit_hook, *args):
        grid_x, grid_y, grid_z = _grid_dims(self.kernel_name, (grid_x, grid_y, grid_z))
        if grid_x * grid_y * grid_z <= 0:
            return  # like the GPU launchers: an empty grid launches nothing
        if self.chip is not None and self.chip != runtime.compiler_chip():
            _compiled_for_another_chip(self.kernel_name, self.chip)
        if self.descriptor_signature is not None:
            args = _decompose_descriptors(self.descriptor_signature, args)
        sim_args: list = []
        regions: dict = {}
        _flatten_args(self.kinds, args, sim_args, regions)
        for start, size in _reachable_regions:
            regions[start] = max(size, regions.get(start, 0))
        if launch_enter_hook is not None:
            launch_enter_hook(launch_metadata)
        runtime.launch(function, self.kernel_name, (grid_x, grid_y, grid_z), sim_args, sorted(regions.items()),
                       self.pid_mapping, entry=self.entry)
        if launch_exit_hook is not None:
            launch_exit_hook(launch_metadata)


def _compiled_for_another_chip(kernel: str, chip) -> None:
    """Raises: a binary planned for other CBs or local memory would fault
    or mislead (its plan is the compiler's for the chip it was built for)."""
    now = dict(runtime.compiler_chip())
    differ = ", ".join(f"{name}={value} (the simulator has {now.get(name)})" for name, value in chip
                       if now.get(name) != value) or "parameters the simulator does not know"
    raise RuntimeError(f"kernel '{kernel}' was compiled for another chip: {differ}. runtime.configure() drops "
                       f"the compiled @triton.jit kernels; code compiled by torch.compile before it needs "
                       f"torch._dynamo.reset()")


# ----------------------------------------------------------------------------
# Utils and driver
# ----------------------------------------------------------------------------


class MTIAUtils:
    """The `driver.utils` object Triton's CompiledKernel talks to."""

    @staticmethod
    def _so_cache_dir() -> Path:
        return Path(knobs.cache.dir) / "mtia-so"

    def load_binary(self, name, kernel: bytes, shared, device):
        """Materialises the shared object as a file (the simulator dlopens a
        path). Files are content-addressed so every process and kernel with
        the same bytes share one. Returns (module, function, n_regs,
        n_spills, n_max_threads) as Triton expects; `function` is the path."""
        digest = hashlib.sha256(kernel).hexdigest()[:24]
        directory = self._so_cache_dir()
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{file_stem(name)}-{digest}.so"
        if not path.exists():
            tmp = path.with_suffix(f".tmp.{os.getpid()}")
            tmp.write_bytes(kernel)
            os.replace(tmp, path)  # atomic against concurrent processes
        return str(path), str(path), 0, 0, 1 << 30

    def unload_module(self, module):
        pass  # the simulator owns dlopen handles

    def get_device_properties(self, device):
        return {
            "max_shared_mem": LOCAL_MEMORY_BYTES,
            "multiprocessor_count": NUM_PES,
            "max_num_regs": 0,
            "warpSize": 1,
        }


def simulated_benchmarker(kernel_call: Callable, *, quantiles=None, return_mode="mean", **kwargs):
    """Times `kernel_call` in simulated time (milliseconds), the way
    `triton.testing.do_bench` does for GPUs. Simulation is deterministic, so
    one call gives every quantile."""
    _, ms, _ = runtime.measure(kernel_call)
    if quantiles is not None:
        return [ms for _ in quantiles]
    return [ms] if return_mode == "all" else ms


def _other_driver_active() -> bool:
    """Whether a backend other than ours (under any name) would be Triton's
    driver: a GPU's, on a machine that has one."""
    backends = sys.modules.get("triton.backends")  # not imported anew: at exit, imports fail
    for backend in (backends.backends.values() if backends is not None else ()):
        if issubclass(backend.driver, MTIADriver):
            continue
        try:
            if backend.driver.is_active():
                return True
        except Exception:  # a broken backend is not an active one
            continue
    return False


class MTIADriver(DriverBase):

    def __init__(self):
        super().__init__()
        self.utils = MTIAUtils()
        self.launcher_cls = MTIALauncher
        # Kernels take values of decorated ctypes structures (structs.py).
        structs.accept_ctypes_structs(BACKEND_NAME)

    @classmethod
    def is_active(cls):
        if _opted_in or os.environ.get("TRITON_DEFAULT_BACKEND") == BACKEND_NAME:
            return True
        return device.loaded() and not _other_driver_active()

    def map_python_to_cpp_type(self, ty: str) -> str:
        # Every argument occupies one 8-byte mtia::Arg slot.
        if ty.startswith("*"):
            return "uint64_t"
        if ty in _FLOAT_TYPES:
            return "double"
        if ty in _INT_TYPES:
            return "int64_t"
        raise NotImplementedError(f"MTIA backend: no C++ type for '{ty}'")

    def get_current_target(self):
        return MTIA_TARGET

    def get_current_device(self):
        return 0

    def set_current_device(self, device):
        if device != 0:
            raise ValueError("the MTIA backend simulates one device (0)")

    def get_current_stream(self, device=None):
        return 0  # launches are synchronous

    def get_active_torch_device(self):
        import torch
        return torch.device("mtia" if device.loaded() else "cpu")

    def get_device_interface(self):
        import torch
        return torch.mtia if device.loaded() else torch.cpu

    def get_benchmarker(self):
        return simulated_benchmarker

    def get_empty_cache_for_benchmark(self):
        import torch
        return torch.empty(0, dtype=torch.int8)

    def clear_cache(self, cache):
        pass  # host caches do not exist on the simulated chip's memory path
