"""Switching an optimization off changes only performance, never results:
the conformance suite's kernels (and the matmuls, whose K loops pipelining
targets, and the kernels of Inductor-style index math) run again with each
switch off, leaving out the one test that asserts a performance figure.
The switches share two runs (`--mtia-off-each`, test/python/conftest.py),
one per pytest-xdist worker: a run starts Python and Triton once and
makes each kernel's frontend IR once for all its switches.
Without stacking, the kernels of conformance/test_resources.py (more live
scans than CBs, which rematerialization cannot recompute) do not compile
at all: they are marked `requires_optimization("cb_stacking")` and left
out of that switch's run."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import triton_mtia
from triton_mtia import OPTIMIZATIONS

HERE = Path(__file__).resolve().parent


def test_every_optimization_has_a_switch():
    for name in OPTIMIZATIONS:
        assert getattr(triton_mtia.settings, name) is True


# The switches in two runs, one per pytest-xdist worker (scripts/test.sh).
HALVES = (OPTIMIZATIONS[0::2], OPTIMIZATIONS[1::2])


@pytest.mark.parametrize("names", [
    pytest.param(names, id="+".join(names), marks=pytest.mark.xdist_group(f"mtia-off-{i}"))
    for i, names in enumerate(HALVES)
])
def test_conformance_with_each_optimization_off(names, tmp_path):
    # A private Triton cache: no kernel compiled with a switch on is reused.
    # Kernels that a switch does not change find their objects in the
    # object cache.
    env = dict(os.environ, TRITON_CACHE_DIR=str(tmp_path / "triton"))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *(f"--mtia-off-each={n}" for n in names),
           "conformance", "test_matmul.py", "test_index_math.py", "-k",
           "not test_large_matmul_runs_at_the_dpe_peak_from_sram"]
    run = subprocess.run(cmd, cwd=HERE, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=3000)
    assert run.returncode == 0, run.stdout[-4000:]
    for name in names:  # conftest.py's summary: each switch's run passed tests
        match = re.search(rf"^mtia-off-each {name}: (\d+) passed, 0 failed$", run.stdout, re.MULTILINE)
        assert match and int(match.group(1)) > 100, run.stdout[-4000:]
