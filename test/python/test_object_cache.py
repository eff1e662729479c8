"""The content-addressed cache of kernel shared objects: two compiles that
generate the same C++ pay for one clang run (backend/object_cache.py)."""

import os

import pytest
import torch
import triton
import triton.language as tl

import triton_mtia
from triton_mtia.backend import object_cache


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3, mask=offs < n)


@triton.jit
def loop_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK, ), tl.float32)
    for s in range(0, n, BLOCK):
        acc += tl.load(x_ptr + s + tl.arange(0, BLOCK), mask=s + tl.arange(0, BLOCK) < n, other=0.0)
    tl.store(out_ptr, tl.sum(acc))


@pytest.fixture
def fresh_caches(tmp_path, monkeypatch):
    """An empty object cache and an empty Triton cache."""
    monkeypatch.setattr(triton_mtia.settings, "object_cache_dir", str(tmp_path / "objects"))
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    return tmp_path / "objects"


def _counts():
    return object_cache.hits, object_cache.misses


def test_same_code_is_built_once(fresh_caches):
    x = torch.randn(1000)
    out = torch.empty_like(x)
    hits, misses = _counts()
    scale_kernel[(4, )](x, out, 1000, BLOCK=256)
    assert _counts() == (hits, misses + 1)
    torch.testing.assert_close(out, x * 3)
    # Index math does not apply to this kernel: another Triton cache entry,
    # the same C++, no second clang run.
    out.zero_()
    scale_kernel[(4, )](x, out, 1000, BLOCK=256, index_math=False)
    assert _counts() == (hits + 1, misses + 1)
    torch.testing.assert_close(out, x * 3)
    assert len(list(fresh_caches.glob("*/*.so"))) == 1


def test_different_code_is_built_again(fresh_caches):
    x = torch.randn(5000)
    out = torch.empty(1)
    hits, misses = _counts()
    loop_sum_kernel[(1, )](x, out, 5000, BLOCK=512)
    # Pipelining off changes the CB capacities the kernel declares.
    loop_sum_kernel[(1, )](x, out, 5000, BLOCK=512, pipelining=False)
    assert _counts() == (hits, misses + 2)
    torch.testing.assert_close(out, x.sum().reshape(1), rtol=1e-4, atol=1e-4)


def test_objects_are_published_whole(fresh_caches):
    # Written under a temporary name in the same directory and renamed: a
    # concurrent reader sees the whole object or none, never a part.
    x = torch.randn(64)
    scale_kernel[(1, )](x, torch.empty_like(x), 64, BLOCK=64)
    objects = [p.name for p in fresh_caches.glob("*/*") if p.parent.name != "pch"]
    assert len(objects) == 1 and objects[0].endswith(".so") and not objects[0].startswith(".")
    # So is the precompiled prelude, beside them.
    pch = [p.name for p in fresh_caches.glob("pch/*")]
    assert len(pch) == 1 and pch[0].endswith(".pch") and not pch[0].startswith(".")


def test_cache_can_be_bypassed(fresh_caches, monkeypatch):
    monkeypatch.setattr(triton_mtia.settings, "object_cache", False)
    x = torch.randn(64)
    hits, misses = _counts()
    scale_kernel[(1, )](x, torch.empty_like(x), 64, BLOCK=64)
    assert _counts() == (hits, misses)
    assert not list(fresh_caches.glob("*/*.so"))


def test_kernels_compile_against_a_precompiled_prelude(fresh_caches, monkeypatch):
    """The device API's headers are parsed once per compiler, flags and
    headers (a clang PCH), not once per kernel; a kernel is the same with or
    without it, and headers that change (a reinstall) get a PCH of their own."""
    x = torch.randn(300)
    with_pch, without = torch.empty_like(x), torch.empty_like(x)
    scale_kernel.device_caches.clear()  # compiled by the tests above, in memory
    scale_kernel[(2, )](x, with_pch, 300, BLOCK=256)
    assert len(list(fresh_caches.glob("pch/*.pch"))) == 1
    monkeypatch.setattr(triton_mtia.settings, "precompiled_headers", False)
    monkeypatch.setattr(triton_mtia.settings, "object_cache", False)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(fresh_caches.parent / "triton-without-pch"))
    scale_kernel.device_caches.clear()
    scale_kernel[(2, )](x, without, 300, BLOCK=256)
    assert list((fresh_caches.parent / "triton-without-pch").glob("*/*.so"))  # compiled again
    torch.testing.assert_close(with_pch, without)
    torch.testing.assert_close(with_pch, x * 3)

    include = triton_mtia.settings.require_include_dir()
    command = [triton_mtia.settings.cxx, *triton_mtia.settings.cxx_flags, "-fPIC"]
    monkeypatch.setattr(triton_mtia.settings, "precompiled_headers", True)
    first = object_cache.precompiled_prelude(command, include)
    assert first and object_cache.precompiled_prelude(command, include) == first
    # A reinstall rewrites the headers: same bytes, new times.
    monkeypatch.setattr(object_cache, "_stamp", lambda include: ("reinstalled", ))
    second = object_cache.precompiled_prelude(command, include)
    assert second and second != first
    # Another compiler than clang parses the headers per kernel: the PCH
    # format and -include-pch are clang's.
    monkeypatch.setattr(object_cache, "_compiler_identity", lambda cxx: "/usr/bin/g++\ng++ (Debian 12.2.0-14) 12.2.0")
    assert object_cache.precompiled_prelude(["g++", *command[1:]], include) is None
