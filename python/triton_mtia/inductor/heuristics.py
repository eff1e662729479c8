"""Block sizes for the chip's 64 PEs and 384 KB of local memory (the paper's
section 5.3), where Inductor asks for them:

* `MTIAConfigHeuristic`, Inductor's placeholder for MTIA's matmul template
  configs (torch/_inductor/template_heuristics/triton.py), gets the chip's
  answer to `preprocess_mm_configs`: of Inductor's GPU configs, scaled to
  the problem as on every device, only those whose tiles fit a PE's local
  memory, and of those the ones that give every PE a program when some do.
  A config whose tiles do not fit fails in the compiler with
  `OutOfResources` after a compile of a second or two, and one that leaves
  PEs idle is slower by the idle share; neither can win the autotuning, so
  it is not compiled at all. `num_warps` means nothing on a PE (one program
  runs on one core), so configs that differ only in it are one config.
* `block_rows`: the rows per program of the layer-norm template
  (layer_norm.py) and of Inductor's persistent reductions (a softmax
  row by row), given to Inductor as a fixed config through the choices'
  `triton_kernel_kwargs` when `settings.fit_reduction_blocks` is on (off by
  default: over the op-coverage run it costs more than it gains,
  bench/README.md).
* `MTIAChoices`, Inductor's `InductorChoices` with a `uuid()` that names
  this package's version and the settings that change what Inductor
  generates, so that Inductor's FX-graph cache (whose key includes the
  choices' uuid) never serves a graph compiled under other settings.

Fusion is not bounded by the 15 CBs: the compiler shares CBs among tiles
whose lives overlap (stacking) or reloads tiles (rematerialization), so a
kernel that fuses more inputs than a PE has CBs compiles and is faster than
the kernels it would be split into (bench/README.md, "Inductor's section-5
tailorings": a softmax after a chain of 16 to 32 inputs is 8% to 12%
slower with Inductor's `max_fusion_unique_io_buffers=15`).
"""

from __future__ import annotations

import math
from typing import Any, List

#: Local-memory bytes per element of the A and B tiles of Inductor's matmul
#: template, and per element of its accumulator: the compiler's
#: program-order peak for the template's masked loads (the tile, its mask
#: and the selected value, and the next tile in flight, 32-bit elements
#: whatever the operands' dtype) and for the float32 accumulator (the sum
#: being read while the next is written). Fitted to the compiler's own
#: verdicts on Inductor's configs ("kernel needs N bytes of local memory",
#: the same for float32 and float16 operands); a config admitted by the
#: estimate that still does not fit is dropped by OutOfResources, as before.
OPERAND_BYTES_PER_ELEMENT = 16
ACCUMULATOR_BYTES_PER_ELEMENT = 8

#: Float32 tiles of a block of rows live at once in a row kernel: the rows,
#: their centred (or shifted) values, the result, and the result in the
#: output's dtype.
ROW_LIVE_TILES = 4

#: Elements per program of a row kernel beyond which a larger block only
#: costs parallelism: a DMA of 8 KB already runs at the memory's rate.
ROW_TILE_ELEMENTS = 2048


def chip() -> dict:
    """The device properties Inductor reads (device.py), as a dict:
    `multi_processor_count` (PEs), `max_shared_memory_per_block` (a PE's
    local memory)."""
    import torch
    return dict(torch.mtia.get_device_properties(0))


def mm_local_memory(block_m: int, block_n: int, block_k: int) -> int:
    """Estimated local memory of one program of Inductor's matmul template."""
    operands = block_m * block_k + block_k * block_n
    return OPERAND_BYTES_PER_ELEMENT * operands + ACCUMULATOR_BYTES_PER_ELEMENT * block_m * block_n


def _hint(size: Any) -> int:
    from torch._inductor.virtualized import V
    return int(V.graph.sizevars.optimization_hint(size, fallback=1))


def preprocess_mm_configs(self, m, n, k, configs, has_int8_tensor=False, scale=1.0,
                          exclude=lambda m, n, k: False, dtype_size=0, op_name="mm", **kwargs):
    """`MTIAConfigHeuristic.preprocess_mm_configs`: Inductor's configs,
    filtered and scaled by Inductor, then kept only where they fit a PE and
    keep the PEs busy (see the module's docstring)."""
    from .. import settings
    if not settings.fit_mm_configs:
        return _inductors_preprocess_mm_configs(self, m, n, k, configs, has_int8_tensor, scale, exclude, dtype_size,
                                                op_name, **kwargs)
    scaled = self._scale_mm_configs(m, n, k, self._filter_configs(configs), scale, has_int8_tensor, exclude)
    props = chip()
    fits = [c for c in scaled if mm_local_memory(c.block_m, c.block_n, c.block_k) < props["max_shared_memory_per_block"]]
    m_hint, n_hint = _hint(m), _hint(n)
    busy = [c for c in fits
            if math.ceil(m_hint / c.block_m) * math.ceil(n_hint / c.block_n) >= props["multi_processor_count"]]
    kept, seen = [], set()
    for c in busy or fits or scaled:
        key = (c.block_m, c.block_n, c.block_k, c.num_stages, getattr(c, "group_m", None), c.hint_override)
        if key not in seen:
            seen.add(key)
            kept.append(c)
    return self._finalize_mm_configs(kept)


def block_rows(rows: int, block_n: int, max_autotune: bool) -> List[int]:
    """Rows per program of a kernel that keeps whole rows of `block_n`
    (padded) columns in local memory: the layer-norm template and Inductor's
    persistent reductions. The candidates whose tiles fit a PE's local
    memory (all of them under max-autotune, which times them), else one: the
    most rows that still give every PE two programs (one loading while the
    other computes) within `ROW_TILE_ELEMENTS`. An empty list: not even one
    row fits."""
    props = chip()
    fitting = [r for r in (1, 2, 4, 8, 16)
               if r * block_n * 4 * ROW_LIVE_TILES <= props["max_shared_memory_per_block"]]
    if max_autotune or not fitting:
        return fitting
    chosen = 1
    for r in fitting:
        if math.ceil(rows / r) >= 2 * props["multi_processor_count"] and r * block_n <= ROW_TILE_ELEMENTS:
            chosen = r
    return [chosen]


def persistent_reduction_rows(features, tiling) -> int:
    """Rows per program (Inductor's XBLOCK) for a persistent reduction that
    Inductor is about to generate for mtia, by `block_rows`; 0 to leave it
    to Inductor: sizes not known at compile time, more than one reduction
    or iteration dimension, a scan, or a reduction Inductor loops over."""
    from torch._inductor.choices import InductorChoices
    from torch._inductor.runtime.runtime_utils import next_power_of_2

    if set(tiling) != {"x", "r0_"} or not features.is_reduction() or features.contains_op("scan"):
        return 0
    if not all(isinstance(tiling[k], int) or getattr(tiling[k], "is_Integer", False) for k in tiling):
        return 0
    if not InductorChoices.should_use_persistent_reduction(features, cooperative_reduction=False):
        return 0
    rows, columns = int(tiling["x"]), int(tiling["r0_"])
    candidates = block_rows(rows, next_power_of_2(columns), max_autotune=False)
    return candidates[0] if candidates else 0


_inductors_preprocess_mm_configs = None


def install_mm_heuristic(module) -> None:
    """Fills Inductor's MTIAConfigHeuristic placeholder (of `module`,
    torch._inductor.template_heuristics.triton)."""
    global _inductors_preprocess_mm_configs
    _inductors_preprocess_mm_configs = module.BaseConfigHeuristic.preprocess_mm_configs
    module.MTIAConfigHeuristic.preprocess_mm_configs = preprocess_mm_configs


def settings_fingerprint() -> str:
    """This package's version, the settings that change the graphs Inductor
    generates for mtia, and the chip its kernels are compiled for (so that
    the FX-graph cache on disk keeps one chip's code from another's)."""
    from .. import __version__, runtime, settings
    chip = ",".join(f"{name}={value}" for name, value in runtime.compiler_chip())
    return (f"triton_mtia-{__version__}-layer_norm_template={settings.layer_norm_template}"
            f"-fit_mm_configs={settings.fit_mm_configs}-fit_reduction_blocks={settings.fit_reduction_blocks}"
            f"-chip={chip}")


_choices_class = None


def choices_factory():
    """`torch._inductor.config.inductor_choices_class` for mtia (a factory,
    as Inductor's config wants it): Inductor's own choices, whose uuid
    keys Inductor's caches. The class is made at the first call, when
    Inductor is imported whole."""
    global _choices_class
    if _choices_class is None:
        from torch._inductor.choices import InductorChoices

        class MTIAChoices(InductorChoices):

            def uuid(self) -> str:
                return settings_fingerprint()

            def triton_kernel_kwargs(self, kernel_cls, features, groups, kernel_kwargs):
                from torch._inductor.codegen.triton import FixedTritonConfig
                from torch._inductor.virtualized import V

                from .. import settings
                kernel_kwargs = super().triton_kernel_kwargs(kernel_cls, features, groups, kernel_kwargs)
                if not settings.fit_reduction_blocks or "fixed_config" in kernel_kwargs or not groups:
                    return kernel_kwargs
                if V.graph.get_current_device_or_throw().type != "mtia":
                    return kernel_kwargs
                rows = persistent_reduction_rows(features, groups[0] if isinstance(groups, list) else groups)
                if rows:
                    kernel_kwargs = dict(kernel_kwargs, fixed_config=FixedTritonConfig({"XBLOCK": rows}))
                return kernel_kwargs

        _choices_class = MTIAChoices
    return _choices_class()
