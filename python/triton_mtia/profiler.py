"""Where a model step's time goes, on the simulated clock.

    with triton_mtia.profiler.profile() as prof:
        loss = train_step(model, batch)
    print(prof.table())             # per operator: calls, chip or host, time, share
    prof.write_trace("step.json")   # the step in Perfetto (ui.perfetto.dev)
    prof.draw("step.png")           # time by operator class, chip and host

Every ATen operator the step calls (forward and backward, as eager mode
dispatches them) is recorded with where it ran - "chip" (kernels launched
on the simulated chip, `launches` of them), "host" (the CPU ran it:
`host_fallbacks()` counted it) or "" for one that computes nothing (a
view, a copy, a creation) - and its time: the simulated time of its
launches on the chip, the host's wall-clock time of a host run (the host
is not simulated; its time is shown apart, never added to simulated time).

Operators are seen by a TorchDispatchMode, below autograd, so the
backward's operators are recorded too. torch.compile runs a function
eagerly while a dispatch mode is active, so a compiled step is profiled
with `operators=False`: only its launches (Inductor's kernels and the
library's) and host fallbacks are recorded.

torch.profiler's device events would show the host's wall clock, in which
a simulated kernel takes the time the simulator takes to run it; this
profile uses the chip's clock instead.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional

import torch

from . import runtime

#: Operator classes of the summary and the picture, in drawing order.
CLASSES = ("gemm", "convolution", "attention", "other")

_GEMMS = frozenset({"mm", "addmm", "bmm", "baddbmm", "_int_mm", "matmul", "linear", "addmv", "mv", "dot", "addbmm"})


def operator_class(name: str) -> str:
    """The class of the ATen operator `name` ("aten::mm.out")."""
    base = name.split("::")[-1].split(".")[0]
    if base in _GEMMS:
        return "gemm"
    if "convolution" in base or base.startswith("conv"):
        return "convolution"
    if "scaled_dot_product" in base or "attention" in base:
        return "attention"
    return "other"


@dataclass
class OperatorCall:
    """One call of an ATen operator in the profiled block."""
    name: str
    computes: bool
    #: "chip", "host" or "" (computes nothing, launched nothing).
    where: str
    launches: List[runtime.LaunchStats]
    simulated_s: float
    #: Wall-clock seconds of the call, when the host ran it.
    host_s: float

    @property
    def kind(self) -> str:
        return operator_class(self.name)


@dataclass
class Profile:
    """What `profile` recorded: operator calls (with `operators=True`), and
    every launch in the block, in order."""
    calls: List[OperatorCall] = field(default_factory=list)
    launches: List[runtime.LaunchStats] = field(default_factory=list)
    host_fallbacks: Dict[str, int] = field(default_factory=dict)

    @property
    def simulated_s(self) -> float:
        return sum(launch.seconds for launch in self.launches)

    def compute_calls(self) -> List[OperatorCall]:
        return [c for c in self.calls if c.computes]

    def summary(self) -> Dict[str, object]:
        """Totals: compute calls on the chip and on the host, simulated and
        host time, and per operator class."""
        compute = self.compute_calls()
        chip = [c for c in compute if c.where == "chip"]
        by_class = {}
        for kind in CLASSES:
            mine = [c for c in compute if c.kind == kind]
            by_class[kind] = {"calls": len(mine), "chip_calls": sum(1 for c in mine if c.where == "chip"),
                              "chip_s": sum(c.simulated_s for c in mine),
                              "host_s": sum(c.host_s for c in mine if c.where == "host")}
        return {"compute_calls": len(compute), "chip_calls": len(chip),
                "host_calls": sum(1 for c in compute if c.where == "host"),
                "chip_call_share": len(chip) / len(compute) if compute else 1.0,
                "launches": len(self.launches), "simulated_s": self.simulated_s,
                "host_s": sum(c.host_s for c in compute if c.where == "host"),
                "host_fallbacks": dict(self.host_fallbacks), "by_class": by_class}

    def table(self, top: int = 25) -> str:
        """Operators by simulated time (host ones after, by wall clock): calls,
        where, time and share of the step's simulated time."""
        rows: Dict[tuple, List[float]] = {}
        for c in self.compute_calls():
            row = rows.setdefault((c.name, c.where), [0, 0, 0.0, 0.0])
            row[0] += 1
            row[1] += len(c.launches)
            row[2] += c.simulated_s
            row[3] += c.host_s
        total = self.simulated_s or 1.0
        ordered = sorted(rows.items(), key=lambda kv: (kv[0][1] != "chip", -kv[1][2], -kv[1][3]))
        lines = [f"{'operator':44} {'where':5} {'calls':>5} {'kernels':>7} {'simulated us':>12} {'share':>6} "
                 f"{'host ms':>8}"]
        for (name, where), (calls, kernels, sim, host) in ordered[:top]:
            lines.append(f"{name:44.44} {where:5} {calls:5d} {kernels:7d} {sim * 1e6:12.1f} {sim / total:6.1%} "
                         f"{host * 1e3:8.2f}")
        if len(ordered) > top:
            lines.append(f"... {len(ordered) - top} more")
        inside = {id(launch) for c in self.calls for launch in c.launches}
        outside = [launch for launch in self.launches if id(launch) not in inside]
        if outside:
            lines.append(f"{len(outside)} launches outside ATen operators (Triton kernels called directly, "
                         f"Inductor's): {sum(l.seconds for l in outside) * 1e6:.1f} us")
        lines.append(f"step: {self.simulated_s * 1e6:.1f} us simulated, {len(self.launches)} launches, "
                     f"host fallbacks {sum(self.host_fallbacks.values())}")
        return "\n".join(lines)

    def trace_events(self) -> List[dict]:
        """The step as Chrome trace events: the operators on a track (chip
        ones as long as their simulated time, host ones as their wall
        clock), and the kernels on the chip under them."""
        events = [{"ph": "M", "pid": 1, "tid": tid, "name": "thread_name", "args": {"name": name}}
                  for tid, name in ((1, "ATen operators (chip: simulated time)"), (2, "chip kernels"),
                                    (3, "host (wall clock)"))]
        clock = 0.0  # microseconds
        placed = set()
        for c in self.calls:
            if not c.computes and not c.launches:
                continue
            if c.where == "host":
                events.append({"ph": "X", "pid": 1, "tid": 3, "name": c.name, "ts": clock, "dur": c.host_s * 1e6,
                               "args": {"class": c.kind}})
                clock += c.host_s * 1e6
                continue
            events.append({"ph": "X", "pid": 1, "tid": 1, "name": c.name, "ts": clock, "dur": c.simulated_s * 1e6,
                           "args": {"class": c.kind, "launches": len(c.launches)}})
            for launch in c.launches:
                placed.add(id(launch))
                events.append({"ph": "X", "pid": 1, "tid": 2, "name": launch.kernel, "ts": clock,
                               "dur": launch.seconds * 1e6, "args": {"cycles": launch.cycles, "grid": launch.grid}})
                clock += launch.seconds * 1e6
        for launch in self.launches:
            if id(launch) not in placed:
                events.append({"ph": "X", "pid": 1, "tid": 2, "name": launch.kernel, "ts": clock,
                               "dur": launch.seconds * 1e6, "args": {"cycles": launch.cycles, "grid": launch.grid}})
                clock += launch.seconds * 1e6
        return events

    def write_trace(self, path: str) -> str:
        """Writes the Perfetto/Chrome trace of the step to `path`."""
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            json.dump({"traceEvents": self.trace_events(), "displayTimeUnit": "ns"}, f)
        return path

    def draw(self, path: str, title: str = "") -> str:
        """A picture of the step's time by operator class: simulated time on
        the chip, and the host's wall clock beside it."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        by_class = self.summary()["by_class"]
        fig, (chip, host) = plt.subplots(1, 2, figsize=(8, 3))
        chip.barh(CLASSES, [by_class[k]["chip_s"] * 1e6 for k in CLASSES], color="tab:blue")
        chip.set_xlabel("simulated us on the chip")
        host.barh(CLASSES, [by_class[k]["host_s"] * 1e3 for k in CLASSES], color="tab:red")
        host.set_xlabel("host ms (wall clock)")
        if not any(by_class[k]["host_s"] for k in CLASSES):
            host.text(0.5, 0.5, "nothing computed on the host", transform=host.transAxes, ha="center")
            host.set_xticks([])
        fig.suptitle(title or "time by operator class")
        fig.tight_layout()
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path


def computes_by_name(name: str) -> bool:
    """Whether the ATen operator `name` ("aten::add.Tensor") computes
    (`triton_mtia.aten.per_op.computes`); an unknown name is taken to."""
    from .aten.per_op import computes
    base, _, overload = name.partition(".")
    try:
        return computes(torch._C._get_schema(base, overload))
    except RuntimeError:
        return True


class _Recorder(torch.utils._python_dispatch.TorchDispatchMode):
    """Records each ATen call with its launches and host fallbacks."""

    def __init__(self, profile: Profile):
        super().__init__()
        self.profile = profile

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        from . import device
        from .aten.per_op import computes
        before = device.host_fallbacks()
        start = time.perf_counter()
        with runtime.log_launches() as launches:
            result = func(*args, **(kwargs or {}))
        wall = time.perf_counter() - start
        # A creation on the host inside an operator (an arange of
        # positions) does not make it the host's.
        on_host = any(count != before.get(name, 0) and computes_by_name(name)
                      for name, count in device.host_fallbacks().items())
        where = "host" if on_host else "chip" if launches else ""
        self.profile.calls.append(OperatorCall(
            name=func.name(), computes=computes(func._schema), where=where, launches=list(launches),
            simulated_s=sum(l.seconds for l in launches), host_s=wall if on_host else 0.0))
        return result


@contextlib.contextmanager
def profile(operators: bool = True) -> Iterator[Profile]:
    """Profiles the block (see the module's docstring). `operators=False`
    records launches and host fallbacks only (for a compiled step)."""
    from . import device
    result = Profile()
    before = device.host_fallbacks()
    with runtime.log_launches() as launches:
        with (_Recorder(result) if operators else contextlib.nullcontext()):
            yield result
    result.launches = list(launches)
    after = device.host_fallbacks()
    result.host_fallbacks = {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}
