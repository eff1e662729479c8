"""A long-lived `triton-mtia-compile --serve` process per Python process.

Run one-shot, the compiler spends about 55 of the 65 ms a small kernel takes
loading and relocating libMLIR and libLLVM; a test suite or an autotuning
sweep compiles thousands of kernels. The server pays that once: the backend
writes a request (the one-shot command line and a log file for what the
compiler prints on stderr) and reads its exit status back
(compiler/tools/triton-mtia-compile, `serve()`, has the protocol).

What a kernel sees does not change: the same flags give the same output, its
diagnostics come back as a one-shot run's stderr, and an error names the
one-shot command that reproduces it. A kernel on which the server dies (a
compiler crash) is compiled again one-shot, so that its crash is reported
as it would be without a server, and the next kernel starts another server;
a compiler whose server never answers (one without --serve) is run one-shot
from then on, and a compiler rebuilt at its path (a reinstall in a live
session) gets a new server. A forked child (Inductor's compile workers)
starts its own, and a thread that finds the server busy runs the one-shot
command, so compiles never wait on each other. A server that does not answer
within `timeout` seconds is killed (the compile fails as timed out, and the
next kernel starts another); so is a one-shot run.
``settings.compile_server = False`` (TRITON_MTIA_COMPILE_SERVER=0) runs
every compile one-shot.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import threading
from pathlib import Path
from typing import List, Optional, Tuple

from .._settings import settings

#: Compiles this process sent to a server / ran one-shot.
served = 0
one_shot = 0


class _Server:
    """One `--serve` process of one compiler binary, owned by the process
    that started it."""

    def __init__(self, compiler: str):
        self.compiler = compiler
        self.binary = _identity(compiler)
        self.pid = os.getpid()
        self.lock = threading.Lock()
        self.answered = 0
        self.proc = subprocess.Popen([compiler, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)

    def alive(self) -> bool:
        """Running, this process's, and still the binary at its path (a
        rebuilt compiler gets a server of its own)."""
        return self.pid == os.getpid() and self.proc.poll() is None and self.binary == _identity(self.compiler)

    def request(self, args: List[str], log: str, timeout: Optional[float]) -> Optional[int]:
        """The exit status of compiling `args`, what it printed written to
        `log`; None when the server died on it. Raises TimeoutError, the
        server killed, when it has not answered within `timeout` seconds."""
        try:
            self.proc.stdin.write(json.dumps({"args": args, "log": log}) + "\n")
            self.proc.stdin.flush()
            # One answer line per request, so nothing is left buffered from
            # an earlier one: the pipe itself says when the answer is there.
            ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
            if not ready:
                self.kill()
                raise TimeoutError(f"the compile server did not answer within {timeout:g} s")
            status = int(json.loads(self.proc.stdout.readline())["status"])
            self.answered += 1
            return status
        except (OSError, ValueError, KeyError, TypeError):
            self.close()
            return None

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()

    def close(self) -> None:
        if self.pid != os.getpid():
            return  # a forked child leaves its parent's server alone
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


_servers: dict = {}
_servers_lock = threading.Lock()
#: Compilers whose server ended before answering (no --serve): one-shot.
_cannot_serve: set = set()


def _identity(path: str) -> tuple:
    """What changes when the binary at `path` is rebuilt or replaced."""
    try:
        st = os.stat(path)
        return st.st_ino, st.st_size, st.st_mtime_ns
    except OSError:
        return ()


def _server(compiler: str) -> Optional[_Server]:
    with _servers_lock:
        server = _servers.get(compiler)
        if server is not None and not server.alive():
            server.close()
            server = None
        if server is None:
            try:
                server = _servers[compiler] = _Server(compiler)
            except OSError:
                return None
        return server


def run(command: List[str], workdir: str, timeout: Optional[float] = None) -> Tuple[int, str]:
    """Runs `command` (the compiler and a one-shot command line) and returns
    its exit status and what it printed (stderr, then stdout), through this
    process's server where that is on and free. Raises TimeoutError when the
    compiler has not finished within `timeout` seconds (None: no limit); the
    process is killed."""
    global served, one_shot
    compiler = command[0]
    server = _server(compiler) if settings.compile_server and compiler not in _cannot_serve else None
    if server is not None and server.lock.acquire(blocking=False):
        try:
            log = os.path.join(workdir, "compiler.log")
            status = server.request(command[1:], log, timeout)
        finally:
            server.lock.release()
        if status is not None:
            served += 1
            return status, Path(log).read_text(errors="replace") if os.path.exists(log) else ""
        # The server died on this kernel (a crash), or never served at all
        # (a compiler without --serve): the one-shot run below reports what
        # happened exactly as it would without a server.
        if server.answered == 0:
            _cannot_serve.add(compiler)
    one_shot += 1
    return run_one_shot(command, timeout)


def run_one_shot(command: List[str], timeout: Optional[float] = None) -> Tuple[int, str]:
    """Runs `command` in a process of its own: its exit status and what it
    printed (stderr, then stdout). Raises TimeoutError when it has not
    finished within `timeout` seconds (None: no limit); it is killed."""
    try:
        proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:  # subprocess.run has killed it
        raise TimeoutError(f"{Path(command[0]).name} did not finish within {timeout:g} s") from None
    return proc.returncode, proc.stderr + proc.stdout


@atexit.register
def shutdown() -> None:
    """Ends this process's servers (each also ends when its input closes,
    which the end of this process does)."""
    with _servers_lock:
        for server in _servers.values():
            server.close()
        _servers.clear()
