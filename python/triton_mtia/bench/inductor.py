"""TorchInductor's kernels vs the handwritten Triton kernels, side by side.

    python -m triton_mtia.bench.inductor [--json FILE] [--scales 1,4]

For each sample of `triton_mtia.samples` (vector add, softmax, layernorm -
GPU-style Triton kernels written by hand) the same function runs twice on
the same inputs on the `mtia` device in one process: the handwritten kernel
(`run_triton`), and `torch.compile` of the sample's PyTorch reference
(`run_torch`), whose kernels Inductor's MTIA path writes and autotunes (by
simulated time). Both are checked against eager PyTorch on the CPU. The figures are
simulated cycles of the second call (after compiling and autotuning), summed
over the call's launches, and the ratio inductor / handwritten (below 1:
Inductor's kernels are faster). The paper reports Inductor kernels 31%
faster than the handwritten kernels they replaced on MTIA-2i.

The handwritten layernorm also stores each row's mean and rstd (for a
backward pass); Inductor's inference kernel does not.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Dict, List, Optional, Sequence

import torch

import triton_mtia

from .. import samples

DEVICE = "mtia"


def cycles_of(call) -> Dict[str, object]:
    """Runs `call` once, recording its launches: (output, cycles, kernels)."""
    with triton_mtia.trace() as recording:
        out = call()
    return {"out": out, "cycles": sum(l.cycles for l in recording.launches),
            "kernels": [l.kernel for l in recording.launches]}


def run_sample(sample, scale: int, seed: int = 0) -> Dict[str, object]:
    gen = torch.Generator().manual_seed(seed)
    host_inputs = sample.make_inputs(gen, scale)
    expected = sample.run_torch(*host_inputs)
    inputs = [t.to(DEVICE) for t in host_inputs]

    handwritten = lambda: sample.run_triton(*inputs)[0]  # noqa: E731
    handwritten()  # compile
    hand = cycles_of(handwritten)

    torch._dynamo.reset()
    compiled = torch.compile(sample.run_torch)
    compiled(*inputs)  # compile and autotune
    ind = cycles_of(lambda: compiled(*inputs))

    return {
        "sample": sample.name,
        "scale": scale,
        "shape": list(inputs[0].shape),
        "handwritten_cycles": hand["cycles"],
        "inductor_cycles": ind["cycles"],
        "inductor_over_handwritten": round(ind["cycles"] / hand["cycles"], 4),
        "inductor_kernels": ind["kernels"],
        "handwritten_matches": samples.check(hand["out"], expected)[0],
        "inductor_matches": samples.check(ind["out"], expected)[0],
    }


def run(scales: Sequence[int] = (1, 4), progress=sys.stderr) -> List[Dict[str, object]]:
    triton_mtia.runtime.configure()  # the default chip, cold SRAM per launch
    results = []
    for sample in samples.SAMPLES:
        for scale in scales:
            if progress:
                print(f"{sample.name} x{scale} ...", file=progress, flush=True)
            results.append(run_sample(sample, scale))
    return results


def table(results: Sequence[Dict[str, object]]) -> str:
    lines = [f"{'sample':<12} {'shape':<12} {'handwritten':>12} {'inductor':>10} {'ratio':>7}  inductor kernels"]
    for r in results:
        shape = "x".join(map(str, r["shape"]))
        ok = "" if r["handwritten_matches"] and r["inductor_matches"] else "  MISMATCH"
        lines.append(f"{r['sample']:<12} {shape:<12} {r['handwritten_cycles']:>12,} {r['inductor_cycles']:>10,} "
                     f"{r['inductor_over_handwritten']:>7.3f}  {', '.join(r['inductor_kernels'])}{ok}")
    lines.append(f"geometric mean of inductor / handwritten: {geomean(results):.3f}")
    return "\n".join(lines)


def geomean(results: Sequence[Dict[str, object]]) -> float:
    import math
    ratios = [r["inductor_over_handwritten"] for r in results]
    return math.exp(sum(math.log(x) for x in ratios) / len(ratios))


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="FILE", help="write the figures to FILE")
    parser.add_argument("--scales", default="1,4", help="input sizes, as multiples of each sample's default")
    args = parser.parse_args(argv)
    results = run([int(s) for s in args.scales.split(",")])
    print(table(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"geomean_inductor_over_handwritten": round(geomean(results), 4), "results": results}, f,
                      indent=1)
        print(f"wrote {args.json}", file=sys.stderr)
    return 0 if all(r["handwritten_matches"] and r["inductor_matches"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
