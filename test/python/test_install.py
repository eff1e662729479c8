"""`pip install .` put every built piece where the Python face looks for it
(the CMake install() rules of runtime/ and compiler/)."""

import importlib
import os

import triton_mtia
from triton_mtia._settings import COMPILER_TOOL, PACKAGE_DIR


def test_simulator_extension_installed():
    sim = importlib.import_module("triton_mtia._mtia_sim")
    assert issubclass(sim.KernelFault, RuntimeError)
    assert triton_mtia.KernelFault is sim.KernelFault


def test_compiler_installed_in_package():
    tool = PACKAGE_DIR / "_bin" / COMPILER_TOOL
    assert tool.is_file() and os.access(tool, os.X_OK)


def test_device_headers_installed_in_package():
    include = PACKAGE_DIR / "include" / "mtia"
    for header in ("device.h", "se_ops.def", "se_reduce_ops.def"):
        assert (include / header).is_file(), header
