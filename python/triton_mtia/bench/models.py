"""A model zoo on the simulated chip: what runs where, how fast, and whether
it is right.

    python -m triton_mtia.bench.models --json FILE --out DIR [--quick] [--only bert,resnet] [--traces]

Ten open architectures with random weights and small configurations
(nothing is downloaded): from Hugging Face `transformers` an encoder
(BERT), two decoders (GPT-2, Llama), two encoder-decoders (T5, BART), a
vision transformer (ViT) and three CNNs (ResNet, MobileNetV2, ConvNeXt);
and a DLRM-style recommender (embedding bags, MLPs, dot-product feature
interaction). Each runs inference and one training step (its own loss,
backward, an SGD step), eager and compiled (torch.compile), on the `mtia`
device, and is checked against the same model on the CPU in eager mode:
the outputs, or the loss and every updated weight - close to the CPU's, or
within rounding of the float64 answer by PyTorch's accuracy rule for
compiled models (`torch._dynamo.utils.same` with an fp64 reference).

For each run, on a second (warm) call - the first compiles:
  - correct against the CPU, or the failure and its class (the paper's
    Table 1: Triton error, Inductor error, misc; and wrong results);
  - eager: the share of ATen compute calls that ran as chip kernels, the
    operators that ran on the host (`triton_mtia.profiler`);
  - compiled: the compute operators that ran on the host (only creation,
    copies and views may);
  - the simulated step time and kernels launched.

Over the zoo: Table 1 (compiled, inference and training), and the paper's
deployment figures from eager training: the share of layers (ATen compute
calls) that run as Triton kernels and of non-GEMM time (the host's calls
at their wall clock, the chip's at simulated time). DIR gets report.md
and pictures: the eager training step of each model by operator class,
and eager against compiled step time.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F

import triton_mtia

from .. import profiler, runtime
from . import failures

DEVICE = "mtia"
MODES = ("inference", "training")
PATHS = ("eager", "compiled")

#: Tolerances against the CPU (fp32 throughout; training compares the
#: weights after an SGD step, whose gradient sums run in another order).
RTOL, ATOL = 1e-3, 1e-4


def _progress(message: str) -> None:
    print(f"[models] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# The zoo
# ---------------------------------------------------------------------------


class Dlrm(torch.nn.Module):
    """DLRM-style: dense features through a bottom MLP, sparse features as
    sum-pooled embedding bags, their pairwise dot products (a batched GEMM)
    beside the dense vector into a top MLP, one logit."""

    def __init__(self, dense=13, tables=3, rows=50, dim=16):
        super().__init__()
        self.bottom = torch.nn.Sequential(torch.nn.Linear(dense, 32), torch.nn.ReLU(), torch.nn.Linear(32, dim),
                                          torch.nn.ReLU())
        self.bags = torch.nn.ModuleList(torch.nn.EmbeddingBag(rows, dim, mode="sum") for _ in range(tables))
        pairs = (tables + 1) * tables // 2
        self.top = torch.nn.Sequential(torch.nn.Linear(dim + pairs, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
        self.pairs = torch.triu_indices(tables + 1, tables + 1, offset=1)

    def forward(self, dense, indices, offsets, labels=None):
        x = self.bottom(dense)
        features = torch.stack([x] + [bag(indices[i], offsets[i]) for i, bag in enumerate(self.bags)], 1)
        dots = torch.bmm(features, features.transpose(1, 2))
        rows, cols = self.pairs.to(dots.device)
        logits = self.top(torch.cat([x, dots[:, rows, cols]], 1)).squeeze(1)
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = F.binary_cross_entropy_with_logits(logits, labels)
        return out


def _tokens(batch, length, vocab=100, seed=0):
    return torch.randint(0, vocab, (batch, length), generator=torch.Generator().manual_seed(seed))


def _seq2seq():
    """Source tokens, the decoder's input and its labels (the input moved
    by one): inference runs the decoder on the input, training also takes
    the loss on the labels."""
    target = _tokens(2, 9, seed=1)
    return {"input_ids": _tokens(2, 12), "decoder_input_ids": target[:, :-1].contiguous(),
            "labels": target[:, 1:].contiguous()}  # T5 views its labels


def _images(batch, size=32, seed=0):
    return torch.randn(batch, 3, size, size, generator=torch.Generator().manual_seed(seed))


def _zoo() -> Dict[str, Callable[[], Tuple[torch.nn.Module, Dict[str, torch.Tensor]]]]:
    """Name -> a function making (model, inputs with labels), random and
    small, every dropout off (training results compare with the CPU)."""
    import transformers as hf

    text = dict(vocab_size=100)
    no_dropout = dict(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)

    def bert():
        cfg = hf.BertConfig(**text, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                            max_position_embeddings=64, num_labels=3, **no_dropout)
        return hf.BertForSequenceClassification(cfg), {"input_ids": _tokens(2, 16), "labels": torch.tensor([0, 2])}

    def gpt2():
        cfg = hf.GPT2Config(**text, n_embd=32, n_layer=2, n_head=2, n_positions=64, resid_pdrop=0.0, embd_pdrop=0.0,
                            attn_pdrop=0.0)
        ids = _tokens(2, 16)
        return hf.GPT2LMHeadModel(cfg), {"input_ids": ids, "labels": ids}

    def llama():
        cfg = hf.LlamaConfig(**text, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                             num_key_value_heads=2, max_position_embeddings=64)
        ids = _tokens(2, 16)
        return hf.LlamaForCausalLM(cfg), {"input_ids": ids, "labels": ids}

    def t5():
        cfg = hf.T5Config(**text, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2, dropout_rate=0.0,
                          decoder_start_token_id=0, pad_token_id=0)
        return hf.T5ForConditionalGeneration(cfg), _seq2seq()

    def bart():
        cfg = hf.BartConfig(**text, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                            decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
                            max_position_embeddings=64, dropout=0.0, attention_dropout=0.0, activation_dropout=0.0)
        return hf.BartForConditionalGeneration(cfg), _seq2seq()

    def vit():
        cfg = hf.ViTConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                           intermediate_size=64, num_labels=4, **no_dropout)
        return hf.ViTForImageClassification(cfg), {"pixel_values": _images(2), "labels": torch.tensor([1, 3])}

    def resnet():
        cfg = hf.ResNetConfig(embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1], num_labels=4)
        return hf.ResNetForImageClassification(cfg), {"pixel_values": _images(2), "labels": torch.tensor([1, 3])}

    def mobilenet_v2():
        # 64x64: its five stride-2 stages leave 2x2, not 1x1, whose batch
        # norms over a batch of 2 would normalize every value to +-1 and
        # pass back gradients that are rounding noise on any machine.
        cfg = hf.MobileNetV2Config(image_size=64, depth_multiplier=0.25, num_labels=4, classifier_dropout_prob=0.0)
        return hf.MobileNetV2ForImageClassification(cfg), {"pixel_values": _images(2, 64),
                                                           "labels": torch.tensor([1, 3])}

    def convnext():
        cfg = hf.ConvNextConfig(num_stages=2, hidden_sizes=[8, 16], depths=[1, 1], num_labels=4, image_size=32)
        return hf.ConvNextForImageClassification(cfg), {"pixel_values": _images(2), "labels": torch.tensor([1, 3])}

    def dlrm():
        g = torch.Generator().manual_seed(0)
        batch, tables = 4, 3
        lengths = torch.randint(0, 4, (tables, batch), generator=g)
        offsets = torch.cat([torch.zeros(tables, 1, dtype=torch.long), lengths.cumsum(1)[:, :-1]], 1)
        indices = torch.randint(0, 50, (tables, int(lengths.sum(1).max())), generator=g)
        indices = [indices[t, :int(lengths[t].sum())] for t in range(tables)]
        return Dlrm(tables=tables), {"dense": torch.randn(batch, 13, generator=g), "indices": indices,
                                     "offsets": list(offsets), "labels": (torch.rand(batch, generator=g) > 0.5).float()}

    return {"bert": bert, "gpt2": gpt2, "llama": llama, "t5": t5, "bart": bart, "vit": vit, "resnet": resnet,
            "mobilenet_v2": mobilenet_v2, "convnext": convnext, "dlrm": dlrm}


#: The smallest set, for `--quick` (a test runs it): a transformer and a CNN.
QUICK = ("bert", "resnet")

# ---------------------------------------------------------------------------
# One run
# ---------------------------------------------------------------------------


def _to(value, device):
    """`value`'s tensors moved to `device`, or (a dtype) floating ones cast."""
    if isinstance(value, torch.Tensor):
        if isinstance(device, torch.dtype):
            return value.to(device) if value.is_floating_point() else value
        return value.to(device)
    if isinstance(value, (list, tuple)):
        return type(value)(_to(v, device) for v in value)
    if isinstance(value, dict):
        return {k: _to(v, device) for k, v in value.items()}
    return value


def _first_output(out):
    """The tensor an inference run is judged by (logits, or the hidden state)."""
    if isinstance(out, dict) or hasattr(out, "keys"):
        for key in ("logits", "last_hidden_state"):
            if key in out.keys() and out[key] is not None:
                return out[key]
        return next(v for v in out.values() if isinstance(v, torch.Tensor))
    return out


def _inference(model, inputs):
    with torch.no_grad():
        return _first_output(model(**{k: v for k, v in inputs.items() if k != "labels"}))


def _sgd_step(model, inputs, optimizer):
    optimizer.zero_grad()
    loss = model(**inputs)["loss"]
    loss.backward()
    optimizer.step()
    return loss.detach()


def _check(what: str, got: torch.Tensor, want: torch.Tensor, exact: torch.Tensor) -> None:
    """`got` (the chip's) is right if it is close to `want` (the CPU's, fp32)
    or, by PyTorch's own accuracy rule for compiled models, no further from
    `exact` (the CPU's in float64) than rounding explains: its RMS error
    against it at most a few times the CPU's own. A deep model's gradients
    through small batch norms are mostly rounding, on the CPU too."""
    from torch._dynamo.utils import same
    try:
        torch.testing.assert_close(got, want, rtol=RTOL, atol=ATOL)
    except AssertionError as mismatch:
        if not same(want, got, fp64_ref=exact, tol=RTOL, equal_nan=True, exact_dtype=False):
            raise AssertionError(f"{what}: {failures.first_line(mismatch)} (beyond rounding: "
                                 f"max error {(got.double() - exact).abs().max().item():.3g} against float64, "
                                 f"the CPU's {(want.double() - exact).abs().max().item():.3g})") from None


def run_one(name: str, make, mode: str, path: str, traces: Optional[Path] = None) -> Dict[str, object]:
    """One model in one mode on one path (see the module's docstring); with
    `traces`, an eager step's Perfetto trace and picture by operator class
    are written there (`<model>-<mode>.json`, `.png`)."""
    row: Dict[str, object] = {"model": name, "mode": mode, "path": path}
    start = time.time()
    try:
        torch.manual_seed(0)
        reference, inputs = make()
        chip_model = copy.deepcopy(reference).to(DEVICE)
        exact_model = copy.deepcopy(reference).double()
        for model in (reference, chip_model, exact_model):
            model.train(mode == "training")
        chip_inputs, exact_inputs = _to(inputs, DEVICE), _to(inputs, torch.float64)
        if mode == "inference":
            fn = _inference
            args = {"cpu": (reference, inputs), "chip": (chip_model, chip_inputs),
                    "exact": (exact_model, exact_inputs)}
        else:
            fn = _sgd_step
            args = {key: (model, data, torch.optim.SGD(model.parameters(), lr=0.01))
                    for key, model, data in (("cpu", reference, inputs), ("chip", chip_model, chip_inputs),
                                             ("exact", exact_model, exact_inputs))}
        call = fn
        if path == "compiled":
            torch._dynamo.reset()
            call = torch.compile(fn)
        call(*args["chip"])  # compiles (both paths: eager compiles its per-operator kernels)
        with profiler.profile(operators=path == "eager") as prof:
            got = call(*args["chip"])
        for key in ("cpu", "exact"):  # two steps, as the chip took
            fn(*args[key])
        want, exact = fn(*args["cpu"]), fn(*args["exact"])
        _check("output" if mode == "inference" else "loss", got.cpu(), want, exact)
        if mode == "training":
            for (pname, mine), theirs, truth in zip(chip_model.named_parameters(), reference.parameters(),
                                                    exact_model.parameters()):
                _check(pname, mine.detach().cpu(), theirs.detach(), truth.detach())
    except Exception as exc:  # noqa: BLE001 - every failure is a row of Table 1
        row.update(status=failures.category(exc), reason=failures.first_line(exc)[:300],
                   seconds=round(time.time() - start, 1))
        return row
    summary = prof.summary()
    if traces is not None and path == "eager":
        traces.mkdir(parents=True, exist_ok=True)
        prof.write_trace(str(traces / f"{name}-{mode}.json"))
        prof.draw(str(traces / f"{name}-{mode}.png"), title=f"{name}, eager {mode} step")
    host_compute = {k: v for k, v in prof.host_fallbacks.items() if profiler.computes_by_name(k)}
    row.update(status="ok", seconds=round(time.time() - start, 1), simulated_us=round(prof.simulated_s * 1e6, 2),
               launches=len(prof.launches), host_fallbacks=prof.host_fallbacks, host_compute_ops=host_compute)
    if path == "eager":
        row.update(compute_calls=summary["compute_calls"], chip_calls=summary["chip_calls"],
                   chip_call_share=round(summary["chip_call_share"], 4),
                   host_operators=sorted({c.name for c in prof.compute_calls() if c.where == "host"}),
                   by_class={k: {"calls": v["calls"], "chip_calls": v["chip_calls"],
                                 "chip_us": round(v["chip_s"] * 1e6, 2), "host_ms": round(v["host_s"] * 1e3, 3)}
                             for k, v in summary["by_class"].items()})
    return row


# ---------------------------------------------------------------------------
# Over the zoo
# ---------------------------------------------------------------------------


def table1(rows: List[Dict[str, object]]) -> Dict[str, Dict[str, float]]:
    """The paper's Table 1 over the compiled runs: % success, Triton error,
    Inductor error, misc (wrong results counted apart), per mode."""
    table = {}
    for mode in MODES:
        mine = [r for r in rows if r["mode"] == mode and r["path"] == "compiled"]
        n = len(mine) or 1
        count = lambda status: sum(1 for r in mine if r["status"] == status)  # noqa: E731
        table[mode] = {"runs": len(mine), "success": 100 * count("ok") / n, "triton_error": 100 * count("triton") / n,
                       "inductor_error": 100 * count("inductor") / n, "misc": 100 * count("misc") / n,
                       "wrong": 100 * count("wrong") / n}
    return table


def deployment(rows: List[Dict[str, object]]) -> Dict[str, float]:
    """Over the eager training runs: the share of layers (ATen compute
    calls) that run as Triton kernels on the chip, and of non-GEMM time
    (GEMMs and convolutions aside, as the paper sets GEMMs aside)."""
    mine = [r for r in rows if r["path"] == "eager" and r["mode"] == "training" and r["status"] == "ok"]
    calls = sum(r["compute_calls"] for r in mine)
    chip = sum(r["chip_calls"] for r in mine)
    non_gemm = [v for r in mine for k, v in r["by_class"].items() if k not in ("gemm", "convolution")]
    chip_s = sum(v["chip_us"] for v in non_gemm) * 1e-6
    host_s = sum(v["host_ms"] for v in non_gemm) * 1e-3
    return {"models": len(mine), "layers": calls, "layer_share": chip / calls if calls else 0.0,
            "non_gemm_time_share": chip_s / (chip_s + host_s) if chip_s + host_s else 0.0}


def run(names: Sequence[str], progress=_progress, traces: Optional[Path] = None) -> List[Dict[str, object]]:
    zoo = _zoo()
    rows = []
    for name in names:
        for mode in MODES:
            for path in PATHS:
                if progress:
                    progress(f"{name} {mode} {path}")
                row = run_one(name, zoo[name], mode, path, traces)
                if progress and row["status"] != "ok":
                    progress(f"  {row['status']}: {row['reason']}")
                rows.append(row)
    return rows


def draw(rows: List[Dict[str, object]], out: Path) -> Dict[str, str]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    paths = {}
    eager = [r for r in rows if r["path"] == "eager" and r["mode"] == "training" and r["status"] == "ok"]
    if eager:
        fig, ax = plt.subplots(figsize=(max(6, 0.8 * len(eager)), 3.6))
        bottom = [0.0] * len(eager)
        for kind, color in zip(profiler.CLASSES, ("tab:blue", "tab:green", "tab:purple", "tab:orange")):
            values = [r["by_class"][kind]["chip_us"] for r in eager]
            ax.bar([r["model"] for r in eager], values, bottom=bottom, label=kind, color=color)
            bottom = [b + v for b, v in zip(bottom, values)]
        ax.set_ylabel("simulated us on the chip")
        ax.set_title("eager training step by operator class")
        ax.tick_params(axis="x", labelrotation=30)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "by_class.png", dpi=110)
        plt.close(fig)
        paths["by_class"] = "by_class.png"
    pairs = []
    for r in rows:
        if r["path"] == "eager" and r["status"] == "ok":
            twin = next((c for c in rows if c["path"] == "compiled" and c["model"] == r["model"]
                         and c["mode"] == r["mode"] and c["status"] == "ok"), None)
            if twin:
                pairs.append((f"{r['model']}\n{r['mode'][:5]}", r["simulated_us"] / twin["simulated_us"]))
    if pairs:
        fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(pairs)), 3.6))
        ax.bar([p[0] for p in pairs], [p[1] for p in pairs], color="tab:blue")
        ax.axhline(1.0, color="gray", linewidth=0.8)
        ax.set_ylabel("eager / compiled simulated time")
        ax.set_title("what torch.compile's fusion saves on the chip")
        ax.tick_params(axis="x", labelsize=7)
        fig.tight_layout()
        fig.savefig(out / "compiled_speedup.png", dpi=110)
        plt.close(fig)
        paths["compiled_speedup"] = "compiled_speedup.png"
    return paths


def report(rows, figures, pictures, command) -> str:
    lines = [f"# Model zoo on the simulated chip\n", f"`{command}`\n",
             "| model | mode | path | status | chip share of compute calls | host compute ops | simulated us | "
             "launches |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["status"] != "ok":
            lines.append(f"| {r['model']} | {r['mode']} | {r['path']} | {r['status']}: {r['reason'][:80]} | | | | |")
            continue
        share = f"{100 * r['chip_call_share']:.1f}% of {r['compute_calls']}" if r["path"] == "eager" else "-"
        host = ", ".join(sorted(r.get("host_operators") or r["host_compute_ops"])) or "none"
        lines.append(f"| {r['model']} | {r['mode']} | {r['path']} | ok | {share} | {host} | {r['simulated_us']} | "
                     f"{r['launches']} |")
    t = figures["table1"]
    lines += ["", "## Table 1 (compiled)", "", "| | runs | success | Triton error | Inductor error | misc | wrong |",
              "|---|---|---|---|---|---|---|"]
    for mode in MODES:
        m = t[mode]
        lines.append(f"| {mode} | {m['runs']} | {m['success']:.1f}% | {m['triton_error']:.1f}% | "
                     f"{m['inductor_error']:.1f}% | {m['misc']:.1f}% | {m['wrong']:.1f}% |")
    d = figures["deployment"]
    lines += ["", "## Deployment (eager training)", "",
              f"{100 * d['layer_share']:.1f}% of {d['layers']} layers (ATen compute calls) over {d['models']} models "
              f"run as Triton kernels on the chip; {100 * d['non_gemm_time_share']:.1f}% of non-GEMM time.", ""]
    lines += [f"![{name}]({path})" for name, path in pictures.items()]
    return "\n".join(lines) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m triton_mtia.bench.models", description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="FILE", required=True, help="write the rows and figures here")
    parser.add_argument("--out", metavar="DIR", required=True, help="write the pictures and report.md here")
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    parser.add_argument("--only", help="comma-separated models (default: the whole zoo)")
    parser.add_argument("--traces", action="store_true",
                        help="write each eager step's Perfetto trace and picture into DIR/traces")
    args = parser.parse_args(argv)
    names = list(_zoo())
    if args.only:
        unknown = [n for n in args.only.split(",") if n not in names]
        if unknown:
            parser.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(names)}")
        names = args.only.split(",")
    elif args.quick:
        names = list(QUICK)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = run(names, traces=out / "traces" if args.traces else None)
    figures = {"table1": table1(rows), "deployment": deployment(rows)}
    command = "python -m triton_mtia.bench.models " + " ".join(argv if argv is not None else sys.argv[1:])
    Path(args.json).write_text(json.dumps({"command": command, "rows": rows, **figures}, indent=1) + "\n")
    pictures = draw(rows, out)
    (out / "report.md").write_text(report(rows, figures, pictures, command))
    _progress(f"wrote {out / 'report.md'}, {len(pictures)} pictures and {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
