"""What Inductor fused (the paper's Figure 10 "fusion depth"), read from
the wrapper code it generated: each kernel with the ATen operators fused
into it, and the calls left to ATen. Used by `bench.paper` and
`bench.inductor_tailoring`'s tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, List, Sequence

_KERNEL_NAME = re.compile(r"'kernel_name': '([A-Za-z0-9_]+)'")
_ORIGINAL_ATEN = re.compile(r"^# Topologically Sorted Source Nodes: \[.*\], Original ATen: \[(.*)\]$", re.M)
_MAPPING = re.compile(r"^#   \S+ => (.*)$", re.M)
_EXTERN_CALL = re.compile(r"\bextern_kernels\.(\w+)\(|\btorch\.ops\.aten\.(\w+)\.")


@dataclass
class FusedKernel:
    name: str
    #: The ATen operators of the model it computes ("aten.native_layer_norm").
    aten_ops: List[str]
    #: The graph nodes it computes after Inductor's decompositions (a layer
    #: norm is var_mean, sub, add, rsqrt, mul, ...).
    decomposed_nodes: int


@dataclass
class FusionStats:
    kernels: List[FusedKernel] = field(default_factory=list)
    #: Calls the wrapper leaves to ATen (a matmul without max-autotune):
    #: on the mtia device they run on the host.
    aten_calls: List[str] = field(default_factory=list)

    @property
    def fusion_depth(self) -> float:
        """ATen operators per generated kernel, on average."""
        return sum(len(k.aten_ops) for k in self.kernels) / len(self.kernels) if self.kernels else 0.0

    @property
    def decomposed_depth(self) -> float:
        return sum(k.decomposed_nodes for k in self.kernels) / len(self.kernels) if self.kernels else 0.0


def fusion_stats_of_code(sources: Sequence[str]) -> FusionStats:
    """What Inductor fused, read from the wrapper code it generated: every
    kernel block starts at a "# kernel path:" comment that lists the ATen
    operators it came from."""
    stats = FusionStats()
    for source in sources:
        blocks = source.split("# kernel path:")
        for block in blocks[1:]:
            name = _KERNEL_NAME.search(block)
            origins = _ORIGINAL_ATEN.search(block)
            if not name or not origins:
                continue
            ops = [op.strip() for op in origins.group(1).split(",") if op.strip()]
            nodes = sum(len(m.split(",")) for m in _MAPPING.findall(block.split("# Graph fragment:")[0]))
            stats.kernels.append(FusedKernel(name.group(1), ops, nodes))
        call = source[source.rfind("def call("):] if "def call(" in source else ""
        for extern, aten in _EXTERN_CALL.findall(call):
            stats.aten_calls.append(f"extern_kernels.{extern}" if extern else f"aten.{aten}")
    return stats


def fusion_stats(fn: Callable[..., Any], *args, **kwargs):
    """Compiles `fn` with torch.compile, runs it on `args`, and returns
    (its result, FusionStats): the kernels Inductor generated, each with the
    ATen operators fused into it, and the calls left to ATen."""
    import torch
    from torch._inductor.utils import run_and_get_code

    result, sources = run_and_get_code(torch.compile(fn), *args, **kwargs)
    return result, fusion_stats_of_code(sources)
