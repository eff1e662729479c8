"""The differential fuzzer (python -m triton_mtia.fuzz): a small fixed-seed
run against upstream's interpreter, and its shrinker."""

import dataclasses
import os
import subprocess
import sys

from triton_mtia import fuzz


def test_fixed_seed_run_agrees_with_the_interpreter(tmp_path):
    out = tmp_path / "out"
    report = tmp_path / "fuzz.json"
    run = subprocess.run([sys.executable, "-m", "triton_mtia.fuzz", "--seed", "1000", "--count", "16",
                          "--jobs", "1", "--out", str(out), "--json", str(report)],
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "fuzz: ok 16, wrong 0, error 0, hang 0, crash 0, invalid 0" in run.stdout, run.stdout
    assert os.listdir(out) == []


def test_programs_are_deterministic_in_the_seed():
    assert fuzz.Generator(7).program().source() == fuzz.Generator(7).program().source()
    assert fuzz.Generator(7).program().source() != fuzz.Generator(8).program().source()


def test_shrinking_keeps_the_outcome_and_drops_the_rest(monkeypatch):
    # A stand-in for a miscompiled shift: any program with `<<` is wrong.
    def evaluate(p, workdir):
        return {"outcome": "wrong" if "<<" in p.source() else "ok", "detail": ""}

    monkeypatch.setattr(fuzz, "evaluate", evaluate)
    seed = next(s for s in range(1000)
                if "<<" in fuzz.Generator(s).program().source() and len(list(fuzz.Generator(s).program().body.nodes())) > 8)
    p = fuzz.Generator(seed).program()
    p = dataclasses.replace(p, loop=(2, "+"), reduce="sum", lo=1)
    small = fuzz.shrink(p, "wrong", "/nonexistent", budget=500)
    assert "<<" in small.source()
    assert small.loop is None and small.reduce == "" and small.lo == -1
    assert len(list(small.body.nodes())) < len(list(p.body.nodes()))
    # The reproducer format round-trips.
    assert fuzz.program_from_json(fuzz.program_to_json(small)).source() == small.source()


def test_a_reproducer_script_runs(tmp_path):
    # The script is run directly, and the interpreter's spawned child imports
    # it again: without a __main__ guard it would start a child of its own.
    p = fuzz.Generator(3).program()
    script = tmp_path / "repro.py"
    script.write_text(fuzz.REPRODUCER.format(seed=3, outcome="wrong", detail="", name=script.name,
                                             program=repr(fuzz.program_to_json(p))))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "'outcome': 'ok'" in run.stdout, run.stdout[-3000:]
