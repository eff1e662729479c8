"""Exceptions the backend raises to users."""

from __future__ import annotations

import shlex
from typing import Optional, Sequence

from triton.runtime.errors import OutOfResources as _TritonOutOfResources


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

    def __reduce__(self):
        # Inductor compiles in worker processes and sends errors back pickled.
        return (type(self), (self.stage, self.command, self.returncode, self.diagnostics, self.kept_dir))

    @staticmethod
    def from_tool(stage: str, command: Sequence[str], returncode: int, diagnostics: str,
                  kept_dir: Optional[str] = None, shortage: Optional[dict] = None) -> "CompilationError":
        """The error for a failed tool run: `OutOfResources` when the
        compiler reported that the kernel does not fit a PE (`shortage`, its
        --resource-report: {"resource", "required", "limit"}), else the
        plain kind."""
        if shortage:
            return OutOfResources(stage, command, returncode, diagnostics, kept_dir, int(shortage["required"]),
                                  int(shortage["limit"]), str(shortage["resource"]))
        return CompilationError(stage, command, returncode, diagnostics, kept_dir)


class OutOfResources(CompilationError, _TritonOutOfResources):
    """A kernel needs more circular buffers or local memory than a PE has.

    It is Triton's own OutOfResources too, so that `triton.autotune` and
    Inductor drop such a config and try the others, as they do on a GPU for
    a kernel over its shared memory."""

    def __init__(self, stage, command, returncode, diagnostics, kept_dir, required: int, limit: int,
                 name: str):
        CompilationError.__init__(self, stage, command, returncode, diagnostics, kept_dir)
        self.required = required
        self.limit = limit
        self.name = name

    def __str__(self) -> str:
        # The compiler's diagnostics (with the kernel's source line), not
        # Triton's generic one-liner.
        return CompilationError.__str__(self)

    def __reduce__(self):
        return (type(self), (self.stage, self.command, self.returncode, self.diagnostics, self.kept_dir,
                             self.required, self.limit, self.name))


try:
    from ._mtia_sim import KernelFault
except ImportError:  # the extension is not built; keep `except KernelFault` valid

    class KernelFault(RuntimeError):
        """A fault raised by the simulated chip (out-of-bounds DMA, CB
        over-allocation, deadlock, ...). Attributes: kind, pe, unit, cb,
        command."""
