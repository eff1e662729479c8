"""Each compiler optimization switched off in turn, in simulated cycles.

    python -m triton_mtia.bench.ablation --json ablation.json

Every kernel runs with all optimizations on (the defaults) and once with
each optimization off, in one process on the same chip model; the figures
are simulated cycles (deterministic) and the speedup of each optimization,
cycles with it off / cycles with everything on. Every run is functional and
checked against PyTorch, so a switch that changed a result would fail here
too. The optimizations and their switches (a launch option, whose default
is the setting of the same name in `triton_mtia.settings`, and a compiler
flag):

* ``pipelining``: a CB filled inside a loop holds `num_stages` (3) of its
  tiles, so the DMAs of the next iterations run ahead of their reader;
  greedy, the cheapest CBs first, where local memory allows (mtia-assign-cbs;
  off: ``--num-stages=1``, every CB holds one tile).
* ``cb_stacking``: when more tiles are live than a PE has CBs, tiles share a
  CB one behind the other instead of being reloaded and recomputed
  (mtia-assign-cbs; off: ``--no-cb-stacking``, such kernels are
  rematerialized).
* ``index_math``: Inductor's ``x // d`` and ``x % d`` by constants in
  addresses split the block into digits, and the access is one N-D DMA
  over them (convert-tt-to-mtia, IndexMath.cpp; off: ``--no-index-math``,
  such accesses are gathers and scatters by address).
* ``vector_core_sharing``: an elementwise command goes to the RISC-V vector
  core (a quarter to half the SE's rate, a queue of its own) where a list
  schedule of the block says it finishes there before the busy SIMD engine would
  (mtia-share-vector-core; off: ``--no-vector-core-sharing``, all on the SE).
* ``command_pipelining``: a loop's next iteration's loads and dots (and the
  SE commands they need) are issued before this iteration's tail, so that
  in-order unit queues overlap the DPE and the SE, and a block's loads
  before the blocking reads that precede them (mtia-pipeline-commands,
  mtia-issue-loads-early; off: ``--no-command-pipelining``, program order).
* ``dual_issue``: the fabric interface's commands are issued by the PE's
  scalar core and the compute units' by the vector core, so a kernel of
  many small commands is no longer bound by one core's issue
  (mtia-dual-issue; off: ``--no-dual-issue``, all from the scalar core).
* ``loop_splitting``: a loop whose computed masks are all true on a prefix
  of its iterations runs that prefix without them, then the rest as written
  (tt-split-masked-loops; off: ``--no-loop-splitting``, the masks on every
  iteration).
* ``elementwise_splitting``: an SE command runs on both the SE and the
  vector core, by rows, where both parts finish sooner than either unit
  alone (mtia-share-vector-core split; off: ``--no-elementwise-splitting``,
  one unit per command).
* ``effective_shapes``: SE commands work on the valid box of a tile whose
  load a mask bounds, where every reader reads inside it; a reduction where
  the lanes outside hold a known constant, read as its fill
  (mtia-effective-shapes; off: ``--no-effective-shapes``, whole tiles).
* ``vector_loop_fusion``: a chain of vector-core commands, each result only
  the next one's operand, runs as one loop with its intermediates in
  registers, and an SE command may join its chain's loop where that
  finishes sooner (mtia-fuse-vector-loops, mtia-share-vector-core fuse;
  off: ``--no-vector-loop-fusion``, a loop per command).

Kernels: softmax, layernorm and RMSNorm (one masked 1024 block per row) at
300x781 (not multiples of their blocks),
a GEMM with a long K loop at two shapes and a small one (M = 32,
K = 4096 in steps of 16, four programs), a row sum streaming 64 Ki columns
per row, fused attention as a GPU author writes it (fp16, d = 64, 64 x 64
blocks, 4 heads) causal and not at L = 1024 and 4096 (and d = 128 at
L = 4096), and kernels as Inductor writes them with static shapes (``//`` and ``%`` index math): max_pool2d_with_indices (nine taps
live for the max and again for the argmax), an NCHW -> NHWC conversion with
a per-channel bias, and mish (x * tanh(softplus(x))), whose log1p runs on
the RISC-V vector core. An optimization that does not apply to a kernel
shows 1.00.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import torch
import triton
import triton.language as tl

import triton_mtia

from .. import runtime
from ..kernels import flash as attention_sample
from ..samples.layernorm import layernorm_kernel
from ..samples.matmul import matmul_kernel
from ..samples.softmax import softmax_kernel
from .._settings import OPTIMIZATIONS

CONFIGS = ("all", ) + tuple(f"no_{name}" for name in OPTIMIZATIONS)


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    # One row per program, streamed through a loop of masked loads.
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK, ), tl.float32)
    for c in range(0, cols, BLOCK):
        offs = c + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc))


@triton.jit
def maxpool_indices_kernel(in_ptr, out_ptr, idx_ptr, H: tl.constexpr, W: tl.constexpr, OH: tl.constexpr,
                           OW: tl.constexpr, numel: tl.constexpr, XBLOCK: tl.constexpr):
    # As Inductor writes max_pool2d_with_indices (3x3, stride 2) for static
    # shapes (the sizes are constants): every load first, then the max chain
    # and the argmax chain over the nine taps.
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    xmask = xindex < numel
    ow = xindex % OW
    oh = (xindex // OW) % OH
    nc = xindex // (OW * OH)
    base = 2 * ow + W * (2 * oh) + H * W * nc
    t0 = tl.load(in_ptr + base, xmask, other=float("-inf"))
    t1 = tl.load(in_ptr + base + 1, xmask, other=float("-inf"))
    t2 = tl.load(in_ptr + base + 2, xmask, other=float("-inf"))
    t3 = tl.load(in_ptr + base + W, xmask, other=float("-inf"))
    t4 = tl.load(in_ptr + base + W + 1, xmask, other=float("-inf"))
    t5 = tl.load(in_ptr + base + W + 2, xmask, other=float("-inf"))
    t6 = tl.load(in_ptr + base + 2 * W, xmask, other=float("-inf"))
    t7 = tl.load(in_ptr + base + 2 * W + 1, xmask, other=float("-inf"))
    t8 = tl.load(in_ptr + base + 2 * W + 2, xmask, other=float("-inf"))
    m = tl.maximum(t1, t0)
    m = tl.maximum(t2, m)
    m = tl.maximum(t3, m)
    m = tl.maximum(t4, m)
    m = tl.maximum(t5, m)
    m = tl.maximum(t6, m)
    m = tl.maximum(t7, m)
    m = tl.maximum(t8, m)
    i = tl.where(t1 > t0, 1, 0)
    v = tl.maximum(t1, t0)
    i = tl.where(t2 > v, 2, i)
    v = tl.maximum(t2, v)
    i = tl.where(t3 > v, 3, i)
    v = tl.maximum(t3, v)
    i = tl.where(t4 > v, 4, i)
    v = tl.maximum(t4, v)
    i = tl.where(t5 > v, 5, i)
    v = tl.maximum(t5, v)
    i = tl.where(t6 > v, 6, i)
    v = tl.maximum(t6, v)
    i = tl.where(t7 > v, 7, i)
    v = tl.maximum(t7, v)
    i = tl.where(t8 > v, 8, i)
    tl.store(out_ptr + xindex, m, xmask)
    tl.store(idx_ptr + xindex, i, xmask)


@triton.jit
def nhwc_bias_kernel(in_ptr0, in_ptr1, out_ptr0, XBLOCK: tl.constexpr):
    # (x.permute(0, 2, 3, 1) + bias) for x of shape [8, 64, 32, 32], in the
    # form of an Inductor pointwise kernel: one flattened index of the
    # output, coordinates recovered by // and %.
    xnumel = 524288
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex % 64
    x1 = (xindex // 64) % 1024
    x2 = xindex // 65536
    tmp0 = tl.load(in_ptr0 + (x1 + 1024 * x0 + 65536 * x2), xmask)
    tmp1 = tl.load(in_ptr1 + x0, xmask)
    tmp2 = tmp0 + tmp1
    tl.store(out_ptr0 + xindex, tmp2, xmask)


@triton.jit
def mish_kernel(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # mish(x) = x * tanh(softplus(x)), softplus as Inductor writes it (linear
    # above 20); log1p has no SE lookup table, so it runs on the vector core.
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    xmask = xindex < xnumel
    x = tl.load(in_ptr0 + xindex, xmask)
    sp = tl.where(x > 20.0, x, tl.extra.libdevice.log1p(tl.exp(x)))
    y = x * tl.extra.libdevice.tanh(sp)
    tl.store(out_ptr0 + xindex, y, xmask)


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, y_ptr, rstd_ptr, n_cols, eps, BLOCK: tl.constexpr):
    # One row per program in one masked block, as Liger writes it: every
    # command after the loads can work on the row's n_cols columns only.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(rstd_ptr + row, rstd)
    tl.store(y_ptr + row * n_cols + cols, x * rstd * w, mask=mask)


# Each kernel: a function of a generator that makes its tensors once and
# returns launch(**options) -> (results, expected). The configurations of a
# kernel reuse the same tensors: the chip's LPDDR channels interleave by
# address, so new allocations would move the cycles by a percent or two.
# Options go to the launch, not through the settings, because Triton keys
# compiled kernels by the options a launch passes.
Launch = Callable[..., Tuple[List[torch.Tensor], List[torch.Tensor]]]


def _softmax(gen) -> Launch:
    x = torch.randn(300, 781, generator=gen)
    out = torch.empty_like(x)
    expected = [torch.softmax(x, -1)]

    def launch(**opts):
        softmax_kernel[(96, )](out, x, x.stride(0), out.stride(0), 300, 781, BLOCK=1024, **opts)
        return [out], expected

    return launch


def _rms_norm(gen) -> Launch:
    x = torch.randn(300, 781, generator=gen)
    w = torch.rand(781, generator=gen) + 0.5
    y, rstd = torch.empty_like(x), torch.empty(300)
    expected_rstd = torch.rsqrt(x.pow(2).mean(-1) + 1e-6)
    expected = [x * expected_rstd[:, None] * w, expected_rstd]

    def launch(**opts):
        rms_norm_kernel[(300, )](x, w, y, rstd, 781, 1e-6, BLOCK=1024, **opts)
        return [y, rstd], expected

    return launch


def _layernorm(gen) -> Launch:
    x = torch.randn(300, 781, generator=gen)
    w, b = torch.rand(781, generator=gen) + 0.5, torch.randn(781, generator=gen)
    y, mean, rstd = torch.empty_like(x), torch.empty(300), torch.empty(300)
    expected = [torch.nn.functional.layer_norm(x, (781, ), w, b, 1e-5)]

    def launch(**opts):
        layernorm_kernel[(300, )](x, y, w, b, mean, rstd, x.stride(0), 781, 1e-5, BLOCK=256, **opts)
        return [y], expected

    return launch


def _gemm(M, N, K, bm, bn, bk):

    def setup(gen) -> Launch:
        a = torch.randn(M, K, generator=gen).half()
        b = torch.randn(K, N, generator=gen).half()
        c = torch.empty(M, N)
        expected = [a.float() @ b.float()]
        grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn), )

        def launch(**opts):
            matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                                c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=4, **opts)
            return [c], expected

        return launch

    return setup


def _row_sum(gen) -> Launch:
    x = torch.randn(8, 65536, generator=gen)
    out = torch.empty(8)
    expected = [x.double().sum(1).float()]

    def launch(**opts):
        row_sum_kernel[(8, )](x, out, 65536, BLOCK=2048, **opts)
        return [out], expected

    return launch


def _maxpool(gen) -> Launch:
    x = torch.randn(2, 16, 65, 65, generator=gen)
    out, idx = torch.empty(2, 16, 32, 32), torch.empty(2, 16, 32, 32, dtype=torch.int32)
    numel = out.numel()
    # The index of the tap within the 3x3 window, as the kernel computes it.
    windows = x.unfold(2, 3, 2).unfold(3, 3, 2).reshape(2, 16, 32, 32, 9)
    ref, ref_idx = windows.max(-1)

    def launch(**opts):
        maxpool_indices_kernel[(triton.cdiv(numel, 1024), )](x, out, idx, H=65, W=65, OH=32, OW=32, numel=numel,
                                                              XBLOCK=1024, **opts)
        return [out, idx], [ref, ref_idx.int()]

    return launch


def _nhwc_bias(gen) -> Launch:
    x = torch.randn(8, 64, 32, 32, generator=gen)
    bias = torch.randn(64, generator=gen)
    out = torch.empty(8, 32, 32, 64)
    expected = [x.permute(0, 2, 3, 1) + bias]

    def launch(**opts):
        nhwc_bias_kernel[(512, )](x, bias, out, XBLOCK=1024, **opts)
        return [out], expected

    return launch


def _mish(gen) -> Launch:
    x = torch.randn(300, 781, generator=gen) * 4
    out = torch.empty_like(x)
    expected = [torch.nn.functional.mish(x)]

    def launch(**opts):
        mish_kernel[(triton.cdiv(x.numel(), 1024), )](x, out, x.numel(), XBLOCK=1024, **opts)
        return [out], expected

    return launch


def _attention(seq, causal, heads=4, dim=64):

    def setup(gen) -> Launch:
        q, k, v = (torch.randn(heads, seq, dim, generator=gen).half() for _ in range(3))
        expected = [
            torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                             is_causal=causal).half()
        ]

        def launch(**opts):
            # Zigzag balances the causal rows' growing work over the PEs.
            return [
                attention_sample.attention(q, k, v, causal=causal, pid_mapping="zigzag", **opts)
            ], expected

        return launch

    return setup


KERNELS: Dict[str, Callable[[torch.Generator], Launch]] = {
    "softmax_300x781": _softmax,
    "layernorm_300x781": _layernorm,
    "rms_norm_300x781": _rms_norm,
    "gemm_256x256x4096": _gemm(256, 256, 4096, 128, 128, 64),
    "gemm_64x64x8192": _gemm(64, 64, 8192, 64, 64, 128),
    "gemm_32x128x4096": _gemm(32, 128, 4096, 32, 32, 16),
    "row_sum_8x65536": _row_sum,
    "attention_L1024": _attention(1024, False),
    "attention_causal_L1024": _attention(1024, True),
    "attention_L4096": _attention(4096, False),
    "attention_causal_L4096": _attention(4096, True),
    "attention_d128_L4096": _attention(4096, False, dim=128),
    "attention_d128_causal_L4096": _attention(4096, True, dim=128),
    "maxpool2d_indices": _maxpool,
    "inductor_nhwc_bias": _nhwc_bias,
    "mish_vector_core": _mish,
}


def measure(launch: Launch, config: str) -> runtime.LaunchStats:
    """One launch in one configuration; checks the result."""
    results, expected = launch(**{opt: config != f"no_{opt}" for opt in OPTIMIZATIONS})
    for got, want in zip(results, expected):
        torch.testing.assert_close(got, want, rtol=2e-3, atol=2e-3)
    return triton_mtia.last_launch()


def dpe_fraction(stats: runtime.LaunchStats) -> float:
    """The DPE's MACs over what the chip's DPEs could do in the launch's
    time, at the fp16 rate (the attention kernels' figure of merit)."""
    cfg = stats.config
    peak = cfg["dpe_fp16_macs_per_cycle"] * cfg["pe_rows"] * cfg["pe_cols"]
    return stats.stats["units"]["dpe"]["amount"] / (stats.cycles * peak)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--kernels", nargs="*", choices=list(KERNELS), help="a subset of the kernels")
    args = ap.parse_args(argv)
    triton_mtia.activate()
    runtime.configure()
    names = args.kernels or list(KERNELS)
    cycles: Dict[str, Dict[str, int]] = {}
    busy: Dict[str, Dict[str, float]] = {}
    dpe: Dict[str, float] = {}
    for k, name in enumerate(names):
        launch = KERNELS[name](torch.Generator().manual_seed(0))
        cycles[name] = {}
        for config in CONFIGS:
            print(f"[{k + 1}/{len(names)}] {name}: {config} ...", file=sys.stderr, flush=True)
            stats = measure(launch, config)
            cycles[name][config] = stats.cycles
            if config == "all":
                busy[name] = {u: round(f, 4) for u, f in stats.utilization().items()}
                dpe[name] = round(dpe_fraction(stats), 4)
    width = max(len(n) for n in names)
    header = f"{'kernel':<{width}}  {'all on':>10}" + "".join(f"  {'no ' + o:>14}  {'gain':>5}"
                                                             for o in OPTIMIZATIONS)
    print(header + "  busiest unit (all on)   DPE/peak")
    for name in names:
        row = cycles[name]
        line = f"{name:<{width}}  {row['all']:>10}"
        for opt in OPTIMIZATIONS:
            off = row[f"no_{opt}"]
            line += f"  {off:>14}  {off / row['all']:>5.2f}"
        unit, frac = max(busy[name].items(), key=lambda kv: kv[1])
        line += f"  {unit:>8} {frac:>6.0%} busy   {dpe[name]:>7.1%}"
        print(line)
    if args.json:
        Path(args.json).write_text(
            json.dumps({"kernels": names, "optimizations": list(OPTIMIZATIONS), "configs": list(CONFIGS),
                        "cycles": cycles, "utilization": busy, "dpe_fraction_of_peak": dpe}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
