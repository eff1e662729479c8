"""Host-side cost of running Triton kernels on the MTIA backend.

    python -m triton_mtia.bench.host_overhead [--json FILE] [--scale N]

For each sample kernel, side by side:

* compile time, cold (Triton's cache bypassed), total and per stage;
* host wall time per launch on the MTIA backend, warm (argument handling +
  the simulation of the whole grid), and the simulated device time;
* host wall time per launch under upstream's interpreter (TRITON_INTERPRET=1,
  numpy per op per program) - run in a subprocess, because the interpreter
  is chosen when kernels are decorated;
* PyTorch eager on the CPU for the same operation.

Prints a table with ratios and optionally writes everything as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List

import torch
import triton
from triton import knobs

from triton_mtia import samples

#: Stop repeating a measurement once this much wall time was spent on it.
MIN_MEASURE_SECONDS = 0.5
MAX_REPEATS = 20


def time_per_call(fn: Callable[[], object], min_seconds: float = MIN_MEASURE_SECONDS,
                  max_repeats: int = MAX_REPEATS) -> float:
    """Median wall seconds of `fn()`, after one warm-up call."""
    fn()
    times: List[float] = []
    spent = 0.0
    while len(times) < max_repeats and (spent < min_seconds or len(times) < 3):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        spent += times[-1]
    return statistics.median(times)


def _inputs(sample, scale: int):
    return sample.make_inputs(torch.Generator().manual_seed(0), scale)


def cold_compile(sample, inputs) -> Dict[str, object]:
    """Compiles `sample` from scratch: Triton's on-disk cache is bypassed and
    the kernel's in-memory cache cleared. Returns seconds in total and per
    stage, as Triton's compilation listener reports them."""
    reports = []

    def listener(*, src, metadata, metadata_group, times, cache_hit):
        reports.append(times)

    with knobs.compilation.scope():
        knobs.compilation.always_compile = True
        knobs.compilation.listener = listener
        sample.kernel.device_caches.clear()
        start = time.perf_counter()
        sample.run_triton(*inputs)
        first_call = time.perf_counter() - start
    times = reports[-1]
    stages = {"frontend": times.ir_initialization / 1e6}
    stages.update({name: us / 1e6 for name, us in times.lowering_stages})
    return {"compile_s": sum(stages.values()), "compile_stages_s": stages, "first_call_s": first_call}


def measure_mtia(scale: int) -> Dict[str, dict]:
    import triton_mtia
    triton_mtia.activate()
    results = {}
    for sample in samples.SAMPLES:
        inputs = _inputs(sample, scale)
        print(f"  mtia: {sample.name} ...", flush=True)
        entry = cold_compile(sample, inputs)
        entry["launch_s"] = time_per_call(lambda: sample.run_triton(*inputs))
        stats = triton_mtia.last_launch()
        entry.update(simulated_s=stats.seconds, cycles=stats.cycles)
        actual = sample.run_triton(*inputs)[0]
        entry["matches_torch"] = samples.check(actual, sample.run_torch(*inputs))[0]
        results[sample.name] = entry
    return results


def measure_torch(scale: int) -> Dict[str, dict]:
    results = {}
    for sample in samples.SAMPLES:
        inputs = _inputs(sample, scale)
        results[sample.name] = {"launch_s": time_per_call(lambda: sample.run_torch(*inputs))}
    return results


def measure_interpreter(scale: int) -> Dict[str, dict]:
    """Runs in a process started with TRITON_INTERPRET=1 (see `main`)."""
    assert knobs.runtime.interpret, "the interpreter worker needs TRITON_INTERPRET=1"
    results = {}
    for sample in samples.SAMPLES:
        inputs = _inputs(sample, scale)
        results[sample.name] = {"launch_s": time_per_call(lambda: sample.run_triton(*inputs), max_repeats=5)}
    return results


def interpreter_in_subprocess(scale: int) -> Dict[str, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "interpreter.json")
        env = dict(os.environ, TRITON_INTERPRET="1")
        env.pop("TRITON_DEFAULT_BACKEND", None)
        cmd = [sys.executable, "-m", "triton_mtia.bench.host_overhead", "--worker", "interpreter", "--scale",
               str(scale), "--json", out]
        subprocess.run(cmd, env=env, check=True)
        with open(out) as f:
            return json.load(f)


def _ratio(a, b):
    return a / b if a and b else float("nan")


def report(mtia, interp, eager) -> List[dict]:
    rows = []
    for sample in samples.SAMPLES:
        m, i, t = mtia[sample.name], interp[sample.name], eager[sample.name]
        rows.append({
            "kernel": sample.name,
            **m,
            "interpreter_launch_s": i["launch_s"],
            "torch_launch_s": t["launch_s"],
            "interpreter_over_mtia": _ratio(i["launch_s"], m["launch_s"]),
            "mtia_over_torch": _ratio(m["launch_s"], t["launch_s"]),
        })
    header = (f"{'kernel':<12} {'compile':>9} {'mtia/launch':>12} {'simulated':>10} {'interp/launch':>14} "
              f"{'torch':>9} {'interp/mtia':>12} {'mtia/torch':>11}  correct")
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['kernel']:<12} {r['compile_s'] * 1e3:7.1f}ms {r['launch_s'] * 1e3:10.2f}ms "
              f"{r['simulated_s'] * 1e6:8.2f}us {r['interpreter_launch_s'] * 1e3:12.1f}ms "
              f"{r['torch_launch_s'] * 1e3:7.3f}ms {r['interpreter_over_mtia']:11.1f}x {r['mtia_over_torch']:10.1f}x  {'yes' if r['matches_torch'] else 'NO'}")
    print("compile: cold, frontend + ttir + cpp + so; mtia/launch: host wall time of a warm launch, simulation "
          "included; simulated: device time on the simulated chip.")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m triton_mtia.bench.host_overhead",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--scale", type=int, default=1, help="multiply the sample problem sizes")
    parser.add_argument("--worker", choices=["interpreter"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker == "interpreter":
        results = measure_interpreter(args.scale)
        with open(args.json, "w") as f:
            json.dump(results, f)
        return 0

    print("measuring: MTIA backend (cold compile, warm launches) ...", flush=True)
    mtia = measure_mtia(args.scale)
    print("measuring: PyTorch eager ...", flush=True)
    eager = measure_torch(args.scale)
    print("measuring: upstream interpreter (TRITON_INTERPRET=1, subprocess) ...", flush=True)
    interp = interpreter_in_subprocess(args.scale)
    rows = report(mtia, interp, eager)
    if args.json:
        doc = {
            "benchmark": "host_overhead",
            "scale": args.scale,
            "python": platform.python_version(),
            "triton": triton.__version__,
            "torch": torch.__version__,
            "host": platform.processor() or platform.machine(),
            "torch_threads": torch.get_num_threads(),
            "kernels": rows,
        }
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
