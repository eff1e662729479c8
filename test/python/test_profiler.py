"""triton_mtia.profiler: a model step by ATen operator on the simulated
clock, chip or host, as a table, a Perfetto trace and a picture."""

import json

import pytest
import torch
import torch.nn.functional as F

import triton_mtia
from triton_mtia import device, profiler

pytestmark = pytest.mark.skipif(not device.loaded(), reason="needs torch.device('mtia')")


def _step(model, x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    return loss


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)).to("mtia")


def test_an_eager_step_by_operator(tmp_path):
    model = _model()
    x, y = torch.randn(8, 16).to("mtia"), torch.randint(0, 4, (8, )).to("mtia")
    _step(model, x, y)  # compiles the per-operator kernels
    with profiler.profile() as prof:
        _step(model, x, y)
    names = [c.name for c in prof.compute_calls()]
    # The backward's operators are seen too: threshold_backward is ReLU's.
    assert "aten::addmm" in names and "aten::threshold_backward" in names
    summary = prof.summary()
    assert summary["chip_call_share"] == 1.0 and summary["host_calls"] == 0
    assert summary["by_class"]["gemm"]["chip_calls"] >= 4  # two addmm forward, their mm backward
    # Every launch belongs to an operator; their times add up to the step's.
    launches = [l for c in prof.calls for l in c.launches]
    assert len(launches) == summary["launches"] > 0
    assert sum(c.simulated_s for c in prof.calls) == pytest.approx(prof.simulated_s)
    assert "aten::addmm" in prof.table()
    trace = json.loads(open(prof.write_trace(str(tmp_path / "step.json"))).read())
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert {e["name"] for e in slices if e["tid"] == 1} >= {"aten::addmm", "aten::threshold_backward"}
    assert sum(1 for e in slices if e["tid"] == 2) == summary["launches"]
    prof.draw(str(tmp_path / "step.png"))
    assert (tmp_path / "step.png").stat().st_size > 0


def test_a_host_operator_is_shown_as_the_hosts():
    x = torch.randn(6, 9).to("mtia")
    with profiler.profile() as prof:
        torch.median(x, dim=1)
    [call] = [c for c in prof.compute_calls()]
    assert call.where == "host" and call.host_s > 0 and call.simulated_s == 0
    assert prof.summary()["host_calls"] == 1 and prof.host_fallbacks


def test_a_compiled_step_by_launch():
    model = _model()
    x, y = torch.randn(8, 16).to("mtia"), torch.randint(0, 4, (8, )).to("mtia")
    torch._dynamo.reset()
    step = torch.compile(_step)
    step(model, x, y)
    with profiler.profile(operators=False) as prof:
        step(model, x, y)
    assert prof.calls == [] and prof.launches and prof.host_fallbacks == {}
    assert prof.simulated_s == pytest.approx(sum(l.seconds for l in prof.launches))
    assert any(l.kernel.startswith("triton_") for l in prof.launches)  # Inductor's kernels


def test_operator_classes():
    assert [profiler.operator_class(n) for n in ("aten::mm.out", "aten::convolution_backward",
                                                 "aten::_scaled_dot_product_flash_attention", "aten::gelu")] \
        == ["gemm", "convolution", "attention", "other"]
