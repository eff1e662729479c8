"""The torch-level differential fuzzer (python -m triton_mtia.fuzz_torch):
a small fixed-seed run against eager PyTorch on the CPU, the generator's
determinism, the statistics that judge random operators, the shrinker and
the reproducer scripts; and the findings it made, each a test (a fixed one
a regression test; an open one would be a strict xfail, which fails the
suite once it is fixed)."""

import dataclasses
import os
import subprocess
import sys

import torch

from triton_mtia import fuzz_torch


def test_fixed_seed_run_has_no_findings(tmp_path):
    out = tmp_path / "out"
    report = tmp_path / "fuzz.json"
    run = subprocess.run([sys.executable, "-m", "triton_mtia.fuzz_torch", "--seed", "2000", "--count", "6",
                          "--jobs", "1", "--out", str(out), "--json", str(report)],
                         capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "fuzz_torch: ok 6, wrong 0, error 0, deadlock 0, hang 0, crash 0, unsupported 0" in run.stdout, \
        run.stdout + run.stderr[-3000:]
    assert os.listdir(out) == []
    import json
    summary = json.loads(report.read_text())
    assert summary["counts"]["ok"] == 6 and summary["findings"] == []
    assert sum(c["programs"] for c in summary["per_op"].values()) >= 6


def test_programs_are_deterministic_in_the_seed():
    a, b = fuzz_torch.Generator(7).program(), fuzz_torch.Generator(7).program()
    assert fuzz_torch.program_to_json(a) == fuzz_torch.program_to_json(b)
    assert a.source() != fuzz_torch.Generator(8).program().source()
    # the inputs' values are a function of the seed and the input's name
    x = a.inputs[0]
    assert torch.equal(fuzz_torch.input_values(a.seed, x), fuzz_torch.input_values(a.seed, x))
    # and the reproducers' format round-trips
    assert fuzz_torch.program_from_json(fuzz_torch.program_to_json(a)) == a


def test_programs_do_not_depend_on_what_the_process_made_before():
    """OpInfo samples are cached per process: a program is the same
    whichever programs came before it (the shrinker and the reproducers
    regenerate none, but a run's seeds must be repeatable one by one)."""
    code = ("import sys; from triton_mtia import fuzz_torch as f; "
            "[f.Generator(s).program() for s in map(int, sys.argv[1:-1])]; "
            "print(f.Generator(int(sys.argv[-1])).program().source())")
    alone = subprocess.run([sys.executable, "-c", code, "23"], capture_output=True, text=True, timeout=600)
    after = subprocess.run([sys.executable, "-c", code, "5", "11", "40", "23"], capture_output=True, text=True,
                           timeout=600)
    assert alone.returncode == 0 and after.returncode == 0, alone.stderr[-2000:] + after.stderr[-2000:]
    assert alone.stdout == after.stdout and "def program(" in alone.stdout


def test_generated_programs_run_eagerly():
    """Every node was run eagerly while the program was made: the whole
    program runs on the CPU, with its backward pass where it has one."""
    for seed in range(12):
        p = fuzz_torch.Generator(seed).program()
        assert 1 <= len(p.nodes) <= 8, p.source()
        out = fuzz_torch.run_program(fuzz_torch.load_program(p), p, "cpu", replay=fuzz_torch.Replay({}, eager=True))
        assert len(out) >= len(p.returned())


def _dropped(x, p, gen):
    keep = (torch.rand(x.shape, generator=gen) >= p).to(x.dtype)
    return x * (keep / (1 - p))


def test_dropout_statistics_detect_a_wrong_result(gen):
    x = torch.randn(4000, generator=gen)
    for p in (0.1, 0.5):
        witness = _dropped(x, p, gen)
        assert fuzz_torch.check_dropout(x, witness, p) is None
        # kept elements scaled by 1 instead of 1 / (1 - p), 1% off, or
        # 0.05% off (each within float32's tolerance here, their median not)
        assert "kept element" in fuzz_torch.check_dropout(x, witness * (1 - p), p)
        assert "kept element" in fuzz_torch.check_dropout(x, witness * 1.01, p)
        assert "scaled by" in fuzz_torch.check_dropout(x, witness * 1.0005, p)
        # too few or too many dropped
        assert "dropped" in fuzz_torch.check_dropout(x, x / (1 - p), p)
        assert "dropped" in fuzz_torch.check_dropout(x, _dropped(x, p + 0.05, gen), p)
    # in float16 the kept elements are compared within its rounding, not more
    half = x.half()
    assert fuzz_torch.check_dropout(half, _dropped(half, 0.1, gen), 0.1) is None
    assert fuzz_torch.check_dropout(half, _dropped(half, 0.1, gen) * 1.01, 0.1) is not None


def test_random_operator_statistics(gen):
    assert fuzz_torch.check_random("rand_like", torch.rand(1000, generator=gen)) is None
    assert fuzz_torch.check_random("rand_like", torch.rand(1000, generator=gen) * 0.8) is not None
    # 1.0 is out of range, except where Inductor's fp32 draw rounds up to it
    # in fp16 or bf16 (a finding of seed 10217 that was upstream's rounding).
    top = torch.rand(1000, generator=gen)
    top[7] = 1.0
    assert fuzz_torch.check_random("rand_like", top) is not None
    assert fuzz_torch.check_random("rand_like", top.half()) is None
    assert fuzz_torch.check_random("randn_like", torch.randn(1000, generator=gen)) is None
    assert fuzz_torch.check_random("randn_like", torch.randn(1000, generator=gen) * 1.5) is not None
    ones = torch.bernoulli(torch.full((1000, ), 0.2), generator=gen)
    assert fuzz_torch.check_random("bernoulli", ones, 0.2) is None
    assert fuzz_torch.check_random("bernoulli", ones, 0.5) is not None


def test_shrinking_keeps_the_outcome_and_drops_the_rest():
    # A stand-in for a kernel that deadlocks: any program with a softmax.
    def outcome_of(p):
        return "deadlock" if "softmax" in p.ops() else "ok"

    seed = next(s for s in range(2000) if "softmax" in fuzz_torch.Generator(s).program().ops()
                and len(fuzz_torch.Generator(s).program().nodes) >= 5)
    p = fuzz_torch.Generator(seed).program()
    p = dataclasses.replace(p, backward=True)
    small = fuzz_torch.shrink(p, "deadlock", outcome_of, budget=500)
    assert small.ops() == ["softmax"], small.source()
    assert not small.backward and len(small.inputs) == 1
    assert all(x.layout == "contiguous" for x in small.inputs)
    # still a valid program
    fuzz_torch.run_program(fuzz_torch.load_program(small), small, "cpu", replay=fuzz_torch.Replay({}, eager=True))


def test_a_reproducer_script_runs(tmp_path):
    p = fuzz_torch.Generator(2001).program()
    path = fuzz_torch.write_reproducer(str(tmp_path), 2001, "wrong", {"detail": "a test"}, p, timeout=600)
    run = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "'outcome': 'ok'" in run.stdout, run.stdout[-3000:]
    assert "def program(" in run.stdout


def test_a_program_over_its_time_limit_is_a_hang():
    worker = fuzz_torch.Worker()
    try:
        result = worker.run(fuzz_torch.Generator(2001).program(), timeout=0.01)
        assert result["outcome"] == "hang", result
        assert worker.process is None  # killed; the next program gets a new one
    finally:
        worker.stop()


def test_dropout_statistics_of_infinities(gen):
    """A dropped infinity is NaN (inf * 0), in eager PyTorch too; the
    statistics and the eager replay count it as dropped."""
    x = torch.randn(2000, generator=gen)
    x[::3] = float("-inf")
    witness = _dropped(x, 0.5, gen)
    assert torch.isnan(witness).any()
    assert fuzz_torch.check_dropout(x, witness, 0.5) is None
    replay = fuzz_torch.Replay({"v0": witness})
    torch.testing.assert_close(replay.dropout("v0", x, 0.5), witness, equal_nan=True)


# ---------------------------------------------------------------------------
# Findings (docs/python.md, "The torch fuzzer")
# ---------------------------------------------------------------------------

#: Finding 1, fixed (a deadlock on the chip): a compiled training step with
#: softmax then dropout (an attention's probabilities) then a matmul; the
#: fused kernel triton_per_fused__softmax_..._native_dropout_... stopped with
#: `KernelFault: deadlock: nothing can make progress` (its bool mask store,
#: a scatter, read address tiles the kernel had popped already).
DROPOUT_AFTER_SOFTMAX = {
    "seed": 1,
    "inputs": [{"name": "x2", "shape": [1, 2, 17, 8], "dtype": "float32", "values": "normal",
                "layout": "contiguous", "grad": True, "data": None},
               {"name": "x4", "shape": [1, 2, 17, 17], "dtype": "float32", "values": "normal",
                "layout": "contiguous", "grad": True, "data": None}],
    "nodes": [{"name": "v2", "op": "softmax", "expr": "torch.softmax({0}, dim=-1)", "args": ["x4"],
               "shape": [1, 2, 17, 17], "dtype": "float32", "replay": ""},
              {"name": "v3", "op": "nn.functional.dropout", "expr": "F.dropout({0}, p=0.1, training=True)",
               "args": ["v2"], "shape": [1, 2, 17, 17], "dtype": "float32",
               "replay": 'rand.dropout("{name}", {0}, 0.1)'},
              {"name": "v4", "op": "matmul", "expr": "torch.matmul({0}, {1})", "args": ["v3", "x2"],
               "shape": [1, 2, 17, 8], "dtype": "float32", "replay": ""}],
    "outputs": ["v4"], "backward": True}

#: Finding 2, fixed (an Inductor error on mtia only): a softmax over an
#: outer dim of a transposed input; Inductor split the outer reduction for
#: mtia's device properties and, with mix-order reductions on, asserted in
#: Reduction.create (torch/_inductor/ir.py, _find_split_reduction).
SOFTMAX_OUTER_DIM = {
    "seed": 210,
    "inputs": [{"name": "x0", "shape": [1, 33, 5, 4], "dtype": "float32", "values": "normal",
                "layout": "transposed", "grad": True, "data": None}],
    "nodes": [{"name": "v0", "op": "softmax", "expr": "torch.softmax({0}, dim=-3)", "args": ["x0"],
               "shape": [1, 33, 5, 4], "dtype": "float32", "replay": ""}],
    "outputs": ["v0"], "backward": False}


def test_finding_dropout_after_softmax_in_a_training_step():
    result = fuzz_torch.evaluate(fuzz_torch.program_from_json(DROPOUT_AFTER_SOFTMAX))
    assert result["outcome"] == "ok", result
    assert result["launches"] > 0


def test_finding_softmax_over_an_outer_dim():
    result = fuzz_torch.evaluate(fuzz_torch.program_from_json(SOFTMAX_OUTER_DIM))
    assert result["outcome"] == "ok", result
