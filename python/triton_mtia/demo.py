"""Runs the sample kernels on the simulated MTIA-2i and checks them against PyTorch.

    python -m triton_mtia.demo [--out DIR]

For each kernel: compile (ttir -> C++ -> .so), launch on CPU tensors,
compare with PyTorch eager (torch.testing.assert_close defaults), and report
simulated cycles, time and per-unit utilisation. The generated C++ and a
Perfetto trace of each launch are written to DIR (./mtia-demo-out/).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

import triton_mtia
from triton_mtia import samples


def _progress(step: int, total: int, name: str, message: str) -> None:
    print(f"[{step}/{total}] {name}: {message}", flush=True)


def run_sample(sample, step: int, total: int, out_dir: Path) -> bool:
    gen = torch.Generator().manual_seed(step)
    inputs = sample.make_inputs(gen)
    shapes = ", ".join("x".join(map(str, t.shape)) for t in inputs)
    _progress(step, total, sample.name, f"{sample.description}; inputs {shapes}")

    trace_path = out_dir / f"{sample.name}.trace.json"
    _progress(step, total, sample.name, "compiling and simulating ...")
    start = time.perf_counter()
    try:
        with triton_mtia.trace(str(trace_path)):
            actual, compiled = sample.run_triton(*inputs)
    except (triton_mtia.CompilationError, triton_mtia.KernelFault) as e:
        print(f"    FAIL: {type(e).__name__}:\n" + "\n".join("      " + line for line in str(e).splitlines()))
        return False
    wall = time.perf_counter() - start

    cpp_path = out_dir / f"{sample.name}.cpp"
    cpp_path.write_text(compiled.asm["cpp"])

    expected = sample.run_torch(*inputs)
    passed, max_err = samples.check(actual, expected)
    verdict = "PASS" if passed else "FAIL"

    stats = triton_mtia.last_launch()
    util = ", ".join(f"{unit} {frac:6.1%}" for unit, frac in sorted(stats.utilization().items()))
    print(f"    {verdict}  max |error| vs PyTorch = {max_err:.3g}")
    print(f"    grid {stats.grid[0]}x{stats.grid[1]}x{stats.grid[2]} = {stats.programs} programs on "
          f"{stats.pes_used} PEs; {stats.cycles:,} cycles = {stats.microseconds:.2f} us simulated "
          f"({wall:.2f} s host wall time, compile included unless cached)")
    print(f"    utilisation (busy / (cycles x PEs used)): {util}")
    print(f"    generated C++: {cpp_path}  (also in Triton's cache as asm['cpp'])")
    print(f"    trace:         {trace_path}  (open in https://ui.perfetto.dev)")
    return verdict == "PASS"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m triton_mtia.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="mtia-demo-out", help="where the C++ and traces go")
    args = parser.parse_args(argv)

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    triton_mtia.activate()
    triton_mtia.simulator()  # made now, so a missing extension fails before any compile
    print(f"triton-mtia {triton_mtia.__version__}: simulator preset '{triton_mtia.settings.preset}'")
    print(f"compiler: {triton_mtia.settings.compiler_path()}")

    total = len(samples.SAMPLES)
    passed = sum(run_sample(s, i, total, out_dir) for i, s in enumerate(samples.SAMPLES, 1))
    print(f"{passed}/{total} kernels match PyTorch; outputs in {out_dir.resolve()}")
    return 0 if passed == total else 1


if __name__ == "__main__":
    sys.exit(main())
