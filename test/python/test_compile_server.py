"""The compile server (backend/compile_server.py): kernels compiled by one
long-lived `triton-mtia-compile --serve` are exactly those of one-shot runs,
each with its own flags, errors included; a server that dies or cannot serve
costs nothing but its speed."""

import os
import shutil
import stat
import subprocess

import pytest
import torch
import triton
import triton.language as tl

import triton_mtia
from triton_mtia.backend import compile_server


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), tl.float32)
    for k in range(0, K, BLOCK):
        a = tl.load(a_ptr + rows[:, None] * K + k + rows[None, :])
        b = tl.load(b_ptr + (k + rows[:, None]) * BLOCK + rows[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rows[:, None] * BLOCK + rows[None, :], acc)


_compiles = 0


def _compile(**options):
    """The C++ of matmul_kernel compiled afresh with `options` (a Triton cache
    of its own), after checking its result."""
    global _compiles
    _compiles += 1
    os.environ["TRITON_CACHE_DIR"] = f"{_cache_root}/{_compiles}"
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(32, 128, generator=g), torch.randn(128, 32, generator=g)
    c = torch.empty(32, 32)
    matmul_kernel.device_caches.clear()
    compiled = matmul_kernel[(1, )](a, b, c, 128, BLOCK=32, **options)
    torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)
    return compiled.asm["cpp"]


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    global _cache_root
    _cache_root = tmp_path
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))  # restored after the test


def test_served_kernels_are_the_one_shot_kernels_flag_by_flag(private_cache, monkeypatch):
    # Alternating flags: a request must see its own and no earlier one's.
    runs = [{}, {"pipelining": False}, {}, {"dual_issue": False}, {"pipelining": False}, {}]
    served_before = compile_server.served
    served = [_compile(**options) for options in runs]
    assert compile_server.served - served_before == len(runs)
    monkeypatch.setattr(triton_mtia.settings, "compile_server", False)
    one_shot_before = compile_server.one_shot
    one_shot = [_compile(**options) for options in runs[:2] + runs[3:4]]
    assert compile_server.one_shot - one_shot_before == 3
    assert served[0] == served[2] == served[5] == one_shot[0]
    assert served[1] == served[4] == one_shot[1] != served[0]
    assert served[3] == one_shot[2] != served[0]


def test_a_served_compile_error_is_the_one_shot_error(private_cache, monkeypatch):
    @triton.jit
    def unsupported_kernel(x_ptr, BLOCK: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, BLOCK))
        tl.store(x_ptr + tl.arange(0, BLOCK), tl.inline_asm_elementwise("mov $0, $1", "=r,r", [x], dtype=tl.float32,
                                                                        is_pure=True, pack=1))

    errors = []
    for server in (True, False):
        monkeypatch.setattr(triton_mtia.settings, "compile_server", server)
        unsupported_kernel.device_caches.clear()
        with pytest.raises(triton_mtia.CompilationError) as info:
            unsupported_kernel[(1, )](torch.zeros(16), BLOCK=16)
        errors.append(info.value)
    served, one_shot = errors
    assert served.diagnostics == one_shot.diagnostics and "test_compile_server.py" in served.diagnostics
    # The error names the one-shot command, which reproduces it as printed.
    rerun = subprocess.run(served.command, capture_output=True, text=True)
    assert rerun.returncode == served.returncode == 1 and rerun.stderr == served.diagnostics


def test_a_dead_server_is_replaced(private_cache):
    _compile()
    server = compile_server._servers[triton_mtia.settings.require_compiler()]
    server.proc.kill()
    server.proc.wait()
    served = compile_server.served
    _compile(dual_issue=False)
    assert compile_server.served == served + 1
    assert compile_server._servers[triton_mtia.settings.require_compiler()] is not server


def test_a_compiler_that_dies_on_a_request_is_run_one_shot(tmp_path):
    # A stand-in that reads a request and dies (a crash, or no --serve): the
    # one-shot run reports what the compiler says.
    tool = tmp_path / "compiler"
    tool.write_text("#!/bin/sh\n"
                    "if [ \"$1\" = --serve ]; then read request; exit 134; fi\n"
                    "echo \"k.py:1:1: error: one-shot $1\" >&2\nexit 3\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    one_shot = compile_server.one_shot
    assert compile_server.run([str(tool), "a.ttir"], str(tmp_path)) == (3, "k.py:1:1: error: one-shot a.ttir\n")
    assert compile_server.one_shot == one_shot + 1
    # It never answered: later compiles go one-shot without trying it again.
    assert str(tool) in compile_server._cannot_serve
    assert compile_server.run([str(tool), "b.ttir"], str(tmp_path))[0] == 3


def test_a_rebuilt_compiler_gets_a_new_server(private_cache, tmp_path, monkeypatch):
    # A reinstall in a live session replaces the binary at the compiler's
    # path: its kernels must come from the new binary, not the old server.
    compiler = tmp_path / "triton-mtia-compile"
    shutil.copy2(triton_mtia.settings.require_compiler(), compiler)
    monkeypatch.setattr(triton_mtia.settings, "compiler", str(compiler))
    _compile()
    first = compile_server._servers[str(compiler)]
    _compile()
    assert compile_server._servers[str(compiler)] is first
    stat = compiler.stat()
    os.utime(compiler, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    _compile()
    assert compile_server._servers[str(compiler)] is not first
    assert first.proc.poll() is not None  # the old one was ended


# A compile always ends (settings.compile_timeout): the compiler stops
# itself past the limit and says where; a compiler or server that does not
# answer is killed; a crash is reported as a compiler bug, inputs kept.


@triton.jit
def copy_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


def _stand_in(tmp_path, body: str):
    tool = tmp_path / "compiler"
    tool.write_text("#!/bin/sh\n" + body)
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return str(tool)


def _compile_copy(**options):
    copy_kernel.device_caches.clear()
    copy_kernel[(1, )](torch.zeros(16), torch.zeros(16), BLOCK=16, **options)


@pytest.mark.parametrize("served", [True, False])
def test_a_compiler_that_never_answers_is_killed(private_cache, tmp_path, monkeypatch, served):
    # A stand-in that never ends, as a server (reads the request, then
    # hangs) and one-shot: the compile fails after the limit and its grace.
    tool = _stand_in(tmp_path, "if [ \"$1\" = --serve ]; then read request; fi\nexec sleep 600\n")
    monkeypatch.setattr(triton_mtia.settings, "compiler", tool)
    monkeypatch.setattr(triton_mtia.settings, "compile_server", served)
    monkeypatch.setattr(triton_mtia.settings, "compile_timeout", 1)
    with pytest.raises(triton_mtia.CompilationError) as info:
        _compile_copy()
    message = str(info.value)
    assert "kernel 'copy_kernel'" in message and "did not" in message and "within 2 s" in message
    assert "was killed; this is a compiler bug" in message and info.value.kept_dir
    assert os.path.isfile(os.path.join(info.value.kept_dir, "copy_kernel.ttir"))
    if served:  # the next kernel gets a new server, which is not the hung one
        assert not compile_server._servers[tool].alive()


def test_the_compiler_stops_itself_past_the_limit_and_names_the_stage(private_cache, tmp_path, monkeypatch):
    # The real compiler, stalled on purpose (its hidden --stall-for-testing):
    # its own watchdog ends it and names the kernel and the stage.
    real = triton_mtia.settings.require_compiler()
    tool = _stand_in(tmp_path, f"exec {real} \"$@\" --stall-for-testing\n")
    monkeypatch.setattr(triton_mtia.settings, "compiler", tool)
    monkeypatch.setattr(triton_mtia.settings, "compile_server", False)
    monkeypatch.setattr(triton_mtia.settings, "compile_timeout", 1)
    with pytest.raises(triton_mtia.CompilationError) as info:
        _compile_copy()
    assert info.value.returncode == 3
    assert ("error: kernel 'copy_kernel': the compiler ran past its time limit of 1 s (--time-limit) in stage "
            "'stall-for-testing'") in info.value.diagnostics


def test_a_compiler_crash_is_reported_as_a_compiler_bug(private_cache, tmp_path, monkeypatch):
    tool = _stand_in(tmp_path, "kill -SEGV $$\n")
    monkeypatch.setattr(triton_mtia.settings, "compiler", tool)
    monkeypatch.setattr(triton_mtia.settings, "compile_server", False)
    monkeypatch.setattr(triton_mtia.settings, "keep_failed_temps", False)  # kept anyway
    with pytest.raises(triton_mtia.CompilationError) as info:
        _compile_copy()
    assert "kernel 'copy_kernel': compiler crashed (SIGSEGV); this is a compiler bug" in str(info.value)
    assert os.path.isfile(os.path.join(info.value.kept_dir, "copy_kernel.ttir"))
