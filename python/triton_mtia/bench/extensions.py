"""The MTIA language extensions against portable Triton, in simulated cycles.

    python -m triton_mtia.bench.extensions --json extensions.json

Split-K GEMM (`triton_mtia.kernels.splitk`, fp16 A and B, fp32 C) for small
M and long K, where C has too few tiles to keep 64 PEs busy. Four ways, the
same blocks, side by side in one process on the same chip model:

* re: K split over the 8 PEs of each PE column, the partial tiles added
  down the column by `mtl.re_reduce` over the reduction network;
* re_bcast: the same, and each A tile, which the 8 PEs of a PE row all
  need, loaded by the leftmost and `mtl.broadcast` along the row;
* atomic: K split 8 ways, each part `tl.atomic_add`ed into a zeroed C;
* two_pass: K split 8 ways, the parts stored, then summed by a second
  kernel (both launches counted);
* no_split: the GPU-style tiled matmul of `triton_mtia.samples.matmul`,
  one program per C tile.

Two placements, as in `bench.matmul`: `cold`, the operands in LPDDR and the
SRAM cache empty (a fresh chip model for each kernel); `warm`, the second
of two launches on a chip that keeps its SRAM. Figures are simulated cycles
(timing-only: a functional check of every kernel on a small odd shape comes
first), the fraction of the DPE peak (1024 fp16 MAC/cycle/PE over 64 PEs),
and each portable kernel's cycles over the RE kernel's.

Layer norm of a few long rows (8 x 65536 fp32 and the like), fewer rows
than PEs: `samples.layernorm_long_rows` splits each row over a PE column
and puts the row's mean and variance together with `mtl.re_reduce` down
the column and `mtl.broadcast` back up; the portable kernel
(`samples.layernorm`) runs one row per program, at its fastest column
block. Functional runs, checked against PyTorch in float64.

`mtl.extract_slice` in the paper's listing (6.2.1), `samples.slice_reuse`:
a GEMM whose programs use their A rows once per block of N; `reuse` loads
them once and slices them (views, at the constant offsets of a
`tl.static_range`), `reload` loads every A tile again. Timing-only after a
functional check, on a fresh chip each.

    python -m triton_mtia.bench.extensions --parts splitk,layernorm,slice
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Callable, Dict, List

import torch

from .. import runtime
from ..kernels import splitk
from ..samples import layernorm
from ..samples.layernorm_long_rows import layernorm_long_rows
from ..samples.matmul import matmul
from ..samples.slice_reuse import gemm_rows
from .inductor import cycles_of

#: (M, N, K): recommendation- and generation-style small-M GEMMs.
SHAPES = [(32, 512, 4096), (32, 1024, 8192), (64, 512, 8192), (128, 512, 4096)]
BLOCK = (32, 64, 64)

VARIANTS: Dict[str, Callable] = {
    "re": lambda a, b: splitk.splitk_re(a, b, block=BLOCK),
    "re_bcast": lambda a, b: splitk.splitk_re(a, b, block=BLOCK, broadcast_a=True),
    "atomic": lambda a, b: splitk.splitk_atomic(a, b, block=BLOCK),
    "two_pass": lambda a, b: splitk.splitk_two_pass(a, b, block=BLOCK),
    "no_split": lambda a, b: matmul(a, b, out_dtype=torch.float32, block=BLOCK),
}


def check(gen: torch.Generator) -> Dict[str, float]:
    """Max |error| of each variant against float64, at a shape with tails."""
    a = torch.randn(40, 1000, generator=gen).half()
    b = torch.randn(1000, 300, generator=gen).half()
    expected = a.double() @ b.double()
    return {name: float((run(a, b).double() - expected).abs().max()) for name, run in VARIANTS.items()}


def cycles(run: Callable, M: int, N: int, K: int) -> Dict[str, int]:
    """Cycles of the cold (first) and warm (second) call on a fresh chip."""
    runtime.configure(timing_only=1, keep_sram_warm=1)
    # On the mtia device: its allocator gives the same addresses in every
    # run, so the cycles (which depend on addresses through the LPDDR
    # channels and SRAM pages) do not depend on the host's allocator.
    a = torch.empty(M, K, dtype=torch.float16, device="mtia")
    b = torch.empty(K, N, dtype=torch.float16, device="mtia")
    try:
        return {placement: cycles_of(lambda: run(a, b))["cycles"] for placement in ("cold", "warm")}
    finally:
        runtime.configure()


def _geomean(values) -> float:
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values))


def run_splitk() -> dict:
    cfg = runtime.presets()["mtia2i"]
    peak = cfg["dpe_fp16_macs_per_cycle"] * cfg["pe_rows"] * cfg["pe_cols"]
    errors = check(torch.Generator().manual_seed(0))
    print("split-K GEMM; functional check, max |error| vs float64 at 40x300x1000: " +
          ", ".join(f"{name} {err:.1e}" for name, err in errors.items()))
    rows: List[dict] = []
    names = list(VARIANTS)
    print(f"{'shape':>15} {'placement':>9} " + " ".join(f"{n:>9}" for n in names) + f" {'re %pk':>7} " +
          " ".join(f"{n + '/re':>12}" for n in names[1:]))
    for i, (M, N, K) in enumerate(SHAPES):
        print(f"  [{i + 1}/{len(SHAPES)}] {M}x{N}x{K} ...", file=sys.stderr, flush=True)
        measured = {name: cycles(run, M, N, K) for name, run in VARIANTS.items()}
        for placement in ("cold", "warm"):
            row = {"M": M, "N": N, "K": K, "block": list(BLOCK), "placement": placement,
                   "cycles": {name: measured[name][placement] for name in names}}
            row["re_peak_frac"] = M * N * K / peak / row["cycles"]["re"]
            row["over_re"] = {name: row["cycles"][name] / row["cycles"]["re"] for name in names[1:]}
            rows.append(row)
            print(f"{f'{M}x{N}x{K}':>15} {placement:>9} " + " ".join(f"{row['cycles'][n]:>9}" for n in names) +
                  f" {100 * row['re_peak_frac']:>6.1f}% " + " ".join(f"{row['over_re'][n]:>12.2f}" for n in names[1:]))
    geomean = {
        placement: {name: _geomean(r["over_re"][name] for r in rows if r["placement"] == placement)
                    for name in names[1:]}
        for placement in ("cold", "warm")
    }
    for placement, ratios in geomean.items():
        print(f"geomean {placement}: " + ", ".join(f"{name}/re {ratio:.2f}" for name, ratio in ratios.items()))
    return {"errors": errors, "rows": rows, "geomean_over_re": geomean, "ok": max(errors.values()) < 1e-2}


#: (rows, columns): a few long rows, fewer than the 64 PEs.
LAYERNORM_SHAPES = [(8, 65536), (4, 65536), (16, 32768), (3, 50000)]
#: The portable kernel's column blocks; the fastest counts (as an autotuner would pick).
PORTABLE_BLOCKS = (1024, 2048, 4096)


def run_layernorm() -> dict:
    """Functional runs (checked against PyTorch) on a fresh chip each."""
    print("\nlayer norm of long rows: each row over a PE column (re_reduce + broadcast) vs one row per program")
    print(f"{'shape':>12} {'pe_column':>10} {'portable':>9} {'block':>6} {'portable/pe_column':>19} {'max err':>8}")
    gen = torch.Generator().manual_seed(1)
    rows: List[dict] = []
    for i, (R, L) in enumerate(LAYERNORM_SHAPES):
        print(f"  [{i + 1}/{len(LAYERNORM_SHAPES)}] {R}x{L} ...", file=sys.stderr, flush=True)
        x, w, b = (torch.randn(R, L, generator=gen) * 3 + 1, torch.rand(L, generator=gen) + 0.5,
                   torch.randn(L, generator=gen))
        expected = torch.nn.functional.layer_norm(x.double(), (L, ), w.double(), b.double(), layernorm.EPS)
        x, w, b = x.to("mtia"), w.to("mtia"), b.to("mtia")

        def portable(block):
            y = torch.empty_like(x)
            stats = torch.empty(2, R, device="mtia")
            layernorm.layernorm_kernel[(R, )](x, y, w, b, stats[0], stats[1], x.stride(0), L, layernorm.EPS,
                                              BLOCK=block)
            return y

        runtime.configure()
        split = cycles_of(lambda: layernorm_long_rows(x, w, b, layernorm.EPS))
        best = None
        for block in PORTABLE_BLOCKS:
            runtime.configure()
            got = cycles_of(lambda: portable(block))
            if best is None or got["cycles"] < best[1]["cycles"]:
                best = (block, got)
        error = max(float((split["out"].cpu().double() - expected).abs().max()),
                    float((best[1]["out"].cpu().double() - expected).abs().max()))
        row = {"rows": R, "cols": L, "cycles": {"pe_column": split["cycles"], "portable": best[1]["cycles"]},
               "portable_block": best[0], "portable_over_pe_column": best[1]["cycles"] / split["cycles"],
               "max_error": error}
        rows.append(row)
        print(f"{f'{R}x{L}':>12} {split['cycles']:>10} {best[1]['cycles']:>9} {best[0]:>6} "
              f"{row['portable_over_pe_column']:>19.2f} {error:>8.1e}")
    geomean = _geomean(r["portable_over_pe_column"] for r in rows)
    print(f"geomean portable/pe_column {geomean:.2f}")
    return {"rows": rows, "geomean_portable_over_pe_column": geomean,
            "ok": max(r["max_error"] for r in rows) < 1e-4}


#: (M, N, K): each program's A rows [32, K] are used N / 64 times.
SLICE_SHAPES = [(2048, 512, 512), (2048, 1024, 1024), (1024, 2048, 512)]


def run_slice() -> dict:
    """Timing-only, on a fresh chip each, after a functional check."""
    gen = torch.Generator().manual_seed(2)
    a = torch.randn(100, 256, generator=gen).half()
    b = torch.randn(256, 300, generator=gen).half()
    expected = a.double() @ b.double()
    errors = {name: float((gemm_rows(a, b, reuse).double() - expected).abs().max())
              for name, reuse in (("reload", False), ("reuse", True))}
    print("\nextract_slice: A rows loaded once and sliced (reuse) vs every A tile reloaded; functional check, "
          "max |error| vs float64 at 100x300x256: " + ", ".join(f"{n} {e:.1e}" for n, e in errors.items()))
    print(f"{'shape':>15} {'reload':>9} {'reuse':>9} {'reload/reuse':>13}")
    rows: List[dict] = []
    for i, (M, N, K) in enumerate(SLICE_SHAPES):
        print(f"  [{i + 1}/{len(SLICE_SHAPES)}] {M}x{N}x{K} ...", file=sys.stderr, flush=True)
        a = torch.empty(M, K, dtype=torch.float16, device="mtia")
        b = torch.empty(K, N, dtype=torch.float16, device="mtia")
        measured = {}
        for name, reuse in (("reload", False), ("reuse", True)):
            runtime.configure(timing_only=1)
            try:
                measured[name] = cycles_of(lambda: gemm_rows(a, b, reuse))["cycles"]
            finally:
                runtime.configure()
        row = {"M": M, "N": N, "K": K, "cycles": measured, "reload_over_reuse": measured["reload"] / measured["reuse"]}
        rows.append(row)
        print(f"{f'{M}x{N}x{K}':>15} {measured['reload']:>9} {measured['reuse']:>9} {row['reload_over_reuse']:>13.2f}")
    geomean = _geomean(r["reload_over_reuse"] for r in rows)
    print(f"geomean reload/reuse {geomean:.2f}")
    return {"errors": errors, "rows": rows, "geomean_reload_over_reuse": geomean, "ok": max(errors.values()) < 1e-2}


PARTS = {"splitk": run_splitk, "layernorm": run_layernorm, "slice": run_slice}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, of {', '.join(PARTS)}")
    args = ap.parse_args(argv)
    report = {part: PARTS[part]() for part in args.parts.split(",")}
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0 if all(r["ok"] for r in report.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
