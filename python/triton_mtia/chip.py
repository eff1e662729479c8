"""The simulated chip's parameters, from the command line.

    python -m triton_mtia.chip                      # every parameter: mtia2i, small, source
    python -m triton_mtia.chip --dump mtia2i F.json  # a complete config file to edit

A dumped file loads back unchanged (``triton_mtia.configure(config_file=F)``
applies it over a preset), so a variant of the chip is a copy of the preset
with a few numbers changed. The parameters, their defaults and their public
sources live in the simulator (runtime/include/mtia/sim/config.h); this only
shows them.
"""

import argparse
import json
import signal
import sys
from typing import Dict, List, Optional


def _sim():
    from . import runtime
    return runtime._sim_module()


def table() -> List[Dict[str, object]]:
    """One row per parameter: name, the value in each preset, its source."""
    sim = _sim()
    presets = sim.presets()
    sources = sim.parameter_sources()
    names = list(presets["mtia2i"])
    return [{"name": n, **{p: presets[p][n] for p in presets}, "source": sources.get(n, "")}
            for n in names]


def dump(preset: str, path: str) -> str:
    """Writes every parameter of `preset` to the JSON file `path`."""
    presets = _sim().presets()
    if preset not in presets:
        raise ValueError(f"unknown simulator preset '{preset}'; known: {sorted(presets)}")
    with open(path, "w") as f:
        json.dump(presets[preset], f, indent=2)
        f.write("\n")
    return path


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m triton_mtia.chip", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dump", nargs=2, metavar=("PRESET", "FILE"),
                        help="write every parameter of PRESET to the JSON file FILE")
    args = parser.parse_args(argv)
    if hasattr(signal, "SIGPIPE"):  # `... | head` ends the table quietly
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if args.dump:
        print(dump(*args.dump))
        return 0
    rows = table()
    presets = [k for k in rows[0] if k not in ("name", "source")]
    header = ["parameter", *presets, "source"]
    cells = [[str(r["name"]), *(f"{r[p]:g}" if isinstance(r[p], float) else str(r[p])
                                for p in presets), str(r["source"])] for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(header[:-1])]
    for line in [header, *cells]:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths)) + "  " + line[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
