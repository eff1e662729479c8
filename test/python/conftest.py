"""Shared fixtures: every test runs with the MTIA driver active (opt-in is
process-wide; the opt-in behaviour itself is tested in a subprocess)."""

import pytest
import torch

import triton_mtia


@pytest.fixture(scope="session", autouse=True)
def mtia_active():
    triton_mtia.activate()
    yield
    triton_mtia.deactivate()


@pytest.fixture
def gen():
    return torch.Generator().manual_seed(1234)
