"""`python -m triton_mtia.bench.paper --quick`: every figure of the paper's
evaluation is measured by the run, drawn, and reported beside the paper's."""

import json

from triton_mtia.bench import paper


def test_quick_run_writes_every_figure_its_pictures_and_the_report(tmp_path):
    out = tmp_path / "out"
    figures = tmp_path / "paper.json"
    assert paper.main(["--quick", "--json", str(figures), "--out", str(out)]) == 0
    data = json.loads(figures.read_text())
    assert {"fig6", "fig7", "fig8", "fig9", "fig10", "table1"} <= set(data) and data["quick"]
    for row in data["fig6"]:  # raw cycles of both kernels and the bound
        assert row["triton_cycles"] > 0 and row["expert_cycles"] > 0
        assert 0 < row["triton_roofline_frac"] <= 1.0 and 0 < row["expert_roofline_frac"] <= 1.0
    for row in data["fig7"]:
        assert row["full_fused_cycles"] > 0 and row["full_decomposed_cycles"] > 0
    assert len(data["fig8"]) == 17 and all(0 < r["roofline_frac_geomean"] <= 1.0 for r in data["fig8"])
    assert all(r["matches"] for r in data["fig9"])
    for row in data["fig10"]["sub_graphs"]:  # every sub-graph ran kernels both ways
        assert row["fused_cycles"] > 0 and row["per_op_cycles"] > 0 and row["per_op_launches"] >= row["kernels"]
        assert row["per_op_launches"] >= row["eager_ops"]  # no operator of the baseline ran on the host
    assert data["fig10"]["fusion_depth"] > 1
    assert data["table1"]["cases"] == len(paper.TABLE1_QUICK_OPS)
    report = (out / "report.md").read_text()
    for name in ("fig6", "fig7", "fig8", "fig9", "fig10"):
        assert (out / f"{name}.png").stat().st_size > 0 and f"({name}.png)" in report
    assert "Table 1" in report and "Paper:" in report and "python -m triton_mtia.bench.paper --quick" in report


def test_figure_10_baseline_runs_each_eager_operator_on_the_chip():
    # The baseline is eager mode on the device: native_layer_norm (which
    # takes its normalized shape as a list) is a kernel on the chip.
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    from triton_mtia import runtime
    x, w, b = (torch.randn(*shape).to(paper.DEVICE) for shape in ((8, 40), (40, ), (40, )))
    graph = make_fx(lambda x, w, b: torch.nn.functional.layer_norm(x, (40, ), w, b))(x, w, b)
    assert any(n.target == torch.ops.aten.native_layer_norm.default for n in graph.graph.nodes)
    before = runtime.launch_count
    out = paper._run_per_op(graph, (x, w, b))
    assert runtime.launch_count > before
    torch.testing.assert_close(out.cpu(), torch.nn.functional.layer_norm(x.cpu(), (40, ), w.cpu(), b.cpu()))


def test_unknown_figure_is_an_error(tmp_path, capsys):
    try:
        paper.main(["--quick", "--only", "fig11", "--json", str(tmp_path / "f.json"), "--out", str(tmp_path)])
    except SystemExit as exit:
        assert exit.code == 2
    assert "unknown figure(s) fig11" in capsys.readouterr().err
