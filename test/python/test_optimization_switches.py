"""Switching an optimization off changes only performance, never results:
the conformance suite's kernels (and the matmuls, whose K loops pipelining
targets, and the kernels of Inductor-style index math) run again with each
switch off, each in a fresh process (a test of its own, which pytest-xdist
runs beside the others), leaving out the one test that asserts a
performance figure.
Without stacking, the kernels of conformance/test_resources.py (more live
scans than CBs, which rematerialization cannot recompute) do not compile
at all: for them stacking is what makes them fit, so they are left out of
that run."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import triton_mtia
from triton_mtia.settings import OPTIMIZATIONS

HERE = Path(__file__).resolve().parent


def test_every_optimization_has_a_switch():
    for name in OPTIMIZATIONS:
        assert getattr(triton_mtia.settings, name) is True


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.xdist_group(f"mtia-off={name}"))
                                  for name in OPTIMIZATIONS])
def test_conformance_with_the_optimization_off(name, tmp_path):
    # A private Triton cache: no kernel compiled with the switch on is reused.
    # Kernels that the switch does not change find their objects in the
    # object cache.
    env = dict(os.environ, TRITON_CACHE_DIR=str(tmp_path / "triton"))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--mtia-off={name}", "conformance",
           "test_matmul.py", "test_index_math.py", "-k", "not test_large_matmul_runs_at_the_dpe_peak_from_sram"]
    if name == "cb_stacking":
        cmd.append("--ignore=conformance/test_resources.py")
    run = subprocess.run(cmd, cwd=HERE, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=3000)
    assert run.returncode == 0 and " passed" in run.stdout and " failed" not in run.stdout, run.stdout[-4000:]
