"""The model zoo benchmark (`python -m triton_mtia.bench.models`) on its
smallest model: a run is checked against the CPU and profiled; the zoo
itself is a benchmark, not a test (bench/README.md has its figures)."""

import pytest

from triton_mtia import device

pytestmark = pytest.mark.skipif(not device.loaded(), reason="needs torch.device('mtia')")

transformers = pytest.importorskip("transformers")


@pytest.mark.parametrize("path", ["eager", "compiled"])
def test_a_resnet_training_step_runs_on_the_chip_and_matches_the_cpu(path, tmp_path):
    import json

    from triton_mtia.bench import models
    row = models.run_one("resnet", models._zoo()["resnet"], "training", path, traces=tmp_path)
    assert row["status"] == "ok", row
    assert row["host_compute_ops"] == {} and row["launches"] > 0 and row["simulated_us"] > 0
    if path == "eager":
        assert row["chip_call_share"] == 1.0 and row["host_operators"] == []
        assert row["by_class"]["convolution"]["chip_calls"] >= 2  # forward and backward
        trace = json.loads((tmp_path / "resnet-training.json").read_text())
        assert sum(1 for e in trace["traceEvents"] if e["ph"] == "X" and e["tid"] == 2) == row["launches"]
        assert (tmp_path / "resnet-training.png").stat().st_size > 0


def test_the_dlrm_model_trains_on_the_chip():
    from triton_mtia.bench import models
    row = models.run_one("dlrm", models._zoo()["dlrm"], "training", "eager")
    assert row["status"] == "ok", row
    assert row["chip_call_share"] == 1.0 and row["host_compute_ops"] == {}  # the embedding bags' included


def test_table1_and_deployment_figures():
    from triton_mtia.bench import models
    rows = [{"model": "a", "mode": "inference", "path": "compiled", "status": "ok"},
            {"model": "b", "mode": "inference", "path": "compiled", "status": "triton"},
            {"model": "a", "mode": "training", "path": "eager", "status": "ok", "compute_calls": 10, "chip_calls": 9,
             "by_class": {"gemm": {"chip_us": 5.0, "host_ms": 0.0}, "other": {"chip_us": 3.0, "host_ms": 0.001}}}]
    t = models.table1(rows)
    assert (t["inference"]["success"], t["inference"]["triton_error"], t["training"]["runs"]) == (50.0, 50.0, 0)
    d = models.deployment(rows)
    assert d["layer_share"] == 0.9 and d["non_gemm_time_share"] == pytest.approx(0.75)


def test_a_result_within_rounding_of_float64_is_right_and_one_beyond_is_wrong():
    import torch
    from triton_mtia.bench import models
    exact = torch.linspace(-1, 1, 100, dtype=torch.float64)
    cpu = (exact + 1e-3 * torch.sin(torch.arange(100.0, dtype=torch.float64))).float()  # the CPU's own error
    models._check("w", (exact - 1e-3 * torch.cos(torch.arange(100.0, dtype=torch.float64))).float(), cpu, exact)
    with pytest.raises(AssertionError, match="w: .*beyond rounding"):
        models._check("w", (exact + 0.1).float(), cpu, exact)
