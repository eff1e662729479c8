"""The paper's section-5 tailorings of Inductor's MTIA path, each off and on,
side by side on the `mtia` device.

    python -m triton_mtia.bench.inductor_tailoring [--json FILE] [--parts layer_norm,mm_configs,fusion_bound]

* ``layer_norm`` (5.2): `sigmoid(layer_norm(x, w, b))` compiled with the
  layer-norm template (`settings.layer_norm_template`), one kernel with the
  sigmoid fused as its epilogue, and with Inductor's decomposition fused by
  Inductor's scheduler: simulated cycles, template / decomposition.
* ``mm_configs`` (5.3): a matmul under max-autotune with Triton templates,
  with the matmul configs fitted to the chip (`settings.fit_mm_configs`)
  and with Inductor's GPU configs: configs compiled, those that failed
  with OutOfResources, the compile-and-autotune seconds (each in a new
  process with empty caches, so every config is compiled), and the winner's
  simulated time.
* ``fusion_bound`` (why fusion is not bounded by the 15 CBs): a softmax
  after a chain of N inputs, fused whole and with Inductor's
  `max_fusion_unique_io_buffers = 15`: kernels and simulated time.

(5.1, strided tiling, is measured over the op-coverage run:
`python -m triton_mtia.bench.inductor_ops --inductor-config
triton.prefer_nd_tiling=True` against the default, then `--compare`;
bench/README.md.) Figures are
simulated and deterministic; the compile seconds are the host's wall clock.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional, Sequence

import torch

import triton_mtia

from .inductor import cycles_of

DEVICE = "mtia"
PARTS = ("layer_norm", "mm_configs", "fusion_bound")

#: Rows x columns of the layer norms: a small block, transformer
#: activations (BERT-base, a long sequence of a 1024-wide model), and wide
#: rows that Inductor reduces in a loop.
LAYER_NORM_SHAPES = ((32, 64), (256, 768), (1024, 1024), (8192, 1024), (64, 4096))
MM_SHAPES = ((256, 256, 256), (512, 512, 128), (1024, 1024, 1024))
FUSION_INPUTS = (8, 16, 32)


def _simulated(fn, *args) -> Dict[str, object]:
    """Compiles `fn`, then runs it once more: its output, simulated cycles
    and kernels."""
    torch._dynamo.reset()
    compiled = torch.compile(fn)
    compiled(*args)
    return cycles_of(lambda: compiled(*args))


def layer_norm(dtypes=(torch.float32, torch.float16), progress=sys.stderr) -> List[Dict[str, object]]:
    fn = lambda x, w, b: torch.sigmoid(torch.nn.functional.layer_norm(x, x.shape[-1:], w, b))  # noqa: E731
    results = []
    for dtype in dtypes:
        for rows, cols in LAYER_NORM_SHAPES:
            if progress:
                print(f"layer_norm {rows}x{cols} {dtype} ...", file=progress, flush=True)
            gen = torch.Generator().manual_seed(0)
            host = [torch.randn(rows, cols, generator=gen).to(dtype), torch.randn(cols, generator=gen).to(dtype),
                    torch.randn(cols, generator=gen).to(dtype)]
            expected = fn(*(t.float() for t in host)).to(dtype)
            args = [t.to(DEVICE) for t in host]
            runs = {}
            for template in (True, False):
                previous, triton_mtia.settings.layer_norm_template = triton_mtia.settings.layer_norm_template, template
                try:
                    runs[template] = _simulated(fn, *args)
                finally:
                    triton_mtia.settings.layer_norm_template = previous
            tolerance = 1e-4 if dtype == torch.float32 else 1e-2
            results.append({
                "shape": [rows, cols], "dtype": str(dtype).replace("torch.", ""),
                "template_cycles": runs[True]["cycles"], "decomposed_cycles": runs[False]["cycles"],
                "template_over_decomposed": round(runs[True]["cycles"] / runs[False]["cycles"], 4),
                "template_kernels": runs[True]["kernels"], "decomposed_kernels": runs[False]["kernels"],
                "matches": all(torch.allclose(r["out"].cpu(), expected, rtol=tolerance, atol=tolerance)
                               for r in runs.values()),
            })
    return results


_MM_PROBE = """
import json, sys, time, torch, triton_mtia
import torch._inductor.config as config
triton_mtia.settings.fit_mm_configs = sys.argv[4] == "1"
m, n, k = (int(v) for v in sys.argv[1:4])
gen = torch.Generator().manual_seed(0)
a, b = torch.randn(m, k, generator=gen), torch.randn(k, n, generator=gen)
failed = []
import triton_mtia.errors as errors
original = errors.OutOfResources.__init__
def counted(self, *args, **kwargs):
    failed.append(1)
    original(self, *args, **kwargs)
errors.OutOfResources.__init__ = counted
start = time.perf_counter()
with config.patch(max_autotune=True, max_autotune_gemm_backends="TRITON"):
    compiled = torch.compile(lambda a, b: a @ b)
    out = compiled(a.to("mtia"), b.to("mtia"))
seconds = time.perf_counter() - start
with triton_mtia.trace() as recording:
    compiled(a.to("mtia"), b.to("mtia"))
print(json.dumps({"compile_seconds": round(seconds, 1), "out_of_resources": len(failed),
                  "cycles": sum(l.cycles for l in recording.launches),
                  "kernel": recording.launches[-1].kernel,
                  "matches": torch.allclose(out.cpu(), a @ b, rtol=1e-3, atol=1e-3)}))
"""


def _mm_run(m: int, n: int, k: int, fitted: bool) -> Dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="mtia-mm-configs-") as fresh:
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=f"{fresh}/inductor", TRITON_CACHE_DIR=f"{fresh}/triton",
                   TRITON_MTIA_OBJECT_CACHE_DIR=f"{fresh}/objects")
        proc = subprocess.run([sys.executable, "-c", _MM_PROBE, str(m), str(n), str(k), "1" if fitted else "0"],
                              capture_output=True, text=True, env=env, timeout=1200)
    if proc.returncode != 0:
        raise RuntimeError(f"matmul {m}x{n}x{k} failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    # Inductor reports each autotuning's choices (max_autotune_report_choices_stats).
    choices = [json.loads(line)["num_choices"] for line in (proc.stdout + proc.stderr).splitlines()
               if line.startswith('{"num_choices"')]
    result["configs"] = choices[-1] if choices else None
    return result


def mm_configs(progress=sys.stderr) -> List[Dict[str, object]]:
    results = []
    for m, n, k in MM_SHAPES:
        if progress:
            print(f"mm {m}x{n}x{k} ...", file=progress, flush=True)
        runs = {fitted: _mm_run(m, n, k, fitted) for fitted in (True, False)}
        results.append({"shape": [m, n, k], "fitted": runs[True], "inductor": runs[False],
                        "compile_fitted_over_inductor": round(runs[True]["compile_seconds"]
                                                              / runs[False]["compile_seconds"], 3)})
    return results


def fusion_bound(progress=sys.stderr) -> List[Dict[str, object]]:
    import torch._inductor.config as config

    def chain(*xs):
        acc = xs[0]
        for x in xs[1:]:
            acc = acc * 0.5 + x.sin()
        return torch.softmax(acc, -1)

    results = []
    for inputs in FUSION_INPUTS:
        if progress:
            print(f"fusion of {inputs} inputs ...", file=progress, flush=True)
        gen = torch.Generator().manual_seed(0)
        host = [torch.randn(64, 4096, generator=gen) for _ in range(inputs)]
        args = [t.to(DEVICE) for t in host]
        runs = {}
        for bound in (None, 15):
            with config.patch(max_fusion_unique_io_buffers=bound):
                runs[bound] = _simulated(chain, *args)
        results.append({"inputs": inputs, "fused_cycles": runs[None]["cycles"], "fused_kernels": len(runs[None]["kernels"]),
                        "bounded_cycles": runs[15]["cycles"], "bounded_kernels": len(runs[15]["kernels"]),
                        "bounded_over_fused": round(runs[15]["cycles"] / runs[None]["cycles"], 4),
                        "matches": all(torch.allclose(r["out"].cpu(), chain(*host), atol=1e-5) for r in runs.values())})
    return results


def geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def report(figures: Dict[str, List[Dict[str, object]]]) -> str:
    lines = []
    if "layer_norm" in figures:
        lines.append("5.2 layer-norm template: sigmoid(layer_norm(x, w, b)), simulated cycles")
        lines.append(f"  {'shape':<11} {'dtype':<8} {'template':>9} {'decomposed':>11} {'ratio':>7}")
        for r in figures["layer_norm"]:
            ok = "" if r["matches"] else "  MISMATCH"
            lines.append(f"  {'x'.join(map(str, r['shape'])):<11} {r['dtype']:<8} {r['template_cycles']:>9,} "
                         f"{r['decomposed_cycles']:>11,} {r['template_over_decomposed']:>7.3f}{ok}")
        lines.append(f"  geometric mean template / decomposed: "
                     f"{geomean([r['template_over_decomposed'] for r in figures['layer_norm']]):.3f}")
    if "mm_configs" in figures:
        lines.append("5.3 matmul configs under max-autotune, fitted to the chip vs Inductor's GPU configs")
        lines.append(f"  {'shape':<15} {'configs':>9} {'OutOfRes':>9} {'compile s':>11} {'best cycles':>13}")
        for r in figures["mm_configs"]:
            f, i = r["fitted"], r["inductor"]
            lines.append(f"  {'x'.join(map(str, r['shape'])):<15} {f['configs']:>4}/{i['configs']:<4} "
                         f"{f['out_of_resources']:>4}/{i['out_of_resources']:<4} "
                         f"{f['compile_seconds']:>5}/{i['compile_seconds']:<5} {f['cycles']:>6,}/{i['cycles']:<6,}"
                         + ("" if f["matches"] and i["matches"] else "  MISMATCH"))
        lines.append("  (fitted/inductor in each column)")
    if "fusion_bound" in figures:
        lines.append("fusion bounded by 15 CBs (max_fusion_unique_io_buffers=15) vs fused whole: softmax after a chain")
        for r in figures["fusion_bound"]:
            lines.append(f"  {r['inputs']:>3} inputs: fused {r['fused_kernels']} kernel {r['fused_cycles']:>9,} cycles, "
                         f"bounded {r['bounded_kernels']} kernels {r['bounded_cycles']:>9,} cycles, "
                         f"bounded / fused {r['bounded_over_fused']:.3f}" + ("" if r["matches"] else "  MISMATCH"))
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="FILE", help="write the figures to FILE")
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, of {', '.join(PARTS)}")
    args = parser.parse_args(argv)
    parts = args.parts.split(",")
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; known: {', '.join(PARTS)}")
    triton_mtia.runtime.configure()  # the default chip, cold SRAM per launch
    runs = {"layer_norm": layer_norm, "mm_configs": mm_configs, "fusion_bound": fusion_bound}
    figures = {part: runs[part]() for part in parts}
    print(report(figures))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
        print(f"wrote {args.json}", file=sys.stderr)
    matches = [r.get("matches", True) for rs in figures.values() for r in rs]
    matches += [r[side]["matches"] for r in figures.get("mm_configs", []) for side in ("fitted", "inductor")]
    return 0 if all(matches) else 1


if __name__ == "__main__":
    sys.exit(main())
