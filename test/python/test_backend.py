"""Plugin registration, options, the libdevice mapping and the launcher's
argument conversion. None of these need the compiler or the simulator."""

import dataclasses
import os
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest
import torch
import triton
import triton.language as tl
from triton._C.libtriton import ir
from triton.backends import backends
from triton.compiler.compiler import ASTSource, make_backend
from triton.language.extra import libdevice

from triton_mtia.backend import driver as mtia_driver
from triton_mtia.backend.compiler import MTIABackend, MTIAOptions
from triton_mtia.backend.driver import MTIADriver


def test_entry_point_discovered():
    assert "mtia" in backends
    assert backends["mtia"].compiler is MTIABackend
    assert backends["mtia"].driver is MTIADriver


def _is_active_in_fresh_process(env_value, activate, other_gpu=False):
    env = {k: v for k, v in os.environ.items() if k != "TRITON_DEFAULT_BACKEND"}
    if env_value is not None:
        env["TRITON_DEFAULT_BACKEND"] = env_value
    code = textwrap.dedent(f"""
        import triton.backends
        from triton.backends.driver import DriverBase
        from triton_mtia.backend.driver import MTIADriver
        import triton_mtia

        class GPUDriver(DriverBase):  # a machine with a GPU
            @classmethod
            def is_active(cls):
                return True

        if {other_gpu}:
            triton.backends.backends["gpu"] = triton.backends.Backend(compiler=None, driver=GPUDriver)
        if {activate}:
            triton_mtia.activate()
        print(MTIADriver.is_active())
    """)
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    return out.stdout.strip() == "True"


def test_driver_is_default_only_without_another():
    # The mtia device is loaded, so on a machine without a GPU the MTIA
    # driver is Triton's default...
    assert _is_active_in_fresh_process(None, activate=False)
    # ...and where another backend's driver is active, only on request.
    assert not _is_active_in_fresh_process(None, activate=False, other_gpu=True)
    assert _is_active_in_fresh_process(None, activate=True, other_gpu=True)
    assert _is_active_in_fresh_process("mtia", activate=False, other_gpu=True)


def test_activate_sets_triton_driver():
    from triton.runtime.driver import driver
    assert isinstance(driver.active, MTIADriver)
    target = driver.active.get_current_target()
    assert target.backend == "mtia" and MTIABackend.supports_target(target)
    assert driver.active.get_active_torch_device() == torch.device("mtia")


def test_parse_options():
    backend = make_backend(MTIADriver().get_current_target())
    opts = backend.parse_options({"num_warps": 8, "num_stages": 3, "debug": True, "not_an_option": 1})
    assert isinstance(opts, MTIAOptions)
    assert (opts.num_warps, opts.num_stages, opts.debug) == (8, 3, True)
    assert not hasattr(opts, "not_an_option")
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.num_warps = 1
    assert opts.hash() == backend.parse_options({"num_warps": 8, "num_stages": 3, "debug": True}).hash()
    assert opts.hash() != backend.parse_options({"num_warps": 8, "num_stages": 4, "debug": True}).hash()
    # Every keyword Triton's JIT always passes must be a field, or launches raise.
    for name in ("debug", "instrumentation_mode", "fpsan_homomorphic_casts", "num_warps", "num_ctas",
                 "num_stages", "maxnreg", "ir_override", "enable_fp_fusion", "launch_cooperative_grid"):
        assert name in MTIAOptions.__dataclass_fields__, name


@triton.jit
def libdevice_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets)
    y = libdevice.exp(x) + libdevice.rsqrt(x) + libdevice.pow(x, x) + libdevice.tanh(x)
    tl.store(out_ptr + offsets, y)


def _ttir(kernel, signature, constexprs):
    """Runs the frontend and our "ttir" stage only, no tools."""
    target = MTIADriver().get_current_target()
    backend = make_backend(target)
    options = backend.parse_options({})
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    src = ASTSource(kernel, signature, constexprs)
    module = src.make_ir(target, options, backend.get_codegen_implementation(options), backend.get_module_map(),
                         context)
    return str(backend.make_ttir(module, {}, options))


def test_libdevice_maps_to_reserved_symbols():
    ttir = _ttir(libdevice_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "BLOCK": "constexpr"}, {"BLOCK": 64})
    for fn in ("exp", "rsqrt", "pow", "tanh"):
        assert f'symbol = "__mtia_{fn}"' in ttir, fn
    assert "__nv_" not in ttir


def test_unknown_libdevice_name_is_named():
    from triton_mtia.language import libdevice as mtia_libdevice
    with pytest.raises(AttributeError, match="libdevice.no_such_fn is not implemented by the MTIA backend"):
        mtia_libdevice.no_such_fn


@triton.jit
def libdevice_jn_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, libdevice.jn(2, tl.load(x_ptr + offsets)))


def test_unsupported_libdevice_function_fails_at_its_call():
    # Every upstream name exists (importing one must not break a module's
    # other kernels); calling an unsupported one names it and the source line.
    from triton_mtia.language import libdevice as mtia_libdevice
    assert set(mtia_libdevice.UNSUPPORTED) == {"jn", "yn", "rcp64h"}
    with pytest.raises(triton.CompilationError, match="libdevice.jn is not supported by the MTIA backend") as info:
        _ttir(libdevice_jn_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "BLOCK": "constexpr"}, {"BLOCK": 64})
    assert "libdevice.jn(2, tl.load" in str(info.value)


# ----------------------------------------------------------------------------- launcher


def test_argument_conversion():
    base = torch.zeros(100)
    view = base[10:20]
    kinds = mtia_driver._arg_kinds(["*fp32", "*fp32", "i32", "u64", "fp16", "constexpr", ("i64", "fp32")])
    args, regions = [], {}
    mtia_driver._flatten_args(kinds, [base, view, -3, 2**64 - 1, 0.5, 128, (7, 1.5)], args, regions)
    assert args == [("p", base.data_ptr()), ("p", view.data_ptr()), ("i", -3), ("i", -1), ("f", 0.5), ("i", 7),
                    ("f", 1.5)]
    # Both pointers share one allocation: one region, the whole storage.
    assert regions == {base.data_ptr(): 400}


def test_non_cpu_tensor_is_rejected():
    kinds = mtia_driver._arg_kinds(["*fp32"])
    with pytest.raises(ValueError, match="CPU"):
        mtia_driver._flatten_args(kinds, [torch.empty(4, device="meta")], [], {})


def test_host_tensor_descriptor_is_decomposed(monkeypatch):
    """A host TensorDescriptor reaches the kernel as the pointer, shapes,
    strides and flags that the ttir stage's descriptor rewrite expects."""
    from triton.tools.tensor_descriptor import TensorDescriptor
    launches = []
    monkeypatch.setattr(mtia_driver.runtime, "launch", lambda *a, **kw: launches.append((a, kw)))
    src = SimpleNamespace(signature={"desc": "tensordesc<fp32[16, 16]>", "out": "*fp32", "n": "i32"})
    launcher = mtia_driver.MTIALauncher(src, SimpleNamespace(name="k"))
    x = torch.zeros(64, 16)
    launcher(4, 1, 1, 0, "k.so", None, None, None, None, TensorDescriptor.from_tensor(x, [16, 16]), x, 16)
    ((_, _, grid, args, regions, pid_mapping), kw), = launches
    assert kw == {"entry": "k"}
    assert pid_mapping == "linear"
    ints = [("i", v) for v in (64, 16, 16, 1)]  # shape, strides
    assert args == [("p", x.data_ptr()), *ints, ("i", 0), ("i", 0), *ints, ("p", x.data_ptr()), ("i", 16)]
    assert regions == [(x.data_ptr(), x.numel() * 4)]


def test_unsupported_argument_type_is_named():
    with pytest.raises(NotImplementedError, match="nvTmaDesc"):
        mtia_driver._arg_kinds(["nvTmaDesc"])


def test_simulated_benchmarker_returns_quantiles():
    bench = MTIADriver().get_benchmarker()
    assert bench(lambda: None, quantiles=[0.5, 0.2, 0.8]) == [0.0, 0.0, 0.0]


def test_inductor_style_kernel_reaches_ttir():
    """Inductor's generated kernels import helpers from torch's runtime, and
    libdevice through it; with triton==3.9.0 and torch==2.13.0 those imports
    work and the libdevice calls land on our reserved symbols."""
    from torch._inductor.runtime import triton_helpers
    from torch._inductor.runtime.triton_helpers import libdevice as inductor_libdevice

    @triton.jit
    def triton_poi_fused_exp_max(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
        xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:]
        xmask = xindex < xnumel
        x0 = xindex % 16
        tmp0 = tl.load(in_ptr0 + x0, xmask)
        tmp1 = triton_helpers.maximum(tmp0, 0.0)
        tmp2 = inductor_libdevice.exp(tmp1)
        tl.store(out_ptr0 + xindex, tmp2, xmask)

    ttir = _ttir(triton_poi_fused_exp_max, {"in_ptr0": "*fp32", "out_ptr0": "*fp32", "xnumel": "i32",
                                           "XBLOCK": "constexpr"}, {"XBLOCK": 128})
    assert 'symbol = "__mtia_exp"' in ttir


def test_a_kernel_named_after_many_fused_operators_compiles(tmp_path, monkeypatch):
    """Inductor names a kernel after every operator it fuses; past 255 bytes
    of file name the compiler's work files and the shared object's path
    failed ('File name too long'). Found by the torch.compile fuzzer."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    name = "triton_per_fused_" + "_".join(["native_layer_norm_backward_scatter_gather"] * 7)
    source = (f"def {name}(x_ptr, BLOCK: tl.constexpr):\n"
              "    offs = tl.arange(0, BLOCK)\n"
              "    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)\n")
    namespace = {"tl": tl}
    exec(compile(source, str(tmp_path / "long_name.py"), "exec"), namespace)
    (tmp_path / "long_name.py").write_text("import triton.language as tl\n" + source)
    kernel = triton.jit(namespace[name])
    x = torch.zeros(16)
    kernel[(1, )](x, BLOCK=16)
    assert len(name) > 255 and torch.equal(x, torch.ones(16))
