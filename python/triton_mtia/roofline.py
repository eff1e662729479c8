"""Rooflines of launches on the simulated chip: the numbers
(`roofline_points`: achieved against peak and against what memory can feed,
per unit) and the picture (`draw_roofline`). `LaunchStats.roofline_points()`
and `LaunchStats.roofline(path)` (runtime.py) are the user's way in; the
calibration benchmark draws the expert GEMM's.
"""

from __future__ import annotations

import os
from typing import Any, Dict


#: DPE MAC rate parameter and element size per dtype name.
DPE_DTYPES = {
    "fp16": ("dpe_fp16_macs_per_cycle", 2), "bf16": ("dpe_fp16_macs_per_cycle", 2),
    "int8": ("dpe_int8_macs_per_cycle", 1), "fp8": ("dpe_int8_macs_per_cycle", 1),
    "fp32": ("dpe_fp32_macs_per_cycle", 4),
}


def roofline_points(stats: Dict[str, Any], config: Dict[str, Any], seconds: float, pes: int,
                    dtype: str = "fp16") -> Dict[str, Any]:
    """See LaunchStats.roofline_points."""
    if dtype not in DPE_DTYPES:
        raise ValueError(f"roofline dtype must be one of {sorted(DPE_DTYPES)}, not '{dtype}'")
    rate_key, esize = DPE_DTYPES[dtype]
    clock = config["clock_ghz"] * 1e9
    pes = max(1, pes)
    seconds = max(seconds, 1e-30)
    units = stats["units"]
    memory = stats["memory"]
    bandwidth = {"sram": config["sram_gbps"] * 1e9, "lpddr": config["lpddr_gbps"] * 1e9}
    served = {"sram": memory["sram"]["bytes_read"] + memory["sram"]["bytes_written"],
              "lpddr": memory["lpddr"]["bytes_read"] + memory["lpddr"]["bytes_written"]}
    dpe_peak = 2.0 * config[rate_key] * pes * clock
    flops = 2.0 * units["dpe"]["amount"]
    intensity = {level: flops / b for level, b in served.items() if b > 0 and flops > 0}
    # The DPE is held to its peak and to intensity x bandwidth of each level
    # its operands came through.
    dpe_roof = min([dpe_peak] + [intensity[lv] * bandwidth[lv] for lv in intensity])
    fabric = config["fi_bytes_per_cycle"] * pes * clock
    peaks = {
        "dpe": ("FLOP/s", flops / seconds, dpe_peak, dpe_roof),
        "se": ("elements/s", units["se"]["amount"] / seconds,
               config["se_lanes"] * 4 // esize * pes * clock, None),
        "vec": ("elements/s", units["vec"]["amount"] / seconds,
                config["vec_bytes_per_cycle"] // esize * pes * clock, None),
        "mlu": ("bytes/s", units["mlu"]["amount"] / seconds,
                config["mlu_bytes_per_cycle"] * pes * clock, None),
        "re": ("bytes/s", units["re"]["amount"] / seconds,
               config["re_bytes_per_cycle"] * pes * clock, None),
        # DMA moves at most fi_bytes_per_cycle per PE, and the levels serve
        # at most their bandwidth together.
        "dma_in": ("bytes/s", units["dma_in"]["amount"] / seconds,
                   fabric, min(fabric, sum(bandwidth.values()))),
        "dma_out": ("bytes/s", units["dma_out"]["amount"] / seconds,
                    fabric, min(fabric, sum(bandwidth.values()))),
    }
    # Every unit reads and writes its CBs through the PE's local memory.
    local_bw = config.get("local_memory_bytes_per_cycle", 0) * pes * clock
    if local_bw > 0:
        local_bytes = sum(u.get("local_bytes", 0) for u in units.values() if isinstance(u, dict))
        peaks["local memory"] = ("bytes/s", local_bytes / seconds, local_bw, None)
    out_units = {}
    for name, (unit, achieved, peak, roof) in peaks.items():
        roof = peak if roof is None else roof
        out_units[name] = {"unit": unit, "achieved": achieved, "peak": peak, "roof": roof,
                           "fraction_of_roof": achieved / roof if roof else 0.0,
                           "memory_stall_cycles": units.get(name, {}).get("memory_stall_cycles", 0),
                           "local_stall_cycles": units.get(name, {}).get("local_stall_cycles", 0)}
    return {
        "dtype": dtype, "seconds": seconds, "pes": pes, "flops": flops,
        "bytes": served, "bandwidth": bandwidth, "intensity": intensity,
        "dpe_peak": dpe_peak,
        "ridge": {level: dpe_peak / bw for level, bw in bandwidth.items()},
        "units": out_units,
    }


def draw_roofline(points: Dict[str, Any], path: str, title: str = "") -> str:
    """Draws `roofline_points(...)` to the PNG `path`; returns `path`."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("the roofline picture needs matplotlib (scripts/setup.sh installs it)") from e
    import numpy as np

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    peak = points["dpe_peak"]
    ridges = points["ridge"]
    lo = min(0.1, *(v / 10 for v in points["intensity"].values())) if points["intensity"] else 0.1
    hi = max(1e4, *(v * 10 for v in ridges.values()))
    x = np.logspace(np.log10(lo), np.log10(hi), 200)
    colors = {"sram": "tab:blue", "lpddr": "tab:red"}
    for level, bw in points["bandwidth"].items():
        left.loglog(x, np.minimum(peak, x * bw), color=colors[level],
                    label=f"{level.upper()} roof ({bw / 1e9:.0f} GB/s)")
        left.axvline(ridges[level], color=colors[level], ls=":", lw=1)
        left.annotate(f"ridge {ridges[level]:.1f} FLOP/B", (ridges[level], peak),
                      textcoords="offset points", xytext=(4, -14), color=colors[level], fontsize=8)
    left.axhline(peak, color="k", lw=0.8, ls="--")
    achieved = points["units"]["dpe"]["achieved"]
    for level, ai in points["intensity"].items():
        left.loglog([ai], [achieved], "o", color=colors[level], ms=8,
                    label=f"launch vs {level.upper()} bytes: {ai:.1f} FLOP/B, "
                          f"{achieved / 1e12:.1f} TFLOP/s")
    left.set_xlabel("arithmetic intensity (FLOP / byte served by the level)")
    left.set_ylabel(f"DPE {points['dtype']} FLOP/s")
    left.set_title(f"roofline, peak {peak / 1e12:.0f} TFLOP/s")
    left.legend(fontsize=8, loc="lower right")
    left.grid(True, which="both", alpha=0.3)

    names = list(points["units"])
    fracs = [points["units"][n]["fraction_of_roof"] for n in names]
    bars = right.bar(names, fracs, color="tab:gray")
    for bar, n in zip(bars, names):
        u = points["units"][n]
        right.annotate(f"{u['achieved']:.3g}\n{u['unit']}", (bar.get_x() + bar.get_width() / 2,
                       bar.get_height()), ha="center", va="bottom", fontsize=7)
    right.tick_params(axis="x", labelrotation=30)
    right.axhline(1.0, color="k", lw=0.8, ls="--")
    right.set_ylim(0, max(1.15, max(fracs) * 1.15))
    right.set_ylabel("achieved / roof")
    right.set_title("per unit, against min(unit peak, what memory can feed)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
