"""The roofline picture of a launch is written and its numbers add up.

Runs against the installed triton_mtia package (pip install the tree
first); ctest registers it when pytest and matplotlib are importable.
"""

import math
import tempfile
from pathlib import Path

import pytest

runtime = pytest.importorskip("triton_mtia.runtime")
roofline = pytest.importorskip("triton_mtia.roofline")
pytest.importorskip("matplotlib")

_CONFIG = runtime.presets()["mtia2i"]
_CLOCK = _CONFIG["clock_ghz"] * 1e9


def _stats(dpe_macs, sram_bytes, lpddr_bytes, dma_bytes):
    unit = {"busy_cycles": 0, "commands": 0, "parked_cycles": 0, "memory_stall_cycles": 0,
            "amount": 0}
    units = {name: dict(unit) for name in ("dma_in", "dma_out", "se", "dpe", "mlu", "vec", "re")}
    units["dpe"]["amount"] = dpe_macs
    units["dma_in"]["amount"] = dma_bytes
    return {"units": units,
            "memory": {"sram": {"bytes_read": sram_bytes, "bytes_written": 0},
                       "lpddr": {"bytes_read": lpddr_bytes, "bytes_written": 0}}}


def test_ridge_points_are_the_published_ratios():
    p = roofline.roofline_points(_stats(1, 1, 1, 1), _CONFIG, 1.0, 64, "fp16")
    assert p["ridge"]["sram"] == pytest.approx(65.6, abs=0.1)
    assert p["ridge"]["lpddr"] == pytest.approx(864.0, abs=1.0)


def test_dpe_roof_is_the_tighter_of_peak_and_bandwidth():
    # 2048^3 from SRAM at 0.9 of peak: compute bound, roof = peak.
    macs = 2048 ** 3
    seconds = macs / (1024 * 64 * 0.9) / _CLOCK
    p = roofline.roofline_points(_stats(macs, 3 * 2048 * 2048 * 2 * 8, 0, 0), _CONFIG, seconds, 64)
    dpe = p["units"]["dpe"]
    assert dpe["roof"] == pytest.approx(p["dpe_peak"])
    assert dpe["fraction_of_roof"] == pytest.approx(0.9)
    # The same work with every byte from LPDDR at 4 FLOP/B: bandwidth bound.
    flops = 2.0 * macs
    p = roofline.roofline_points(_stats(macs, 0, int(flops / 4), 0), _CONFIG, seconds, 64)
    assert p["intensity"]["lpddr"] == pytest.approx(4.0)
    assert p["units"]["dpe"]["roof"] == pytest.approx(4.0 * _CONFIG["lpddr_gbps"] * 1e9)
    with pytest.raises(ValueError, match="dtype"):
        roofline.roofline_points(_stats(1, 1, 1, 1), _CONFIG, 1.0, 64, "fp64")


def test_the_png_is_written():
    macs = 2048 ** 3
    p = roofline.roofline_points(_stats(macs, 50 << 20, 1 << 20, 50 << 20), _CONFIG, 1e-4, 64)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "sub", "roof.png")
        assert roofline.draw_roofline(p, str(path), title="test") == str(path)
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert len(data) > 10_000
        assert math.isfinite(p["units"]["dma_in"]["fraction_of_roof"])
