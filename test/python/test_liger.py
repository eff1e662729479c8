"""liger-kernel's Triton kernels, unmodified, on the simulated chip
(the harness is python -m triton_mtia.bench.liger; docs/python.md).

PASSING lists the cases whose kernels use only constructs the backend
supports today; each must match its PyTorch reference. FAILING lists the
others with the reason; they are strict xfails, so a case that starts to pass
(a lowering landed) turns the suite red until it moves to PASSING."""

import pytest

liger_kernel = pytest.importorskip("liger_kernel")

from triton_mtia.bench import liger  # noqa: E402

#: Cases (op forward, or op.backward) that must pass now.
PASSING = [
    "rms_norm", "rms_norm.backward",
    "rms_norm_bf16", "rms_norm_bf16.backward",
    "fused_add_rms_norm", "fused_add_rms_norm.backward",
    "layer_norm", "layer_norm.backward",
    "group_norm", "group_norm.backward",
    "poly_norm", "poly_norm.backward",
    "dyt",
    "softmax", "softmax.backward",
    "sparsemax", "sparsemax.backward",
    "swiglu", "swiglu.backward",
    "swiglu_fused_gate_up", "swiglu_fused_gate_up.backward",
    "geglu", "geglu.backward",
    "relu_squared", "relu_squared.backward",
    "rope", "rope.backward",
    "qwen2vl_mrope", "qwen2vl_mrope.backward",
    "llama4_rope", "llama4_rope.backward",
    "cross_entropy", "cross_entropy.backward",
    "cross_entropy_softcap_smoothing", "cross_entropy_softcap_smoothing.backward",
    "fused_linear_cross_entropy", "fused_linear_cross_entropy.backward",
    "kl_div", "kl_div.backward",
    "jsd", "jsd.backward",
    "fused_linear_jsd", "fused_linear_jsd.backward",
    "tvd", "tvd.backward",
    "fused_neighborhood_attention", "fused_neighborhood_attention.backward",
]  # yapf: disable

#: Forward cases that fail today, and why (the backward of each is blocked).
FAILING = {}

#: Backward cases that fail although their forward passes.
FAILING_BACKWARD = {
    "dyt.backward": "liger's host code has no CPU path (NUM_SMS is unset for device 'cpu')",
}

_cache = {}


def _results(op_name):
    if op_name not in _cache:
        _cache[op_name] = {r.case: r for r in liger.run_op(liger.OPS[op_name])}
    return _cache[op_name]


def _check(case):
    op_name = case.split(".")[0]
    result = _results(op_name).get(case)
    assert result is not None, f"{case}: not run"
    assert result.status == "pass", f"{case}: {result.status}: {result.reason} {result.source}"


@pytest.fixture(scope="module", autouse=True)
def _quiet_liger():
    import logging
    import triton_mtia
    logging.getLogger("liger_kernel.backends.registry").setLevel(logging.ERROR)
    keep = triton_mtia.settings.keep_failed_temps
    triton_mtia.settings.keep_failed_temps = False
    yield
    triton_mtia.settings.keep_failed_temps = keep


def test_pinned_version():
    from importlib.metadata import version
    assert version("liger-kernel") == liger.LIGER_VERSION


def test_every_op_is_classified():
    cases = set(PASSING) | set(FAILING) | set(FAILING_BACKWARD)
    for name in liger.OPS:
        assert name in cases, f"{name}: add it to PASSING or FAILING"


@pytest.mark.parametrize("case", PASSING)
def test_passes(case):
    _check(case)


@pytest.mark.parametrize("case", [
    pytest.param(case, marks=pytest.mark.xfail(reason=reason, strict=True))
    for case, reason in {**FAILING, **FAILING_BACKWARD}.items()
])
def test_fails_today(case):
    _check(case)


def test_failure_names_construct_and_source_line():
    # The report of a compiler failure: the message, the construct and the
    # kernel's source line (read from the file the diagnostic points at).
    import inspect

    from liger_kernel.ops import sparsemax

    from triton_mtia.errors import CompilationError
    path = inspect.getsourcefile(sparsemax)
    line = next(i for i, text in enumerate(open(path).read().splitlines(), 1) if "tl.cumsum" in text)
    diag = f"{path}:{line}:17: error: 'tt.scan' is not supported by the MTIA backend yet\n"
    info = liger.explain(CompilationError("cpp", ["triton-mtia-compile", "k.ttir"], 1, diag))
    assert info["reason"] == "compiler (cpp): 'tt.scan' is not supported by the MTIA backend yet"
    assert info["construct"] == "tt.scan"
    assert info["source"].startswith(f"liger_kernel/ops/sparsemax.py:{line}: ") and "tl.cumsum" in info["source"]


def test_mismatch_is_reported():
    # A wrong result is a failure with the mismatch, not an error.
    spec = liger.Op("wrong", lambda gen: (liger.torch.ones(3), liger.torch.zeros(3), None))
    result = liger.run_op(spec)[0]
    assert result.status == "fail" and result.reason.startswith("mismatch: ")
