"""Exceptions the backend raises to users."""

from __future__ import annotations

import shlex
from typing import Optional, Sequence


class CompilationError(RuntimeError):
    """A tool of the pipeline (the ttir -> C++ compiler, or the C++ compiler)
    rejected a kernel.

    The message carries the tool's diagnostics verbatim - for the MTIA
    compiler these are ``FILE:LINE:COL: error: ...`` lines that point at the
    kernel's Python source - followed by the exact command that reproduces
    the failure.
    """

    def __init__(self, stage: str, command: Sequence[str], returncode: int, diagnostics: str,
                 kept_dir: Optional[str] = None):
        self.stage = stage
        self.command = list(command)
        self.returncode = returncode
        self.diagnostics = diagnostics
        self.kept_dir = kept_dir
        lines = [f"MTIA backend: stage '{stage}' failed (exit code {returncode}).", diagnostics.rstrip()]
        lines.append(f"Reproduce with:\n  {shlex.join(self.command)}")
        if kept_dir:
            lines.append(f"(inputs kept in {kept_dir})")
        super().__init__("\n".join(line for line in lines if line))


try:
    from ._mtia_sim import KernelFault
except ImportError:  # the extension is not built; keep `except KernelFault` valid

    class KernelFault(RuntimeError):
        """A fault raised by the simulated chip (out-of-bounds DMA, CB
        over-allocation, deadlock, ...). Attributes: kind, pe, unit, cb,
        command."""
