"""torch.device("mtia"): PyTorch's MTIA device backed by the simulated chip
(python/triton_mtia/device.py, runtime/torch/)."""

import os
import subprocess
import sys
import textwrap

import pytest
import torch
import triton
import triton.language as tl

import triton_mtia
from triton_mtia import device


def _run_fresh(code, script=None, **env_overrides):
    """Runs `code` in a fresh Python (from the file `script` when given:
    @triton.jit needs its source in a file); returns its output lines."""
    env = dict(os.environ)
    env.update(env_overrides)
    if script is not None:
        script.write_text(textwrap.dedent(code))
        argv = [sys.executable, str(script)]
    else:
        argv = [sys.executable, "-c", textwrap.dedent(code)]
    out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def test_device_is_available():
    assert torch.mtia.is_available()
    assert torch.mtia.device_count() == 1
    assert torch.mtia.current_device() == 0
    torch.mtia.synchronize()
    assert torch.accelerator.current_accelerator() == torch.device("mtia")
    props = torch.mtia.get_device_properties(0)
    # Inductor reads these as attributes.
    assert props.multi_processor_count == 64 and props.warp_size == 1
    assert props.L2_cache_size > 0 and props["type"] == "mtia"
    assert torch.mtia.get_device_capability() == device.CAPABILITY
    with pytest.raises(Exception, match="mtia:1 does not exist"):
        torch.mtia.set_device(1)


def test_autoload_registers_the_device_in_every_process():
    # No import of triton_mtia: PyTorch's "torch.backends" entry point does it.
    assert _run_fresh("import torch; print(torch.mtia.is_available())") == ["True"]
    # Without autoload, importing the package registers it.
    lines = _run_fresh("""
        import torch
        import triton_mtia
        print(torch.mtia.is_available())
    """, TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    assert lines == ["True"]


def test_a_device_that_cannot_load_never_breaks_import_torch():
    # As if the extension were not built: a warning, torch and triton_mtia
    # still import, and the driver still runs kernels on CPU tensors.
    lines = _run_fresh("""
        import sys, warnings
        sys.modules["triton_mtia._mtia_device"] = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import torch
            import triton_mtia
        print(torch.mtia.is_available(), triton_mtia.device.loaded())
        print(any("torch.device('mtia') is not available" in str(w.message) for w in caught))
        print(triton_mtia.device.host_fallbacks())
    """)
    assert lines == ["False False", "True", "{}"]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.bool])
def test_copies_between_host_and_device(dtype):
    host = (torch.randn(7, 9) * 10).to(dtype)
    dev = host.to("mtia")
    assert dev.device == torch.device("mtia", 0) and dev.dtype == dtype
    assert torch.equal(dev.cpu(), host)
    assert torch.equal(dev.clone().cpu(), host)
    assert torch.equal(dev.to("cpu", non_blocking=True), host)
    # Device to device, with a change of layout and dtype.
    assert torch.equal(dev.t().contiguous().cpu(), host.t().contiguous())
    assert torch.equal(dev.to(torch.float64).cpu(), host.to(torch.float64))


def test_creation_and_scalars():
    assert torch.equal(torch.zeros(3, 4, device="mtia").cpu(), torch.zeros(3, 4))
    assert torch.equal(torch.ones(5, device="mtia", dtype=torch.int32).cpu(), torch.ones(5, dtype=torch.int32))
    assert torch.equal(torch.full((2, 2), 7.0, device="mtia").cpu(), torch.full((2, 2), 7.0))
    s = torch.empty_strided((4, 3), (1, 4), device="mtia")
    assert s.stride() == (1, 4)
    x = torch.arange(10.0).to("mtia")
    assert x[3].item() == 3.0
    x.resize_(20)
    assert x.shape == (20,) and x[:10].cpu().tolist() == list(range(10))
    assert torch.empty(0, device="mtia").numel() == 0


def test_views_share_device_memory():
    x = torch.arange(24.0).to("mtia")
    views = [x.view(4, 6), x.view(4, 6).t(), x[2:10], x.unfold(0, 4, 2), x.as_strided((3, 3), (5, 1), 2),
             x.reshape(2, 12), x.view(torch.int32)]
    for v in views:
        assert v.device.type == "mtia"
        assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    x.view(4, 6)[1, 2] = -1.0  # through a view, into the base
    assert x[8].item() == -1.0


def test_lazy_conjugate_and_negative_views_copy(gen):
    # Copies of tensors with a lazy conj or neg bit once recursed forever.
    a = torch.randn(6, dtype=torch.complex64, generator=gen)
    d = a.to("mtia")
    assert torch.equal(d.conj().cpu(), a.conj())
    assert torch.equal(d.conj().resolve_conj().cpu(), a.conj())
    assert torch.equal(d._neg_view().cpu(), -a)
    e = torch.empty(6, dtype=torch.complex64, device="mtia")
    e.copy_(a.conj())
    assert torch.equal(e.cpu(), a.conj())
    assert torch.allclose(torch.fft.ifft(d.real).cpu(), torch.fft.ifft(a.real))


def test_convolutions_the_chip_cannot_serve_run_on_the_host(gen):
    # ATen sends a convolution on an unknown device to
    # convolution_overrideable, which the device implements on the host: a
    # float64 one's (the DPE has no such mode; test_aten_ops.py has the rest).
    x = torch.randn(2, 3, 9, 9, generator=gen, dtype=torch.float64, requires_grad=True)
    conv = torch.nn.Conv2d(3, 4, 3, padding=1, dtype=torch.float64)
    dx = x.detach().to("mtia").requires_grad_()
    dconv = torch.nn.Conv2d(3, 4, 3, padding=1, dtype=torch.float64).to("mtia")
    dconv.load_state_dict(conv.state_dict())
    device.reset_host_fallbacks()
    out = dconv(dx)
    out.sum().backward()
    conv(x).sum().backward()
    assert torch.allclose(out.cpu(), conv(x), atol=1e-5)
    assert torch.allclose(dx.grad.cpu(), x.grad, atol=1e-5)
    assert torch.allclose(dconv.weight.grad.cpu(), conv.weight.grad, atol=1e-4)
    counts = device.host_fallbacks()
    assert counts["aten::convolution_overrideable"] == 1
    assert counts["aten::convolution_backward_overrideable"] == 1


def test_batch_norm_keeps_the_device_conventions(gen):
    # In inference every device but the CPU saves the running statistics
    # (and Inductor's decomposition for them does): so does mtia.
    x = torch.randn(4, 3, 5, generator=gen)
    mean, var = torch.randn(3, generator=gen), torch.rand(3, generator=gen) + 0.5
    out, save_mean, save_rstd = torch.ops.aten.native_batch_norm(
        x.to("mtia"), None, None, mean.to("mtia"), var.to("mtia"), False, 0.1, 1e-5)
    expected = torch.ops.aten.native_batch_norm(x, None, None, mean, var, False, 0.1, 1e-5)[0]
    assert torch.allclose(out.cpu(), expected, atol=1e-6)
    assert torch.equal(save_mean.cpu(), mean)
    assert torch.allclose(save_rstd.cpu(), (var + 1e-5).rsqrt())
    # Training updates the running statistics in device memory.
    dmean, dvar = mean.to("mtia"), var.to("mtia")
    torch.ops.aten.native_batch_norm(x.to("mtia"), None, None, dmean, dvar, True, 0.1, 1e-5)
    torch.ops.aten.native_batch_norm(x, None, None, mean, var, True, 0.1, 1e-5)
    assert torch.allclose(dmean.cpu(), mean) and torch.allclose(dvar.cpu(), var)


def test_nonzero_static_has_an_accelerators_layout():
    # PyTorch's meta function, which compiled code checks results against,
    # gives every device but the CPU, MPS and XPU the column-major layout of
    # CUDA's kernel; the mtia device's kernel (the host's, then a copy)
    # returns that layout, so torch.compile of it runs.
    x = torch.tensor([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]], dtype=torch.float16)
    expected = torch.nonzero_static(x, size=4)
    on_device = torch.nonzero_static(x.to("mtia"), size=4)
    meta = torch.nonzero_static(x.to("meta"), size=4)
    assert on_device.stride() == (1, 4) and torch.equal(on_device.cpu(), expected)
    from torch._meta_registrations import nonzero_static as meta_kernel
    assert meta_kernel(x.to("mtia"), size=4).stride() == on_device.stride()
    assert meta.shape == on_device.shape
    torch._dynamo.reset()
    compiled = torch.compile(lambda t: torch.nonzero_static(t, size=4))(x.to("mtia"))
    assert torch.equal(compiled.cpu(), expected)


def test_eager_operators_without_a_kernel_run_on_the_host_and_are_counted(gen):
    """Operators with a kernel (the GEMM, Inductor's per-operator kernels:
    test_aten_ops.py) run on the chip; those whose result's shape only the
    data knows (nonzero, a boolean mask's index) run on the host, counted."""
    a, b = torch.randn(8, 16, generator=gen), torch.randn(16, 4, generator=gen)
    da, db = a.to("mtia"), b.to("mtia")
    device.reset_host_fallbacks()
    assert torch.allclose((da @ db).cpu(), a @ b)
    assert torch.allclose((da * 2 + 1).cpu(), a * 2 + 1)
    out = torch.empty(8, 16, device="mtia")
    torch.exp(da, out=out)
    assert torch.allclose(out.cpu(), a.exp())
    c = da.clone()
    c.add_(1.0)
    assert torch.allclose(c.cpu(), a + 1)
    assert torch.allclose(torch.cat([da, da]).cpu(), torch.cat([a, a]))
    assert device.host_fallbacks() == {}
    assert torch.equal(torch.nonzero(da > 0).cpu(), torch.nonzero(a > 0))
    assert torch.equal(da[da > 0].cpu(), a[a > 0])
    counts = device.host_fallbacks()
    assert counts.get("aten::nonzero", 0) >= 1 and "aten::gt.Scalar" not in counts
    device.reset_host_fallbacks()
    assert device.host_fallbacks() == {}


def test_autograd_on_the_device(gen):
    w = torch.randn(4, 3, generator=gen)
    dw = w.to("mtia").requires_grad_()
    x = torch.randn(5, 4, generator=gen).to("mtia")
    torch.nn.functional.gelu(x @ dw).sum().backward()
    w.requires_grad_()
    torch.nn.functional.gelu(x.cpu() @ w).sum().backward()
    assert dw.grad.device.type == "mtia"
    assert torch.allclose(dw.grad.cpu(), w.grad, atol=1e-6)


def test_random_numbers_follow_the_seed():
    torch.manual_seed(7)
    first = torch.randn(16, device="mtia").cpu()
    torch.manual_seed(7)
    assert torch.equal(torch.randn(16, device="mtia").cpu(), first)
    g = torch.Generator("mtia")
    assert g.device.type == "mtia"
    g.manual_seed(3)
    one = torch.rand(8, device="mtia", generator=g).cpu()
    two = torch.rand(8, device="mtia", generator=g).cpu()
    assert not torch.equal(one, two)  # the generator's state advanced
    g.manual_seed(3)
    assert torch.equal(torch.rand(8, device="mtia", generator=g).cpu(), one)
    assert len(torch.mtia.default_generators) == 1


def test_memory_statistics():
    before = torch.mtia.memory_allocated()
    x = torch.empty(1000, device="mtia")  # 4000 bytes, rounded to 512-byte blocks
    assert torch.mtia.memory_allocated() == before + 4096
    assert torch.mtia.max_memory_allocated() >= before + 4096
    del x
    assert torch.mtia.memory_allocated() == before
    base, size = device.memory_range()
    y = torch.empty(10, device="mtia")
    assert base <= y.data_ptr() < base + size and base % (1 << 30) == 0


def test_out_of_memory_is_reported():
    lines = _run_fresh("""
        import torch
        try:
            torch.empty(2 ** 31, dtype=torch.uint8, device="mtia")
        except torch.OutOfMemoryError as e:
            print("oom", "MTIA out of memory" in str(e))
        print(torch.empty(10, device="mtia").device)
    """, TRITON_MTIA_DEVICE_MEMORY_GIB="1")
    assert lines == ["oom True", "mtia:0"]


def test_events_measure_simulated_time(gen):
    x = torch.randn(5000, generator=gen).to("mtia")
    out = torch.empty_like(x)
    start, end = torch.mtia.Event(enable_timing=True), torch.mtia.Event(enable_timing=True)
    start.record()
    _add_kernel[(5,)](x, x, out, 5000, BLOCK=1024)
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) == pytest.approx(triton_mtia.last_launch().seconds * 1e3)
    assert torch.equal(out.cpu(), x.cpu() * 2)


def test_triton_kernel_on_device_tensors_without_activate(tmp_path):
    # A fresh process that never calls activate(), with the tutorials'
    # DEVICE idiom; host allocations before the launch differ per process,
    # which must not change the cycles.
    code = """
        import os, torch, triton, triton.language as tl
        junk = [torch.empty(1000 + 977 * i) for i in range(int(os.environ["JUNK"]))]

        @triton.jit
        def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            x = tl.load(x_ptr + offs, mask=mask)
            tl.store(out_ptr + offs, x + tl.load(y_ptr + offs, mask=mask), mask=mask)

        DEVICE = triton.runtime.driver.active.get_active_torch_device()
        gen = torch.Generator().manual_seed(0)
        x = torch.randn(50000, generator=gen).to(DEVICE)
        y = torch.randn(50000, generator=gen).to(DEVICE)
        out = torch.empty_like(x)
        add[(triton.cdiv(50000, 1024),)](x, y, out, 50000, BLOCK=1024)
        import triton_mtia
        print(DEVICE, torch.equal(out.cpu(), x.cpu() + y.cpu()), triton_mtia.last_launch().cycles)
    """
    one = _run_fresh(code, tmp_path / "add.py", JUNK="3")
    two = _run_fresh(code, tmp_path / "add.py", JUNK="11")
    assert one[0].startswith("mtia True ")
    assert one == two


def test_kernel_fault_on_device_tensors():
    x = torch.zeros(100, device="mtia")
    out = torch.empty(100, device="mtia")
    with pytest.raises(triton_mtia.KernelFault):
        # n is larger than the tensors: the DMA leaves their allocation.
        _add_kernel[(1,)](x, x, out, 100000, BLOCK=4096)


def test_cpu_tensors_still_run_on_the_chip(gen):
    x = torch.randn(3000, generator=gen)
    out = torch.empty_like(x)
    _add_kernel[(3,)](x, x, out, 3000, BLOCK=1024)
    assert torch.equal(out, x * 2)
    assert triton_mtia.last_launch().cycles > 0


def test_device_memory_is_not_cpu_tensors():
    with pytest.raises(ValueError, match="mtia device or the CPU"):
        from triton_mtia.backend.driver import _storage_region
        _storage_region(torch.empty(1, device="meta"))


def test_quickstart_example_runs_on_the_device(tmp_path):
    from pathlib import Path
    example = Path(__file__).resolve().parents[2] / "examples" / "quickstart.py"
    out = subprocess.run([sys.executable, str(example)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("scale_shift_kernel: ") and " cycles = " in out.stdout
    assert (tmp_path / "quickstart.trace.json").exists()
