"""Shared fixtures: every test runs with the MTIA driver active (opt-in is
process-wide; the opt-in behaviour itself is tested in a subprocess).
`--mtia-off=NAME` runs the tests with the optimization NAME switched off
(a setting of triton_mtia.settings; test_optimization_switches.py)."""

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


@pytest.fixture(scope="session", autouse=True)
def mtia_active():
    triton_mtia.activate()
    yield
    triton_mtia.deactivate()


@pytest.fixture
def gen():
    return torch.Generator().manual_seed(1234)
