"""TorchInductor on the simulated chip: torch.compile'd functions of `mtia`
tensors run as Inductor-generated Triton kernels on the simulator (PyTorch's
MTIA path, triton_mtia.inductor) and match eager PyTorch on the CPU."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
import triton
import triton.language as tl

import triton_mtia
from triton_mtia import runtime

DEVICE = "mtia"


def _on_device(value):
    if isinstance(value, torch.Tensor):
        return value.to(DEVICE)
    return type(value)(_on_device(v) for v in value) if isinstance(value, (tuple, list)) else value


def _on_host(value):
    if isinstance(value, torch.Tensor):
        assert value.device.type == DEVICE, value.device
        return value.cpu()
    return type(value)(_on_host(v) for v in value) if isinstance(value, (tuple, list)) else value


def _randn(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(7), dtype=dtype)


_W, _B = _randn(64), _randn(64) * 0.1
_TABLE = _randn(100, 16)

# name -> (function, inputs). Each covers a kind of kernel Inductor writes:
# pointwise, persistent and looped reductions, multi-output reductions
# with a custom combine (argmax: max_with_index; var_mean: welford), a
# gather (embedding), a scan, integer and low-precision math.
CASES = {
    "pointwise": (lambda x, y: (x + y).relu() * 2, (_randn(1000), _randn(1000) + 1)),
    "softmax": (lambda x: torch.softmax(x, -1), (_randn(37, 100),)),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (64,), w, b), (_randn(50, 64), _W, _B)),
    "looped_sum": (lambda x: x.sum(1), (_randn(8, 20000),)),
    "argmax": (lambda x: x.argmax(1), (_randn(31, 77),)),
    "var_mean": (lambda x: torch.var_mean(x, 1), (_randn(29, 3000),)),
    "masked_max": (lambda x: torch.where(x > 0, x, torch.zeros_like(x)).max(0).values, (_randn(70, 90),)),
    "embedding": (lambda i, table: F.embedding(i, table) * 2,
                  (torch.randint(0, 100, (57,), generator=torch.Generator().manual_seed(3)), _TABLE)),
    "cumsum": (lambda x: x.cumsum(1), (_randn(13, 300),)),
    "int_math": (lambda x: (x // 3) % 7 + (x >> 1),
                 (torch.randint(-1000, 1000, (999,), dtype=torch.int32, generator=torch.Generator().manual_seed(5)),)),
    "gelu_bf16": (lambda x: F.gelu(x.to(torch.bfloat16), approximate="tanh"), (_randn(4097),)),
    # More tiles live than a PE has CBs: lowered again with loads re-issued
    # (max_pool2d's window values feed the max and the index), or with
    # computed tiles recomputed too (bicubic's taps and weights).
    "max_pool2d_with_indices": (lambda x: F.max_pool2d(x, 3, 2, return_indices=True), (_randn(2, 3, 9, 9),)),
    "bicubic": (lambda x: F.interpolate(x, scale_factor=1.5, mode="bicubic"), (_randn(2, 3, 6, 6),)),
    "cummax": (lambda x: torch.cummax(x, 1), (_randn(5, 7),)),
    # A scan whose combine needs the vector core (log1p).
    "logcumsumexp": (lambda x: torch.logcumsumexp(x, 1), (_randn(6, 9),)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_function_runs_on_the_chip(inductor, name):
    fn, args = CASES[name]
    torch._dynamo.reset()
    before = runtime.launch_count
    triton_mtia.device.reset_host_fallbacks()
    out = _on_host(torch.compile(fn)(*_on_device(args)))
    assert runtime.launch_count > before, "no kernel ran on the simulated chip"
    assert triton_mtia.device.host_fallbacks() == {}, "an operator ran on the host"
    launch = triton_mtia.last_launch()
    assert launch.kernel.startswith("triton_") and launch.cycles > 0
    ref = fn(*args)
    if isinstance(ref, torch.Tensor) and ref.dtype == torch.bfloat16:
        # Inductor computes in fp32 and rounds once; ATen rounds on the way:
        # one bf16 ulp apart at most.
        torch.testing.assert_close(out, ref, rtol=1.6e-2, atol=1e-3)
    elif name == "looped_sum":
        # Rows of 20000 terms, summed by Inductor's GPU-style loop in
        # another order than ATen's: about 1e-5 relative apart.
        torch.testing.assert_close(out, ref, rtol=1e-4, atol=1e-4)
    else:
        # Reductions sum in another order than ATen's: a few ulps.
        torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)


def test_autotuning_measures_simulated_time(inductor):
    """Inductor's benchmarker times a kernel on the chip in simulated time
    (deterministic, one run), and a host function by the wall clock."""
    from torch._inductor.runtime.benchmarking import benchmarker

    @triton.jit
    def scale(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

    x = torch.ones(4096, device=DEVICE)
    scale[(4,)](x, 4096, BLOCK=1024)  # compiled before it is timed
    before = runtime.launch_count
    ms = benchmarker.benchmark(lambda: scale[(4,)](x, 4096, BLOCK=1024), device=DEVICE)
    assert runtime.launch_count == before + 1
    assert ms == pytest.approx(triton_mtia.last_launch().seconds * 1e3)
    assert ms == benchmarker.benchmark(lambda: scale[(4,)](x, 4096, BLOCK=1024), device=DEVICE)
    # Inductor's kernels call benchmark_gpu directly.
    assert ms == benchmarker.benchmark_gpu(lambda: scale[(4,)](x, 4096, BLOCK=1024), device_type=DEVICE)
    before = runtime.launch_count
    y = torch.ones(8)
    assert benchmarker.benchmark(lambda: y.sum(), device=DEVICE) > 0
    assert runtime.launch_count == before


def test_adjustments_hold_in_a_fresh_process():
    """Without an import of triton_mtia, Inductor's modules come adjusted
    for the mtia device (triton_mtia.inductor), and what the MTIA path
    imports from Meta's runtime is provided."""
    code = """
import torch
import torch._inductor.utils as utils
from torch._inductor.runtime.benchmarking import benchmarker
from torch._inductor.decomposition import decompositions
from mtia.host_runtime.torch_mtia.acc_flags import build_codename
import mtia.host_runtime.torch_mtia.dynamic_library
print(utils.is_big_gpu(torch.device("mtia")), build_codename())
print(type(benchmarker.benchmark_gpu).__name__)
x = torch.randn(4, 8, device="mtia")
out = decompositions[torch.ops.aten.native_layer_norm.default](x, [8], None, None, 1e-5)
print(out is not NotImplemented)
print(torch._C._dynamo.guards._empty_strided_mtia((2, 3), (3, 1), torch.float16).device)
import torch._inductor.config as config
print(config.inductor_choices_class.__name__)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["True", "mtia2i", "partial", "True", "mtia:0", "choices_factory"]


def test_max_autotune_puts_matmuls_on_the_chip(inductor):
    """With Triton as max-autotune's GEMM backend, a Linear-GELU-Linear
    becomes Inductor's matmul template kernels (with the bias and GELU fused
    as epilogues), autotuned by simulated time: every kernel runs on the
    chip."""
    import torch._inductor.config as config

    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.Linear(128, 32))
    x = _randn(48, 64)
    expected = model(x)
    torch._dynamo.reset()
    with config.patch(max_autotune=True, max_autotune_gemm_backends="TRITON"), torch.no_grad():
        compiled = torch.compile(model.to(DEVICE))
        compiled(x.to(DEVICE))  # compiles and autotunes
        triton_mtia.device.reset_host_fallbacks()
        with triton_mtia.trace() as recording:
            out = compiled(x.to(DEVICE))
        torch.testing.assert_close(out.cpu(), expected, rtol=1e-4, atol=1e-4)
    kernels = [launch.kernel for launch in recording.launches]
    assert sum(name.startswith("triton_tem_fused_addmm") for name in kernels) == 2, kernels
    assert triton_mtia.device.host_fallbacks() == {}


class _MLP(torch.nn.Module):
    """Linear, bias and GELU, Linear."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(64, 256), torch.nn.Linear(256, 64)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class _Recommendation(torch.nn.Module):
    """DLRM-style: sparse features through embedding bags, dense ones
    through a bottom MLP, their pairwise dot products (the feature
    interaction), and a top MLP to a click probability."""

    def __init__(self, tables=3, rows=100, dim=16, dense=13):
        super().__init__()
        self.bags = torch.nn.ModuleList(torch.nn.EmbeddingBag(rows, dim, mode="sum") for _ in range(tables))
        self.bottom = torch.nn.Sequential(torch.nn.Linear(dense, 32), torch.nn.ReLU(), torch.nn.Linear(32, dim),
                                          torch.nn.ReLU())
        n = tables + 1
        self.top = torch.nn.Sequential(torch.nn.Linear(dim + n * (n - 1) // 2, 32), torch.nn.ReLU(),
                                       torch.nn.Linear(32, 1))

    def forward(self, dense, indices, offsets):
        x = self.bottom(dense)
        features = torch.stack([x] + [bag(indices[i], offsets[i]) for i, bag in enumerate(self.bags)], 1)
        dots = torch.bmm(features, features.transpose(1, 2))
        i, j = torch.triu_indices(features.shape[1], features.shape[1], 1)
        return torch.sigmoid(self.top(torch.cat([x, dots[:, i, j]], 1)))


def _models():
    torch.manual_seed(0)
    return {
        "transformer_block": (torch.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True),
                              (_randn(2, 16, 64),)),
        "mlp_bias_gelu": (_MLP(), (_randn(32, 64),)),
        "recommendation": (_Recommendation(), (_randn(8, 13), torch.randint(0, 100, (3, 24)),
                                               torch.arange(0, 24, 3).repeat(3, 1))),
    }




@pytest.mark.parametrize("name", ["transformer_block", "mlp_bias_gelu", "recommendation"])
def test_models_on_the_device_match_eager(inductor, name):
    model, args = _models()[name]
    model.eval()
    with torch.no_grad():
        expected = model(*args)
        torch._dynamo.reset()
        compiled = torch.compile(model.to(DEVICE))
        compiled(*_on_device(args))
        triton_mtia.device.reset_host_fallbacks()
        before = runtime.launch_count
        out = compiled(*_on_device(args))
    torch.testing.assert_close(_on_host(out), expected, rtol=1e-4, atol=1e-4)
    assert runtime.launch_count > before, "no kernel ran on the simulated chip"
    # What Inductor leaves to ATen (the GEMMs, the embedding bags) runs on
    # the chip too (triton_mtia/aten/): the host only creates tensors (the
    # positions of the bags' indices).
    host = triton_mtia.device.host_fallbacks()
    assert not any(triton_mtia.profiler.computes_by_name(name) for name in host), host


def test_fusion_stats_count_the_aten_ops_of_each_kernel(inductor, monkeypatch):
    from triton_mtia.bench.fusion import fusion_stats

    torch._dynamo.reset()
    x, w, b = (t.to(DEVICE) for t in (_randn(32, 64), _W, _B))
    out, stats = fusion_stats(lambda x, w, b: torch.sigmoid(F.layer_norm(x, (64,), w, b)) * 2, x, w, b)
    torch.testing.assert_close(out.cpu(), torch.sigmoid(F.layer_norm(x.cpu(), (64,), _W, _B)) * 2)
    assert len(stats.kernels) == 1
    assert sorted(stats.kernels[0].aten_ops) == ["aten.mul", "aten.native_layer_norm", "aten.sigmoid"]
    assert stats.fusion_depth == 3
    assert stats.aten_calls == []
    torch._dynamo.reset()
    _, stats = fusion_stats(lambda x, m: torch.relu(x @ m) + 1, x, _randn(64, 8).to(DEVICE))
    assert stats.aten_calls == ["extern_kernels.mm"]
    assert [k.aten_ops for k in stats.kernels] == [["aten.relu", "aten.add"]]
    # Decomposed, the layer norm is a dozen graph nodes in the same kernel.
    monkeypatch.setattr(triton_mtia.settings, "layer_norm_template", False)
    torch._dynamo.reset()
    _, stats = fusion_stats(lambda x, w, b: torch.sigmoid(F.layer_norm(x, (64,), w, b)) * 2, x, w, b)
    assert stats.fusion_depth == 3 and stats.decomposed_depth > 3


def test_torch_compile_example_in_a_fresh_process(tmp_path):
    """examples/torch_compile.py as a user runs it: a new process, whose
    Inductor compile workers are new processes too."""
    example = Path(__file__).resolve().parents[2] / "examples" / "torch_compile.py"
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, env=env,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "matches eager PyTorch" in proc.stdout
    assert "triton_tem_fused_native_layer_norm" in proc.stdout
    assert "output on mtia:0" in proc.stdout
    assert "eager operators run on the host: none" in proc.stdout  # the matmuls run on the chip too


def test_opinfo_coverage_harness_classifies_ops(inductor):
    """`python -m triton_mtia.bench.inductor_ops` on a few OpInfos: a
    pointwise op, a reduction and a matmul (an extern kernel of Inductor's,
    the device's GEMM) run on the chip."""
    from triton_mtia.bench import inductor_ops

    results = inductor_ops.run(["add", "softmax", "argmax", "mm"], progress=None)
    status = {r.op: r.status for r in results}
    assert status == {"add": "chip", "softmax": "chip", "argmax": "chip", "mm": "chip"}, results
    assert all(r.launches > 0 for r in results if r.status == "chip")
    cov = inductor_ops.coverage(results)
    assert cov["works_frac"] == 1.0 and cov["on_chip_frac"] == 1.0


def test_opinfo_harness_resumes_from_its_json(inductor, tmp_path, capsys, monkeypatch):
    """A run of hours writes its JSON after every op; `--resume` keeps what
    an earlier run with the same settings measured and runs the rest."""
    import json

    import triton_mtia
    from triton_mtia.bench import inductor_ops

    # main() turns off keeping failed compilations' temporaries: restored after.
    monkeypatch.setattr(triton_mtia.settings, "keep_failed_temps", triton_mtia.settings.keep_failed_temps)

    report = tmp_path / "coverage.json"
    assert inductor_ops.main(["--ops", "add", "--json", str(report)]) == 0
    first = json.loads(report.read_text())
    assert first["complete"] and [r["op"] for r in first["by_dtype"]["float32"]["results"]] == ["add"]
    assert inductor_ops.main(["--ops", "add,mm", "--json", str(report), "--resume"]) == 0
    assert "[1/2] add" not in capsys.readouterr().err  # kept, not run again
    second = json.loads(report.read_text())
    results = second["by_dtype"]["float32"]["results"]
    assert [r["op"] for r in results] == ["add", "mm"] and results[0] == first["by_dtype"]["float32"]["results"][0]
    with pytest.raises(SystemExit, match="other settings"):
        inductor_ops.main(["--ops", "add", "--samples", "2", "--json", str(report), "--resume"])


def test_opinfo_harness_compares_two_runs():
    """`--compare`: the simulated-time ratio of the ops on the chip in both
    runs, their geometric mean, and the ops faster and slower."""
    from triton_mtia.bench.inductor_ops import Result, compare

    before = [Result("a", "chip", simulated_us=2.0, seconds=1.0), Result("b", "chip", simulated_us=4.0, seconds=1.0),
              Result("c", "host", seconds=1.0), Result("d", "chip", simulated_us=1.0)]
    after = [Result("a", "chip", simulated_us=1.0, seconds=2.0), Result("b", "chip", simulated_us=8.0, seconds=3.0),
             Result("c", "host"), Result("d", "fail")]
    c = compare(before, after)
    assert (c["ops"], c["geomean_after_over_before"], c["faster"], c["slower"]) == (2, 1.0, 1, 1)
    assert c["ratios"] == {"a": 0.5, "b": 2.0}
    assert (c["wall_seconds_before"], c["wall_seconds_after"]) == (3.0, 5.0)


def test_opinfo_harness_judges_rounding_by_a_float64_reference(inductor):
    """At float16 Inductor's group norm (float32 inside, one rounding) and
    the CPU's eager kernel (rounding at every step) differ beyond
    assert_close's tolerance; against float64 the compiled one is the
    closer, so the sample counts as correct, within rounding. A result off
    by more than rounding stays wrong."""
    from triton_mtia.bench import inductor_ops

    [r] = inductor_ops.run(["nn.functional.group_norm"], dtype=torch.float16, progress=None)
    assert (r.status, r.cases, r.within_rounding) == ("chip", {"chip": 1}, 1), r
    assert inductor_ops.table1([r])["within_rounding"] == 1

    x = torch.randn(256, device="mtia", dtype=torch.float16)
    eager = torch.sigmoid(x)
    assert inductor_ops._within_rounding(torch.sigmoid, (x, ), {}, eager.clone(), eager)
    assert not inductor_ops._within_rounding(torch.sigmoid, (x, ), {}, eager + 0.01, eager)


def test_inductor_vs_handwritten_benchmark_runs(inductor):
    """`python -m triton_mtia.bench.inductor` at the samples' default sizes:
    both the handwritten kernels and Inductor's match eager PyTorch and take
    simulated time; the figures themselves are the benchmark's to report."""
    from triton_mtia.bench import inductor as bench

    results = bench.run(scales=(1, ), progress=None)
    assert [r["sample"] for r in results] == ["vector_add", "softmax", "layernorm"]
    for r in results:
        assert r["handwritten_matches"] and r["inductor_matches"], r
        assert r["handwritten_cycles"] > 0 and r["inductor_cycles"] > 0
        assert all(k.startswith("triton_") for k in r["inductor_kernels"])
    assert bench.geomean(results) > 0


@pytest.mark.parametrize("op", ["amax", "softmax"])
def test_split_reductions_over_a_leading_dimension(inductor, op):
    """Inductor splits a reduction over a leading dimension of an fp16 tensor;
    with mix-order reductions on, its lowering asserted (ir.py,
    _find_split_reduction). Found by the torch.compile fuzzer."""
    x = torch.randn(33, 16, dtype=torch.float16, generator=torch.Generator().manual_seed(0))
    fn = {"amax": lambda t: torch.amax(t, dim=-2), "softmax": lambda t: torch.softmax(t, dim=-2)}[op]
    out = torch.compile(fn)(x.to("mtia"))
    torch.testing.assert_close(out.cpu(), fn(x), rtol=1e-3, atol=1e-3)


class _Block(torch.nn.Module):
    """A GPT-2-style block: causal self-attention, an MLP, pre-norms."""

    def __init__(self, dim=32, heads=2, p=0.0):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(dim), torch.nn.LayerNorm(dim)
        self.qkv, self.proj = torch.nn.Linear(dim, 3 * dim), torch.nn.Linear(dim, dim)
        self.fc, self.out = torch.nn.Linear(dim, 4 * dim), torch.nn.Linear(4 * dim, dim)
        self.heads, self.p = heads, p

    def forward(self, x):
        B, T, D = x.shape
        q, k, v = (t.view(B, T, self.heads, D // self.heads).transpose(1, 2)
                   for t in self.qkv(self.ln1(x)).split(D, -1))
        s = (q @ k.transpose(-2, -1)) * (D // self.heads)**-0.5
        s = s.masked_fill(~torch.tril(torch.ones(T, T, dtype=torch.bool, device=x.device)), float("-inf"))
        a = F.dropout(F.softmax(s, -1), self.p, self.training) @ v
        x = x + self.proj(a.transpose(1, 2).reshape(B, T, D))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class _TinyGPT(torch.nn.Module):

    def __init__(self, vocab=50, dim=32, p=0.0):
        super().__init__()
        self.emb, self.pos = torch.nn.Embedding(vocab, dim), torch.nn.Embedding(16, dim)
        self.block, self.ln, self.head = _Block(dim, p=p), torch.nn.LayerNorm(dim), torch.nn.Linear(dim, vocab)

    def forward(self, idx, target):
        x = self.emb(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        logits = self.head(self.ln(self.block(x)))
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), target.view(-1))


def _train_step(model, optimizer, idx, target):
    optimizer.zero_grad()
    loss = model(idx, target)
    loss.backward()
    optimizer.step()
    return loss


def _a_gpt_step(dropout):
    """A _TinyGPT on the CPU and its copy on mtia, the copy's weights before
    the step, and a batch: (reference, model, before, idx, target)."""
    torch.manual_seed(0)
    reference, model = _TinyGPT(p=dropout), _TinyGPT(p=dropout)
    model.load_state_dict(reference.state_dict())
    model = model.to("mtia")
    before = [p.detach().cpu().clone() for p in model.parameters()]
    return reference, model, before, torch.randint(0, 50, (2, 16)), torch.randint(0, 50, (2, 16))


def _judge_gpt_step(dropout, loss, reference, model, before, idx, target):
    """Without dropout the chip's loss and updated weights are the CPU's
    step's; with it (the chip's own random stream) the loss is finite and
    every weight moved."""
    if dropout == 0.0:
        want = _train_step(reference, torch.optim.SGD(reference.parameters(), lr=0.1), idx, target)
        torch.testing.assert_close(loss.cpu(), want, rtol=1e-4, atol=1e-5)
        for mine, theirs in zip(model.parameters(), reference.parameters()):
            torch.testing.assert_close(mine.detach().cpu(), theirs.detach(), rtol=1e-3, atol=1e-4)
    else:
        assert torch.isfinite(loss.cpu())
        assert all(not torch.equal(p.detach().cpu(), b) for p, b in zip(model.parameters(), before))


@pytest.mark.parametrize("dropout", [0.0, 0.1])
def test_a_compiled_training_step_runs_on_the_chip(inductor, dropout):
    """Loss, backward and an SGD step compiled together (issue 43): every
    compute operator is a chip kernel, GEMMs included; without dropout the
    loss and the updated weights are the CPU's, with it (the chip's own
    random stream) the loss is finite and every weight moves."""
    reference, model, before, idx, target = _a_gpt_step(dropout)
    torch._dynamo.reset()
    triton_mtia.device.reset_host_fallbacks()
    loss = torch.compile(_train_step)(model, torch.optim.SGD(model.parameters(), lr=0.1), idx.to("mtia"),
                                      target.to("mtia"))
    # Only the seed of Inductor's random stream is drawn on the host.
    assert set(triton_mtia.device.host_fallbacks()) <= {"aten::random_.from"}
    _judge_gpt_step(dropout, loss, reference, model, before, idx, target)


def test_adjustments_hold_on_every_thread(inductor):
    """Inductor's config keeps an assignment in a ContextVar, for the
    thread that made it; the autograd engine runs eager backward operators
    (and compiles their per-operator kernels) on a thread of its own. The
    adjustments are defaults, for every thread: a split reduction compiles
    on another thread too (with mix-order reductions on, it asserted)."""
    import threading

    import torch._inductor.config as config
    x = torch.randn(33, 16, dtype=torch.float16, generator=torch.Generator().manual_seed(0))
    seen = {}

    def compile_elsewhere():
        seen["mix_order_reduction"] = config.triton.mix_order_reduction
        seen["choices"] = config.inductor_choices_class
        seen["out"] = torch.compile(lambda t: torch.amax(t, dim=-2))(x.to("mtia")).cpu()

    torch._dynamo.reset()
    thread = threading.Thread(target=compile_elsewhere)
    thread.start()
    thread.join()
    assert seen["mix_order_reduction"] is False and seen["choices"] is not None
    torch.testing.assert_close(seen["out"], torch.amax(x, dim=-2))
