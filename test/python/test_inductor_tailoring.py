"""The paper's section-5 tailorings of Inductor's MTIA path
(triton_mtia/inductor/layer_norm.py and heuristics.py): the layer-norm
template with its fused epilogue, the matmul configs fitted to a PE, the
choices' cache key, and the benchmark that measures them."""

import pytest
import torch
import torch.nn.functional as F

import triton_mtia
from triton_mtia.bench.fusion import fusion_stats
from triton_mtia.inductor import heuristics

DEVICE = "mtia"


def _randn(*shape, dtype=torch.float32, seed=3):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


def _compiled(fn, *host_args):
    """fn compiled on the device, its result on the host, and its kernels."""
    torch._dynamo.reset()
    with triton_mtia.trace() as recording:
        out, stats = fusion_stats(fn, *(a.to(DEVICE) if isinstance(a, torch.Tensor) else a for a in host_args))
    return out.cpu(), stats, recording.launches


def test_sigmoid_of_layer_norm_is_one_template_kernel(inductor, monkeypatch):
    """The paper's example: the template normalizes the rows and Inductor
    fuses the sigmoid into its store; switched off, Inductor's own fused
    kernel computes it, more slowly on wide rows."""
    fn = lambda x, w, b: torch.sigmoid(F.layer_norm(x, (4096, ), w, b))  # noqa: E731
    args = (_randn(64, 4096), _randn(4096, seed=4), _randn(4096, seed=5))
    out, stats, launches = _compiled(fn, *args)
    torch.testing.assert_close(out, fn(*args), rtol=1e-5, atol=1e-5)
    [kernel] = stats.kernels
    assert kernel.name == "triton_tem_fused_native_layer_norm_sigmoid_0"
    assert sorted(kernel.aten_ops) == ["aten.native_layer_norm", "aten.sigmoid"]
    [launch] = launches
    assert launch.grid == (64, 1, 1)  # one 4096-wide row per program, a program per PE

    monkeypatch.setattr(triton_mtia.settings, "layer_norm_template", False)
    out, stats, decomposed = _compiled(fn, *args)
    torch.testing.assert_close(out, fn(*args), rtol=1e-5, atol=1e-5)
    assert [k.name for k in stats.kernels] == ["triton_red_fused_native_layer_norm_sigmoid_0"]
    assert launch.cycles < decomposed[0].cycles


@pytest.mark.parametrize("case", ["no_affine", "weight_only", "bias_fp16_ragged", "two_dims", "bf16_3d"])
def test_template_variants_match_eager(inductor, case):
    """Rows and columns that do not divide into blocks (masks), missing
    weight or bias, low precision, and a normalized shape of two
    dimensions all take the template and match eager PyTorch."""
    x3 = _randn(2, 16, 64)
    fn, args, tol = {
        "no_affine": (lambda x: F.layer_norm(x, (64, )), (x3, ), 1e-5),
        "weight_only": (lambda x, w: F.layer_norm(x, (64, ), w) + 1, (x3, _randn(64, seed=9)), 1e-5),
        "bias_fp16_ragged": (lambda x, b: F.layer_norm(x, (100, ), None, b, eps=1e-3) * 2,
                             (_randn(37, 100, dtype=torch.float16), _randn(100, dtype=torch.float16)), 1e-2),
        "two_dims": (lambda x, w, b: F.layer_norm(x, (16, 64), w, b), (x3, _randn(16, 64), _randn(16, 64)), 1e-5),
        "bf16_3d": (lambda x: torch.relu(F.layer_norm(x, (64, ))), (x3.to(torch.bfloat16), ), 2e-2),
    }[case]
    out, stats, _ = _compiled(fn, *args)
    expected = fn(*(a.float() for a in args)).to(out.dtype)
    torch.testing.assert_close(out, expected, rtol=tol, atol=tol)
    assert [k.name.startswith("triton_tem_") for k in stats.kernels] == [True], stats.kernels


def test_training_takes_the_statistics_from_the_decomposition(inductor):
    """The backward pass reads the rows' mean and rstd: Inductor computes
    them from its decomposition beside the template."""
    x = _randn(8, 32).requires_grad_()
    w = _randn(32, seed=6).requires_grad_()
    torch._dynamo.reset()
    xd, wd = x.detach().to(DEVICE).requires_grad_(), w.detach().to(DEVICE).requires_grad_()
    compiled = torch.compile(lambda x, w: F.layer_norm(x, (32, ), w))
    (compiled(xd, wd) * torch.arange(32.0, device=DEVICE)).sum().backward()
    (F.layer_norm(x, (32, ), w) * torch.arange(32.0)).sum().backward()
    torch.testing.assert_close(xd.grad.cpu(), x.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(wd.grad.cpu(), w.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", ["row_too_wide", "float64"])
def test_what_the_template_does_not_serve_is_decomposed(inductor, case):
    """A row of 65536 floats does not fit a PE's local memory four times
    over, and float64 wants more than the template's float32 math:
    Inductor's decomposition computes both."""
    fn = lambda x: F.layer_norm(x, x.shape[-1:])  # noqa: E731
    x = _randn(2, 65536) if case == "row_too_wide" else _randn(16, 64, dtype=torch.float64)
    out, stats, _ = _compiled(fn, x)
    torch.testing.assert_close(out, fn(x), rtol=1e-5, atol=1e-5)
    assert stats.kernels and not any(k.name.startswith("triton_tem_") for k in stats.kernels)


def test_a_template_that_cannot_be_generated_falls_back_to_the_operator(inductor, monkeypatch):
    """Should Inductor refuse every choice of the template, the operator's
    own eager kernel (PyTorch's layer_norm, on the host) computes it."""
    from triton_mtia.inductor import layer_norm

    class NoChoice:

        def maybe_append_choice(self, choices, **kwargs):
            return NotImplementedError("no choice")

    monkeypatch.setattr(layer_norm, "_template", lambda *variant: NoChoice())
    fn = lambda x: torch.sigmoid(F.layer_norm(x, (64, )))  # noqa: E731
    x = _randn(16, 64)
    triton_mtia.device.reset_host_fallbacks()
    out, stats, _ = _compiled(fn, x)
    torch.testing.assert_close(out, fn(x), rtol=1e-5, atol=1e-5)
    assert not any(k.name.startswith("triton_tem_") for k in stats.kernels)
    # (ATen's layer norm for a device without a kernel of its own is a batch
    # norm over the rows, which the host fallback runs.)
    assert triton_mtia.device.host_fallbacks(), "the layer norm ran on the host"


def test_block_rows_for_64_pes_and_local_memory():
    """Two programs per PE where the rows allow, within 2048 elements; all
    that fit under max-autotune; none when one row does not fit."""
    assert heuristics.block_rows(256, 1024, max_autotune=False) == [2]
    assert heuristics.block_rows(8192, 64, max_autotune=False) == [16]
    assert heuristics.block_rows(64, 4096, max_autotune=False) == [1]
    assert heuristics.block_rows(64, 4096, max_autotune=True) == [1, 2, 4]
    assert heuristics.block_rows(4, 1 << 16, max_autotune=True) == []


def test_softmax_rows_per_program_for_64_pes(inductor, monkeypatch):
    """Switched on, a persistent reduction takes two 781-wide rows per
    program (150 programs, two per PE) where Inductor's GPU heuristics (the
    default) take one (300): fewer, fuller programs, and fewer cycles; the
    same result."""
    fn = lambda x: torch.softmax(x, -1)  # noqa: E731
    x = _randn(300, 781)
    monkeypatch.setattr(triton_mtia.settings, "fit_reduction_blocks", True)
    out, _, [fitted] = _compiled(fn, x)
    torch.testing.assert_close(out, fn(x))
    assert fitted.grid == (150, 1, 1)
    monkeypatch.setattr(triton_mtia.settings, "fit_reduction_blocks", False)
    out, _, [inductors] = _compiled(fn, x)
    torch.testing.assert_close(out, fn(x))
    assert inductors.grid == (300, 1, 1)
    assert fitted.cycles < inductors.cycles


def test_matmul_configs_fit_a_pe(inductor, monkeypatch):
    """Under max-autotune the matmul template's configs are those whose tiles
    fit a PE and that keep the 64 PEs busy: none fails with
    OutOfResources, and the winner matches eager PyTorch. Inductor's GPU
    configs include some that do not fit (the estimate says so; the
    compiler agrees, bench.inductor_tailoring counts them)."""
    import torch._inductor.config as config
    from torch._inductor.template_heuristics.triton import BaseConfigHeuristic

    import triton_mtia.errors as errors

    failures = []
    original = errors.OutOfResources.__init__

    def counted(self, *args, **kwargs):
        failures.append(args)
        original(self, *args, **kwargs)

    monkeypatch.setattr(errors.OutOfResources, "__init__", counted)
    a, b = _randn(256, 256), _randn(256, 256, seed=8)
    torch._dynamo.reset()
    with config.patch(max_autotune=True, max_autotune_gemm_backends="TRITON"):
        with triton_mtia.trace() as recording:
            out = torch.compile(lambda a, b: a @ b)(a.to(DEVICE), b.to(DEVICE))
    torch.testing.assert_close(out.cpu(), a @ b, rtol=1e-4, atol=1e-4)
    assert failures == []
    assert recording.launches[-1].kernel.startswith("triton_tem_fused_mm")
    assert recording.launches[-1].pes_used == 64

    local = heuristics.chip()["max_shared_memory_per_block"]
    gpu_configs = BaseConfigHeuristic().mm_configs
    assert any(heuristics.mm_local_memory(c.block_m, c.block_n, c.block_k) >= local for c in gpu_configs)


def test_choices_key_inductors_caches_by_the_settings(monkeypatch):
    """Inductor's FX-graph cache key holds the choices' uuid: it names this
    package's version and the settings that change the generated code."""
    import torch._inductor.config as config

    assert config.inductor_choices_class is heuristics.choices_factory
    before = heuristics.choices_factory().uuid()
    assert triton_mtia.__version__ in before
    monkeypatch.setattr(triton_mtia.settings, "layer_norm_template", False)
    assert heuristics.choices_factory().uuid() != before
    monkeypatch.setattr(triton_mtia.settings, "fit_reduction_blocks", True)
    assert "fit_reduction_blocks=True" in heuristics.choices_factory().uuid()


def test_tailoring_benchmark_reports_each_part(inductor, monkeypatch):
    """`python -m triton_mtia.bench.inductor_tailoring` on one shape per
    part: the template beats the decomposition on wide rows, bounding
    fusion by 15 CBs splits the kernel and costs cycles."""
    from triton_mtia.bench import inductor_tailoring as bench

    monkeypatch.setattr(bench, "LAYER_NORM_SHAPES", ((64, 4096), ))
    monkeypatch.setattr(bench, "FUSION_INPUTS", (16, ))
    figures = {"layer_norm": bench.layer_norm(dtypes=(torch.float32, ), progress=None),
               "fusion_bound": bench.fusion_bound(progress=None)}
    [ln], [fb] = figures["layer_norm"], figures["fusion_bound"]
    assert ln["matches"] and ln["template_over_decomposed"] < 1
    assert fb["matches"] and (fb["fused_kernels"], fb["bounded_kernels"]) == (1, 2)
    assert fb["bounded_over_fused"] > 1
    text = bench.report(figures)
    assert "5.2 layer-norm template" in text and "fusion bounded by 15 CBs" in text
