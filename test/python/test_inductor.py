"""TorchInductor on the simulated chip: torch.compile'd functions of CPU
tensors run as Inductor-generated Triton kernels on the simulator and match
eager PyTorch (triton_mtia.inductor)."""

import gc
import os

import pytest
import torch
import torch.nn.functional as F
import triton
import triton.language as tl

import triton_mtia
from triton_mtia import runtime


@pytest.fixture(scope="module")
def inductor(tmp_path_factory):
    # A fresh cache: every kernel is generated and compiled by this run.
    cache = str(tmp_path_factory.mktemp("inductor-cache"))
    old = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
    triton_mtia.inductor.enable()
    yield
    # Free the compiled kernels while a driver can still unload them.
    torch._dynamo.reset()
    gc.collect()
    triton_mtia.inductor.disable()
    if old is None:
        os.environ.pop("TORCHINDUCTOR_CACHE_DIR")
    else:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = old


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
    "layer_norm": (lambda x: F.layer_norm(x, (64,), _W, _B), (_randn(50, 64),)),
    "looped_sum": (lambda x: x.sum(1), (_randn(8, 20000),)),
    "argmax": (lambda x: x.argmax(1), (_randn(31, 77),)),
    "var_mean": (lambda x: torch.var_mean(x, 1), (_randn(29, 3000),)),
    "masked_max": (lambda x: torch.where(x > 0, x, torch.zeros_like(x)).max(0).values, (_randn(70, 90),)),
    "embedding": (lambda i: F.embedding(i, _TABLE) * 2,
                  (torch.randint(0, 100, (57,), generator=torch.Generator().manual_seed(3)),)),
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
    out = torch.compile(fn)(*args)
    assert runtime.launch_count > before, "no kernel ran on the simulated chip"
    launch = triton_mtia.last_launch()
    assert launch.kernel.startswith("triton_") and launch.cycles > 0
    ref = fn(*args)
    if isinstance(ref, torch.Tensor) and ref.dtype == torch.bfloat16:
        # Inductor computes in fp32 and rounds once; ATen rounds on the way:
        # one bf16 ulp apart at most.
        torch.testing.assert_close(out, ref, rtol=1.6e-2, atol=1e-3)
    else:
        # Reductions sum in another order than ATen's: a few ulps.
        torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)


def test_autotuning_measures_simulated_time(inductor):
    """Inductor's benchmarker times a kernel on the chip in simulated time
    (deterministic), and a host function by the wall clock."""
    from torch._inductor.runtime.benchmarking import benchmarker

    @triton.jit
    def scale(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

    x = torch.ones(4096)
    ms = benchmarker.benchmark(lambda: scale[(4,)](x, 4096, BLOCK=1024), device="cpu")
    assert ms == pytest.approx(triton_mtia.last_launch().seconds * 1e3)
    assert ms == benchmarker.benchmark(lambda: scale[(4,)](x, 4096, BLOCK=1024), device="cpu")
    # The template autotuner calls benchmark_cpu directly.
    assert ms == benchmarker.benchmark_cpu(lambda: scale[(4,)](x, 4096, BLOCK=1024))
    before = runtime.launch_count
    assert benchmarker.benchmark(lambda: torch.ones(8).sum(), device="cpu", warmup=1, rep=1) > 0
    assert runtime.launch_count == before


def test_enable_and_disable_restore_inductor():
    import torch._inductor.config as config
    from torch.utils._triton import has_triton

    was_enabled = triton_mtia.inductor.enabled()  # by the module's fixture
    triton_mtia.inductor.disable()
    try:
        driver = triton.runtime.driver.active
        assert config.cpu_backend != "triton" and "cpu" not in triton.backends.backends
        assert "TRITON_MTIA_INDUCTOR" not in os.environ
        triton_mtia.inductor.enable()
        triton_mtia.inductor.enable()  # twice changes nothing
        assert config.cpu_backend == "triton" and has_triton()
        assert os.environ["TRITON_MTIA_INDUCTOR"] == "1"
        triton_mtia.inductor.disable()
        assert config.cpu_backend != "triton" and "cpu" not in triton.backends.backends
        assert "TRITON_MTIA_INDUCTOR" not in os.environ
        assert triton.runtime.driver.active is driver  # still the MTIA driver (conftest)
    finally:
        if was_enabled:
            triton_mtia.inductor.enable()


def test_max_autotune_puts_matmuls_on_the_chip(inductor):
    """With Triton as max-autotune's GEMM backend, a Linear-GELU-Linear
    becomes Inductor's matmul template kernels (with the bias and GELU fused
    as epilogues), autotuned by simulated time: every kernel runs on the
    chip."""
    import torch._inductor.config as config

    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.Linear(128, 32))
    x = _randn(48, 64)
    torch._dynamo.reset()
    with config.patch(max_autotune=True, max_autotune_gemm_backends="TRITON"), torch.no_grad():
        compiled = torch.compile(model)
        compiled(x)  # compiles and autotunes
        with triton_mtia.trace() as recording:
            out = compiled(x)
        torch.testing.assert_close(out, model(x), rtol=1e-4, atol=1e-4)
    kernels = [launch.kernel for launch in recording.launches]
    assert sum(name.startswith("triton_tem_fused_addmm") for name in kernels) == 2, kernels


def test_torch_compile_example_in_a_fresh_process(tmp_path):
    """examples/torch_compile.py as a user runs it: a new process, whose
    Inductor compile workers are new processes too."""
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "examples" / "torch_compile.py"
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(tmp_path))
    env.pop("TRITON_MTIA_INDUCTOR", None)
    proc = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, env=env,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "matches eager PyTorch" in proc.stdout
    assert "triton_per_fused_native_layer_norm" in proc.stdout


def test_opinfo_coverage_harness_classifies_ops(inductor):
    """`python -m triton_mtia.bench.inductor_ops` on a few OpInfos: a
    pointwise op and a reduction run on the chip, a matmul stays an ATen
    call on the host (without max-autotune)."""
    from triton_mtia.bench import inductor_ops

    results = inductor_ops.run(["add", "softmax", "argmax", "mm"], progress=None)
    status = {r.op: r.status for r in results}
    assert status == {"add": "chip", "softmax": "chip", "argmax": "chip", "mm": "host"}, results
    assert all(r.launches > 0 for r in results if r.status == "chip")
    cov = inductor_ops.coverage(results)
    assert cov["works_frac"] == 1.0 and cov["on_chip_frac"] == 0.75


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
