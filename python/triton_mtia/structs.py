"""Custom struct types as kernel arguments (the paper's 6.2.2).

    import ctypes, triton_mtia

    @triton_mtia.struct_type
    class TensorView(ctypes.Structure):
        _fields_ = [("shape", ctypes.c_int64 * 4), ("stride", ctypes.c_int64 * 4),
                    ("base", ctypes.c_void_p), ("ndim", ctypes.c_int32)]

    @triton.jit
    def kernel(view, ...):
        p = view.base + i * view.stride[0] + j * view.stride[1]
        n = rows_of(view)                     # a @triton.jit helper taking the struct

    kernel[grid](TensorView(shape=(4, 6, 1, 1), stride=(6, 1, 0, 0), base=t, ndim=2), ...)

The MTIA C++ stack shares structures such as TensorView between kernels;
the decorator lets a Triton kernel take the same structure, declared once
as a `ctypes.Structure` (so C++ and Python agree on its layout), and read
its fields by name.

How: the decorator returns a named-tuple type with the structure's fields
(the ctypes class stays available as `.ctype`, with `to_ctypes()` and
`from_ctypes()` to convert). Upstream Triton takes named tuples as kernel
and helper arguments: it flattens one into scalar and pointer arguments
at the launch (our launcher packs them like any others) and gives the
kernel a tuple whose fields it reads by name, so `view.base`,
`view.shape[1]` and passing `view` to a `@triton.jit` helper work
unmodified. Field kinds:

* integer, float and bool scalars (`c_int8` ... `c_uint64`, `c_float`,
  `c_double`, `c_bool`): Python numbers; in the kernel, Triton scalars
  typed as Triton types any integer argument (i32, or i64 past 2**31;
  a value of 1 is specialized to a constant, as for every argument);
* pointers (`c_void_p`, `POINTER(T)`): a tensor (its data, typed by its
  dtype, as a tensor argument) or None;
* fixed arrays of those (`c_int64 * 4`): tuples of that length;
* nested structures, themselves decorated: instances of their type.

Values are fields, not memory: a helper gets the struct by value, which
is what "by reference" means for read-only data in a language without
side effects on scalars.

A value of the ctypes structure itself, as C++ code hands one over
(`TensorView.ctype(...)`: arrays as ctypes arrays, pointers as addresses
in device memory), is a kernel argument too: the launch converts it to the
named tuple (`kernel_value`), each non-null pointer checked to lie in an
allocation of the `mtia` device and passed as a `DevicePointer` typed by
its field (`POINTER(c_float)`: `*fp32`; `c_void_p`: `*i8`, bytes). Where:
`accept_ctypes_structs`, which the driver installs.
"""

from __future__ import annotations

import collections
import ctypes
from typing import Any, Dict, List, Tuple

_INTEGERS = (ctypes.c_int8, ctypes.c_int16, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint8, ctypes.c_uint16,
             ctypes.c_uint32, ctypes.c_uint64, ctypes.c_long, ctypes.c_ulong, ctypes.c_longlong,
             ctypes.c_ulonglong, ctypes.c_int, ctypes.c_uint, ctypes.c_short, ctypes.c_ushort, ctypes.c_byte,
             ctypes.c_ubyte, ctypes.c_size_t, ctypes.c_ssize_t)
_FLOATS = (ctypes.c_float, ctypes.c_double)


def _kind(owner: str, name: str, ctype) -> Tuple[str, Any]:
    """('int' | 'float' | 'bool' | 'pointer' | 'struct', detail) or
    ('array', (length, element kind))."""
    if isinstance(ctype, type) and issubclass(ctype, ctypes.Array):
        element = _kind(owner, name, ctype._type_)
        if element[0] == "array":
            raise TypeError(f"{owner}.{name}: arrays of arrays are not supported; nest a structure instead")
        return "array", (ctype._length_, element)
    if ctype in _INTEGERS:
        return "int", ctype
    if ctype in _FLOATS:
        return "float", ctype
    if ctype is ctypes.c_bool:
        return "bool", ctype
    if ctype is ctypes.c_void_p or (isinstance(ctype, type) and issubclass(ctype, ctypes._Pointer)):
        return "pointer", ctype
    if isinstance(ctype, type) and issubclass(ctype, ctypes.Structure):
        struct = _REGISTRY.get(ctype)
        if struct is None:
            raise TypeError(f"{owner}.{name}: the nested structure {ctype.__name__} must be decorated with "
                            "@triton_mtia.struct_type first")
        return "struct", struct
    raise TypeError(f"{owner}.{name}: fields of type {getattr(ctype, '__name__', ctype)} are not supported "
                    "(integers, floats, bools, pointers, fixed arrays of them, and decorated structures are)")


#: ctypes class -> its struct type.
_REGISTRY: Dict[type, type] = {}


def _default(kind: Tuple[str, Any]):
    what, detail = kind
    if what == "array":
        length, element = detail
        return tuple(_default(element) for _ in range(length))
    if what == "struct":
        return detail()
    if what == "pointer":
        return None
    return False if what == "bool" else 0.0 if what == "float" else 0


def _to_c(kind, value):
    what, detail = kind
    if what == "array":
        return [_to_c(detail[1], v) for v in value]
    if what == "struct":
        return value.to_ctypes()
    if what == "pointer":
        return None if value is None else value.data_ptr() if hasattr(value, "data_ptr") else int(value)
    return value


def _address(value):
    """The address a ctypes pointer value holds, None when null: a c_void_p
    field reads as an int or None, a POINTER(T) field as a pointer object."""
    if value is None:
        return None
    if isinstance(value, ctypes._Pointer):
        return ctypes.cast(value, ctypes.c_void_p).value
    if isinstance(value, ctypes.c_void_p):
        return value.value
    return int(value) or None


def _from_c(kind, value, path: str, pointer):
    """The Python value of the ctypes value `value` of a field of kind
    `kind`; `pointer(path, ctype, address)` makes that of a pointer."""
    what, detail = kind
    if what == "array":
        return tuple(_from_c(detail[1], v, f"{path}[{i}]", pointer) for i, v in enumerate(value))
    if what == "struct":
        return detail._from_c_fields(value, path, pointer)
    if what == "pointer":
        return pointer(path, detail, _address(value))
    return value


def _plain_address(path, ctype, address):
    return address


def struct_type(cls):
    """Makes the `ctypes.Structure` subclass `cls` a kernel argument type:
    returns a named-tuple type of its fields (see the module's docstring)."""
    if not (isinstance(cls, type) and issubclass(cls, ctypes.Structure)):
        raise TypeError(f"@triton_mtia.struct_type decorates a ctypes.Structure subclass, not {cls!r}")
    declared = getattr(cls, "_fields_", None)
    if not declared:
        raise TypeError(f"{cls.__name__} declares no _fields_")
    kinds: List[Tuple[str, Tuple[str, Any]]] = []
    for entry in declared:
        if len(entry) != 2:
            raise TypeError(f"{cls.__name__}.{entry[0]}: bit fields are not supported")
        kinds.append((entry[0], _kind(cls.__name__, entry[0], entry[1])))
    names = [name for name, _ in kinds]
    base = collections.namedtuple(cls.__name__, names)

    def __new__(klass, *args, **kwargs):
        if len(args) > len(names):
            raise TypeError(f"{cls.__name__} has {len(names)} fields, got {len(args)} values")
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"{cls.__name__} has no field {key!r} (fields: {', '.join(names)})")
            if key in values:
                raise TypeError(f"{cls.__name__}: field {key!r} given twice")
            values[key] = value
        out = []
        for name, kind in kinds:
            value = values[name] if name in values else _default(kind)
            if kind[0] == "array" and isinstance(value, (list, tuple)):
                if len(value) != kind[1][0]:
                    raise ValueError(f"{cls.__name__}.{name} holds {kind[1][0]} values, got {len(value)}")
                value = tuple(value)
            out.append(value)
        return base.__new__(klass, *out)

    def to_ctypes(self):
        """This value as an instance of the ctypes structure (pointers as
        addresses: a tensor's data_ptr())."""
        c = cls()
        for (name, kind), value in zip(kinds, self):
            converted = _to_c(kind, value)
            if kind[0] == "array":
                getattr(c, name)[:] = converted
            elif converted is not None:
                setattr(c, name, converted)
        return c

    @classmethod
    def _from_c_fields(klass, c, path, pointer):
        if not isinstance(c, cls):
            raise TypeError(f"{path}: expected a {cls.__name__} structure, got {type(c).__name__}")
        return klass(**{name: _from_c(kind, getattr(c, name), f"{path}.{name}", pointer) for name, kind in kinds})

    @classmethod
    def from_ctypes(klass, c):
        """The value of an instance of the ctypes structure (pointers as
        integer addresses, None when null)."""
        return klass._from_c_fields(c, cls.__name__, _plain_address)

    struct = type(cls.__name__, (base, ), {
        "__slots__": (),
        # In the class's own namespace: Triton reads a named tuple's field
        # names from `type(value).__dict__`.
        "_fields": base._fields,
        "__new__": __new__,
        "__doc__": cls.__doc__ or f"The struct {cls.__name__} as a kernel argument.",
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "ctype": cls,
        "to_ctypes": to_ctypes,
        "from_ctypes": from_ctypes,
        "_from_c_fields": _from_c_fields,
    })
    _REGISTRY[cls] = struct
    return struct


# ----------------------------------------------------------------------------
# Values of the ctypes structures as kernel arguments
# ----------------------------------------------------------------------------


class DevicePointer:
    """A pointer field of a ctypes structure as a kernel argument: an
    address in device memory. Triton takes anything with `data_ptr()` and
    `dtype` as a pointer (`*` + the dtype's name); the launcher registers
    `allocation`, (start, bytes), as the memory the kernel may reach through
    it, as it registers a tensor's storage."""

    __slots__ = ("address", "dtype", "allocation")

    def __init__(self, address: int, dtype, allocation: Tuple[int, int]):
        self.address = address
        self.dtype = dtype
        self.allocation = allocation

    def data_ptr(self) -> int:
        return self.address

    def __repr__(self):
        return f"DevicePointer({self.address:#x}, {self.dtype})"


def _pointee_dtype(ctype):
    """The torch dtype a pointer field points to: its C type for POINTER of
    a number or bool, bytes (int8: Triton's `*i8`, the type its own untyped
    pointers have) for `c_void_p` and pointers to anything else."""
    import torch
    target = getattr(ctype, "_type_", None) if ctype is not ctypes.c_void_p else None
    if target is ctypes.c_bool:
        return torch.bool
    if target in _FLOATS:
        return {4: torch.float32, 8: torch.float64}[ctypes.sizeof(target)]
    if target in _INTEGERS:
        signed = target(-1).value < 0
        return {(1, True): torch.int8, (2, True): torch.int16, (4, True): torch.int32, (8, True): torch.int64,
                (1, False): torch.uint8, (2, False): torch.uint16, (4, False): torch.uint32,
                (8, False): torch.uint64}[ctypes.sizeof(target), signed]
    return torch.int8


def device_allocation(address: int):
    """(start, bytes) of the live allocation of the `mtia` device that holds
    `address` (the device allocator's table of blocks), or None when the
    address is in none."""
    from . import device
    if not device.loaded():
        return None
    found = device._extension().find_allocation(address)
    return None if found is None else (int(found[0]), int(found[1]))


def _device_pointer(path: str, ctype, address):
    if address is None:
        return None
    allocation = device_allocation(address)
    if allocation is None:
        raise ValueError(f"{path} is {address:#x}, which is not in mtia device memory: the pointers of a ctypes "
                         "structure passed to a kernel must point into an allocation of torch.device('mtia')")
    return DevicePointer(address, _pointee_dtype(ctype), allocation)


def kernel_value(c):
    """The kernel argument an instance `c` of a decorated ctypes structure
    stands for: its struct type's named tuple, with pointer fields as
    `DevicePointer`s (None when null) checked against device memory; a
    `TypeError` for an undecorated structure, a `ValueError` naming the
    field for an address outside device memory."""
    struct = _REGISTRY.get(type(c))
    if struct is None:
        raise TypeError(f"{type(c).__name__} is a ctypes.Structure that is not a kernel argument type: decorate "
                        "its class with @triton_mtia.struct_type (and pass an instance of the class it returns, or "
                        "of its .ctype)")
    return struct._from_c_fields(c, struct.__name__, _device_pointer)


def _has_ctypes_struct(value) -> bool:
    if isinstance(value, ctypes.Structure):
        return True
    return type(value) in (tuple, list) and any(_has_ctypes_struct(v) for v in value)


def _to_kernel_value(value, name: str):
    if isinstance(value, ctypes.Structure):
        try:
            return kernel_value(value)
        except (TypeError, ValueError) as e:
            raise type(e)(f"kernel argument '{name}': {e}") from None
    if type(value) in (tuple, list) and _has_ctypes_struct(value):
        return type(value)(_to_kernel_value(v, f"{name}[{i}]") for i, v in enumerate(value))
    return value


def _accepting_ctypes_structs(binder, names: List[str]):
    """Wraps a JIT function's binder (Triton's per-kernel function that
    binds the launch's arguments and specializes them) so that instances
    of ctypes structures become their named tuples first. Only a launch the
    binder rejects pays for the look: Triton specializes no ctypes object,
    so one among the arguments always makes the binder raise."""

    def bind(*args, **kwargs):
        try:
            return binder(*args, **kwargs)
        except TypeError:
            if not (any(map(_has_ctypes_struct, args)) or any(map(_has_ctypes_struct, kwargs.values()))):
                raise
        args = tuple(_to_kernel_value(v, names[i] if i < len(names) else f"#{i}") for i, v in enumerate(args))
        kwargs = {k: _to_kernel_value(v, k) for k, v in kwargs.items()}
        return binder(*args, **kwargs)

    return bind


def accept_ctypes_structs(backend_name: str) -> None:
    """Makes kernels compiled for the backend `backend_name` take instances
    of decorated ctypes structures (see `kernel_value`). Idempotent.

    Triton offers no hook for argument types of a backend's own: its binder
    specializes arguments natively (`native_specialize_impl`: numbers,
    tuples, tensors, descriptors, anything with `data_ptr`) and raises
    "failed to specialize argument of type" for the rest, and the launcher
    gets the arguments as they were bound. So the one place where a value
    can become another for both is before the binder: this wraps
    `triton.runtime.jit.create_function_from_signature`, which makes every
    JIT function's binder on its first launch on a device, to wrap the
    binders it makes for `backend_name`'s backend."""
    import triton.runtime.jit as jit
    make = jit.create_function_from_signature
    if getattr(make, "_mtia_ctypes_structs", False):
        return

    def create_function_from_signature(sig, kparams, backend):
        binder = make(sig, kparams, backend)
        if getattr(getattr(backend, "target", None), "backend", None) != backend_name:
            return binder
        return _accepting_ctypes_structs(binder, list(sig.parameters))

    create_function_from_signature._mtia_ctypes_structs = True
    create_function_from_signature.__wrapped__ = make
    jit.create_function_from_signature = create_function_from_signature


@struct_type
class TensorView(ctypes.Structure):
    """The MTIA stack's TensorView: how to address a tensor of up to four
    dimensions in memory (shape, strides in elements, base, rank). Build one
    from a tensor with `tensor_view`; in a kernel, read it with the helpers
    of `triton_mtia.language` (`mtl.tensor_view_ptrs`)."""
    _fields_ = [("shape", ctypes.c_int64 * 4), ("stride", ctypes.c_int64 * 4), ("base", ctypes.c_void_p),
                ("ndim", ctypes.c_int32)]


def tensor_view(t) -> TensorView:
    """The TensorView of a tensor of up to four dimensions: its shape padded
    with 1s, its strides with 0s, its data as base."""
    if t.dim() > 4:
        raise ValueError(f"a TensorView addresses up to 4 dimensions, not {t.dim()}")
    pad = 4 - t.dim()
    return TensorView(shape=tuple(t.shape) + (1, ) * pad, stride=tuple(t.stride()) + (0, ) * pad, base=t,
                      ndim=t.dim())
