"""The two code generation paths (the paper's 3.5): C++ (the default) and
LLVM IR (`codegen="llvm"`). A representative set of kernels runs both ways
and must give the same bits and the same simulated cycles, since both paths
issue the same commands in the same order: the samples, scalar semantics
(division by zero, shifts by the width, saturating casts, narrow types, fp8
scalars), control flow, device prints and asserts, the language extensions,
and random programs of the differential fuzzer."""

import os

import pytest
import torch
import triton
import triton.language as tl

import triton_mtia
from triton_mtia import fuzz, samples
from triton_mtia.backend import object_cache


def both_ways(launch, monkeypatch, *kernels):
    """Runs `launch()` (which returns the tensors to compare) with each
    code generation path, the default of `kernels`' launches (whose
    in-process caches are cleared: a setting is read when a kernel is
    first compiled); returns the C++ path's results and cycles. Tensors
    live on the mtia device, whose allocator gives both runs the same
    addresses (a DMA's cycles depend on its alignment)."""
    runs = {}
    try:
        for codegen in ("cpp", "llvm"):
            monkeypatch.setattr(triton_mtia.settings, "codegen", codegen)
            for kernel in kernels:
                kernel.device_caches.clear()
            results = [t.cpu().clone() for t in launch()]
            runs[codegen] = (results, triton_mtia.last_launch().cycles)
    finally:
        # Later tests of these kernels get them compiled by the default.
        for kernel in kernels:
            kernel.device_caches.clear()
    (cpp, cpp_cycles), (llvm, llvm_cycles) = runs["cpp"], runs["llvm"]
    for a, b in zip(cpp, llvm):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert torch.equal(a.view(torch.uint8) if a.is_floating_point() else a,
                           b.view(torch.uint8) if b.is_floating_point() else b), (a, b)
    assert cpp_cycles == llvm_cycles
    return cpp, cpp_cycles


@pytest.mark.parametrize("sample", samples.SAMPLES, ids=lambda s: s.name)
def test_samples(sample, monkeypatch):
    inputs = [x.to("mtia") for x in sample.make_inputs(torch.Generator().manual_seed(0))]
    compiled = {}

    def launch():
        out, kernel = sample.run_triton(*inputs)
        compiled[triton_mtia.settings.codegen] = kernel
        return list(out) if isinstance(out, (tuple, list)) else [out]

    both_ways(launch, monkeypatch, sample.kernel)
    # Both paths give the kernel's LLVM IR (the C++ path writes it from the
    # same lowering); only the C++ path has C++.
    assert "cpp" in compiled["cpp"].asm and "cpp" not in compiled["llvm"].asm
    for codegen in ("cpp", "llvm"):
        assert f"define void @{compiled[codegen].metadata.entry}(ptr" in compiled[codegen].asm["llir"]


@triton.jit
def scalar_extras_kernel(a_ptr, b_ptr, f_ptr, h_ptr, out_ptr, out_h_ptr, N: tl.constexpr):
    # What test_scalar_semantics.py's kernels leave out: narrow division,
    # f16 products cast to int16, NaN-propagating minimum, a bf16 round trip.
    for i in tl.static_range(N):
        a = tl.load(a_ptr + i)
        b = tl.load(b_ptr + i)
        f = tl.load(f_ptr + i)
        h = tl.load(h_ptr + i)
        tl.store(out_ptr + i * 2 + 0, (a.to(tl.int8) // (b.to(tl.int8) | 1)).to(tl.int32))
        tl.store(out_ptr + i * 2 + 1, (f.to(tl.float16) * h).to(tl.int16).to(tl.int32))
        tl.store(out_h_ptr + i * 3 + 0, tl.minimum(h, f.to(tl.float16), propagate_nan=tl.PropagateNan.ALL))
        tl.store(out_h_ptr + i * 3 + 1, (tl.exp(h.to(tl.float32)) + tl.abs(h)).to(tl.float16))
        tl.store(out_h_ptr + i * 3 + 2, tl.sqrt(tl.abs(h).to(tl.float32)).to(tl.bfloat16).to(tl.float16))


def test_scalar_semantics(monkeypatch):
    """Division by zero, INT_MIN // -1, shifts by the width, saturating and
    NaN float -> integer casts (device.h's answers, no trap), narrow
    integers and 16-bit floats in library calls."""
    from test_scalar_semantics import A, B, COLUMNS, F, int_edges_kernel, narrow_scalar_kernel
    a = torch.tensor(A, dtype=torch.int32, device="mtia")
    b = torch.tensor(B, dtype=torch.int32, device="mtia")
    f = torch.tensor(F, device="mtia")
    h = torch.tensor([-0.0, 0.0, 1.5, float("nan"), -3.25, 65504, 1e-7, -2], dtype=torch.float16, device="mtia")

    def edges():
        scalar = torch.zeros(len(A), COLUMNS, dtype=torch.int32, device="mtia")
        tile = torch.zeros_like(scalar)
        int_edges_kernel[(1, )](a, b, f, scalar, tile, N=len(A))
        return [scalar, tile]

    def narrow():
        out_h = torch.zeros(4, dtype=torch.float16, device="mtia")
        out_i = torch.zeros(3, dtype=torch.int8, device="mtia")
        narrow_scalar_kernel[(1, )](h, a.to(torch.int8), out_h, out_i)
        return [out_h, out_i]

    def extras():
        out = torch.zeros(len(A), 2, dtype=torch.int32, device="mtia")
        out_h = torch.zeros(len(A), 3, dtype=torch.float16, device="mtia")
        scalar_extras_kernel[(1, )](a, b, f, h, out, out_h, N=len(A))
        return [out, out_h]

    (scalar, tile), _ = both_ways(edges, monkeypatch, int_edges_kernel)
    assert torch.equal(scalar, tile) and scalar[:4, 0].tolist() == [-1, -1, -2**31, -1]
    both_ways(narrow, monkeypatch, narrow_scalar_kernel)
    both_ways(extras, monkeypatch, scalar_extras_kernel)


@triton.jit
def fp8_scalar_kernel(x_ptr, out_ptr, N: tl.constexpr):
    for i in tl.static_range(N):
        x = tl.load(x_ptr + i)
        e4 = x.to(tl.float8e4nv)
        e5 = x.to(tl.float8e5)
        s = e4 + e4  # arithmetic on fp8 scalars, rounded to fp8
        tl.store(out_ptr + i * 4 + 0, e4.to(tl.float32))
        tl.store(out_ptr + i * 4 + 1, e5.to(tl.float32))
        tl.store(out_ptr + i * 4 + 2, s.to(tl.float32))
        tl.store(out_ptr + i * 4 + 3, e4.to(tl.uint8, bitcast=True).to(tl.float32))


def test_fp8_scalars(monkeypatch):
    x = torch.tensor([0.3, -1.7, 300.0, 1e-3, 17.0, -0.0], device="mtia")

    def launch():
        out = torch.zeros(6, 4, device="mtia")
        fp8_scalar_kernel[(1, )](x, out, N=6)
        return [out]

    (out, ), _ = both_ways(launch, monkeypatch, fp8_scalar_kernel)
    torch.testing.assert_close(out[:, 0], x.cpu().to(torch.float8_e4m3fn).float())
    torch.testing.assert_close(out[:, 1], x.cpu().to(torch.float8_e5m2).float())


@triton.jit
def control_flow_kernel(x_ptr, out_ptr, n, limit, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for k in range(0, 4):
        acc += tl.load(x_ptr + offs + k * n, mask=offs < n, other=0.0) * (k + 1)
    steps = 0
    m = limit + pid
    while m != 1:
        m = tl.where(m % 2 == 0, m // 2, 3 * m + 1)
        steps += 1
    if pid % 2 == 0:
        acc = acc + steps
    else:
        acc = tl.cumsum(acc, 0) - tl.max(acc, 0)
    tl.device_assert(steps >= 0, "steps")
    tl.store(out_ptr + offs, acc, mask=offs < n)


def test_control_flow_and_asserts(monkeypatch):
    n = 300
    x = torch.randn(4 * n, generator=torch.Generator().manual_seed(1)).to("mtia")

    def launch():
        out = torch.zeros(n, device="mtia")
        control_flow_kernel[(triton.cdiv(n, 64), )](x, out, n, 27, BLOCK=64)
        return [out]

    both_ways(launch, monkeypatch, control_flow_kernel)


@triton.jit
def print_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.device_print("x = ", x)


def test_device_print(monkeypatch, capfd):
    x = torch.tensor([1.5, -2.0, 3.25, 0.0], device="mtia")
    printed = {}

    def launch():
        print_kernel[(1, )](x)
        printed[triton_mtia.settings.codegen] = capfd.readouterr().out
        return []

    both_ways(launch, monkeypatch, print_kernel)
    assert printed["cpp"] == printed["llvm"] and "idx (2) x =: 3.250000" in printed["cpp"]


@pytest.mark.parametrize("broadcast_a", [False, True])
def test_language_extensions(broadcast_a, monkeypatch):
    """The split-K sample: partial tiles added over the reduction network
    (re_send / re_recv under a PE's condition), A broadcast over the NoC."""
    from triton_mtia.kernels import splitk
    g = torch.Generator().manual_seed(2)
    a = torch.randn(64, 512, generator=g).to("mtia")
    b = torch.randn(512, 64, generator=g).to("mtia")
    both_ways(lambda: [splitk.splitk_re(a, b, broadcast_a=broadcast_a)], monkeypatch, splitk.matmul_splitk_re)


@pytest.mark.parametrize("seed", range(2000, 2016))
def test_fuzzer_programs(seed, monkeypatch, tmp_path):
    """Random programs of the differential fuzzer: arithmetic, bitwise,
    shifts, division, casts, math, loops, branches, reductions and scans
    on every dtype it generates."""
    program = fuzz.Generator(seed).program()
    kernel = triton.jit(fuzz._load(program.source(), str(tmp_path / f"p{seed}.py")))
    inputs = [t.to("mtia") for t in fuzz._inputs(program)]
    both_ways(lambda: list(fuzz._run(kernel, program, inputs, device="mtia")), monkeypatch, kernel)


def test_support_object_is_built_once(monkeypatch, tmp_path):
    """The LLVM IR path links mtia/llvm_support.h's object, built once per
    compiler, flags and headers, and kept in the object cache."""
    monkeypatch.setattr(triton_mtia.settings, "object_cache_dir", str(tmp_path))
    include = triton_mtia.settings.require_include_dir()
    command = [triton_mtia.settings.cxx, *triton_mtia.settings.cxx_flags, "-fPIC"]
    first = object_cache.support_object(command, include)
    assert os.path.isfile(first) and first.startswith(str(tmp_path))
    mtime = os.stat(first).st_mtime_ns
    assert object_cache.support_object(command, include) == first
    assert os.stat(first).st_mtime_ns == mtime


def test_unknown_codegen_is_an_error():
    x = torch.zeros(4)
    with pytest.raises(ValueError, match="codegen must be one of cpp, llvm"):
        print_kernel[(1, )](x, codegen="ptx")
