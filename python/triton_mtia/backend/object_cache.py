"""A content-addressed cache of kernel shared objects.

Triton caches each compiled kernel under a key of its source, signature and
options. Many different keys lower to the same C++: a launch option that
does not change a kernel's code (an optimization switch that does not apply
to it), autotuning configurations that compile alike, one kernel reached
through two caches. The C++ -> shared object step (clang++ -O2, most of a
cold compile) is the same for all of them, so its output is kept here under
a hash of what determines it: the generated C++, the C++ compiler's identity
and flags, and the device headers the code includes. Two compiles of the same
code then pay for one clang run.

Where: ``<Triton's home>/.triton/mtia_objects`` (``~/.triton/mtia_objects``
by default, beside Triton's own cache ``~/.triton/cache``), or
``triton_mtia.settings.object_cache_dir``; ``settings.object_cache = False``
bypasses it. It is independent of ``TRITON_CACHE_DIR``, so a private Triton
cache still shares objects. Clear it by deleting the directory
(``object_cache.clear()`` does). Several processes may
use it at once: an object is written to a temporary file in the same
directory and renamed into place, so a reader sees a whole file or none.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Callable, List, Optional

from triton import knobs

from .._settings import settings

#: Objects this process found in the cache / had to build.
hits = 0
misses = 0


def cache_dir() -> Path:
    if settings.object_cache_dir:
        return Path(settings.object_cache_dir)
    return Path(knobs.cache.home_dir) / ".triton" / "mtia_objects"


@functools.lru_cache(None)
def _compiler_identity(cxx: str) -> str:
    """What names the C++ compiler: its resolved path and `--version`."""
    path = shutil.which(cxx) or cxx
    try:
        version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    except OSError:
        version = "unavailable"
    return f"{os.path.realpath(path)}\n{version}"


@functools.lru_cache(None)
def _headers_digest(include: str, stamp: tuple) -> str:
    # `stamp` (names, sizes and mtimes) is part of the key so that rebuilt
    # headers are hashed again.
    h = hashlib.sha256()
    for name in sorted(os.listdir(os.path.join(include, "mtia"))):
        path = os.path.join(include, "mtia", name)
        if os.path.isfile(path):
            h.update(name.encode())
            with open(path, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def _stamp(include: str) -> tuple:
    """Names, sizes and modification times of the headers under `include`."""
    folder = os.path.join(include, "mtia")
    return tuple((e.name, e.stat().st_size, e.stat().st_mtime_ns) for e in sorted(os.scandir(folder), key=lambda e: e.name)
                 if e.is_file())


def _headers(include: str) -> str:
    return _headers_digest(include, _stamp(include))


def key_of(source: str, command: List[str], include: str) -> str:
    """The key of the object `command` makes from `source`: the code, the
    compiler's identity, the command line but for file names, and the
    headers under `include`."""
    h = hashlib.sha256()
    for part in (source, _compiler_identity(command[0]), "\0".join(command[1:]), _headers(include)):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _path(key: str) -> Path:
    return cache_dir() / key[:2] / f"{key}.so"


def lookup(key: str) -> Optional[bytes]:
    try:
        return _path(key).read_bytes()
    except OSError:
        return None


def store(key: str, data: bytes) -> None:
    """Publishes `data` under `key` atomically; a failure to write only
    costs the next compile its hit."""
    path = _path(key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{key[:8]}-", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        pass


def get_or_build(source: str, command: List[str], include: str, build: Callable[[], bytes]) -> bytes:
    """The object for `source` built by `command`: from the cache, else
    `build()`, stored for the next time."""
    global hits, misses
    if not settings.object_cache:
        return build()
    key = key_of(source, command, include)
    data = lookup(key)
    if data is not None:
        hits += 1
        return data
    misses += 1
    data = build()
    store(key, data)
    return data


#: The header every generated kernel includes (runtime/include/mtia/
#: kernel_prelude.h): the device API and the standard headers.
PRELUDE = os.path.join("mtia", "kernel_prelude.h")


def _build_once(kind: str, suffix: str, command: List[str], include: str, args: List[str]) -> Optional[str]:
    """A file that `command` + `args` + `-o FILE` builds from the headers
    under `include`, built once and kept under ``cache_dir()/kind`` by a key
    of the compiler, the flags and the headers (their place and times too:
    clang checks both for a PCH); None where it cannot be built."""
    key = key_of(f"{kind}\n{os.path.abspath(include)}\n{_stamp(include)}", command, include)
    path = cache_dir() / kind / f"{key}{suffix}"
    if path.is_file():
        return str(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{key[:8]}-", suffix=suffix)
        os.close(fd)
        built = subprocess.run([*command, f"-I{include}", *args, "-o", tmp], capture_output=True)
        if built.returncode != 0:
            os.unlink(tmp)
            return None
        os.replace(tmp, path)  # several processes may race here; each rename is whole
    except OSError:
        return None
    return str(path)


def precompiled_prelude(command: List[str], include: str) -> Optional[str]:
    """A clang precompiled header of the kernel prelude for `command` (the
    compiler and its code-generation flags: a PCH is only valid for the
    flags it was built with); None where it cannot be built (a compiler that
    is not clang, an unwritable cache), in which case kernels parse the
    headers as before. Parsing them is most of a small kernel's compile
    (0.10 of 0.17 s)."""
    if not settings.precompiled_headers or not os.path.isfile(os.path.join(include, PRELUDE)):
        return None
    if "clang" not in _compiler_identity(command[0]):
        return None  # -include-pch and the PCH format are clang's
    return _build_once("pch", ".pch", command, include, ["-x", "c++-header", os.path.join(include, PRELUDE)])


#: The C functions that LLVM IR kernels call for device.h's scalar
#: semantics (runtime/include/mtia/llvm_support.h).
LLVM_SUPPORT = os.path.join("mtia", "llvm_support.h")


def support_object(command: List[str], include: str) -> str:
    """The object of mtia/llvm_support.h built by `command` (the kernels'
    compiler and flags), linked into every LLVM IR kernel; built once."""
    path = _build_once("support", ".o", command, include, ["-c", "-x", "c++", os.path.join(include, LLVM_SUPPORT)])
    if path is None:
        from ..errors import CompilationError
        raise CompilationError(f"MTIA backend: cannot build {LLVM_SUPPORT} with {' '.join(command)} "
                               f"(the LLVM IR path links it into every kernel)")
    return path


def clear() -> None:
    """Deletes every cached object."""
    shutil.rmtree(cache_dir(), ignore_errors=True)
