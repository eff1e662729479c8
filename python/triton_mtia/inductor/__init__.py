"""TorchInductor on the simulated MTIA-2i: PyTorch's own MTIA path.

    import torch
    model = model.to("mtia")
    y = torch.compile(model)(x.to("mtia"))
    print(triton_mtia.last_launch().cycles)

PyTorch 2.13 carries an Inductor path for the `mtia` device: GPU-style
Triton code generation (`TritonScheduling`, `PythonWrapperMtia`), kernels
compiled for `GPUTarget("mtia", ...)` and launched through Triton's active
driver, which is ours (backend/driver.py). With the device registered
(device.py) it runs as it is, except for three GPU assumptions that this
module adjusts for the simulated chip, each where Inductor defines it and
only for mtia, and the paper's section-5 tailorings:

* autotuning: Inductor's `benchmark_gpu` times a kernel by a hundred runs
  between device events, after flushing an L2-sized buffer. A simulated
  launch is deterministic and its time is exact, so one run measured in
  simulated time answers the same question (`_simulated_benchmark`). A
  callable that runs nothing on the chip (an ATen kernel that the host
  fallback runs) is timed by the wall clock, as before;
* `is_big_gpu`: Inductor's matmul templates require 68 SMs, a GPU's
  threshold (an RTX 3080) with no meaning for 64 PEs; for mtia it is True,
  so max-autotune's Triton GEMM templates exist;
* strided tiling (the paper's 5.1) is left to Inductor's default (1-D
  tiling): `torch._inductor.config.triton.prefer_nd_tiling = True` tiles a
  kernel in as many dimensions as its `// d` and `% d` index patterns have,
  so that its loads and stores are N-D blocks, but the compiler already
  makes such 1-D index math into strided DMAs (index math, docs/compiler.md).
  Over the op-coverage run (float32, one sample per op, 416 ops on the
  chip) N-D tiling makes the kernels 0.7% faster (geometric mean; 39 ops
  faster, 20 slower) and the run 1.7x to 2.3x longer, in Inductor's sympy
  matching of the index expressions (a bicubic interpolation compiles in
  66 s instead of 4.5 s), so it stays off; set it True to have it
  (bench/README.md);
* layer norm (the paper's 5.2): Inductor keeps `aten.native_layer_norm`
  whole for mtia (its decomposition returns NotImplemented for mtia
  inputs), to call a library kernel of Meta's runtime, which here would be
  the host fallback. Here its result is our Triton template
  (layer_norm.py), into which Inductor fuses the consumers as epilogues,
  and its statistics, where a backward pass reads them, Inductor's
  decomposition; where the template does not apply, the whole op is
  decomposed as on every other device;
* block sizes (the paper's 5.3, heuristics.py): Inductor's placeholder
  `MTIAConfigHeuristic` offers max-autotune only the matmul configs that
  fit a PE's local memory and keep the 64 PEs busy, and the choices'
  uuid keys Inductor's caches by this package's version and settings;
* the Meta-internal imports of the MTIA path (see device.py).

Any other kernel config that needs more local memory than a PE has fails
with Triton's `OutOfResources` (errors.py), which Inductor answers by trying
its other configs, as it does for shared memory on a GPU. More live tiles
than CBs is no failure (the compiler stacks and reloads tiles), so fusion
is not bounded by CBs: bench.inductor_tailoring measures why.

Operators that Inductor leaves to ATen (a matmul without max-autotune, for
instance) run through the device's host fallback, and
`triton_mtia.device.host_fallbacks()` counts them. With
`torch._inductor.config.max_autotune_gemm_backends = "TRITON"` and
`max_autotune = True`, matmuls become Triton template kernels on the chip.

What Inductor fused, read from its generated code, is the benchmarks'
business (`bench.fusion.fusion_stats`).

Because the adjustments are installed when Inductor's modules are first
imported (`install()`, run by the device's autoload), they hold in every
process, Inductor's compile workers included (which this package does not
use: kernels compile in-process, for the configured chip).
"""

from __future__ import annotations

import functools
import importlib.abc
import sys
from typing import Any, Callable, Dict, List

#: The device Inductor compiles for on the simulated chip.
DEVICE = "mtia"


def _simulated_benchmark(benchmarking, original: Callable[..., Any], fn: Callable[[], Any], *args, **kwargs):
    """Inductor's `benchmark_gpu` (of the module `benchmarking`), in
    milliseconds, for the mtia device: simulated time of one run of `fn`
    when it launched kernels on the chip, else Inductor's wall clock for CPU
    callables (events would see no simulated time pass)."""
    from .. import runtime
    if benchmarking._normalize_gpu_device_type(kwargs.get("device_type")) != DEVICE:
        return original(fn, *args, **kwargs)
    _, ms, launches = runtime.measure(fn)
    if not launches:
        ms = benchmarking.benchmarker.benchmark_cpu(fn)
    return [ms] if kwargs.get("return_mode") == "all" else ms


def _patch_benchmarker(module) -> None:
    benchmarker = module.benchmarker
    if not isinstance(benchmarker.__dict__.get("benchmark_gpu"), functools.partial):
        benchmarker.benchmark_gpu = functools.partial(_simulated_benchmark, module, benchmarker.benchmark_gpu)


def _patch_is_big_gpu(module) -> None:
    original = module.is_big_gpu
    if getattr(original, "_triton_mtia", False):
        return

    @functools.wraps(original)
    def is_big_gpu(index_or_device=0) -> bool:
        import torch
        if isinstance(index_or_device, torch.device) and index_or_device.type == DEVICE:
            return True
        if not isinstance(index_or_device, torch.device) and module.get_gpu_type() == DEVICE:
            return True
        return original(index_or_device)

    is_big_gpu._triton_mtia = True
    module.is_big_gpu = is_big_gpu


def _decompose_layer_norm(module) -> None:
    from . import layer_norm
    original = module._native_layer_norm

    def native_layer_norm(input, normalized_shape, weight, bias, eps):
        if input.is_mtia:
            return layer_norm.decompose(module.decomp_native_layer_norm, input, normalized_shape, weight, bias, eps)
        return original(input, normalized_shape, weight, bias, eps)

    for op, fn in list(module.decompositions.items()):
        if fn is original:
            module.decompositions[op] = native_layer_norm
    # The table with the fast random decompositions is a copy, made once:
    # one made before this patch would keep the original.
    module.fast_random_decomps.cache_clear()


def _register_lowerings(module) -> None:
    from . import layer_norm
    layer_norm.register_lowering(module)


def _fill_mtia_config_heuristic(module) -> None:
    from . import heuristics
    heuristics.install_mm_heuristic(module)


def _where_mtia_is_the_gpu(module) -> None:
    # Only where mtia is the device Inductor generates Triton code for: the
    # settings are global, and a GPU's Inductor keeps its own defaults.
    import torch
    if torch.cuda.is_available() or torch.xpu.is_available():
        return
    if module.inductor_choices_class is None:
        from . import heuristics
        _set_default(module, "inductor_choices_class", heuristics.choices_factory)
    # Mix-order reductions, a GPU memory-coalescing fusion, off as Meta's
    # own build sets it (TORCHINDUCTOR_MIX_ORDER_REDUCTION is "0" in fbcode,
    # where the MTIA stack lives): on, Inductor's split reductions assert
    # (ir.py, _find_split_reduction) on a buffer that is not a reduction,
    # e.g. torch.amax(x, dim=-2) of an fp16 [33, 16] (a fuzzer finding).
    import os
    if "TORCHINDUCTOR_MIX_ORDER_REDUCTION" not in os.environ:
        _set_default(module, "triton.mix_order_reduction", False)
    # Kernels compile in this process, where the configured chip is: a
    # compile worker process has a simulator of its own, of the preset, and
    # its binaries were planned for that chip (runtime.COMPILER_PARAMETERS).
    if "TORCHINDUCTOR_COMPILE_THREADS" not in os.environ:
        _set_default(module, "compile_threads", 1)


def _set_default(config, name: str, value) -> None:
    """Sets the config entry `name` of the ConfigModule `config` for every
    thread. An assignment (`config.x = v`) is a user override, which the
    ConfigModule keeps in a ContextVar: other threads - the autograd
    engine's, which runs eager backward operators and so compiles their
    per-operator kernels - would see the default. This changes the
    default itself, as a build of PyTorch for the chip would; a user's
    assignment or config.patch still overrides it."""
    config._config[name].default = value
    setattr(config, name, value)  # and marks the config's cached copies stale


#: Module -> what adjusts it once imported.
_ADJUSTMENTS: Dict[str, Callable[[Any], None]] = {
    "torch._inductor.config": _where_mtia_is_the_gpu,
    "torch._inductor.runtime.benchmarking": _patch_benchmarker,
    "torch._inductor.utils": _patch_is_big_gpu,
    "torch._inductor.decomposition": _decompose_layer_norm,
    "torch._inductor.lowering": _register_lowerings,
    "torch._inductor.template_heuristics.triton": _fill_mtia_config_heuristic,
}


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs a function on a module right after its first import, by
    wrapping the loader the other finders return: Inductor's modules are
    imported late (at the first torch.compile), and importing them earlier
    would cost every `import torch` a second."""

    def __init__(self, hooks: Dict[str, Callable[[Any], None]]):
        self.hooks = dict(hooks)

    def find_spec(self, name, path, target=None):
        hook = self.hooks.get(name)
        if hook is None:
            return None
        spec = None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        del self.hooks[name]
        exec_module = spec.loader.exec_module

        def exec_then_adjust(module):
            exec_module(module)
            hook(module)

        spec.loader.exec_module = exec_then_adjust
        return spec


_finder: List[_AfterImport] = []


def _new_backend_hash() -> None:
    """After the chip changed (runtime.configure()): Inductor writes the
    Triton backend's hash, which has the chip, into every kernel it
    generates, and keeps it once computed. Computed anew, code generated for
    the new chip differs from the old chip's, so a module of generated code
    found again by its source (Inductor keeps them by source) brings back no
    kernel compiled for the chip before."""
    if "torch.utils._triton" in sys.modules:
        sys.modules["torch.utils._triton"].triton_hash_with_backend.cache_clear()


def install() -> None:
    """Adjusts Inductor for the mtia device now or when its modules are
    imported (device.py calls it). Safe to call twice."""
    if _finder:
        return
    from .. import runtime
    runtime.chip_listeners.append(_new_backend_hash)
    later = {}
    for name, adjust in _ADJUSTMENTS.items():
        if name in sys.modules:
            adjust(sys.modules[name])
        else:
            later[name] = adjust
    finder = _AfterImport(later)
    _finder.append(finder)
    sys.meta_path.insert(0, finder)
