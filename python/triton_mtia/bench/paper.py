"""The paper's evaluation (section 7) in one command, in simulated time.

    python -m triton_mtia.bench.paper --json FILE --out DIR [--quick]

Each figure is measured by this run on the simulated MTIA-2i (the `mtia2i`
preset), drawn as a PNG into DIR, and put beside the paper's figure in
DIR/report.md with the command that made it. FILE holds the raw cycles
under `fig6` ... `fig10` and `table1`. `--quick` runs a
reduced set of shapes (a few minutes; the tests run it); the full run takes
much longer and is not part of CI.

* fig6: GEMM, % of the chip's roofline (its MACs at the DPE's peak, or the
  bytes of A and B at LPDDR bandwidth, whichever is longer), the
  library's dispatcher (`triton_mtia.kernels.gemm`) and the expert C++ GEMM
  (runtime/kernels/expert_gemm.cpp, both cores, double-buffered DMA, its
  blocks chosen to give every PE a tile) side by side, on recommendation-
  and generative-model shapes, fp16, and recommendation shapes in int8
  (32-bit accumulation); operands in LPDDR at launch.
* fig7: fused attention (`kernels.attention`) over the decomposed baseline
  (`kernels.attention_decomposed`: batched GEMM, softmax, batched GEMM,
  each one launch over all heads), and the fused Triton kernel's speed over
  the expert C++ fused attention (runtime/kernels/expert_attention.cpp), for
  recommendation-style (short sequences, many heads) and generative-style
  (long sequences) configurations, non-causal and causal; for causal, the
  zigzag PID mapping over linear.
* fig8: the 17 long-tail operators (`kernels.LONG_TAIL`), the geomean over
  each one's shapes of its % of the memory roofline (the bytes it reads
  at LPDDR bandwidth, those and the bytes it writes at SRAM bandwidth, the
  longer, over its cycles: inputs are in LPDDR at launch, outputs are
  written into the SRAM in front of it), and Triton's speed over the
  expert C++ kernel's where one exists (`kernels.expert.EXPERTS`).
* fig9: `sigmoid(layer_norm(x))` through torch.compile on the mtia device
  (Inductor's layer-norm template with the sigmoid fused as its epilogue)
  over the handwritten fused Triton kernel (`kernels.layer_norm_sigmoid`).
* table1: op coverage of torch.compile on the mtia device over PyTorch's
  OpInfo database (`bench.inductor_ops`): success, Triton error, Inductor
  error, misc, over the op/dtype/sample cases run (quick: 12 ops, one
  sample each; full: every op, one sample each, float32).

* fig10: the sections of a recommendation model's training step that
  Inductor compiles, GEMMs aside as in the paper (dense-feature
  standardization, weighted sum-pooling of embeddings, layer norm with
  GELU, the logistic loss, SGD with momentum), each a sub-graph of its
  forward and backward traced to ATen operators: the speed of Inductor's
  fused kernels over the kernels they replace, each operator that eager
  mode dispatches (`native_layer_norm`, its backward, `gelu`, `std`, ...)
  as a kernel of its own (Inductor's kernel of that operator alone, which
  Figure 9 puts on par with a handwritten one); and Inductor's average
  fusion depth (ATen operators per generated kernel, counted after
  Inductor's decompositions).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

import torch
import triton

import triton_mtia

from .. import kernels, runtime
from ..kernels import expert
from ..kernels.gemm import PES
from . import calibrate
from .inductor_tailoring import geomean

DEVICE = "mtia"

#: GEMM shapes (M, N, K) of Figure 6, by model class. Recommendation: a
#: small batch M against wide weights; generative: prefill-sized M and the
#: 512x2048x26592 projection of the paper's calibration.
GEMM_SHAPES = {
    "recommendation": [(1, 1024, 1024), (32, 4096, 1024), (128, 2048, 2048), (512, 1024, 4096),
                       (2048, 512, 1024), (32, 8192, 8192)],
    "generative": [(128, 4096, 4096), (512, 8192, 2048), (2048, 2048, 2048), (2048, 8192, 8192),
                   (512, 2048, 26592)],
}
GEMM_SHAPES_QUICK = {"recommendation": [(32, 1024, 1024), (128, 512, 1024)], "generative": [(512, 512, 512)]}
#: int8 GEMMs of Figure 6 (quantized recommendation inference).
GEMM_INT8_SHAPES = {"recommendation": [(32, 4096, 1024), (128, 2048, 2048), (512, 1024, 4096), (2048, 512, 1024)]}
GEMM_INT8_SHAPES_QUICK = {"recommendation": [(128, 512, 1024)]}

#: Attention configurations (heads, L, D) of Figure 7.
ATTENTION = {
    "recommendation": [(16, 128, 64), (16, 256, 64), (8, 512, 64)],
    "generative": [(4, 1024, 128), (2, 2048, 128), (1, 4096, 128), (1, 8192, 128)],
}
ATTENTION_QUICK = {"recommendation": [(4, 128, 64)], "generative": [(1, 512, 64)]}

LAYER_NORM_SHAPES = [(1024, 1024), (4096, 512), (512, 4096)]
LAYER_NORM_SHAPES_QUICK = [(256, 512)]

TABLE1_QUICK_OPS = ["add", "mul", "exp", "sigmoid", "softmax", "nn.functional.layer_norm", "sum", "amax",
                    "cumsum", "where", "nn.functional.gelu", "mean"]

#: The paper's figures, for the report.
PAPER = {
    "fig6": "Triton GEMMs above 80% of the roofline on both model classes, on par with expert C++",
    "fig7": "fused attention faster than the decomposed baseline, more so for generative configurations "
            "with longer sequences",
    "fig8": "long-tail Triton kernels on par with expert C++ (geomean per operator), with outliers both ways",
    "fig9": "Inductor's automatically fused layernorm-sigmoid competitive with the handwritten fused kernel",
    "fig10": "Inductor's kernels 31% faster in aggregate than the handwritten kernels they replaced, per "
             "sub-graph speedups mostly above 1; average fusion depth 3.9 ATen operators, deepest 12",
    "table1": "success 94.5% (inference) / 94.7% (training), Triton error 4.6% / 4.5%, Inductor error "
              "0.03% / 0.01%, misc 0.5% / 0.6%",
}


def _progress(message: str) -> None:
    print(f"[paper] {message}", file=sys.stderr, flush=True)


def _cycles(call: Callable) -> int:
    """Simulated cycles of every launch `call` makes."""
    return runtime.measure_cycles(call)[1]


# ---------------------------------------------------------------------------
# Figure 6: GEMM
# ---------------------------------------------------------------------------


def _expert_blocks(M: int, N: int) -> tuple:
    """The expert GEMM's blocks (within its KernelInfo: BM <= 256, BN <= 128,
    BK 64): the largest tile that still gives every PE a program."""
    tallest = max(16, min(256, triton.next_power_of_2(M)))  # no taller than M needs
    for bm, bn in ((256, 128), (128, 128), (64, 128), (64, 64), (32, 64), (32, 32), (16, 32)):
        if bm <= tallest and triton.cdiv(M, bm) * triton.cdiv(N, bn) >= PES:
            return bm, bn, 64
    return min(tallest, 64), 32, 64


def fig6(quick: bool) -> List[Dict[str, object]]:
    rows = []
    runs = [(torch.float16, GEMM_SHAPES_QUICK if quick else GEMM_SHAPES),
            (torch.int8, GEMM_INT8_SHAPES_QUICK if quick else GEMM_INT8_SHAPES)]
    with tempfile.TemporaryDirectory() as tmp:
        so = calibrate.build_kernels(tmp)
        for dtype, shapes in runs:
            name = str(dtype).replace("torch.", "")
            for model, group in shapes.items():
                for M, N, K in group:
                    _progress(f"fig6 {model} {name} GEMM {M}x{N}x{K}")
                    runtime.configure(timing_only=1)
                    a = torch.empty(M, K, dtype=dtype, device=DEVICE)
                    b = torch.empty(K, N, dtype=dtype, device=DEVICE)
                    plan = kernels.gemm_plan(M, N, K, dtype)
                    triton_cycles = _cycles(lambda: kernels.gemm(a, b))
                    del a, b
                    bm, bn, bk = _expert_blocks(M, N)
                    sim = calibrate._sim(timing_only=1)
                    expert = calibrate._gemm(sim, so, M, N, K, bm, bn, bk, dual=True, int8=dtype == torch.int8,
                                             place=("lpddr", "lpddr", "lpddr"))["cycles"]
                    roof = kernels.roofline_cycles(M, N, K, dtype)
                    rows.append({"model": model, "dtype": name, "M": M, "N": N, "K": K, "variant": plan.variant,
                                 "block": list(plan.block), "expert_block": [bm, bn, bk],
                                 "triton_cycles": triton_cycles, "expert_cycles": int(expert),
                                 "roofline_cycles": round(roof, 1),
                                 "triton_roofline_frac": round(roof / triton_cycles, 4),
                                 "expert_roofline_frac": round(roof / expert, 4),
                                 "triton_over_expert_speed": round(expert / triton_cycles, 4)})
    runtime.configure()
    return rows


# ---------------------------------------------------------------------------
# Figure 7: attention
# ---------------------------------------------------------------------------


def fig7(quick: bool) -> List[Dict[str, object]]:
    rows = []
    configs = ATTENTION_QUICK if quick else ATTENTION
    runtime.configure(timing_only=1)
    for model, group in configs.items():
        for heads, seq, dim in group:
            _progress(f"fig7 {model} attention heads={heads} L={seq} D={dim}")
            q, k, v = (torch.empty(heads, seq, dim, dtype=torch.float16, device=DEVICE) for _ in range(3))
            row = {"model": model, "heads": heads, "L": seq, "D": dim}
            for causal in (False, True):
                tag = "causal" if causal else "full"
                row[f"{tag}_fused_cycles"] = _cycles(lambda: kernels.attention(q, k, v, causal=causal))
                row[f"{tag}_decomposed_cycles"] = _cycles(
                    lambda: kernels.attention_decomposed(q, k, v, causal=causal))
                row[f"{tag}_speedup"] = round(row[f"{tag}_decomposed_cycles"] / row[f"{tag}_fused_cycles"], 4)
                if expert.takes_attention(seq, dim):
                    row[f"{tag}_expert_cycles"] = _cycles(lambda: expert.attention(q, k, v, causal=causal))
                    row[f"{tag}_triton_over_expert_speed"] = round(
                        row[f"{tag}_expert_cycles"] / row[f"{tag}_fused_cycles"], 4)
            from ..kernels import flash as fused
            row["causal_linear_cycles"] = _cycles(lambda: fused.attention(q, k, v, causal=True))
            row["zigzag_over_linear_speedup"] = round(row["causal_linear_cycles"] / row["causal_fused_cycles"], 4)
            rows.append(row)
    runtime.configure()
    return rows


# ---------------------------------------------------------------------------
# Figure 8: long-tail operators
# ---------------------------------------------------------------------------


def fig8(quick: bool) -> List[Dict[str, object]]:
    rows = []
    config = runtime.simulator().config
    lpddr = config["lpddr_gbps"] / config["clock_ghz"]
    sram = config["sram_gbps"] / config["clock_ghz"]
    for name, op in kernels.LONG_TAIL.items():
        shapes = op.shapes[:1] if quick else op.shapes
        per_shape = []
        for shape in shapes:
            _progress(f"fig8 {name} {shape}")
            inputs = [t.to(DEVICE) for t in op.make_inputs(torch.Generator().manual_seed(0), *shape)]
            out = op.run(*inputs)  # compile
            cycles = _cycles(lambda: op.run(*inputs))
            # Inputs come from LPDDR (cold at launch); outputs go to the SRAM
            # that fronts it, which also takes the inputs as they pass.
            read, written = op.bytes_moved(inputs, out if isinstance(out, (tuple, list)) else (out, ))
            roof = max(read / lpddr, (read + written) / sram)
            entry = {"shape": list(shape), "triton_cycles": cycles, "roofline_cycles": round(roof, 1),
                     "roofline_frac": round(roof / cycles, 4)}
            if name in expert.EXPERTS:
                expert.EXPERTS[name](*inputs)  # build
                entry["expert_cycles"] = _cycles(lambda: expert.EXPERTS[name](*inputs))
                entry["triton_over_expert_speed"] = round(entry["expert_cycles"] / cycles, 4)
            per_shape.append(entry)
        speeds = [s["triton_over_expert_speed"] for s in per_shape if "triton_over_expert_speed" in s]
        rows.append({"op": name, "shapes": per_shape,
                     "roofline_frac_geomean": round(geomean([s["roofline_frac"] for s in per_shape]), 4),
                     "triton_over_expert_speed_geomean": round(geomean(speeds), 4) if speeds else None})
    return rows


# ---------------------------------------------------------------------------
# Figure 9: Inductor's layernorm-sigmoid vs the handwritten fused kernel
# ---------------------------------------------------------------------------


def fig9(quick: bool) -> List[Dict[str, object]]:
    rows = []
    fn = lambda x, w, b: torch.sigmoid(torch.nn.functional.layer_norm(x, x.shape[-1:], w, b))  # noqa: E731
    for rows_, cols in (LAYER_NORM_SHAPES_QUICK if quick else LAYER_NORM_SHAPES):
        _progress(f"fig9 layernorm-sigmoid {rows_}x{cols}")
        gen = torch.Generator().manual_seed(0)
        host = [torch.randn(rows_, cols, generator=gen), torch.randn(cols, generator=gen),
                torch.randn(cols, generator=gen)]
        args = [t.to(DEVICE) for t in host]
        expected = fn(*host)
        handwritten = kernels.layer_norm_sigmoid(*args)
        hand_cycles = _cycles(lambda: kernels.layer_norm_sigmoid(*args))
        torch._dynamo.reset()
        compiled = torch.compile(fn)
        inductor_out = compiled(*args)  # compile and autotune
        inductor_cycles = _cycles(lambda: compiled(*args))
        rows.append({"shape": [rows_, cols], "handwritten_cycles": hand_cycles, "inductor_cycles": inductor_cycles,
                     "inductor_over_handwritten_speed": round(hand_cycles / inductor_cycles, 4),
                     "matches": bool(torch.allclose(handwritten.cpu(), expected, rtol=1e-4, atol=1e-4)
                                     and torch.allclose(inductor_out.cpu(), expected, rtol=1e-4, atol=1e-4))})
    return rows


# ---------------------------------------------------------------------------
# Figure 10: a recommendation model's training step, per sub-graph
# ---------------------------------------------------------------------------


def _sub_graphs(batch: int, dim: int, tables: int) -> Dict[str, tuple]:
    """The training step's sections that Inductor compiles (its matrix
    products aside) as (function, arguments): each returns its outputs and
    the gradients of its inputs given an upstream gradient (its forward and
    backward), as one graph-mode section of a training step does."""
    gen = torch.Generator().manual_seed(0)
    rand = lambda *shape: torch.randn(*shape, generator=gen).to(DEVICE)  # noqa: E731
    F = torch.nn.functional
    dense_in = 16

    def with_grads(forward, wrt):
        def section(*args):
            inputs = [a.detach().requires_grad_(i in wrt) for i, a in enumerate(args[:-1])]
            out = forward(*inputs)
            grads = torch.autograd.grad(out, [inputs[i] for i in wrt], args[-1])
            return (out, *grads)
        return section

    def dense_features(x):
        # Non-negative counts, log-scaled, standardized per feature.
        h = torch.log1p(torch.relu(x))
        return (h - h.mean(0)) / (h.std(0) + 1e-5)

    def pooled_embeddings(rows, weights):
        # Each table's looked-up rows [B, L, D], weighted and sum-pooled.
        return (rows * weights[..., None]).sum(2)

    def layer_norm_gelu(x, w, b):
        return F.gelu(F.layer_norm(x, x.shape[-1:], w, b))

    def loss(logits, labels):
        return F.binary_cross_entropy_with_logits(logits, labels)

    def sgd_momentum(p, grad, buf):
        buf = 0.9 * buf + grad + 1e-4 * p
        return p - 0.01 * buf, buf

    width = dim * (tables + 1)
    return {
        "dense_features": (with_grads(dense_features, (0, )), (rand(batch, dense_in), rand(batch, dense_in))),
        "pooled_embeddings": (with_grads(pooled_embeddings, (0, 1)),
                              (rand(batch, tables, 8, dim), rand(batch, tables, 8), rand(batch, tables, dim))),
        "layer_norm_gelu": (with_grads(layer_norm_gelu, (0, 1, 2)),
                            (rand(batch, width), rand(width), rand(width), rand(batch, width))),
        "loss": (with_grads(loss, (0, )), (rand(batch), (rand(batch) > 0).float(), torch.ones((), device=DEVICE))),
        "sgd_momentum": (sgd_momentum, (rand(65536), rand(65536), rand(65536))),
    }


def _computes(node) -> bool:
    """Whether the graph node `node` is an ATen operator that computes (not
    a view, nor Python's getitem of a tuple result)."""
    return isinstance(node.target, torch._ops.OpOverload) and not node.target.is_view


def _run_per_op(graph, args):
    """Runs the ATen graph `graph` in eager mode on the device: each
    operator the kernel of its own that eager mode on mtia runs (the
    library's, or Inductor's kernel of that operator alone:
    triton_mtia/aten/). An operator that computes on the host would make
    the baseline look faster than it is: that is an error."""
    from .. import profiler
    with profiler.profile() as prof:
        out = graph(*args)
    host = sorted({c.name for c in prof.compute_calls() if c.where != "chip"})
    if host:
        raise RuntimeError(f"fig10: {', '.join(host)} ran on the host, not as a kernel of its own")
    return out


def fig10(quick: bool) -> Dict[str, object]:
    from torch._inductor.decomposition import select_decomp_table
    from torch.fx.experimental.proxy_tensor import make_fx

    from .fusion import fusion_stats
    batch, dim, tables = (256, 16, 4) if quick else (2048, 64, 8)
    rows = []
    all_kernels = []
    sections = _sub_graphs(batch, dim, tables)
    if quick:  # two small sections: compiling every operator alone takes a while
        sections = {name: sections[name] for name in ("loss", "sgd_momentum")}
    for name, (section, args) in sections.items():
        _progress(f"fig10 {name}")
        # The baseline runs the operators eager mode dispatches (a layer
        # norm, its backward, a GELU: each a library kernel); the fusion
        # depth counts the operators after Inductor's own decompositions
        # (layer norm into means and variances), which is what it fuses.
        eager = make_fx(section)(*args)
        graph = make_fx(section, decomposition_table=select_decomp_table())(*args)
        torch._dynamo.reset()
        _, stats = fusion_stats(graph, *args)  # compiles
        fused = torch.compile(graph)
        fused(*args)
        fused_cycles = _cycles(lambda: fused(*args))
        _run_per_op(eager, args)  # compiles each operator's kernel
        before = runtime.launch_count
        per_op_cycles = _cycles(lambda: _run_per_op(eager, args))
        per_op_launches = runtime.launch_count - before
        aten_ops = sum(1 for n in graph.graph.nodes if n.op == "call_function")
        eager_ops = sum(1 for n in eager.graph.nodes if n.op == "call_function" and _computes(n))
        all_kernels += stats.kernels
        rows.append({"sub_graph": name, "aten_ops": aten_ops, "eager_ops": eager_ops, "fused_cycles": fused_cycles,
                     "per_op_cycles": per_op_cycles, "per_op_launches": per_op_launches,
                     "speedup": round(per_op_cycles / fused_cycles, 4),
                     "kernels": len(stats.kernels), "fusion_depth": round(stats.fusion_depth, 2)})
    depth = sum(len(k.aten_ops) for k in all_kernels) / len(all_kernels) if all_kernels else 0.0
    return {"batch": batch, "dim": dim, "tables": tables, "sub_graphs": rows,
            "speedup_geomean": round(geomean([r["speedup"] for r in rows]), 4), "fusion_depth": round(depth, 2),
            "deepest_fusion": max((len(k.aten_ops) for k in all_kernels), default=0)}


# ---------------------------------------------------------------------------
# Table 1: op coverage
# ---------------------------------------------------------------------------


def table1(quick: bool) -> Dict[str, object]:
    from . import inductor_ops
    _progress("table1 op coverage of torch.compile (bench.inductor_ops)")
    results = inductor_ops.run(TABLE1_QUICK_OPS if quick else None, samples=1, dtype=torch.float32)
    return {"ops": len(results), "samples_per_op": 1, "dtype": "float32", **inductor_ops.table1(results),
            "coverage": inductor_ops.coverage(results)}


# ---------------------------------------------------------------------------
# Pictures and the report
# ---------------------------------------------------------------------------


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def draw(figures: Dict[str, object], out: Path) -> Dict[str, str]:
    plt = _plt()
    paths = {}

    def save(fig, name):
        path = out / f"{name}.png"
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths[name] = path.name

    def paired_bars(name, rows, left, right, reference, labels, ylabel, title):
        """Two bars per row, (label, value of a row) each, and a reference
        line, (y, line style)."""
        fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(rows)), 3.6))
        x = range(len(rows))
        for shift, (label, value) in ((-0.2, left), (0.2, right)):
            ax.bar([i + shift for i in x], [value(r) for r in rows], 0.4, label=label)
        ax.axhline(reference[0], color="gray", linestyle=reference[1], linewidth=0.8)
        ax.set_xticks(list(x), [labels(r) for r in rows], fontsize=7)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend(fontsize=8)
        save(fig, name)

    paired_bars("fig6", figures["fig6"], ("Triton (library)", lambda r: 100 * r["triton_roofline_frac"]),
                ("expert C++", lambda r: 100 * r["expert_roofline_frac"]), (80, "--"),
                lambda r: f"{r['M']}x{r['N']}x{r['K']}\n{r['model'][:3]} {r['dtype']}", "% of roofline",
                "Figure 6: GEMM")
    paired_bars("fig7", figures["fig7"], ("non-causal", lambda r: r["full_speedup"]),
                ("causal (zigzag)", lambda r: r["causal_speedup"]), (1, "-"),
                lambda r: f"H{r['heads']} L{r['L']} D{r['D']}\n{r['model'][:3]}", "speedup over decomposed",
                "Figure 7: fused attention")

    rows = figures["fig8"]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 5.6), sharex=True)
    top.bar(range(len(rows)), [100 * r["roofline_frac_geomean"] for r in rows])
    top.set_ylabel("% of memory roofline")
    top.set_title("Figure 8: long-tail operators (geomean over shapes)")
    speeds = [r["triton_over_expert_speed_geomean"] or 0 for r in rows]
    bottom.bar(range(len(rows)), speeds, color="tab:orange")
    bottom.axhline(1, color="gray", linewidth=0.8)
    bottom.set_ylabel("Triton / expert speed")
    bottom.set_xticks(range(len(rows)), [r["op"] for r in rows], rotation=60, ha="right", fontsize=7)
    save(fig, "fig8")

    f10 = figures["fig10"]
    rows = f10["sub_graphs"]
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ax.bar(range(len(rows)), [r["speedup"] for r in rows])
    ax.axhline(1, color="gray", linewidth=0.8)
    ax.set_xticks(range(len(rows)), [r["sub_graph"] for r in rows], rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("speedup over per-op kernels")
    depth = ax.twinx()
    depth.plot(range(len(rows)), [r["fusion_depth"] for r in rows], "o", color="tab:red")
    depth.set_ylabel("fusion depth (ATen ops / kernel)", color="tab:red")
    depth.set_ylim(bottom=0)
    ax.set_title("Figure 10: training step sub-graphs")
    save(fig, "fig10")

    rows = figures["fig9"]
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.bar(range(len(rows)), [r["inductor_over_handwritten_speed"] for r in rows])
    ax.axhline(1, color="gray", linewidth=0.8)
    ax.set_xticks(range(len(rows)), [f"{r['shape'][0]}x{r['shape'][1]}" for r in rows], fontsize=8)
    ax.set_ylabel("Inductor speed / handwritten")
    ax.set_title("Figure 9: layernorm-sigmoid")
    save(fig, "fig9")
    return paths


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def report(figures: Dict[str, object], pictures: Dict[str, str], command: str, seconds: float) -> str:
    pct = lambda v: f"{100 * v:.1f}%"  # noqa: E731
    out = [f"# The paper's evaluation on the simulated MTIA-2i\n",
           f"Made by `{command}` in {seconds / 60:.1f} minutes; every figure below is from that run "
           f"(simulated cycles, deterministic; raw figures in the JSON).\n"]
    f6 = figures["fig6"]
    out += ["## Figure 6: GEMM, % of roofline\n", f"Paper: {PAPER['fig6']}.\n", f"![fig6]({pictures['fig6']})\n",
            _table(["model", "dtype", "M x N x K", "variant", "Triton", "expert", "Triton / expert speed"],
                   [[r["model"], r["dtype"], f"{r['M']}x{r['N']}x{r['K']}", r["variant"],
                     pct(r["triton_roofline_frac"]), pct(r["expert_roofline_frac"]),
                     f"{r['triton_over_expert_speed']:.2f}"] for r in f6]), "\n"]
    for dtype in sorted({r["dtype"] for r in f6}):
        rs = [r for r in f6 if r["dtype"] == dtype]
        out += [f"Geomean, {dtype}: Triton {pct(geomean([r['triton_roofline_frac'] for r in rs]))} of roofline, "
                f"expert {pct(geomean([r['expert_roofline_frac'] for r in rs]))}; Triton / expert speed "
                f"{geomean([r['triton_over_expert_speed'] for r in rs]):.2f}.\n"]
    f7 = figures["fig7"]
    out += ["## Figure 7: fused attention over the decomposed baseline\n", f"Paper: {PAPER['fig7']}.\n",
            f"![fig7]({pictures['fig7']})\n",
            _table(["model", "heads", "L", "D", "non-causal", "causal (zigzag)", "zigzag / linear",
                    "Triton / expert fused, non-causal", "causal"],
                   [[r["model"], r["heads"], r["L"], r["D"], f"{r['full_speedup']:.2f}x", f"{r['causal_speedup']:.2f}x",
                     f"{r['zigzag_over_linear_speedup']:.2f}x",
                     *(f"{r[f'{tag}_triton_over_expert_speed']:.2f}" if f"{tag}_triton_over_expert_speed" in r
                       else "-" for tag in ("full", "causal"))] for r in f7]),
            "\nThe last two columns: the fused Triton kernel's speed over the expert C++ fused attention "
            "(runtime/kernels/expert_attention.cpp).\n"]
    f8 = figures["fig8"]
    with_expert = [r for r in f8 if r["triton_over_expert_speed_geomean"] is not None]
    out += ["## Figure 8: long-tail operators\n", f"Paper: {PAPER['fig8']}.\n",
            (f"Every operator has an expert C++ kernel (runtime/kernels/expert_longtail.cpp)"
             if len(with_expert) == len(f8) else
             f"Expert C++ kernels exist for {len(with_expert)} of the {len(f8)} operators "
             f"({', '.join(r['op'] for r in with_expert)})") +
            "; for every operator, the Triton kernel's fraction of its memory roofline (the bytes it reads at "
            "LPDDR bandwidth, or those and the bytes it writes at SRAM bandwidth, the longer).\n",
            f"![fig8]({pictures['fig8']})\n",
            _table(["operator", "% of memory roofline", "Triton / expert speed", "shapes"],
                   [[r["op"], pct(r["roofline_frac_geomean"]),
                     "" if r["triton_over_expert_speed_geomean"] is None
                     else f"{r['triton_over_expert_speed_geomean']:.3f}",
                     ", ".join("x".join(map(str, s["shape"])) for s in r["shapes"])] for r in f8]), ""]
    if with_expert:
        out += [f"Geomean of Triton / expert speed over those operators: "
                f"{geomean([r['triton_over_expert_speed_geomean'] for r in with_expert]):.3f}.\n"]
    f9 = figures["fig9"]
    out += ["## Figure 9: Inductor's fused layernorm-sigmoid vs the handwritten fused kernel\n",
            f"Paper: {PAPER['fig9']}.\n", f"![fig9]({pictures['fig9']})\n",
            _table(["shape", "handwritten cycles", "Inductor cycles", "Inductor speed / handwritten", "matches"],
                   [["x".join(map(str, r["shape"])), r["handwritten_cycles"], r["inductor_cycles"],
                     f"{r['inductor_over_handwritten_speed']:.2f}", r["matches"]] for r in f9]), ""]
    t1 = figures["table1"]
    out += ["## Table 1: op coverage of torch.compile on the mtia device\n", f"Paper: {PAPER['table1']}.\n",
            f"This run: {t1['ops']} OpInfo ops, {t1['samples_per_op']} sample each, {t1['dtype']}, "
            f"{t1['cases']} cases.\n",
            _table(["", "this run", "paper (inference)"],
                   [["Success", pct(t1["success_frac"]), "94.5%"], ["Triton error", pct(t1["triton_error_frac"]), "4.6%"],
                    ["Inductor error", pct(t1["inductor_error_frac"]), "0.03%"], ["Misc", pct(t1["misc_frac"]), "0.5%"],
                    ["(ran on the chip)", pct(t1["on_chip_frac"]), ""]]), ""]
    f10 = figures["fig10"]
    out += ["## Figure 10: a recommendation model's training step, per sub-graph\n", f"Paper: {PAPER['fig10']}.\n",
            f"Batch {f10['batch']}, embedding dimension {f10['dim']}, {f10['tables']} tables. Each sub-graph is a "
            "section's forward and backward traced to ATen operators; the baseline runs each operator that eager "
            "mode dispatches as a kernel of its own (Inductor's, compiled alone); the fusion depth counts ATen "
            "operators after Inductor's decompositions. GEMMs are left out, as in the paper.\n",
            f"![fig10]({pictures['fig10']})\n",
            _table(["sub-graph", "eager ATen ops", "their kernels", "their cycles", "ATen ops decomposed",
                    "Inductor kernels", "Inductor cycles", "speedup", "fusion depth"],
                   [[r["sub_graph"], r["eager_ops"], r["per_op_launches"], r["per_op_cycles"], r["aten_ops"],
                     r["kernels"], r["fused_cycles"], f"{r['speedup']:.2f}x", r["fusion_depth"]]
                    for r in f10["sub_graphs"]]),
            f"\nGeomean speedup {f10['speedup_geomean']:.2f}x; average fusion depth {f10['fusion_depth']} ATen "
            f"operators per kernel, deepest {f10['deepest_fusion']}.\n"]
    return "\n".join(out)


FIGURES = {"fig6": fig6, "fig7": fig7, "fig8": fig8, "fig9": fig9, "fig10": fig10, "table1": table1}


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m triton_mtia.bench.paper", description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="FILE", required=True, help="write the raw figures here")
    parser.add_argument("--out", metavar="DIR", required=True, help="write the pictures and report.md here")
    parser.add_argument("--quick", action="store_true", help="a reduced set of shapes (minutes)")
    parser.add_argument("--only", help="comma-separated figures to run (default: all of " + ", ".join(FIGURES) + ")")
    args = parser.parse_args(argv)
    only = args.only.split(",") if args.only else list(FIGURES)
    unknown = [name for name in only if name not in FIGURES]
    if unknown:
        parser.error(f"unknown figure(s) {', '.join(unknown)}; known: {', '.join(FIGURES)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    figures = {name: FIGURES[name](args.quick) for name in only}
    seconds = time.time() - start
    command = "python -m triton_mtia.bench.paper " + " ".join(argv if argv is not None else sys.argv[1:])
    Path(args.json).write_text(json.dumps({"command": command, "quick": args.quick, **figures}, indent=1) + "\n")
    if set(only) == set(FIGURES):
        pictures = draw(figures, out)
        (out / "report.md").write_text(report(figures, pictures, command, seconds))
        _progress(f"wrote {out / 'report.md'}, {len(pictures)} pictures and {args.json}")
    else:
        _progress(f"wrote {args.json} (the report needs every figure)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
