"""The process-wide simulated chip, launches on it, and their statistics.

One `Simulator` (from the C++ extension `_mtia_sim`) serves every launch of
the process; `configure()` replaces it. Each launch produces a `LaunchStats`;
the latest is `last_launch()`.

Traces are opt-in because writing one costs time: launches inside a
`with trace():` block, or every launch while `settings.trace_launches` is
set, record a Perfetto/Chrome trace that `LaunchStats.write_trace()` copies
wherever the user wants it.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import itertools
import os
import shutil
import tempfile
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from ._settings import settings

_simulator = None
#: One simulator per process, and it runs one launch at a time: launches
#: from several threads take turns (the extension releases the GIL while a
#: launch runs, so nothing else orders them), and configure() waits for the
#: launch in flight.
_launch_lock = threading.RLock()
#: Each thread's latest launch (last_launch()).
_per_thread = threading.local()
_recordings: List["TraceRecording"] = []
_trace_counter = itertools.count()
_private_trace_dir: Optional[str] = None
#: Totals over every launch of the process; the benchmarker reads deltas.
launch_count = 0
simulated_seconds_total = 0.0
#: Called with each launch's simulated seconds after it ran, in the
#: launch's turn: the layers above keep their clocks (device.py advances
#: the torch device's, which its events read). The runtime imports none
#: of them.
launch_listeners: List[Any] = []
#: The launch logs of the `log_launches` blocks in progress.
_launch_logs: List[List["LaunchStats"]] = []
simulated_cycles_total = 0
#: DMA commands (loads and stores) of every launch, and how many of them
#: were gathers or scatters by address rather than strided blocks.
dma_commands_total = 0
dma_by_address_total = 0


def _sim_module():
    try:
        from . import _mtia_sim
    except ImportError as e:
        raise ImportError(f"triton_mtia._mtia_sim (the simulator extension) cannot be imported ({e}); "
                          "build it with `pip install --no-build-isolation .` in the source tree") from e
    return _mtia_sim


def presets() -> Dict[str, dict]:
    """Named simulator configurations (e.g. "mtia2i")."""
    return _sim_module().presets()


def _merge(base: dict, overrides: dict, where: str) -> dict:
    """`base` with `overrides` applied recursively. Unknown keys are errors so
    that a typo does not silently simulate the default chip."""
    merged = copy.deepcopy(base)
    for key, value in overrides.items():
        if key not in merged:
            raise KeyError(f"unknown simulator parameter '{where}.{key}'; known: {sorted(merged)}")
        if isinstance(merged[key], dict) and isinstance(value, dict):
            merged[key] = _merge(merged[key], value, f"{where}.{key}")
        else:
            merged[key] = value
    return merged


#: The simulator parameters the compiler plans with, each with its flag of
#: triton-mtia-compile: CBs and local memory (mtia-assign-cbs), the SE's
#: and the vector core's throughput (mtia-share-vector-core). The compiler
#: plans for the chip the simulator runs: these travel with every compile
#: (MTIAOptions.chip), so they are part of a kernel's cache key.
COMPILER_PARAMETERS = {"max_cbs": "num-cbs", "local_memory_bytes": "local-memory-bytes", "se_lanes": "se-lanes",
                       "se_fill_cycles": "se-fill-cycles", "vec_bytes_per_cycle": "vec-bytes-per-cycle",
                       "vec_fill_cycles": "vec-fill-cycles"}

#: The configured simulator's COMPILER_PARAMETERS, as (name, value) pairs.
_compiler_chip: Optional[Tuple[Tuple[str, int], ...]] = None

#: Called with no arguments after configure() changed what the compiler
#: plans for (layers above drop what they compiled for the old chip).
chip_listeners: List[Any] = []


def compiler_chip() -> Tuple[Tuple[str, int], ...]:
    """The parameters of the configured chip that shape compiled code
    (COMPILER_PARAMETERS), as (name, value) pairs."""
    if _compiler_chip is None:
        simulator()
    return _compiler_chip


def _drop_jit_caches() -> None:
    """Forgets every @triton.jit function's compiled kernels (the next call
    compiles for the configured chip, or finds that chip's binary in
    Triton's cache on disk, whose key has the chip)."""
    import gc

    from triton.runtime.jit import JITFunction
    for obj in gc.get_objects():
        if issubclass(type(obj), JITFunction):  # type(): no object's __class__ property runs
            obj.device_caches.clear()


def configure(preset: Optional[str] = None, config_file: Optional[str] = None, **overrides: Any):
    """Replaces the process-wide simulator by one built from `preset`
    (default: `settings.preset`), then the JSON file `config_file` if given
    (``{"name": number, ...}``, a flat object of parameters; see
    docs/simulator.md), then `overrides`, e.g.
    ``configure("mtia2i", config_file="chip.json", timing_only=True)``.
    An unknown key, in the file or the overrides, is an error naming it.
    Returns the simulator."""
    global _simulator
    sim = _sim_module()
    name = preset or settings.preset
    table = sim.presets()
    if name not in table:
        raise ValueError(f"unknown simulator preset '{name}'; known: {sorted(table)}")
    base = table[name]
    if config_file is not None:
        base = sim.load_config(os.fspath(config_file), base)
    config = _merge(base, overrides, name)
    made = sim.Simulator(config)
    chip = tuple((key, int(config[key])) for key in COMPILER_PARAMETERS)
    global _compiler_chip
    with _launch_lock:
        _simulator = made
        changed = _compiler_chip is not None and chip != _compiler_chip
        _compiler_chip = chip
    settings.preset = name
    if changed:
        _drop_jit_caches()
        for listener in chip_listeners:
            listener()
    return made


def simulator():
    """The process-wide simulator, made from `settings.preset` on first use."""
    return _simulator if _simulator is not None else configure()


@dataclass
class LaunchStats:
    """What one kernel launch did on the simulated chip."""

    kernel: str
    grid: Tuple[int, int, int]
    #: Simulated cycles from launch to the end of the last program.
    cycles: int
    #: `cycles` at the configured clock.
    seconds: float
    #: Busy cycles per unit kind, summed over PEs (riscv, dma_in, dma_out, se, ...).
    units: Dict[str, int]
    pes_used: int
    programs: int
    #: The simulator's full statistics tree (large: left out of repr()).
    stats: Dict[str, Any] = field(repr=False)
    _trace_file: Optional[str] = field(default=None, repr=False)
    #: Every parameter of the chip it ran on (for the roofline).
    config: Dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def microseconds(self) -> float:
        return self.seconds * 1e6

    @property
    def accesses_by_address(self) -> int:
        """Gathers and scatters the launch issued: loads and stores the
        compiler could not make strided DMAs (``dma_report`` says why)."""
        units = self.stats.get("units", {})
        return sum(units.get(u, {}).get("by_address", 0) for u in ("dma_in", "dma_out"))

    def utilization(self) -> Dict[str, float]:
        """Busy fraction of each unit kind over the PEs the launch used:
        busy / (cycles * pes_used). For ``riscv``, the busier of a PE's two
        cores (they issue side by side after mtia-dual-issue)."""
        denom = max(1, self.cycles * max(1, self.pes_used))
        busy = dict(self.units)
        if "riscv" in busy:
            core1 = self.stats.get("units", {}).get("riscv", {}).get("core1_busy_cycles", 0)
            busy["riscv"] = max(busy["riscv"] - core1, core1)
        return {unit: cycles / denom for unit, cycles in busy.items()}

    def roofline_points(self, dtype: str = "fp16") -> Dict[str, Any]:
        """The numbers `roofline()` draws, chip-wide over the PEs used:
        per unit its achieved rate, its peak for `dtype` and the roof it is
        held to; the DPE's arithmetic intensity against the bytes each
        memory level served; the levels' bandwidths and ridge points."""
        from .roofline import roofline_points
        return roofline_points(self.stats, self.config, self.seconds, self.pes_used, dtype)

    def roofline(self, path: str, dtype: str = "fp16") -> str:
        """Draws this launch's roofline (PNG, matplotlib) to `path`: left,
        the DPE's FLOP/s against its arithmetic intensity over the bytes
        SRAM and LPDDR served, under min(peak, intensity x bandwidth) with
        the ridge points; right, each unit's achieved rate as a fraction of
        its roof. Returns `path`."""
        from .roofline import draw_roofline
        return draw_roofline(self.roofline_points(dtype), path, title=f"{self.kernel} {self.grid}")

    @property
    def has_trace(self) -> bool:
        return self._trace_file is not None and os.path.isfile(self._trace_file)

    def write_trace(self, path: str) -> str:
        """Writes this launch's Perfetto/Chrome trace (JSON with traceEvents,
        open it in ui.perfetto.dev) to `path`; returns `path`."""
        if not self.has_trace:
            raise RuntimeError(f"launch of {self.kernel} was not traced; launch it inside "
                               "`with triton_mtia.trace():` or set triton_mtia.settings.trace_launches = True")
        parent = os.path.dirname(os.path.abspath(path))
        os.makedirs(parent, exist_ok=True)
        shutil.copyfile(self._trace_file, path)
        return path


@dataclass
class TraceRecording:
    """The launches made inside one `trace()` block."""

    launches: List[LaunchStats] = field(default_factory=list)


@contextlib.contextmanager
def trace(path: Optional[str] = None) -> Iterator[TraceRecording]:
    """Records a trace of every launch in the block::

        with triton_mtia.trace("softmax.json"):
            softmax_kernel[grid](...)

    On a normal exit the trace of the block's last launch is written to
    `path` (if given); every launch's is available as
    ``recording.launches[i].write_trace(...)``."""
    recording = TraceRecording()
    _recordings.append(recording)
    try:
        yield recording
    finally:
        _recordings.remove(recording)
    if path is not None:
        if not recording.launches:
            raise RuntimeError("no kernel was launched inside triton_mtia.trace()")
        recording.launches[-1].write_trace(path)


def _remove_identical(items: list, item) -> None:
    """Removes `item` itself from `items` (list.remove would remove the
    first equal one: another block's log, equal in value)."""
    del items[next(i for i, x in enumerate(items) if x is item)]


@contextlib.contextmanager
def log_launches() -> Iterator[List[LaunchStats]]:
    """The statistics of every launch in the block, in order, appended to
    the list it yields (no traces written: cheap)."""
    log: List[LaunchStats] = []
    _launch_logs.append(log)
    try:
        yield log
    finally:
        _remove_identical(_launch_logs, log)


def last_launch() -> Optional[LaunchStats]:
    """Statistics of the calling thread's most recent launch (None before
    any): threads that launch at once each see their own."""
    return getattr(_per_thread, "last", None)


def _new_trace_path(kernel: str) -> Tuple[str, bool]:
    """A fresh trace file path, and whether it is ours to delete."""
    global _private_trace_dir
    if settings.trace_dir:
        os.makedirs(settings.trace_dir, exist_ok=True)
        directory, private = settings.trace_dir, False
    else:
        if _private_trace_dir is None:
            _private_trace_dir = tempfile.mkdtemp(prefix="triton-mtia-traces-")
            atexit.register(shutil.rmtree, _private_trace_dir, True)
        directory, private = _private_trace_dir, True
    # The counter makes it unique; the name, cut, keeps it a legal file name
    # (Inductor's kernel names run to hundreds of characters).
    return os.path.join(directory, f"{next(_trace_counter):06d}-{kernel[:100]}.json"), private


def _remove_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(path)


def measure(fn) -> Tuple[Any, float, int]:
    """Runs `fn` (on this thread); returns its result, the simulated time of
    the launches it made in milliseconds, and how many it made. What the
    simulated-time benchmarkers (Triton's and Inductor's) measure."""
    # Summed from zero, not a difference of the running total: the same
    # launches measure the same however many ran before them.
    with log_launches() as launches:
        result = fn()
    return result, sum(launch.seconds for launch in launches) * 1e3, len(launches)


def measure_cycles(fn) -> Tuple[Any, int]:
    """Runs `fn` (on this thread); returns its result and the simulated
    cycles of the launches it made, summed (launches run one after another)."""
    before = simulated_cycles_total
    result = fn()
    return result, simulated_cycles_total - before


def launch(so_path: str, kernel: str, grid: Tuple[int, int, int], args: Sequence[tuple],
           regions: Sequence[Tuple[int, int]], pid_mapping: str = "linear",
           entry: Optional[str] = None) -> LaunchStats:
    """Runs one launch on the process-wide simulator and records its stats
    under `kernel`. `entry` is the symbol the shared object exports (and
    `entry`_info), `kernel` by default; `args`, `regions` and `pid_mapping`
    follow the `Simulator.launch` contract."""
    global launch_count, simulated_seconds_total, simulated_cycles_total, dma_commands_total, dma_by_address_total
    with _launch_lock:
        trace_file, private = (None, False)
        if _recordings or settings.trace_launches:
            trace_file, private = _new_trace_path(kernel)
        sim = simulator()
        result = sim.launch(so_path, entry or kernel, tuple(grid), list(args), list(regions), trace_file,
                            pid_mapping)
        launch_count += 1
        simulated_seconds_total += float(result["seconds"])
        simulated_cycles_total += int(result["cycles"])
        units = result["stats"].get("units", {})
        for unit in ("dma_in", "dma_out"):
            dma_commands_total += int(units.get(unit, {}).get("commands", 0))
            dma_by_address_total += int(units.get(unit, {}).get("by_address", 0))
        for listener in launch_listeners:
            listener(float(result["seconds"]))
    stats = LaunchStats(
        kernel=kernel,
        grid=tuple(grid),
        cycles=int(result["cycles"]),
        seconds=float(result["seconds"]),
        units=dict(result["units"]),
        pes_used=int(result["pes_used"]),
        programs=int(result["programs"]),
        stats=result["stats"],
        _trace_file=result.get("trace_path") or trace_file,
        config=sim.config,
    )
    if private and stats._trace_file:
        # A recorded trace lives as long as the LaunchStats that can write it out.
        weakref.finalize(stats, _remove_quietly, stats._trace_file)
    for recording in list(_recordings):
        recording.launches.append(stats)
    for log in list(_launch_logs):
        log.append(stats)
    _per_thread.last = stats
    return stats
