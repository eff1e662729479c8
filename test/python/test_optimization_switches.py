"""Switching an optimization off changes only performance, never results:
the conformance suite's kernels (and the matmuls, whose K loops pipelining
targets, and the kernels of Inductor-style index math) run again with each
switch off, each in a fresh process (the two
at once), leaving out the one test that asserts a performance figure.
Without stacking, the kernels of conformance/test_resources.py (more live
scans than CBs, which rematerialization cannot recompute) do not compile
at all: for them stacking is what makes them fit, so they are left out of
that run."""

import os
import subprocess
import sys
from pathlib import Path

import triton_mtia
from triton_mtia.settings import OPTIMIZATIONS

HERE = Path(__file__).resolve().parent


def test_every_optimization_has_a_switch():
    for name in OPTIMIZATIONS:
        assert getattr(triton_mtia.settings, name) is True


def test_conformance_with_each_optimization_off(tmp_path):
    runs = {}
    for name in OPTIMIZATIONS:
        # A private Triton cache: no kernel compiled with the switch on is reused.
        env = dict(os.environ, TRITON_CACHE_DIR=str(tmp_path / name))
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--mtia-off={name}",
               "conformance", "test_matmul.py", "test_index_math.py", "-k", "not test_large_matmul_runs_at_the_dpe_peak_from_sram"]
        if name == "cb_stacking":
            cmd.append("--ignore=conformance/test_resources.py")
        runs[name] = subprocess.Popen(cmd, cwd=HERE, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True)
    for name, proc in runs.items():
        out, _ = proc.communicate(timeout=3000)
        assert proc.returncode == 0, f"--mtia-off={name}:\n" + out[-4000:]
        assert " passed" in out and " failed" not in out
