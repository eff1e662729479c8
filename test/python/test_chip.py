"""The chip's parameters as a user meets them: the table, a dumped preset
file that loads back, a variant made by editing it."""

import json
import subprocess
import sys

import pytest

import triton_mtia
from triton_mtia import chip


@pytest.fixture(autouse=True)
def _default_chip():
    preset = triton_mtia.settings.preset
    yield
    triton_mtia.configure(preset)  # later tests run on the chip they expect


def test_every_parameter_has_a_source():
    rows = chip.table()
    assert {r["name"] for r in rows} == set(triton_mtia.presets()["mtia2i"])
    for r in rows:
        assert r["source"].startswith("["), r  # [I25], [P ...], [M300] or [model]


def test_dumped_preset_loads_back_unchanged(tmp_path):
    path = chip.dump("mtia2i", str(tmp_path / "chip.json"))
    sim = triton_mtia.configure("small", config_file=path)
    assert sim.config == triton_mtia.presets()["mtia2i"]


def test_an_edited_dump_is_a_variant(tmp_path):
    path = tmp_path / "chip.json"
    chip.dump("mtia2i", str(path))
    params = json.loads(path.read_text())
    params["lpddr_gbps"] = 102.4
    params["local_memory_bytes_per_cycle"] = 370
    path.write_text(json.dumps(params))
    sim = triton_mtia.configure(config_file=str(path))
    assert sim.config["lpddr_gbps"] == 102.4
    assert sim.config["local_memory_bytes_per_cycle"] == 370
    assert sim.config["pe_rows"] == 8


def test_unknown_preset_is_named():
    with pytest.raises(ValueError, match="no-such-chip"):
        chip.dump("no-such-chip", "unused.json")


def test_command_line_prints_the_table_and_dumps(tmp_path):
    out = subprocess.run([sys.executable, "-m", "triton_mtia.chip"], check=True,
                         capture_output=True, text=True).stdout
    assert "local_memory_bytes_per_cycle" in out and "[I25]" in out
    path = tmp_path / "small.json"
    subprocess.run([sys.executable, "-m", "triton_mtia.chip", "--dump", "small", str(path)],
                   check=True, capture_output=True)
    assert json.loads(path.read_text()) == triton_mtia.presets()["small"]
