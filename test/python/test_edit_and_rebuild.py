"""Edit and rebuild: a kernel's generated C++ (or LLVM IR), dumped by
Triton's own TRITON_KERNEL_DUMP, edited by hand and built instead of what
the compiler generates (settings.override_dir, TRITON_MTIA_OVERRIDE_DIR)."""

import pytest
import torch
import triton
import triton.language as tl
from triton import knobs

import triton_mtia


@triton.jit
def triple_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3.0, mask=offs < n)


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    triple_kernel.device_caches.clear()
    yield tmp_path
    triple_kernel.device_caches.clear()


#: Per code generation path: the stage Triton dumps (the edited file's
#: extension), how the constant 3 of the kernel reads there, the same with
#: another value, and what the backend says when it builds an edit. On the
#: LLVM IR path the SE's immediate holds the constant as a double.
PATHS = {
    "cpp": ("cpp", "float(3.000000000e+00)", "float({}.000000000e+00)", "building the edited C++"),
    "llvm": ("llir", "double 3.000000e+00", "double {}.000000e+00", "building the edited LLVM IR"),
}


@pytest.mark.parametrize("codegen", PATHS)
def test_an_edited_kernel_is_built_instead(codegen, fresh_cache, monkeypatch, capfd):
    ext, three, other, message = PATHS[codegen]
    monkeypatch.setattr(triton_mtia.settings, "codegen", codegen)
    x = torch.randn(100)
    out = torch.empty_like(x)
    # Triton's dump writes each stage's output, our C++ or LLVM IR among them.
    dump = fresh_cache / "dump"
    with knobs.compilation.scope():
        knobs.compilation.dump_ir = True
        knobs.cache.dump_dir = str(dump)
        triple_kernel[(1, )](x, out, 100, BLOCK=128)
    torch.testing.assert_close(out, x * 3)
    dumped = list(dump.glob(f"*/triple_kernel.{ext}"))
    assert len(dumped) == 1
    source = dumped[0].read_text()

    # The edit: the constant 3 becomes 4.
    edited = source.replace(three, other.format(4))
    assert edited != source
    overrides = fresh_cache / "edited"
    overrides.mkdir()
    (overrides / f"triple_kernel.{ext}").write_text(edited)
    monkeypatch.setattr(triton_mtia.settings, "override_dir", str(overrides))
    triple_kernel.device_caches.clear()
    compiled = triple_kernel[(1, )](x, out, 100, BLOCK=128)
    torch.testing.assert_close(out, x * 4)
    assert compiled.asm[ext] == edited  # what was built, in Triton's cache too
    assert getattr(compiled.metadata, f"{ext}_override") == str(overrides / f"triple_kernel.{ext}")
    assert message in capfd.readouterr().err

    # Editing it again recompiles (the edit is part of the cache key) ...
    (overrides / f"triple_kernel.{ext}").write_text(source.replace(three, other.format(5)))
    triple_kernel.device_caches.clear()
    triple_kernel[(1, )](x, out, 100, BLOCK=128)
    torch.testing.assert_close(out, x * 5)
    # ... and without the directory the compiler's code is back.
    monkeypatch.setattr(triton_mtia.settings, "override_dir", None)
    triple_kernel.device_caches.clear()
    triple_kernel[(1, )](x, out, 100, BLOCK=128)
    torch.testing.assert_close(out, x * 3)


def test_an_edit_that_does_not_compile_says_where(fresh_cache, monkeypatch):
    overrides = fresh_cache / "edited"
    overrides.mkdir()
    (overrides / "triple_kernel.cpp").write_text('#include "mtia/kernel_prelude.h"\n'
                                                 'extern "C" void mtia_kernel_triple_kernel(Ctx *ctx, const Arg *a) {\n'
                                                 '  not C++;\n}\n')
    monkeypatch.setattr(triton_mtia.settings, "override_dir", str(overrides))
    x = torch.randn(100)
    with pytest.raises(triton_mtia.CompilationError, match="triple_kernel.cpp:3"):
        triple_kernel[(1, )](x, torch.empty_like(x), 100, BLOCK=128)
