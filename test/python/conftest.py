"""Shared fixtures: every test runs with the MTIA driver active (opt-in is
process-wide; the opt-in behaviour itself is tested in a subprocess).
`--mtia-off=NAME` runs the tests with the optimization NAME switched off
(a setting of triton_mtia.settings; test_optimization_switches.py)."""

import pytest
import torch

import triton_mtia


def pytest_addoption(parser):
    parser.addoption("--mtia-off", action="append", default=[],
                     help="switch off an optimization (pipelining, cb_stacking, index_math, vector_core_sharing) for the whole run")


def pytest_configure(config):
    # Before anything compiles: the settings are defaults of launch options.
    for name in config.getoption("--mtia-off"):
        if not isinstance(getattr(triton_mtia.settings, name, None), bool):
            raise pytest.UsageError(f"--mtia-off: no optimization switch named {name!r}")
        setattr(triton_mtia.settings, name, False)


@pytest.fixture(scope="session", autouse=True)
def mtia_active():
    triton_mtia.activate()
    yield
    triton_mtia.deactivate()


@pytest.fixture
def gen():
    return torch.Generator().manual_seed(1234)
