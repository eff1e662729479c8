"""Shared fixtures: every test runs with the MTIA driver active (opt-in is
process-wide; the opt-in behaviour itself is tested in a subprocess).
`--mtia-off=NAME` runs the tests with the optimization NAME switched off
(a setting of triton_mtia.settings; test_optimization_switches.py)."""

import gc
import os

import pytest
import torch

import triton_mtia
from triton_mtia.settings import OPTIMIZATIONS


def pytest_addoption(parser):
    parser.addoption("--mtia-off", action="append", default=[], choices=OPTIMIZATIONS,
                     help="switch off an optimization for the whole run")


def pytest_configure(config):
    # Before anything compiles: the settings are defaults of launch options.
    for name in config.getoption("--mtia-off"):
        setattr(triton_mtia.settings, name, False)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    # Under pytest-xdist's --dist loadgroup (scripts/test.sh) a test without
    # a group of its own runs on the worker of its file, so that a file's
    # kernels are compiled once; a test that is a long job by itself (a
    # subprocess run of a suite) names its own group and runs beside them.
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


@pytest.fixture(scope="session", autouse=True)
def mtia_active():
    triton_mtia.activate()
    yield
    triton_mtia.deactivate()


@pytest.fixture
def gen():
    return torch.Generator().manual_seed(1234)


@pytest.fixture
def on_and_off():
    """Runs `launch(**{switch: True})`, then with the switch False; the
    results (a list of tensors) must be the same bits. Returns the first
    run's results and both runs' LaunchStats."""

    def run(launch, switch):
        on = launch(**{switch: True})
        on_stats = triton_mtia.last_launch()
        off = launch(**{switch: False})
        off_stats = triton_mtia.last_launch()
        for a, b in zip(on, off):
            assert torch.equal(a, b)
        return on, on_stats, off_stats

    return run


@pytest.fixture(scope="module")
def inductor(tmp_path_factory):
    """torch.compile with a fresh Inductor cache for the module: every
    kernel is generated and compiled by this run."""
    cache = str(tmp_path_factory.mktemp("inductor-cache"))
    old = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
    yield
    # Free the compiled kernels while a driver can still unload them.
    torch._dynamo.reset()
    gc.collect()
    if old is None:
        os.environ.pop("TORCHINDUCTOR_CACHE_DIR")
    else:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = old
