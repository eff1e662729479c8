"""Triton matmul vs the expert C++ GEMM on the simulated MTIA-2i.

    python -m triton_mtia.bench.matmul --json matmul.json

The same GEMMs (fp16 A and B, fp32 C, row-major) run side by side in one
process, with the same blocks, on the same chip model:

* triton: the GPU-style tiled matmul of `triton_mtia.samples.matmul`,
  unmodified, compiled by our backend;
* expert: `expert_gemm` of runtime/kernels/expert_gemm.cpp, written by hand
  against the device API (double-buffered DMA, the accumulator in a CB).

Two placements: `cold`, the operands in LPDDR and the SRAM cache empty at
launch; `warm`, the second of two launches on a chip that keeps its SRAM
(`keep_sram_warm`), so the operands are served from the SRAM cache. Both
kernels see the same memory path in each. Figures are simulated cycles
(deterministic), the fraction of the DPE peak (1024 FP16 MAC/cycle/PE over
the 64 PEs) and the ratio triton / expert. Timing-only mode: a functional
check of both kernels on a small odd shape comes first.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

import torch

import triton_mtia

from .. import runtime
from ..samples.matmul import matmul
from . import calibrate

#: (M, N, K, BLOCK_M, BLOCK_N, BLOCK_K): the largest blocks whose CBs fit.
SHAPES = [
    (1024, 1024, 1024, 128, 128, 64),
    (2048, 2048, 2048, 256, 128, 64),
    (4096, 4096, 4096, 256, 128, 64),
]


def check_triton(gen: torch.Generator) -> float:
    """Max |error| of a functional 300x200x260 Triton matmul vs float64."""
    runtime.configure()
    a = torch.randn(300, 260, generator=gen).half()
    b = torch.randn(260, 200, generator=gen).half()
    c = matmul(a, b, out_dtype=torch.float32, block=(64, 64, 32))
    return float((c.double() - a.double() @ b.double()).abs().max())


def run_triton(M: int, N: int, K: int, bm: int, bn: int, bk: int) -> Dict[str, int]:
    """Cycles of the cold (first) and warm (second) launch."""
    runtime.configure(timing_only=1, keep_sram_warm=1)
    a = torch.empty(M, K, dtype=torch.float16)
    b = torch.empty(K, N, dtype=torch.float16)
    cycles = {}
    for placement in ("cold", "warm"):
        matmul(a, b, out_dtype=torch.float32, block=(bm, bn, bk), group_m=8)
        cycles[placement] = runtime.last_launch().cycles
    runtime.configure()
    return cycles


def run_expert(so: str, M: int, N: int, K: int, bm: int, bn: int, bk: int) -> Dict[str, int]:
    sim = calibrate._sim(timing_only=1, keep_sram_warm=1)
    cycles = {}
    for placement in ("cold", "warm"):
        r = calibrate._gemm(sim, so, M, N, K, bm, bn, bk, place=("lpddr", "lpddr", "lpddr"))
        cycles[placement] = r["cycles"]
    return cycles


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--max-size", type=int, default=4096, help="skip shapes with M above this")
    args = ap.parse_args(argv)
    triton_mtia.activate()

    cfg = runtime._sim_module().presets()["mtia2i"]
    peak = cfg["dpe_fp16_macs_per_cycle"] * cfg["pe_rows"] * cfg["pe_cols"]
    gen = torch.Generator().manual_seed(0)
    rows: List[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        so = calibrate.build_kernels(tmp)
        errors = {"triton": check_triton(gen), "expert": calibrate.check_gemm_math(so)}
        print(f"functional check, max |error|: triton {errors['triton']:.2e} (300x200x260 vs float64), "
              f"expert {errors['expert']:.2e} (200x136x100 vs numpy)")
        shapes = [s for s in SHAPES if s[0] <= args.max_size]
        print(f"{'shape':>16} {'blocks':>11} {'placement':>9} {'triton':>10} {'expert':>10} "
              f"{'triton %pk':>10} {'expert %pk':>10} {'tri/exp':>8}")
        for i, (M, N, K, bm, bn, bk) in enumerate(shapes):
            print(f"  [{i + 1}/{len(shapes)}] {M}x{N}x{K} ...", file=sys.stderr, flush=True)
            tri = run_triton(M, N, K, bm, bn, bk)
            exp = run_expert(so, M, N, K, bm, bn, bk)
            for placement in ("cold", "warm"):
                bound = M * N * K / peak
                row = {"M": M, "N": N, "K": K, "block": [bm, bn, bk], "placement": placement,
                       "triton_cycles": tri[placement], "expert_cycles": exp[placement],
                       "triton_peak_frac": bound / tri[placement],
                       "expert_peak_frac": bound / exp[placement],
                       "triton_over_expert": tri[placement] / exp[placement]}
                rows.append(row)
                print(f"{f'{M}x{N}x{K}':>16} {f'{bm}x{bn}x{bk}':>11} {placement:>9} "
                      f"{row['triton_cycles']:>10} {row['expert_cycles']:>10} "
                      f"{100 * row['triton_peak_frac']:>9.1f}% {100 * row['expert_peak_frac']:>9.1f}% "
                      f"{row['triton_over_expert']:>8.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"errors": errors, "rows": rows}, indent=2) + "\n")
    return 0 if errors["triton"] < 1e-2 and errors["expert"] < 1e-3 else 1


if __name__ == "__main__":
    sys.exit(main())
