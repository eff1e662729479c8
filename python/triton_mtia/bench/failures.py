"""What a failed case of a harness (bench/liger.py, bench/inductor_ops.py)
is reported as: the first line of the error, the construct that is not
supported, and the source line it points at."""

from __future__ import annotations

import linecache
import re
import traceback
from typing import Dict, Iterator

_DIAG = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$", re.M)


class InductorDiffersFromEager(Exception):
    """A result of torch.compile on the device that does not match eager,
    where Inductor's code for the CPU does not match eager either: the
    difference is Inductor's semantics, not the chip's (bench/inductor_ops.py)."""


def first_line(text) -> str:
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()
    return ""


def source_of(path: str, line: int) -> str:
    text = linecache.getline(path, line).strip()
    short = path.split("site-packages/")[-1]
    return f"{short}:{line}: {text}" if text else f"{short}:{line}"


def _innermost_frame(exc: BaseException, package: str) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    for fr in reversed(frames):
        if package and package in fr.filename:
            return source_of(fr.filename, fr.lineno)
    return ""


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def explain(exc: BaseException, package: str = "") -> Dict[str, str]:
    """reason / construct / source of a failure. `package` names the code
    under test (a path fragment) whose innermost frame is the source when
    nothing better is known. The error may wrap ours (Inductor wraps
    compile errors), or carry our diagnostics only as text (an error sent
    back from a worker process)."""
    import triton

    from triton_mtia.errors import CompilationError as MTIACompilationError
    from triton_mtia.errors import KernelFault

    def from_diagnostics(text: str, prefix: str):
        m = _DIAG.search(text or "")
        if not m:
            return None
        msg = m.group("msg")
        construct = msg.split(" is not supported")[0].strip("'") if "not supported" in msg else ""
        return {"reason": f"{prefix}: {msg}", "construct": construct,
                "source": source_of(m.group("file"), int(m.group("line")))}

    if isinstance(exc, InductorDiffersFromEager):
        return {"reason": str(exc), "construct": "Inductor's semantics", "source": ""}
    for inner in _chain(exc):
        if isinstance(inner, (MTIACompilationError, triton.CompilationError, KernelFault, AssertionError)):
            exc = inner
            break
    if isinstance(exc, MTIACompilationError):
        found = from_diagnostics(exc.diagnostics, f"compiler ({exc.stage})")
        if found:
            return found
        return {"reason": f"{exc.stage} stage failed: {first_line(exc.diagnostics)}", "construct": "",
                "source": _innermost_frame(exc, package)}
    if isinstance(exc, triton.CompilationError):
        cause = exc.__cause__ or exc.__context__
        msg = f"{type(cause).__name__}: {first_line(cause)}" if cause else first_line(exc)
        src = ""
        fn = getattr(exc, "src", None)
        node = getattr(exc, "node", None)
        if node is not None:
            # exc.src is the function's source; its lines are relative to the def.
            lines = (fn or "").splitlines()
            lineno = getattr(node, "lineno", 0)
            if 0 < lineno <= len(lines):
                src = lines[lineno - 1].strip()
        return {"reason": f"frontend: {msg}", "construct": type(cause).__name__ if cause else "",
                "source": src or _innermost_frame(exc, package)}
    if isinstance(exc, KernelFault):
        return {"reason": f"kernel fault: {first_line(exc)}", "construct": getattr(exc, "kind", ""),
                "source": _innermost_frame(exc, package)}
    if isinstance(exc, AssertionError):
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        detail = "; ".join(line for line in lines if line.startswith(("Mismatched", "Greatest", "The values")))
        return {"reason": f"mismatch: {detail or (lines[0] if lines else 'assertion failed')}",
                "construct": "wrong result", "source": ""}
    found = from_diagnostics(str(exc), "compiler (in a worker)")
    if found:
        return found
    return {"reason": f"{type(exc).__name__}: {first_line(exc)}", "construct": type(exc).__name__,
            "source": _innermost_frame(exc, package)}


#: Kinds of failure, as the paper's operator-coverage table counts them,
#: plus wrong results, which the table folds into "misc" and we never want.
CATEGORIES = ("triton", "inductor", "wrong", "misc")


def category(exc: BaseException) -> str:
    """Which of `CATEGORIES` a failure of torch.compile belongs to:
    "triton" when compiling or running a Triton kernel failed (our
    compiler, Triton's frontend, a kernel fault, no config that fits a PE),
    "wrong" for a result that does not match, "inductor" for an error
    raised in Dynamo or Inductor or a result that Inductor's code for the
    CPU gives too (its semantics, not the chip's), "misc" for anything else (a timeout)."""
    import triton
    from triton.runtime.errors import OutOfResources

    from triton_mtia.errors import CompilationError as MTIACompilationError
    from triton_mtia.errors import KernelFault

    if isinstance(exc, InductorDiffersFromEager):
        return "inductor"
    chain = list(_chain(exc))
    for inner in chain:
        if isinstance(inner, (MTIACompilationError, triton.CompilationError, KernelFault, OutOfResources)):
            return "triton"
        if _DIAG.search(str(inner)):  # our diagnostics, sent back by a worker process
            return "triton"
    if any(isinstance(inner, AssertionError) for inner in chain):
        return "wrong"
    for inner in chain:
        for frame in traceback.extract_tb(inner.__traceback__):
            if "torch/_inductor" in frame.filename or "torch/_dynamo" in frame.filename:
                return "inductor"
    return "misc"
