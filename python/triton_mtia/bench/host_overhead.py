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

    python -m triton_mtia.bench.host_overhead --compile [--json FILE]

Compile time only, per stage (Triton's frontend, its ttir passes, our
compiler to C++ or LLVM IR, clang to a shared object), cold: Triton's
caches and our object cache bypassed, best of three. Side by side for each
build configuration of COMPILE_CONFIGS (the kernels' C++ built as it was
before issue 12 and as it is now, and the LLVM IR path), over the sample
kernels and the GEMM and
attention samples, and for torch.compile of a small transformer block
(each configuration in a fresh process with fresh caches: Inductor's
kernels, compiled by its worker processes).
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
from typing import Callable, Dict, List, Tuple

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


#: Our compiler's stage is named after what it makes, C++ or LLVM IR; the
#: tables compare them as one stage.
CODEGEN_STAGES = {"cpp": "codegen", "llir": "codegen"}


def _stages(times) -> Dict[str, float]:
    """Seconds per stage of one compile, from Triton's listener."""
    stages = {"frontend": times.ir_initialization / 1e6}
    stages.update({CODEGEN_STAGES.get(name, name): us / 1e6 for name, us in times.lowering_stages})
    return stages


def compile_from_scratch(kernel, call) -> Tuple[Dict[str, float], float]:
    """Runs `call`, which launches `kernel`, with Triton's on-disk cache
    bypassed and the kernel's in-memory cache cleared: seconds per stage of
    its compile, as Triton's compilation listener reports them, and of the
    whole call."""
    reports = []

    def listener(*, src, metadata, metadata_group, times, cache_hit):
        reports.append(times)

    with knobs.compilation.scope():
        knobs.compilation.always_compile = True
        knobs.compilation.listener = listener
        kernel.device_caches.clear()
        start = time.perf_counter()
        call()
        first_call = time.perf_counter() - start
    return _stages(reports[-1]), first_call


def cold_compile(sample, inputs) -> Dict[str, object]:
    """Compiles `sample` from scratch: seconds in total and per stage."""
    stages, first_call = compile_from_scratch(sample.kernel, lambda: sample.run_triton(*inputs))
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


#: Build configurations of the kernels (settings), compared by --compile:
#: the C++ path as before issue 12 (-O2, headers parsed per kernel, clang's
#: default link), the defaults now (the C++ path), and the LLVM IR path.
COMPILE_CONFIGS = {
    "before": {"cxx_flags": ("-std=c++17", "-O2", "-fno-inline", "-fwrapv"), "precompiled_headers": False,
               "link_flags": ()},
    "now": {},
    "llvm": {"codegen": "llvm"},
}


def _compile_kernels():
    """(name, call) of the kernels --compile measures: the samples, a GEMM
    and a fused attention."""
    from triton_mtia.kernels import flash as attention
    from triton_mtia.samples import matmul
    calls = []
    for sample in samples.SAMPLES:
        inputs = _inputs(sample, 1)
        calls.append((sample.name, sample.kernel, lambda s=sample, i=inputs: s.run_triton(*i)))
    a, b = torch.randn(256, 128).half(), torch.randn(128, 192).half()
    calls.append(("matmul", matmul.matmul_kernel, lambda: matmul.matmul(a, b, block=(64, 64, 32))))
    q, k, v = (torch.randn(2, 256, 64).half() for _ in range(3))
    calls.append(("attention", attention.attention_fwd_kernel, lambda: attention.attention(q, k, v)))
    return calls


def compile_stages(config: Dict[str, object]) -> Dict[str, Dict[str, float]]:
    """Per kernel, seconds per stage of a cold compile under `config`."""
    from triton_mtia import settings
    saved = {name: getattr(settings, name) for name in (*config, "object_cache")}
    try:
        for name, value in config.items():
            setattr(settings, name, value)
        settings.object_cache = False
        out = {}
        for name, kernel, call in _compile_kernels():
            call()  # imports, and the precompiled prelude of this configuration
            tries = [compile_from_scratch(kernel, call)[0] for _ in range(3)]
            out[name] = min(tries, key=lambda stages: sum(stages.values()))
        return out
    finally:
        for name, value in saved.items():
            setattr(settings, name, value)


def inductor_compile_in_subprocess(config_name: str) -> Dict[str, float]:
    """torch.compile of a small transformer block on the mtia device, in a
    fresh process with fresh caches, under COMPILE_CONFIGS[config_name]."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "inductor.json")
        # One compile thread: Inductor compiles its kernels in this process,
        # where Triton's compilation listener sees each one's stages.
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"),
                   TRITON_CACHE_DIR=os.path.join(tmp, "triton"), TORCHINDUCTOR_COMPILE_THREADS="1")
        cmd = [sys.executable, "-m", "triton_mtia.bench.host_overhead", "--worker", "inductor", "--config",
               config_name, "--json", out]
        subprocess.run(cmd, env=env, check=True)
        with open(out) as f:
            return json.load(f)


def measure_inductor_compile(config_name: str) -> Dict[str, float]:
    """Runs in the process inductor_compile_in_subprocess starts: the stages
    of every kernel Inductor compiles (object cache bypassed), and the
    whole torch.compile."""
    from triton_mtia import settings
    for name, value in COMPILE_CONFIGS[config_name].items():
        setattr(settings, name, value)
    settings.object_cache = False
    import triton_mtia
    kernels = []

    def listener(*, src, metadata, metadata_group, times, cache_hit):
        if not cache_hit:
            kernels.append(_stages(times))

    knobs.compilation.listener = listener
    block = torch.nn.TransformerEncoderLayer(64, 4, dim_feedforward=128, batch_first=True).eval().to("mtia")
    x = torch.randn(2, 16, 64).to("mtia")
    compiled = torch.compile(block)
    start = time.perf_counter()
    with torch.no_grad():
        compiled(x)
    seconds = time.perf_counter() - start
    per_stage = {stage: sum(k[stage] for k in kernels) / len(kernels) for stage in kernels[0]}
    return {"compile_and_first_call_s": seconds, "kernels": len(kernels), "per_kernel_stages_s": per_stage,
            "per_kernel_s": sum(per_stage.values())}


def report_compile(stages: Dict[str, Dict[str, Dict[str, float]]], inductor: Dict[str, Dict[str, float]]):
    names = list(stages)
    first, last = names[0], names[-1]
    print(f"cold compile per kernel, ms by stage ({' / '.join(names)}):")
    stage_names = list(next(iter(stages[first].values())))
    others = names[1:]
    ratio_title = " ".join(f"{first}/{n}" for n in others)
    print(f"{'kernel':<11}" + "".join(f"{s:>17}" for s in stage_names) + f"{'total':>20}  {ratio_title}")
    totals = {name: 0.0 for name in names}
    for kernel in stages[first]:
        cells = []
        for s in stage_names:
            cells.append(" / ".join(f"{stages[n][kernel][s] * 1e3:.0f}" for n in names))
        for n in names:
            totals[n] += sum(stages[n][kernel].values())
        t = [sum(stages[n][kernel].values()) for n in names]
        print(f"{kernel:<11}" + "".join(f"{c:>17}" for c in cells) + f"{' / '.join(f'{x * 1e3:.0f}' for x in t):>20}  "
              + " ".join(f"{t[0] / x:>{len(first) + len(n) + 1}.2f}x" for n, x in zip(others, t[1:])))
    print(f"{'all':<11}" + " " * 17 * len(stage_names) + f"{' / '.join(f'{totals[n] * 1e3:.0f}' for n in names):>20}  "
          + " ".join(f"{totals[first] / totals[n]:>{len(first) + len(n) + 1}.2f}x" for n in others))
    if inductor:
        i0, i1 = inductor[first], inductor[last]

        def cell(values) -> str:
            return " / ".join(f"{v * 1e3:.0f}" for v in values)

        print(f"{'inductor':<11}" +
              "".join(f"{cell(inductor[n]['per_kernel_stages_s'][s] for n in names):>17}" for s in stage_names) +
              f"{cell(inductor[n]['per_kernel_s'] for n in names):>20}  " +
              " ".join(f"{i0['per_kernel_s'] / inductor[n]['per_kernel_s']:>{len(first) + len(n) + 1}.2f}x"
                       for n in others))
        whole = " / ".join(f"{inductor[n]['compile_and_first_call_s']:.1f} s" for n in names)
        print(f"inductor: the mean of the {i1['kernels']} kernels Inductor compiles for a transformer block "
              f"(torch.compile on the mtia device); the whole torch.compile and first call: {whole}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m triton_mtia.bench.host_overhead",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--scale", type=int, default=1, help="multiply the sample problem sizes")
    parser.add_argument("--compile", action="store_true", help="compile time per stage only, before and now")
    parser.add_argument("--worker", choices=["interpreter", "inductor"], help=argparse.SUPPRESS)
    parser.add_argument("--config", choices=list(COMPILE_CONFIGS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        results = measure_interpreter(args.scale) if args.worker == "interpreter" else \
            measure_inductor_compile(args.config)
        with open(args.json, "w") as f:
            json.dump(results, f)
        return 0

    if args.compile:
        stages, inductor = {}, {}
        for name, config in COMPILE_CONFIGS.items():
            print(f"measuring: cold compiles, {name} ...", flush=True)
            stages[name] = compile_stages(config)
            print(f"measuring: torch.compile of a transformer block, {name} (subprocess) ...", flush=True)
            inductor[name] = inductor_compile_in_subprocess(name)
        report_compile(stages, inductor)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"benchmark": "compile_time", "configs": COMPILE_CONFIGS, "stages_s": stages,
                           "inductor": inductor}, f, indent=2, default=list)
            print(f"wrote {args.json}")
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
