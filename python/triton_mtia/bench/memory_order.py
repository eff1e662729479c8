"""What keeping a program's loads and stores in order costs, in simulated cycles.

    python -m triton_mtia.bench.memory_order --json memory_order.json

Every kernel runs with the fences of mtia-order-memory (the default) and
without them (``memory_order=False``), in one process on the same chip
model and the same tensors; the figures are simulated cycles
(deterministic), their ratio (ordered / unordered: 1.00 is free), and the
fences the held-back DMA units actually queued. Both runs are checked
against PyTorch, with the simulator's memory-order sanitizer on: none of
these kernels reads its own writes, so both orders are correct and the
ratio is only the price of proving it (the alias tests, and fences the
analysis could not rule out).

Kernels: those of the ablation benchmark (softmax, layernorm, GEMMs,
a streamed row sum, fused attention, Inductor-style kernels), plus kernels
that store inside loops, where a fence could hold the next iteration's
loads back: a copy over blocks of two tensors (the alias test says they
are two allocations), an in-place update over blocks of one tensor (the
analysis proves the next block's load is past the previous store), and a
row-by-row in-place normalization that re-reads its output (a real
read-after-write, which must wait).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Dict, List

import torch
import triton
import triton.language as tl

import triton_mtia

from .. import runtime
from .ablation import KERNELS as ABLATION_KERNELS
from .ablation import Launch


@triton.jit
def copy_blocks_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    c = tl.arange(0, BLOCK)
    for start in range(tl.program_id(0) * BLOCK, n, tl.num_programs(0) * BLOCK):
        m = start + c < n
        tl.store(out_ptr + start + c, tl.load(x_ptr + start + c, mask=m) * 2, mask=m)


@triton.jit
def in_place_blocks_kernel(x_ptr, n, BLOCK: tl.constexpr):
    c = tl.arange(0, BLOCK)
    for start in range(tl.program_id(0) * BLOCK, n, tl.num_programs(0) * BLOCK):
        m = start + c < n
        tl.store(x_ptr + start + c, tl.load(x_ptr + start + c, mask=m) * 0.5 + 1, mask=m)


@triton.jit
def rescale_rows_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    # Two passes over a row: out = x - max(x), then out /= out's sum, read
    # back from memory (the second pass reads what the first wrote).
    row = tl.program_id(0) * cols
    c = tl.arange(0, BLOCK)
    mx = tl.full((BLOCK, ), float("-inf"), tl.float32)
    for s in range(0, cols, BLOCK):
        mx = tl.maximum(mx, tl.load(x_ptr + row + s + c, mask=s + c < cols, other=float("-inf")))
    m = tl.max(mx)
    acc = tl.zeros((BLOCK, ), tl.float32)
    for s in range(0, cols, BLOCK):
        e = tl.exp(tl.load(x_ptr + row + s + c, mask=s + c < cols, other=float("-inf")) - m)
        tl.store(out_ptr + row + s + c, e, mask=s + c < cols)
        acc += tl.where(s + c < cols, e, 0.0)
    total = tl.sum(acc)
    for s in range(0, cols, BLOCK):
        e = tl.load(out_ptr + row + s + c, mask=s + c < cols)
        tl.store(out_ptr + row + s + c, e / total, mask=s + c < cols)


def _copy_blocks(gen) -> Launch:
    x = torch.randn(1 << 20, generator=gen)
    out = torch.empty_like(x)

    def launch(**opts):
        copy_blocks_kernel[(64, )](x, out, x.numel(), BLOCK=2048, **opts)
        return [out], [x * 2]

    return launch


def _in_place_blocks(gen) -> Launch:
    x0 = torch.randn(1 << 20, generator=gen)
    x = x0.clone()

    def launch(**opts):
        x.copy_(x0)
        in_place_blocks_kernel[(64, )](x, x.numel(), BLOCK=2048, **opts)
        return [x], [x0 * 0.5 + 1]

    return launch


def _rescale_rows(gen) -> Launch:
    x = torch.randn(128, 4000, generator=gen)
    out = torch.empty_like(x)

    def launch(**opts):
        rescale_rows_kernel[(128, )](x, out, 4000, BLOCK=1024, **opts)
        return [out], [torch.softmax(x, -1)]

    return launch


KERNELS = dict(ABLATION_KERNELS)
KERNELS.update({
    "copy_blocks_1M": _copy_blocks,
    "in_place_blocks_1M": _in_place_blocks,
    "rescale_rows_128x4000": _rescale_rows,
})


def measure(launch: Launch, ordered: bool) -> runtime.LaunchStats:
    results, expected = launch(memory_order=ordered)
    for got, want in zip(results, expected):
        torch.testing.assert_close(got, want, rtol=2e-3, atol=2e-3)
    return triton_mtia.last_launch()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--kernels", nargs="*", choices=list(KERNELS), help="a subset of the kernels")
    args = ap.parse_args(argv)
    triton_mtia.activate()
    runtime.configure()
    names: List[str] = args.kernels or list(KERNELS)
    figures: Dict[str, Dict[str, int]] = {}
    for k, name in enumerate(names):
        launch = KERNELS[name](torch.Generator().manual_seed(0))
        row = {}
        for ordered in (True, False):
            label = "ordered" if ordered else "unordered"
            print(f"[{k + 1}/{len(names)}] {name}: {label} ...", file=sys.stderr, flush=True)
            stats = measure(launch, ordered)
            row[label] = stats.cycles
            if ordered:
                units = stats.stats["units"]
                row["fences"] = units["dma_in"]["fences"] + units["dma_out"]["fences"]
        figures[name] = row
    width = max(len(n) for n in names)
    print(f"{'kernel':<{width}}  {'ordered':>10}  {'unordered':>10}  {'ratio':>6}  {'fences':>7}")
    for name in names:
        row = figures[name]
        print(f"{name:<{width}}  {row['ordered']:>10}  {row['unordered']:>10}  "
              f"{row['ordered'] / row['unordered']:>6.3f}  {row['fences']:>7}")
    if args.json:
        Path(args.json).write_text(json.dumps({"kernels": names, "figures": figures}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
