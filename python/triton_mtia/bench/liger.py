"""Runs the Triton kernels shipped in `liger-kernel` on the simulated MTIA-2i.

    python -m triton_mtia.bench.liger [--json FILE] [--ops rms_norm,softmax] [--list]

Each case calls one liger op - its autograd Function, unmodified, from the
installed `liger_kernel` package - on small CPU tensors with the MTIA backend
active, and compares the result with a PyTorch reference written here. A
case is an op's forward ("rms_norm") or its backward ("rms_norm.backward":
gradients of a random upstream gradient, against torch.autograd on the
reference). Each case reports

* ``pass``: matches the reference (``torch.testing.assert_close``, fp32
  tolerances unless stated);
* ``fail``: with the reason - the first line of the error, the construct
  that is not supported (``'tt.dot' is not supported ...``) and the kernel's
  source line it came from, or the mismatch;
* ``blocked``: a backward whose forward fails (not run).

Progress goes to stderr; the summary table to stdout; ``--json`` writes
every case with its reason. The exit status is 0 whatever the results (it
is a report); the pytest in test/python/test_liger.py pins the cases that
must pass.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Dict, List, Optional, Sequence

import torch
import torch.nn.functional as F

from . import failures

#: liger-kernel version this harness was written against (docs/dependencies.md).
LIGER_VERSION = "0.8.5"


@dataclass
class Result:
    case: str
    status: str  # pass | fail | blocked
    reason: str = ""
    #: The unsupported construct or error class, when one is known.
    construct: str = ""
    #: "path:line: source text" of the kernel line the failure points at.
    source: str = ""
    seconds: float = 0.0
    #: Kernel launches on the simulated chip during the case.
    launches: int = 0


@dataclass
class Op:
    """One liger op: `forward(gen)` returns (actual, expected, backward) where
    `backward()` (or None) returns (actual grads, expected grads)."""
    name: str
    run: Callable
    rtol: Optional[float] = None
    atol: Optional[float] = None
    doc: str = ""


OPS: Dict[str, Op] = {}


def op(name: str, rtol: Optional[float] = None, atol: Optional[float] = None):

    def register(fn):
        OPS[name] = Op(name, fn, rtol, atol, (fn.__doc__ or "").strip())
        return fn

    return register


# ----------------------------------------------------------------------------- helpers


def _randn(gen, *shape, scale=1.0):
    return torch.randn(*shape, generator=gen) * scale


def _leaves(*tensors):
    """(liger copies, reference copies) of the tensors, each a fresh leaf that requires grad."""
    a = [t.detach().clone().requires_grad_(t.is_floating_point()) for t in tensors]
    b = [t.detach().clone().requires_grad_(t.is_floating_point()) for t in tensors]
    return a, b


def _grads(out_a, out_b, leaves_a, leaves_b, gen):
    """A backward closure: the same random upstream gradient through both."""

    def backward():
        g = torch.randn(out_b.shape, generator=gen) if out_b.dim() else torch.tensor(1.0)
        out_a.backward(g.clone())
        out_b.backward(g.clone())
        got = [t.grad for t in leaves_a if t.requires_grad]
        want = [t.grad for t in leaves_b if t.requires_grad]
        return got, want

    return backward


def _rms(x, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def _rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def _gjsd(x, y, beta):
    """liger's generalised JSD of log-probabilities x (Q) and y (P), per element."""
    q, p = x.exp(), y.exp()
    if beta == 0.0:
        return p * (y - x)
    if beta == 1.0:
        return q * (x - y)
    log_m = torch.log(beta * p + (1 - beta) * q)
    return beta * p * (y - log_m) + (1 - beta) * q * (x - log_m)


# ----------------------------------------------------------------------------- ops
# Shapes are small and odd (not powers of two) so that masks are exercised.


@op("rms_norm")
def _rms_norm(gen):
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    (x, w), (xr, wr) = _leaves(_randn(gen, 6, 37), 1 + 0.1 * _randn(gen, 37))
    out = LigerRMSNormFunction.apply(x, w, 1e-6)
    ref = _rms(xr, 1e-6) * wr
    return out, ref, _grads(out, ref, (x, w), (xr, wr), gen)


@op("fused_add_rms_norm")
def _fused_add_rms_norm(gen):
    from liger_kernel.ops.fused_add_rms_norm import LigerFusedAddRMSNormFunction
    (x, r, w), (xr, rr, wr) = _leaves(_randn(gen, 5, 41), _randn(gen, 5, 41), 1 + 0.1 * _randn(gen, 41))
    y, s = LigerFusedAddRMSNormFunction.apply(x, r, w, 1e-6)
    sr = xr + rr
    yr = _rms(sr, 1e-6) * wr
    out, ref = torch.cat([y, s]), torch.cat([yr, sr])
    return out, ref, _grads(out, ref, (x, r, w), (xr, rr, wr), gen)


@op("layer_norm")
def _layer_norm(gen):
    from liger_kernel.ops.layer_norm import LigerLayerNormFunction
    (x, w, b), (xr, wr, br) = _leaves(_randn(gen, 7, 45), 1 + 0.1 * _randn(gen, 45), 0.1 * _randn(gen, 45))
    out = LigerLayerNormFunction.apply(x, w, b, 1e-6)
    ref = F.layer_norm(xr, (45, ), wr, br, 1e-6)
    return out, ref, _grads(out, ref, (x, w, b), (xr, wr, br), gen)


@op("group_norm")
def _group_norm(gen):
    from liger_kernel.ops.group_norm import LigerGroupNormFunction
    (x, w, b), (xr, wr, br) = _leaves(_randn(gen, 3, 6, 11), 1 + 0.1 * _randn(gen, 6), 0.1 * _randn(gen, 6))
    out = LigerGroupNormFunction.apply(x, w, b, 6, 2, 1e-6)
    ref = F.group_norm(xr, 2, wr, br, 1e-6)
    return out, ref, _grads(out, ref, (x, w, b), (xr, wr, br), gen)


@op("poly_norm")
def _poly_norm(gen):
    from liger_kernel.ops.poly_norm import LigerPolyNormFunction
    (x, w, b), (xr, wr, br) = _leaves(_randn(gen, 5, 33), torch.tensor([0.3, 0.5, 0.7]), torch.tensor(0.1))
    out = LigerPolyNormFunction.apply(x, w, b, 1e-6, False)
    ref = wr[0] * _rms(xr**3, 1e-6) + wr[1] * _rms(xr**2, 1e-6) + wr[2] * _rms(xr, 1e-6) + br
    return out, ref, _grads(out, ref, (x, w, b), (xr, wr, br), gen)


@op("dyt")
def _dyt(gen):
    from liger_kernel.ops.dyt import LigerDyTFunction
    (x, a, g, b), (xr, ar, gr, br) = _leaves(_randn(gen, 6, 39), torch.tensor([0.7]), 1 + 0.1 * _randn(gen, 39),
                                             0.1 * _randn(gen, 39))
    out = LigerDyTFunction.apply(x, a, g, b)
    ref = gr * torch.tanh(ar * xr) + br
    return out, ref, _grads(out, ref, (x, a, g, b), (xr, ar, gr, br), gen)


@op("softmax")
def _softmax(gen):
    from liger_kernel.ops.softmax import LigerSoftmaxFunction
    (x, ), (xr, ) = _leaves(_randn(gen, 9, 53))
    out = LigerSoftmaxFunction.apply(x)
    ref = torch.softmax(xr, -1)
    return out, ref, _grads(out, ref, (x, ), (xr, ), gen)


@op("sparsemax")
def _sparsemax(gen):
    from liger_kernel.ops.sparsemax import LigerSparsemaxFunction
    (x, ), (xr, ) = _leaves(_randn(gen, 5, 29))
    out = LigerSparsemaxFunction.apply(x, -1)
    z, _ = torch.sort(xr, dim=-1, descending=True)
    k = torch.arange(1, xr.shape[-1] + 1, dtype=xr.dtype)
    cum = z.cumsum(-1)
    support = (1 + k * z) > cum
    k_z = support.sum(-1, keepdim=True)
    tau = (cum.gather(-1, k_z - 1) - 1) / k_z
    ref = torch.clamp(xr - tau, min=0)
    return out, ref, _grads(out, ref, (x, ), (xr, ), gen)


@op("swiglu")
def _swiglu(gen):
    from liger_kernel.ops.swiglu import LigerSiLUMulFunction
    (a, b), (ar, br) = _leaves(_randn(gen, 7, 43), _randn(gen, 7, 43))
    out = LigerSiLUMulFunction.apply(a, b)
    ref = F.silu(ar) * br
    return out, ref, _grads(out, ref, (a, b), (ar, br), gen)


@op("geglu")
def _geglu(gen):
    from liger_kernel.ops.geglu import LigerGELUMulFunction
    (a, b), (ar, br) = _leaves(_randn(gen, 7, 43), _randn(gen, 7, 43))
    out = LigerGELUMulFunction.apply(a, b)
    ref = F.gelu(ar, approximate="tanh") * br
    return out, ref, _grads(out, ref, (a, b), (ar, br), gen)


@op("relu_squared")
def _relu_squared(gen):
    from liger_kernel.ops.relu_squared import LigerReLUSquaredFunction
    (x, ), (xr, ) = _leaves(_randn(gen, 6, 35))
    out = LigerReLUSquaredFunction.apply(x)
    ref = torch.relu(xr)**2
    return out, ref, _grads(out, ref, (x, ), (xr, ), gen)


@op("rope")
def _rope(gen):
    from liger_kernel.ops.rope import LigerRopeFunction
    bsz, hq, hk, seq, hd = 2, 3, 1, 5, 16
    angles = _randn(gen, 1, seq, hd // 2)
    cos, sin = torch.cat([angles.cos()] * 2, -1), torch.cat([angles.sin()] * 2, -1)
    (q, k), (qr, kr) = _leaves(_randn(gen, bsz, hq, seq, hd), _randn(gen, bsz, hk, seq, hd))
    qo, ko = LigerRopeFunction.apply(q, k, cos, sin)
    c, s = cos.unsqueeze(1), sin.unsqueeze(1)
    qe, ke = qr * c + _rotate_half(qr) * s, kr * c + _rotate_half(kr) * s
    out, ref = torch.cat([qo.flatten(), ko.flatten()]), torch.cat([qe.flatten(), ke.flatten()])
    return out, ref, _grads(out, ref, (q, k), (qr, kr), gen)


@op("qwen2vl_mrope")
def _qwen2vl_mrope(gen):
    from liger_kernel.ops.qwen2vl_mrope import LigerQwen2VLMRopeFunction
    bsz, hq, hk, seq, hd, section = 2, 3, 1, 5, 16, [2, 3, 3]
    angles = _randn(gen, 3, bsz, seq, hd // 2)
    cos, sin = torch.cat([angles.cos()] * 2, -1), torch.cat([angles.sin()] * 2, -1)
    (q, k), (qr, kr) = _leaves(_randn(gen, bsz, hq, seq, hd), _randn(gen, bsz, hk, seq, hd))
    qo, ko = LigerQwen2VLMRopeFunction.apply(q, k, cos, sin, section)

    def sel(t):
        return torch.cat([m[i % 3] for i, m in enumerate(t.split(section * 2, dim=-1))], dim=-1).unsqueeze(1)

    c, s = sel(cos), sel(sin)
    qe, ke = qr * c + _rotate_half(qr) * s, kr * c + _rotate_half(kr) * s
    out, ref = torch.cat([qo.flatten(), ko.flatten()]), torch.cat([qe.flatten(), ke.flatten()])
    return out, ref, _grads(out, ref, (q, k), (qr, kr), gen)


@op("llama4_rope")
def _llama4_rope(gen):
    from liger_kernel.ops.llama4_rope import LigerLlama4RopeFunction
    bsz, seq, hq, hk, hd = 2, 5, 3, 1, 16
    freqs = torch.polar(torch.ones(seq, hd // 2), _randn(gen, seq, hd // 2))
    (q, k), (qr, kr) = _leaves(_randn(gen, bsz, seq, hq, hd), _randn(gen, bsz, seq, hk, hd))
    qo, ko = LigerLlama4RopeFunction.apply(q, k, freqs)

    def rot(t):
        tc = torch.view_as_complex(t.reshape(*t.shape[:-1], -1, 2))
        return torch.view_as_real(tc * freqs[None, :, None, :]).flatten(-2)

    out, ref = torch.cat([qo.flatten(), ko.flatten()]), torch.cat([rot(qr).flatten(), rot(kr).flatten()])
    return out, ref, _grads(out, ref, (q, k), (qr, kr), gen)


@op("cross_entropy")
def _cross_entropy(gen):
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
    (x, ), (xr, ) = _leaves(_randn(gen, 6, 71))
    t = torch.randint(0, 71, (6, ), generator=gen)
    t[2] = -100
    out = LigerCrossEntropyFunction.apply(x, t, None, -100)[0]
    ref = F.cross_entropy(xr, t, ignore_index=-100)
    return out, ref, _grads(out, ref, (x, ), (xr, ), gen)


@op("cross_entropy_softcap_smoothing")
def _cross_entropy_softcap(gen):
    """label smoothing, z-loss and a tanh soft cap (libdevice.tanh)."""
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
    (x, ), (xr, ) = _leaves(_randn(gen, 6, 71, scale=4.0))
    t = torch.randint(0, 71, (6, ), generator=gen)
    out = LigerCrossEntropyFunction.apply(x, t, None, -100, 1e-4, 0.1, "mean", 10.0)[0]
    logits = 10.0 * torch.tanh(xr / 10.0)
    lse = torch.logsumexp(logits, -1)
    ref = F.cross_entropy(logits, t, label_smoothing=0.1) + 1e-4 * (lse**2).mean()
    return out, ref, _grads(out, ref, (x, ), (xr, ), gen)


@op("fused_linear_cross_entropy")
def _fused_linear_cross_entropy(gen):
    from liger_kernel.ops.fused_linear_cross_entropy import LigerFusedLinearCrossEntropyFunction
    (x, w), (xr, wr) = _leaves(_randn(gen, 6, 24), _randn(gen, 67, 24, scale=0.2))
    t = torch.randint(0, 67, (6, ), generator=gen)
    out = LigerFusedLinearCrossEntropyFunction.apply(x, w, t)[0]
    ref = F.cross_entropy(xr @ wr.T, t)
    return out, ref, _grads(out, ref, (x, w), (xr, wr), gen)


@op("kl_div")
def _kl_div(gen):
    from liger_kernel.ops.kl_div import LigerKLDivLossFunction
    (x, ), (xr, ) = _leaves(torch.log_softmax(_randn(gen, 6, 47), -1))
    y = torch.softmax(_randn(gen, 6, 47), -1)
    out = LigerKLDivLossFunction.apply(x, y, "batchmean")
    ref = F.kl_div(xr, y, reduction="batchmean")
    return out, ref, _grads(out, ref, (x, ), (xr, ), gen)


@op("jsd")
def _jsd(gen):
    from liger_kernel.ops.jsd import LigerJSDFunction
    (x, ), (xr, ) = _leaves(torch.log_softmax(_randn(gen, 6, 47), -1))
    y = torch.log_softmax(_randn(gen, 6, 47), -1)
    out = LigerJSDFunction.apply(x, y, None, 0.3)
    ref = _gjsd(xr, y, 0.3).sum() / 6
    return out, ref, _grads(out, ref, (x, ), (xr, ), gen)


@op("fused_linear_jsd")
def _fused_linear_jsd(gen):
    from liger_kernel.ops.fused_linear_jsd import LigerFusedLinearJSDFunction
    (xs, ws), (xsr, wsr) = _leaves(_randn(gen, 6, 24), _randn(gen, 67, 24, scale=0.2))
    xt, wt = _randn(gen, 6, 24), _randn(gen, 67, 24, scale=0.2)
    out = LigerFusedLinearJSDFunction.apply(xs, ws, xt, wt, None, 0.5, -100, 1.0)
    ls, lt = torch.log_softmax(xsr @ wsr.T, -1), torch.log_softmax(xt @ wt.T, -1)
    ref = _gjsd(ls, lt, 0.5).sum() / 6
    return out, ref, _grads(out, ref, (xs, ws), (xsr, wsr), gen)


@op("tvd")
def _tvd(gen):
    from liger_kernel.ops.tvd import LigerTVDLossFunction
    (p, ), (pr, ) = _leaves(torch.softmax(_randn(gen, 6, 47), -1))
    q = torch.softmax(_randn(gen, 6, 47), -1)
    out = LigerTVDLossFunction.apply(p, q)
    ref = 0.5 * (pr - q).abs().sum() / 6
    return out, ref, _grads(out, ref, (p, ), (pr, ), gen)


@op("rms_norm_bf16", rtol=2e-2, atol=2e-2)
def _rms_norm_bf16(gen):
    """bf16 input and weight, gemma casting (fp32 compute, offset 1)."""
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    (x, w), (xr, wr) = _leaves(_randn(gen, 6, 37).bfloat16(), (0.1 * _randn(gen, 37)).bfloat16())
    out = LigerRMSNormFunction.apply(x, w, 1e-6, 1.0, "gemma")
    ref = (_rms(xr.float(), 1e-6) * (1.0 + wr.float())).bfloat16()
    return out, ref, _grads(out, ref, (x, w), (xr, wr), gen)


@op("swiglu_fused_gate_up")
def _swiglu_fused(gen):
    """gate and up projections in one [.., 2 * ffn] tensor."""
    from liger_kernel.ops.swiglu import LigerFusedGateUpSiLUMulFunction
    (y, ), (yr, ) = _leaves(_randn(gen, 7, 2 * 43))
    out = LigerFusedGateUpSiLUMulFunction.apply(y)
    gate, up = yr.chunk(2, dim=-1)
    ref = F.silu(gate) * up
    return out, ref, _grads(out, ref, (y, ), (yr, ), gen)


@op("fused_neighborhood_attention", rtol=1e-4, atol=1e-4)
def _neighborhood_attention(gen):
    """tl.dot for q k^T and p v, a neighbourhood mask kernel, softmax."""
    from liger_kernel.ops.fused_neighborhood_attention import LigerFusedNeighborhoodAttentionFunction
    b, h, s, d, ks = 1, 2, 13, 16, 5
    (q, k, v), (qr, kr, vr) = _leaves(_randn(gen, b, h, s, d), _randn(gen, b, h, s, d), _randn(gen, b, h, s, d))
    out = LigerFusedNeighborhoodAttentionFunction.apply(q, k, v, ks)
    i = torch.arange(s)
    allowed = (i[:, None] - i[None, :]).abs() <= ks // 2
    scores = (qr @ kr.transpose(-1, -2)) / d**0.5
    ref = torch.softmax(scores.masked_fill(~allowed, float("-inf")), -1) @ vr
    return out, ref, _grads(out, ref, (q, k, v), (qr, kr, vr), gen)


# ----------------------------------------------------------------------------- running


def explain(exc: BaseException) -> Dict[str, str]:
    """reason / construct / source of a failure (bench/failures.py)."""
    return failures.explain(exc, "liger_kernel")


def _compare(actual, expected, spec: Op, what: str):
    if isinstance(actual, (list, tuple)):
        assert len(actual) == len(expected), f"{what}: {len(actual)} gradients, expected {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert a is not None, f"{what}: gradient {i} is missing"
            _compare(a, e, spec, f"{what}[{i}]")
        return
    kwargs = {}
    if spec.rtol is not None:
        kwargs = {"rtol": spec.rtol, "atol": spec.atol}
    torch.testing.assert_close(actual.detach().float(), expected.detach().float(), **kwargs,
                               msg=lambda m: f"{what}: {m}")


def _launches() -> int:
    from triton_mtia import runtime
    return runtime.launch_count


def _timed(result: Result, start: float, launches: int) -> Result:
    result.seconds = time.perf_counter() - start
    result.launches = _launches() - launches
    # A forward pass that ran nothing on the chip would be meaningless. (A
    # backward may launch nothing: several liger ops compute the gradient in
    # the forward's kernel, and the backward case checks those values.)
    if result.status == "pass" and result.launches == 0 and not result.case.endswith(".backward"):
        result.status, result.reason = "fail", "no kernel ran on the MTIA simulator (liger took a non-Triton path)"
    return result


def run_op(spec: Op, seed: int = 0) -> List[Result]:
    """The op's forward and backward results."""
    gen = torch.Generator().manual_seed(seed)
    start, launches = time.perf_counter(), _launches()
    try:
        actual, expected, backward = spec.run(gen)
        _compare(actual, expected, spec, "forward")
    except Exception as exc:  # noqa: BLE001 - every failure is a result
        fwd = _timed(Result(spec.name, "fail", **explain(exc)), start, launches)
        return [fwd, Result(spec.name + ".backward", "blocked", reason="forward fails")]
    fwd = _timed(Result(spec.name, "pass"), start, launches)
    if fwd.status != "pass" or backward is None:
        return [fwd]
    start, launches = time.perf_counter(), _launches()
    try:
        got, want = backward()
        _compare(got, want, spec, "backward")
        bwd = Result(spec.name + ".backward", "pass")
    except Exception as exc:  # noqa: BLE001
        bwd = Result(spec.name + ".backward", "fail", **explain(exc))
    return [fwd, _timed(bwd, start, launches)]


def run(ops: Optional[Sequence[str]] = None, progress=sys.stderr) -> List[Result]:
    import triton_mtia
    triton_mtia.activate()
    # liger probes its CUDA-only backends (CuTe DSL, cuTile) and logs a
    # warning for each; on a CPU host they are irrelevant.
    logging.getLogger("liger_kernel.backends.registry").setLevel(logging.ERROR)
    triton_mtia.settings.keep_failed_temps = False
    names = list(ops) if ops else list(OPS)
    unknown = [n for n in names if n not in OPS]
    if unknown:
        raise SystemExit(f"unknown ops {unknown}; known: {', '.join(OPS)}")
    results: List[Result] = []
    for i, name in enumerate(names, 1):
        if progress:
            print(f"[{i}/{len(names)}] {name} ...", end="", file=progress, flush=True)
        rs = run_op(OPS[name])
        results.extend(rs)
        if progress:
            print(" " + ", ".join(f"{r.case.split('.')[-1] if '.' in r.case else 'forward'} {r.status}"
                                  for r in rs) + f" ({sum(r.seconds for r in rs):.1f}s)", file=progress, flush=True)
    return results


def summary(results: Sequence[Result]) -> str:
    width = max(len(r.case) for r in results)
    lines = []
    for r in results:
        line = f"{r.case:<{width}}  {r.status:<7}"
        if r.reason:
            line += f"  {r.reason}"
        if r.source:
            line += f"\n{'':<{width}}           at {r.source}"
        lines.append(line)
    counts = {s: sum(r.status == s for r in results) for s in ("pass", "fail", "blocked")}
    lines.append(f"{counts['pass']} passed, {counts['fail']} failed, {counts['blocked']} blocked "
                 f"(liger-kernel {_liger_version()})")
    return "\n".join(lines)


def _liger_version() -> str:
    try:
        from importlib.metadata import version
        return version("liger-kernel")
    except Exception:  # noqa: BLE001
        return "not installed"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="FILE", help="write every case with its reason to FILE")
    parser.add_argument("--ops", help="comma-separated ops to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the ops and exit")
    args = parser.parse_args(argv)
    if args.list:
        for spec in OPS.values():
            print(f"{spec.name:<34} {spec.doc}")
        return 0
    results = run(args.ops.split(",") if args.ops else None)
    print(summary(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"liger_kernel": _liger_version(), "results": [asdict(r) for r in results]}, f, indent=1)
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
