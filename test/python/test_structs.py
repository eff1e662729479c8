"""Values of the ctypes structures themselves as kernel arguments: what C++
code hands over (arrays as ctypes arrays, pointers as addresses in device
memory) goes to a kernel as its `@triton_mtia.struct_type` named tuple
would (structs.py, `kernel_value`)."""

import ctypes

import pytest
import torch
import triton
import triton.language as tl

import triton_mtia
from triton_mtia.structs import DevicePointer, kernel_value

pytestmark = pytest.mark.skipif(not triton_mtia.device.loaded(), reason="needs torch.device('mtia')")


def c_tensor_view(t):
    """A TensorView the way C++ fills one: ctypes arrays, a void* base."""
    c = triton_mtia.TensorView.ctype()
    c.shape[:] = list(t.shape) + [1] * (4 - t.dim())
    c.stride[:] = list(t.stride()) + [0] * (4 - t.dim())
    c.base = ctypes.c_void_p(t.data_ptr())
    c.ndim = t.dim()
    return c


@triton.jit
def scale_c_view(src, dst, alpha, BLOCK: tl.constexpr):
    """dst = alpha * src, two float32 TensorViews whose base is a void*."""
    src_base = src.base.to(tl.pointer_type(tl.float32))
    dst_base = dst.base.to(tl.pointer_type(tl.float32))
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    for c0 in range(0, src.shape[1], BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        m = (rows[:, None] < src.shape[0]) & (cols[None, :] < src.shape[1])
        x = tl.load(src_base + rows[:, None] * src.stride[0] + cols[None, :] * src.stride[1], mask=m)
        tl.store(dst_base + rows[:, None] * dst.stride[0] + cols[None, :] * dst.stride[1], x * alpha, mask=m)


def test_a_kernel_takes_a_ctypes_tensor_view():
    x = torch.randn(50, 70, generator=torch.Generator().manual_seed(3)).to("mtia").t()  # 70x50, strides (1, 70)
    y = torch.empty(70, 50, device="mtia")
    scale_c_view[(triton.cdiv(70, 32), )](c_tensor_view(x), c_tensor_view(y), 2.5, BLOCK=32)
    torch.testing.assert_close(y.cpu(), x.cpu() * 2.5)


def test_a_ctypes_value_specializes_like_its_named_tuple():
    """Same kernel arguments as the named tuple of the fields: the base a
    byte pointer (*i8) at the tensor's address, the shape and strides tuples."""
    x = torch.zeros(3, 4, device="mtia")
    value = kernel_value(c_tensor_view(x))
    assert type(value) is triton_mtia.TensorView
    assert value.shape == (3, 4, 1, 1) and value.stride == (4, 1, 0, 0) and value.ndim == 2
    assert isinstance(value.base, DevicePointer) and value.base.data_ptr() == x.data_ptr()
    assert value.base.dtype == torch.int8
    start, size = value.base.allocation
    storage = x.untyped_storage()
    assert start <= storage.data_ptr() and storage.data_ptr() + storage.nbytes() <= start + size
    # A null pointer is None, as in the named-tuple form.
    assert kernel_value(triton_mtia.TensorView.ctype()).base is None


@triton_mtia.struct_type
class Span(ctypes.Structure):
    _fields_ = [("lo", ctypes.c_int32), ("hi", ctypes.c_int32)]


@triton_mtia.struct_type
class Task(ctypes.Structure):
    _fields_ = [("span", Span.ctype), ("data", ctypes.POINTER(ctypes.c_float)),
                ("counts", ctypes.POINTER(ctypes.c_int32)), ("factor", ctypes.c_float), ("bias", ctypes.c_int32 * 2)]


@triton.jit
def in_span(s, offs):
    return (offs >= s.lo) & (offs < s.hi)


@triton.jit
def run_task(task, out):
    offs = tl.arange(0, 64)
    m = in_span(task.span, offs)  # the nested struct, passed to a helper
    x = tl.load(task.data + offs, mask=m, other=0.0)  # *fp32
    n = tl.load(task.counts + offs, mask=m, other=0)  # *i32
    tl.store(out + offs, x * task.factor + n + task.bias[1], mask=m)


def c_task(data, counts, lo, hi):
    c = Task.ctype()
    c.span.lo, c.span.hi = lo, hi
    c.data = ctypes.cast(data.data_ptr(), ctypes.POINTER(ctypes.c_float))
    c.counts = ctypes.cast(counts.data_ptr(), ctypes.POINTER(ctypes.c_int32))
    c.factor = 2.0
    c.bias[:] = [0, 7]
    return c


def _with_data(c, address):
    c.data = ctypes.cast(address, ctypes.POINTER(ctypes.c_float))
    return c


def test_pointer_fields_are_typed_and_nested_structs_are_structs():
    data = torch.arange(64.0, device="mtia")
    counts = torch.arange(64, dtype=torch.int32, device="mtia") * 10
    out = torch.zeros(64, device="mtia")
    c = c_task(data, counts, 3, 40)
    value = kernel_value(c)
    assert value.span == Span(3, 40) and value.bias == (0, 7) and value.factor == 2.0
    assert (value.data.dtype, value.counts.dtype) == (torch.float32, torch.int32)
    run_task[(1, )](c, out=out)  # by keyword too
    expected = torch.zeros(64)
    expected[3:40] = data.cpu()[3:40] * 2 + counts.cpu()[3:40] + 7
    torch.testing.assert_close(out.cpu(), expected)
    # The named-tuple form gives the same kernel (one compile for both).
    out.zero_()
    run_task[(1, )](Task(span=Span(3, 40), data=data, counts=counts, factor=2.0, bias=(0, 7)), out)
    torch.testing.assert_close(out.cpu(), expected)
    assert len(run_task.device_caches[0][0]) == 1


def test_a_pointer_outside_device_memory_is_an_error_before_the_launch():
    data, counts = torch.arange(64.0), torch.zeros(64, dtype=torch.int32, device="mtia")  # data on the host
    out = torch.full((64, ), -1.0, device="mtia")
    launches = triton_mtia.last_launch()
    with pytest.raises(ValueError) as bad:
        run_task[(1, )](c_task(data, counts, 0, 64), out)
    message = str(bad.value)
    assert "kernel argument 'task'" in message and "Task.data is " + hex(data.data_ptr()) in message
    assert "not in mtia device memory" in message
    assert triton_mtia.last_launch() is launches and bool((out.cpu() == -1).all())  # nothing ran

    # A nested field is named by its path; a host ctypes buffer is no better.
    @triton_mtia.struct_type
    class Outer(ctypes.Structure):
        _fields_ = [("task", Task.ctype), ("scratch", ctypes.c_void_p)]

    # Inside the device's range but in no live allocation: freed memory.
    freed = torch.zeros(1024, device="mtia")
    stale = freed.data_ptr()
    del freed
    with pytest.raises(ValueError, match=f"Task.data is {stale:#x}, which is not in mtia device memory"):
        kernel_value(_with_data(c_task(counts, counts, 0, 64), stale))

    host = (ctypes.c_float * 4)()
    c = Outer.ctype()
    live = torch.zeros(64, device="mtia")
    c.task = c_task(live, counts, 0, 1)
    c.scratch = ctypes.addressof(host)
    with pytest.raises(ValueError, match=f"Outer.scratch is {ctypes.addressof(host):#x}, which is not in mtia"):
        kernel_value(c)


def test_an_undecorated_structure_says_to_decorate_it():

    class Plain(ctypes.Structure):
        _fields_ = [("lo", ctypes.c_int32), ("hi", ctypes.c_int32)]

    out = torch.zeros(64, device="mtia")
    with pytest.raises(TypeError, match="kernel argument 'task': Plain is a ctypes.Structure that is not a kernel "
                       "argument type: decorate its class with @triton_mtia.struct_type"):
        run_task[(1, )](Plain(1, 2), out)


def test_other_argument_errors_are_triton_s_own():
    with pytest.raises(TypeError, match="failed to specialize argument of type: object"):
        run_task[(1, )](object(), torch.zeros(64, device="mtia"))


def test_from_ctypes_gives_pointer_fields_as_addresses():
    data = torch.zeros(64, device="mtia")
    counts = torch.zeros(64, dtype=torch.int32)
    value = Task.from_ctypes(c_task(data, counts, 1, 2))
    assert value.data == data.data_ptr() and value.counts == counts.data_ptr()  # host addresses too: no check
    assert Task.from_ctypes(Task.ctype()).data is None
