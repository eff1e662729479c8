"""A differential fuzzer one level above `triton_mtia.fuzz`: random PyTorch
programs, compiled by `torch.compile` for the `mtia` device (Inductor's
Triton kernels on the simulated chip), compared with eager PyTorch on the
CPU.

    python -m triton_mtia.fuzz_torch --seed 1 --count 200 --out fuzz-torch-out --json fuzz_torch.json

A program is a small DAG (2 to 8 nodes) of operators of PyTorch's OpInfo
database (`torch.testing._internal.common_methods_invocations.op_db`):
elementwise unary and binary ufuncs with broadcasting (called as one of
the op's own OpInfo sample inputs, its `input` replaced by a value of the
program and its other tensors made to fit), reductions over a dim with or
without keepdim, softmax and log_softmax, layer norm, matmul / bmm / linear,
views (transpose, permute, slices with a step, expand, ...) that leave
non-contiguous strides, where, clamp, scans (cumsum ...), masked_fill,
tril / triu, cat, casts, gathers, a few more OpInfos called with their own
samples, and the random operators dropout, rand_like, randn_like and
bernoulli. Sometimes the first node is an OpInfo sample taken as it is
(its tensors become the program's inputs), and sometimes the program
starts with an attention pattern (q @ k^T * scale, a causal tril mask by
masked_fill, softmax, dropout, @ v). Shapes are 1-D to 4-D with odd sizes
(1, 3, 17, 33, 100); the dtype is float32 mostly, float16 or bfloat16
sometimes, int32 / int64 for the ops that take them; inputs are sometimes
non-contiguous (transposed, strided, expanded, at a storage offset).
Sometimes the program is a training step: float inputs require grad, the
outputs are reduced to a scalar loss (`sum((out * w).sum())` with fixed
random weights `w`), `.backward()` runs, and the gradients are compared
too. Every node is run eagerly on the CPU while the program is generated,
so a program PyTorch itself refuses is never made.

Comparison: outputs (and gradients) with `torch.testing.assert_close` at
the dtype's tolerances (integers and booleans exactly, NaN equal to NaN);
a float result outside them still passes when it is as close to a float64
reference as rounding explains (bench.inductor_ops's rule: PyTorch's own
`torch._dynamo.utils.same` with an fp64 reference, the program run on
float64 inputs with its casts made float64 too). Random operators are
compared by statistics, since the chip's generator need not match the
CPU's: each one's result is returned as an extra output (its witness); the
fraction of dropped elements must be within a binomial tolerance of p, the
kept ones must be the eager input scaled by 1/(1-p) (within the dtype's
rounding, their median ratio closer still; rand_like's
values in [0, 1) with mean 1/2, ...), and the eager reference replays the
chip's own mask (`rand.dropout(...)` in the program's source) so that
everything downstream is compared as usual. By seed: a second compiled run
under the same `torch.manual_seed` must give the same bits.

Outcomes: `ok`; `wrong` (a difference, a failed statistic, a run that
does not repeat under its seed); `error` (the compile or the launch failed:
a compiler error, a KernelFault other than a deadlock or the watchdog);
`deadlock` (a KernelFault of kind deadlock); `hang` (the simulator's
watchdog, or the program's time limit: each program runs in a worker
process); `crash` (the worker died); `unsupported` (not a finding, counted
apart: eager PyTorch on the CPU rejects the program, or Inductor on the CPU
fails too, or differs from eager too while the chip agrees with it). Each
finding is shrunk (nodes
bypassed or cut into fresh inputs, outputs and the backward pass dropped,
inputs made contiguous, for as long as the outcome stays) and written to
--out as a standalone reproducer script that prints the outcome.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import importlib.util
import json
import math
import os
import random
import re
import sys
import tempfile
import threading
import time
import traceback
from typing import Any, Callable, Dict, List, Optional, Tuple

DEVICE = "mtia"

#: Outcomes; all but ok and unsupported are findings.
OUTCOMES = ("ok", "wrong", "error", "deadlock", "hang", "crash", "unsupported")
FINDINGS = ("wrong", "error", "deadlock", "hang", "crash")

#: Sizes of a dimension: ones, odd sizes, powers of two.
SIZES = (1, 2, 3, 4, 5, 7, 8, 16, 17, 31, 33, 64, 100)
#: Elements of a value at most (the simulator runs every element).
MAX_NUMEL = 4096

#: assert_close's tolerances per dtype, before the float64 rule.
TOLERANCES = {"float32": (1e-5, 1e-5), "float16": (1e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2)}
FLOATS = ("float32", "float16", "bfloat16")
INTS = ("int32", "int64")

#: Builder errors other than rejections propagate (tests, development).
STRICT = os.environ.get("TRITON_MTIA_FUZZ_TORCH_STRICT", "0") == "1"

#: Standard deviations a statistic of a random operator may be off by.
SIGMAS = 5.0


# ---------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class Input:
    """An argument of the program. Its values are a function of the
    program's seed and the input's name, so that shrinking keeps them."""
    name: str
    shape: List[int]
    dtype: str
    # normal | nonzero | int | bool | index:<n> | range:<lo>:<hi> | data
    values: str = "normal"
    # contiguous | transposed | strided:<d> | expanded:<d> | offset:<k>
    layout: str = "contiguous"
    grad: bool = False
    data: Optional[list] = None  # values == "data": an OpInfo sample's own


@dataclasses.dataclass
class Node:
    """`name = expr.format(*args)`; a random node's replay (its eager
    stand-in, see Replay) is `replay.format(*args)`."""
    name: str
    op: str  # the OpInfo name (per-op counts)
    expr: str
    args: List[str]
    shape: List[int]
    dtype: str
    replay: str = ""

    @property
    def random(self) -> bool:
        return bool(self.replay)


@dataclasses.dataclass
class Program:
    seed: int
    inputs: List[Input]
    nodes: List[Node]
    outputs: List[str]
    backward: bool = False

    def witnesses(self) -> List[str]:
        """The random nodes, returned as outputs too."""
        return [n.name for n in self.nodes if n.random]

    def returned(self) -> List[str]:
        return self.outputs + [w for w in self.witnesses() if w not in self.outputs]

    def ops(self) -> List[str]:
        return [n.op for n in self.nodes]

    def source(self) -> str:
        args = ", ".join([x.name for x in self.inputs] + ["rand=None"])
        lines = ["import torch", "import torch.nn.functional as F", "", "",
                 f"def program({args}):"]
        for n in self.nodes:
            expr = n.expr.format(*n.args)
            if n.random:
                expr = f"{expr} if rand is None else {n.replay.format(*n.args, name=n.name)}"
            lines.append(f"    {n.name} = {expr}")
        lines.append(f"    return ({', '.join(self.returned())}, )")
        return "\n".join(lines) + "\n"

    def describe_inputs(self) -> str:
        out = []
        for x in self.inputs:
            extra = [x.values] if x.values != "normal" else []
            extra += [x.layout] if x.layout != "contiguous" else []
            extra += ["requires_grad"] if x.grad and self.backward else []
            out.append(f"{x.name}: {x.dtype}{list(x.shape)}" + (f" ({', '.join(extra)})" if extra else ""))
        return "; ".join(out)


def program_to_json(p: Program) -> Dict:
    return dataclasses.asdict(p)


def program_from_json(d: Dict) -> Program:
    return Program(seed=d["seed"], inputs=[Input(**x) for x in d["inputs"]], nodes=[Node(**n) for n in d["nodes"]],
                   outputs=list(d["outputs"]), backward=d.get("backward", False))


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def _torch_dtype(name: str):
    import torch
    return getattr(torch, name)


def _base_shape(x: Input) -> List[int]:
    shape = list(x.shape)
    kind, _, arg = x.layout.partition(":")
    if kind == "transposed":
        shape[-1], shape[-2] = shape[-2], shape[-1]
    elif kind == "strided":
        shape[int(arg)] = 2 * shape[int(arg)]
    elif kind == "expanded":
        shape[int(arg)] = 1
    elif kind == "offset":
        shape = [math.prod(shape) + int(arg)]
    return shape


def _view(x: Input, base):
    kind, _, arg = x.layout.partition(":")
    if kind == "transposed":
        return base.transpose(-1, -2)
    if kind == "strided":
        d = int(arg)
        return base[(slice(None), ) * d + (slice(None, None, 2), )]
    if kind == "expanded":
        return base.expand(tuple(x.shape))
    if kind == "offset":
        return base[int(arg):].view(tuple(x.shape))
    return base


def input_values(seed: int, x: Input):
    """The values of input `x` (its base tensor, before its layout's view)
    on the CPU."""
    import torch
    g = torch.Generator().manual_seed((seed * 1_000_003 + int(x.name[1:]) * 7919) % (2**63))
    shape = _base_shape(x)
    dtype = _torch_dtype(x.dtype)
    kind, _, arg = x.values.partition(":")
    if kind == "data":
        return torch.tensor(x.data, dtype=dtype).reshape(shape)
    if kind == "bool":
        return torch.randint(0, 2, shape, generator=g).bool()
    if kind == "index":
        return torch.randint(0, int(arg), shape, generator=g).to(dtype)
    if dtype.is_floating_point:
        if kind == "range":
            lo, hi = (float(v) for v in arg.split(":"))
            return (torch.rand(shape, generator=g) * (hi - lo) + lo).to(dtype)
        v = torch.randn(shape, generator=g)
        if kind == "nonzero":
            v = torch.where(v < 0, v - 0.5, v + 0.5)
        return v.to(dtype)
    if kind == "nonzero":
        v = torch.randint(1, 10, shape, generator=g) * (torch.randint(0, 2, shape, generator=g) * 2 - 1)
        return v.to(dtype)
    lo, hi = (-20, 21) if dtype != torch.uint8 else (0, 40)
    return torch.randint(lo, hi, shape, generator=g).to(dtype)


def make_inputs(p: Program, device: str, float64: bool = False):
    """(bases, arguments): each input's base tensor on `device` (requiring
    grad where the program's backward pass differentiates it) and the view
    the program takes."""
    import torch
    bases, views = [], []
    for x in p.inputs:
        base = input_values(p.seed, x)
        if float64 and base.is_floating_point():
            base = base.double()
        base = base.to(device)
        if p.backward and x.grad and base.is_floating_point():
            base.requires_grad_()
        bases.append(base)
        views.append(_view(x, base))
    return bases, views


def loss_weights(p: Program, outputs) -> list:
    """Fixed random weights for the outputs that enter the loss."""
    import torch
    g = torch.Generator().manual_seed(p.seed + 17)
    return [torch.randn(o.shape, generator=g) for o in outputs]


# ---------------------------------------------------------------------------
# The OpInfo catalogue
# ---------------------------------------------------------------------------


#: OpInfos left out, with the reason.
EXCLUDED = {
    # not a computation of the program's dtype
    **{n: "a dtype conversion (casts are generated apart)" for n in
       ("bfloat16", "bool", "byte", "char", "double", "float", "half", "int", "long", "short", "cdouble", "cfloat",
        "chalf")},
    "frexp": "returns a tuple", "fill": "needs a value argument",
    "complex": "complex results", "polar": "complex results", "angle": "complex in general",
    "float_power": "computes in float64",
    "jiterator_unary": "CUDA only", "jiterator_binary": "CUDA only", "jiterator_binary_return_by_ref": "CUDA only",
    "nn.functional.rrelu": "random in training mode", "hash_tensor": "not a numerical op",
    # poles and huge values: their accuracy is each library's own
    **{f"polygamma.polygamma_n_{k}": "poles" for k in range(5)},
    "special.polygamma.special_polygamma_n_0": "poles", "special.zeta": "poles",
    **{n: "a degree taken from a tensor: unstable at large degrees" for n in
       ("special.chebyshev_polynomial_t", "special.chebyshev_polynomial_u", "special.chebyshev_polynomial_v",
        "special.chebyshev_polynomial_w", "special.hermite_polynomial_h", "special.hermite_polynomial_he",
        "special.laguerre_polynomial_l", "special.legendre_polynomial_p", "special.shifted_chebyshev_polynomial_t",
        "special.shifted_chebyshev_polynomial_u", "special.shifted_chebyshev_polynomial_v",
        "special.shifted_chebyshev_polynomial_w")},
    "igamma": "no Inductor lowering, a host op", "igammac": "no Inductor lowering, a host op",
}

#: OpInfos besides the ufuncs that are called with their own samples.
GENERIC = ("nn.functional.gelu", "nn.functional.leaky_relu", "nn.functional.hardswish", "nn.functional.silu",
           "nn.functional.glu", "nn.functional.normalize", "nn.functional.rms_norm", "nn.functional.group_norm",
           "nn.functional.mse_loss", "lerp", "addcmul", "addcdiv", "logsumexp", "var_mean", "aminmax",
           "max.reduction_with_dim", "outer", "addmm", "baddbmm", "diff", "flip", "roll", "scatter_add",
           "index_add", "select", "narrow")

#: Shifts: their count is kept within the shifted value's bit width.
SHIFTS = ("bitwise_left_shift", "bitwise_right_shift")


def torch_bits(dtype) -> int:
    import torch
    return torch.iinfo(dtype).bits if not dtype.is_floating_point and dtype != torch.bool else 8


#: The reductions taken over a dim (call form: torch.<name>(x, dim=, keepdim=)).
REDUCTIONS = ("sum", "mean", "amax", "amin", "prod", "std", "var", "nansum", "argmax", "argmin", "all", "any",
              "logsumexp", "linalg.vector_norm")


class _Reject(Exception):
    """A sample or a node that does not fit."""


@dataclasses.dataclass
class Slot:
    """A tensor of an OpInfo sample: its shape and dtype, and its values
    when they matter (integer tensors: indices)."""
    shape: Tuple[int, ...]
    dtype: Any
    data: Optional[list] = None


def _template(v):
    import torch
    if isinstance(v, torch.Tensor):
        if v.layout != torch.strided or v.is_complex() or v.dtype == torch.float64 or v.dim() > 4:
            raise _Reject("tensor kind")
        data = v.flatten().tolist() if (not v.is_floating_point() and v.numel() <= 512) else None
        return Slot(tuple(v.shape), v.dtype, data)
    if isinstance(v, torch.Size):
        return tuple(v)
    if isinstance(v, (list, tuple)):
        return type(v)(_template(x) for x in v)
    if isinstance(v, dict):
        return {k: _template(x) for k, x in v.items()}
    if v is None or isinstance(v, (bool, int, float, str, torch.dtype)):
        return v
    raise _Reject(f"argument of type {type(v).__name__}")


def _lit(v) -> str:
    """Python source of a literal argument."""
    import torch
    if isinstance(v, float):
        return f'float("{v}")' if (math.isnan(v) or math.isinf(v)) else repr(v)
    if isinstance(v, torch.dtype):
        return str(v)
    if isinstance(v, tuple):
        return "(" + ", ".join(_lit(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, list):
        return "[" + ", ".join(_lit(x) for x in v) + "]"
    return repr(v)


def _slots(v) -> List[Slot]:
    if isinstance(v, Slot):
        return [v]
    if isinstance(v, (list, tuple)):
        return [s for x in v for s in _slots(x)]
    if isinstance(v, dict):
        return [s for x in v.values() for s in _slots(x)]
    return []


def _render(v, names: Dict[int, str]) -> str:
    """Source of a template part; slots become "{i}" placeholders."""
    if isinstance(v, Slot):
        return "{%d}" % names[id(v)]
    if isinstance(v, tuple):
        return "(" + ", ".join(_render(x, names) for x in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, list):
        return "[" + ", ".join(_render(x, names) for x in v) + "]"
    return _lit(v)


@dataclasses.dataclass
class OpEntry:
    name: str  # OpInfo full name
    call: str  # dotted path of its callable
    family: str  # unary | binary | reduction | generic
    info: Any
    domain: Tuple[Optional[float], Optional[float]] = (None, None)
    exclude_zero: bool = False  # its second operand must not be zero


def _resolve(info) -> Optional[str]:
    """The dotted path under torch of an OpInfo's callable, if it has one."""
    import torch
    obj = torch
    try:
        for part in info.name.split("."):
            obj = getattr(obj, part)
    except AttributeError:
        return None
    return ("torch." + info.name).replace("torch.nn.functional.", "F.") if obj is info.op else None


_catalogue: Optional[Dict[str, OpEntry]] = None


def catalogue() -> Dict[str, OpEntry]:
    """The usable OpInfos, by full name (op_db's order)."""
    global _catalogue
    if _catalogue is not None:
        return _catalogue
    import torch
    from torch.testing._internal.opinfo.core import BinaryUfuncInfo, ReductionOpInfo, UnaryUfuncInfo

    from .bench.inductor_ops import full_name, op_infos
    entries = {}
    for info in op_infos(torch.float32) + [i for i in op_infos(torch.int64)]:
        name = full_name(info)
        if name in entries or name in EXCLUDED:
            continue
        if isinstance(info, UnaryUfuncInfo):
            family = "unary"
        elif isinstance(info, BinaryUfuncInfo):
            family = "binary"
        elif isinstance(info, ReductionOpInfo) or name in REDUCTIONS:
            family = "reduction"
        elif name in GENERIC:
            family = "generic"
        else:
            family = "other"  # used by name by the generator's own builders
        call = _resolve(info)
        if call is None and family != "other":
            continue
        domain = tuple(getattr(info, "domain", (None, None)) or (None, None))
        rhs = getattr(info, "rhs_make_tensor_kwargs", {}) or {}
        entries[name] = OpEntry(name, call or "", family, info, domain, bool(rhs.get("exclude_zero")))
    _catalogue = entries
    return entries


_samples: Dict[Tuple[str, str], list] = {}


def samples(entry: OpEntry, dtype: str) -> list:
    """Templates (input, args, kwargs) of the op's first OpInfo samples at
    `dtype`, made under a fixed seed (the same in every process)."""
    key = (entry.name, dtype)
    if key not in _samples:
        import torch
        out = []
        if _torch_dtype(dtype) in entry.info.supported_dtypes("cpu"):
            import numpy as np
            saved = random.getstate(), np.random.get_state()
            random.seed(0)  # some sample functions draw from these too
            np.random.seed(0)
            with torch.random.fork_rng():
                torch.manual_seed(0)
                try:
                    for s in entry.info.sample_inputs("cpu", _torch_dtype(dtype)):
                        try:
                            out.append((_template(s.input), _template(tuple(s.args)), _template(dict(s.kwargs))))
                        except _Reject:
                            pass
                        if len(out) >= 24:
                            break
                except Exception:
                    pass
            random.setstate(saved[0])
            np.random.set_state(saved[1])
        _samples[key] = out
    return _samples[key]


# ---------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------


def _in_domain(ref: str, domain) -> str:
    """An expression that maps any float value `ref` into the open domain."""
    lo, hi = domain
    if lo is not None and hi is not None:
        w = hi - lo
        return f"(torch.sigmoid({ref}) * {w * 0.98!r} + {lo + 0.01 * w!r})"
    if lo is not None:
        return f"({ref}.abs() + {lo + 0.25!r})"
    if hi is not None:
        return f"({hi - 0.25!r} - {ref}.abs())"
    return ref


class Generator:
    """Program `seed`: a function of the seed alone."""

    #: Builder -> weight.
    KINDS = {"unary": 18, "binary": 18, "generic": 6, "reduce": 9, "softmax": 5, "view": 12, "matmul": 6,
             "layer_norm": 3, "where": 4, "clamp": 2, "scan": 3, "masked_fill": 3, "tril": 2, "cat": 2,
             "cast": 2, "gather": 2, "dropout": 4, "rand": 1}

    def __init__(self, seed: int):
        self.seed = seed
        self.r = random.Random(seed)

    # -- bookkeeping --------------------------------------------------------

    def _reset(self, dtype: str, backward: bool):
        self.dtype = dtype
        self.p = Program(self.seed, [], [], [], backward)
        self.values: Dict[str, Any] = {}  # name -> eager CPU value (a view for inputs)
        self.counter = 0

    def _shape_of(self, name: str) -> List[int]:
        return list(self.values[name].shape)

    def _dtype_of(self, name: str) -> str:
        return str(self.values[name].dtype).replace("torch.", "")

    def new_input(self, shape, dtype: Optional[str] = None, values: str = "normal", layout: Optional[str] = None,
                  data: Optional[list] = None) -> str:
        r = self.r
        dtype = dtype or self.dtype
        shape = list(shape)
        if layout is None:
            layout = "contiguous"
            u = r.random()
            if u < 0.12 and len(shape) >= 2:
                layout = "transposed"
            elif u < 0.2 and shape:
                layout = f"strided:{r.randrange(len(shape))}"
            elif u < 0.26 and any(s > 1 for s in shape):
                layout = f"expanded:{r.choice([i for i, s in enumerate(shape) if s > 1])}"
            elif u < 0.3:
                layout = f"offset:{r.choice([1, 3, 17])}"
        if data is not None:
            layout = "contiguous"
        name = f"x{len(self.p.inputs) and int(self.p.inputs[-1].name[1:]) + 1}"
        x = Input(name, shape, dtype, values, layout, grad=dtype in FLOATS and r.random() < 0.85, data=data)
        self.p.inputs.append(x)
        self.values[name] = _view(x, input_values(self.seed, x))
        return name

    def add(self, op: str, expr: str, args: List[str], replay: str = "") -> str:
        """Runs the node eagerly on the CPU; keeps it if PyTorch accepts it
        and its result is a tensor the generator can go on with."""
        import torch
        import torch.nn.functional as F
        import warnings
        env = {"torch": torch, "F": F, **{a: self.values[a] for a in args}}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = eval(expr.format(*args), env)  # noqa: S307 - our own generated source
        except Exception as exc:
            raise _Reject(f"eager: {exc}") from None
        if isinstance(out, (tuple, list)) and out and all(isinstance(o, torch.Tensor) for o in out):
            k = self.r.randrange(len(out))  # one result of a tuple (var_mean, aminmax, ...)
            expr, out = f"{expr}[{k}]", out[k]
        if not isinstance(out, torch.Tensor) or out.is_complex() or out.dtype == torch.float64:
            raise _Reject("result kind")
        if out.numel() == 0 or out.numel() > MAX_NUMEL * 4 or out.dim() > 5:
            raise _Reject("result size")
        name = f"v{self.counter}"
        self.counter += 1
        self.p.nodes.append(Node(name, op, expr, list(args), list(out.shape), str(out.dtype).replace("torch.", ""),
                                 replay))
        self.values[name] = out
        return name

    def pick(self, pred: Callable[[str], bool] = lambda n: True, optional: bool = False) -> Optional[str]:
        """A value of the program: most often the newest one (None, or a
        rejection, when none fits)."""
        names = [n.name for n in self.p.nodes] or [x.name for x in self.p.inputs]
        names = [n for n in names if pred(n)]
        if not names:
            if optional:
                return None
            raise _Reject("no value fits")
        return names[-1] if self.r.random() < 0.65 else self.r.choice(names)

    def is_float(self, name: str) -> bool:
        return self._dtype_of(name) in FLOATS

    def random_shape(self, rank: Optional[int] = None) -> List[int]:
        r = self.r
        rank = rank or r.choice([1, 2, 2, 3, 3, 4])
        while True:
            shape = [r.choice(SIZES) for _ in range(rank)]
            if math.prod(shape) <= MAX_NUMEL:
                return shape

    def entries(self, family: str, dtype: str) -> List[OpEntry]:
        ok = []
        for e in catalogue().values():
            if e.family != family or _torch_dtype(dtype) not in e.info.supported_dtypes("cpu"):
                continue
            if self.p.backward and not e.info.supports_autograd:
                continue
            ok.append(e)
        return ok

    # -- the program ----------------------------------------------------------

    def program(self) -> Program:
        r = self.r
        for attempt in range(20):
            u = r.random()
            dtype = "float32" if u < 0.72 else "float16" if u < 0.82 else "bfloat16" if u < 0.9 else r.choice(INTS)
            backward = dtype in FLOATS and r.random() < 0.3
            self._reset(dtype, backward)
            try:
                p = self._build()
            except _Reject:
                continue
            if p is not None:
                return p
        raise RuntimeError(f"seed {self.seed}: no program")

    def _build(self) -> Optional[Program]:
        r = self.r
        target = r.randint(2, 8)
        if self.dtype in FLOATS and r.random() < 0.08:
            self.attention()
        elif r.random() < 0.35:
            self.from_sample()
        else:
            self.new_input(self.random_shape())
        tries = 0
        float_only = ("softmax", "layer_norm", "dropout", "rand")
        kinds = [k for k in self.KINDS if not (self.dtype in INTS and k in float_only)]
        weights = [self.KINDS[k] for k in kinds]
        while len(self.p.nodes) < target and tries < 60:
            tries += 1
            kind = r.choices(kinds, weights)[0]
            saved = (len(self.p.inputs), len(self.p.nodes), self.counter)
            try:
                getattr(self, "k_" + kind)()
            except (_Reject, IndexError, ValueError) if not STRICT else _Reject:
                del self.p.inputs[saved[0]:]
                del self.p.nodes[saved[1]:]
                self.counter = saved[2]
        if not self.p.nodes:
            return None
        used = {a for n in self.p.nodes for a in n.args}
        sinks = [n.name for n in self.p.nodes if n.name not in used and not n.random]
        last = self.p.nodes[-1].name
        outputs = [s for s in sinks if s != last][-3:] + ([last] if not self.p.nodes[-1].random else [])
        if not outputs:  # the program ends in a random node: it is its own output
            outputs = [last]
        self.p.outputs = outputs
        p = _dead_code(self.p)
        if p.backward:
            p = self._check_backward(p)
        return p

    def _check_backward(self, p: Program) -> Program:
        """Keeps the backward pass if eager PyTorch can run it."""
        grads = [x for x in p.inputs if x.grad and x.dtype in FLOATS]
        if not grads:
            return dataclasses.replace(p, backward=False)
        try:
            run_program(load_program(p), p, "cpu", replay=Replay({}, eager=True))
        except Exception:
            return dataclasses.replace(p, backward=False)
        return p

    # -- starting points ------------------------------------------------------

    def from_sample(self):
        """An OpInfo sample as it is: its tensors become the inputs."""
        r = self.r
        family = r.choice(["unary", "binary", "binary", "generic", "reduction"])
        entries = self.entries(family, self.dtype)
        r.shuffle(entries)
        for e in entries[:6]:
            templates = samples(e, self.dtype)
            if not templates:
                continue
            inp, args, kwargs = r.choice(templates)
            names = {}
            operands = []
            for i, s in enumerate(_slots((inp, args, kwargs))):
                names[id(s)] = len(operands)
                dtype = str(s.dtype).replace("torch.", "")
                values = "normal"
                if i == 0 and e.domain != (None, None) and dtype in FLOATS:
                    lo, hi = e.domain
                    values = f"range:{(lo if lo is not None else -3) + 0.05}:{(hi if hi is not None else 3) - 0.05}"
                elif i == 1 and e.exclude_zero:
                    values = "nonzero"
                data = s.data if (s.data is not None and dtype not in FLOATS) else None
                operands.append(self.new_input(s.shape, dtype, "data" if data is not None else values, data=data))
            expr = self._call(e, inp, args, kwargs, names)
            try:
                return self.add(e.name, expr, operands)
            except _Reject:
                del self.p.inputs[len(self.p.inputs) - len(operands):]
        raise _Reject("no sample")

    def _call(self, e: OpEntry, inp, args, kwargs, names) -> str:
        parts = [_render(inp, names)] + [_render(a, names) for a in args]
        if e.name in SHIFTS and len(parts) > 1 and isinstance(inp, Slot):
            # A shift count within [0, bits): eager PyTorch defines the
            # others (it saturates them), but Inductor's Triton kernels
            # shift unguarded, and in Triton, as in LLVM, such a shift is
            # undefined (upstream Triton's frontend folds `x >> x` to 0).
            bits = torch_bits(inp.dtype)
            parts[1] = f"({parts[1]} & {bits - 1})"
        parts += [f"{k}={_render(v, names)}" for k, v in kwargs.items()]
        return f"{e.call}({', '.join(parts)})"

    def attention(self):
        """q @ k^T * scale, a causal mask by masked_fill, softmax, dropout, @ v."""
        r = self.r
        b, h = r.choice([1, 2]), r.choice([1, 2, 4])
        t, d = r.choice([3, 8, 16, 17, 33]), r.choice([4, 8, 16])
        q, k, v = (self.new_input([b, h, t, d], layout="contiguous" if r.random() < 0.7 else None) for _ in range(3))
        if r.random() < 0.5:
            self.p.backward = True
        s = self.add("matmul", f"torch.matmul({{0}}, {{1}}.transpose(-2, -1)) * {d ** -0.5!r}", [q, k])
        mask = f"~torch.ones({t}, {t}, dtype=torch.bool, device={{0}}.device).tril()"
        s = self.add("masked_fill", f"{{0}}.masked_fill({mask}, float(\"-inf\"))", [s])
        s = self.add("softmax", "torch.softmax({0}, dim=-1)", [s])
        if r.random() < 0.8:
            prob = r.choice([0.1, 0.5])
            s = self.add("nn.functional.dropout", f"F.dropout({{0}}, p={prob}, training=True)", [s],
                         replay=f'rand.dropout("{{name}}", {{0}}, {prob})')
        self.add("matmul", "torch.matmul({0}, {1})", [s, v])

    # -- builders -----------------------------------------------------------

    def _operand_like(self, shape: List[int], dtype: str, values: str = "normal") -> str:
        """A second operand that broadcasts against `shape`: another value
        of the program, or a new input with some dims 1 or dropped."""
        r = self.r
        if values == "normal" and r.random() < 0.35:
            newest = self.p.nodes[-1].name if self.p.nodes else None
            other = self.pick(lambda n: self._broadcasts(self._shape_of(n), shape) and self._dtype_of(n) == dtype
                              and n != newest, optional=True)
            if other is not None:
                return other
        s = list(shape)
        if r.random() < 0.5:
            s = [1 if r.random() < 0.3 else d for d in s]
        if s and r.random() < 0.3:
            s = s[r.randint(1, len(s)):] if len(s) > 1 else s
        return self.new_input(s, dtype, values)

    @staticmethod
    def _broadcasts(a: List[int], b: List[int]) -> bool:
        if len(a) > len(b):
            return False
        return all(x == y or x == 1 for x, y in zip(reversed(a), reversed(b)))

    def _sample_call(self, kind: str):
        """A value of the program, an OpInfo entry of `kind` for its dtype
        and one of the entry's samples: (x, dtype, entry, (input, args,
        kwargs), the sample's tensor slots, slot -> operand index)."""
        r = self.r
        x = self.pick()
        dtype = self._dtype_of(x)
        entries = self.entries(kind, dtype)
        if not entries:
            raise _Reject(f"no {kind} op")
        e = r.choice(entries)
        templates = samples(e, dtype)
        if not templates:
            raise _Reject("no sample")
        call = r.choice(templates)
        slots = _slots(call)
        return x, dtype, e, call, slots, {id(slots[0]): 0}

    def k_unary(self):
        x, dtype, e, (inp, args, kwargs), slots, names = self._sample_call("unary")
        operands = [x]
        for s in slots[1:]:  # prelu's weight, ...
            names[id(s)] = len(operands)
            operands.append(self.new_input(s.shape, str(s.dtype).replace("torch.", "")))
        expr = self._call(e, inp, args, kwargs, names)
        if e.domain != (None, None) and dtype in FLOATS:
            expr = expr.replace("{0}", _in_domain("{0}", e.domain), 1)
        self.add(e.name, expr, operands)

    def k_binary(self):
        r = self.r
        x, dtype, e, (inp, args, kwargs), slots, names = self._sample_call("binary")
        operands = [x]
        for s in slots[1:]:
            names[id(s)] = len(operands)
            sd = str(s.dtype).replace("torch.", "")
            values = "nonzero" if e.exclude_zero or (sd in INTS and e.name in ("pow", "__rpow__")) else "normal"
            if tuple(s.shape) == tuple(slots[0].shape) or not s.shape:
                operands.append(self._operand_like(self._shape_of(x), dtype if sd == str(slots[0].dtype).replace(
                    "torch.", "") else sd, values))
            else:
                operands.append(self.new_input(s.shape, sd, values))
        if r.random() < 0.5 and len(operands) == 2:  # sometimes the other way round
            operands[0], operands[1] = operands[1], operands[0]
        self.add(e.name, self._call(e, inp, args, kwargs, names), operands)

    def k_generic(self):
        """An OpInfo called with one of its samples, its input replaced."""
        r = self.r
        x = self.pick()
        dtype = self._dtype_of(x)
        entries = self.entries("generic", dtype)
        if not entries:
            raise _Reject("no op")
        e = r.choice(entries)
        templates = list(samples(e, dtype))
        r.shuffle(templates)
        for inp, args, kwargs in templates[:4]:
            slots = _slots((inp, args, kwargs))
            if not slots:
                continue
            names = {id(slots[0]): 0}
            operands = [x]
            start = len(self.p.inputs)
            for s in slots[1:]:
                names[id(s)] = len(operands)
                sd = str(s.dtype).replace("torch.", "")
                if tuple(s.shape) == tuple(slots[0].shape):
                    operands.append(self._operand_like(self._shape_of(x), dtype))
                elif s.data is not None and sd not in FLOATS:
                    operands.append(self.new_input(s.shape, sd, "data", data=s.data))
                else:
                    operands.append(self.new_input(s.shape, sd))
            try:
                return self.add(e.name, self._call(e, inp, args, kwargs, names), operands)
            except _Reject:
                del self.p.inputs[start:]
        raise _Reject("no sample fits")

    def k_reduce(self):
        r = self.r
        x = self.pick()
        dtype = self._dtype_of(x)
        shape = self._shape_of(x)
        names = [n for n in REDUCTIONS if n in catalogue()
                 and _torch_dtype(dtype) in catalogue()[n].info.supported_dtypes("cpu")]
        if not names or not shape:
            raise _Reject("no reduction")
        name = r.choice(names)
        e = catalogue()[name]
        call = e.call or f"torch.{name}"
        d = r.randrange(-len(shape), len(shape))
        keep = r.random() < 0.5
        if r.random() < 0.15 and name not in ("argmax", "argmin", "logsumexp", "all", "any"):
            expr = f"{call}({{0}})"
        elif name in ("amax", "amin", "sum", "mean") and len(shape) >= 3 and r.random() < 0.3:
            expr = f"{call}({{0}}, dim=({d % len(shape)}, {(d + 1) % len(shape)}), keepdim={keep})"
        elif name in ("std", "var"):
            expr = f"{call}({{0}}, dim={d}, keepdim={keep}, correction={r.choice([0, 1])})"
        else:
            expr = f"{call}({{0}}, dim={d}, keepdim={keep})"
        self.add(name, expr, [x])

    def k_softmax(self):
        r = self.r
        x = self.pick(self.is_float)
        if x is None or not self._shape_of(x):
            raise _Reject("no float value")
        d = r.randrange(-len(self._shape_of(x)), len(self._shape_of(x)))
        op = r.choice(["softmax", "log_softmax"])
        extra = ", dtype=torch.float32" if self._dtype_of(x) != "float32" and r.random() < 0.3 else ""
        self.add(op, f"torch.{op}({{0}}, dim={d}{extra})", [x])

    def k_layer_norm(self):
        r = self.r
        x = self.pick(self.is_float)
        if x is None or not self._shape_of(x):
            raise _Reject("no float value")
        shape = self._shape_of(x)
        k = 2 if len(shape) >= 2 and r.random() < 0.25 else 1
        norm = shape[-k:]
        args = [x]
        expr = f"F.layer_norm({{0}}, {_lit(tuple(norm))}"
        if r.random() < 0.7:
            args += [self.new_input(norm, layout="contiguous"), self.new_input(norm, layout="contiguous")]
            expr += ", {1}, {2}"
        self.add("nn.functional.layer_norm", expr + f", eps={r.choice([1e-5, 1e-6])})", args)

    def k_matmul(self):
        r = self.r
        x = self.pick(lambda n: self.is_float(n) and len(self._shape_of(n)) >= 1)
        if x is None:
            raise _Reject("no float value")
        shape = self._shape_of(x)
        m = r.choice([1, 3, 8, 16, 17, 33])
        u = r.random()
        if len(shape) >= 2 and u < 0.25:  # scores of a value with another of its shape
            other = self._operand_like(shape, self._dtype_of(x)) if r.random() < 0.5 else x
            if self._shape_of(other) != shape:
                raise _Reject("shape")
            self.add("matmul", "torch.matmul({0}, {1}.transpose(-2, -1))", [x, other])
        elif u < 0.5:
            w = self.new_input([m, shape[-1]])
            args = [x, w]
            expr = "F.linear({0}, {1}"
            if r.random() < 0.5:
                args.append(self.new_input([m]))
                expr += ", {2}"
            self.add("nn.functional.linear", expr + ")", args)
        elif len(shape) == 3 and u < 0.65:
            self.add("bmm", "torch.bmm({0}, {1})", [x, self.new_input([shape[0], shape[2], m])])
        else:
            self.add("matmul", "torch.matmul({0}, {1})", [x, self.new_input([shape[-1], m])])

    def k_view(self):
        r = self.r
        x = self.pick()
        shape = self._shape_of(x)
        n = len(shape)
        options = ["unsqueeze", "flatten", "reshape"]
        if n >= 2:
            options += ["transpose", "permute", "movedim", "t" if n == 2 else "transpose"]
        if n >= 1:
            options += ["__getitem__", "__getitem__", "narrow", "expand"]
        if 1 in shape:
            options.append("squeeze")
        op = r.choice(options)
        if op == "transpose":
            a, b = r.sample(range(n), 2)
            return self.add(op, f"{{0}}.transpose({a}, {b})", [x])
        if op == "t":
            return self.add(op, "{0}.t()", [x])
        if op == "permute":
            perm = list(range(n))
            r.shuffle(perm)
            return self.add(op, f"{{0}}.permute({', '.join(map(str, perm))})", [x])
        if op == "movedim":
            return self.add(op, f"torch.movedim({{0}}, {r.randrange(n)}, {r.randrange(n)})", [x])
        if op == "unsqueeze":
            return self.add(op, f"{{0}}.unsqueeze({r.randint(-n - 1, n)})", [x])
        if op == "squeeze":
            return self.add(op, f"{{0}}.squeeze({shape.index(1)})", [x])
        if op == "flatten":
            return self.add(op, f"{{0}}.flatten({0 if n < 2 else r.randrange(n - 1)})", [x])
        if op == "reshape":
            numel = math.prod(shape)
            divs = [d for d in range(1, numel + 1) if numel % d == 0]
            a = r.choice(divs)
            new = [a, numel // a] if r.random() < 0.6 else [numel]
            return self.add(op, f"{{0}}.reshape({', '.join(map(str, new))})", [x])
        if op == "narrow":
            d = r.randrange(n)
            if shape[d] < 2:
                raise _Reject("size 1")
            start = r.randrange(shape[d] - 1)
            return self.add(op, f"{{0}}.narrow({d}, {start}, {r.randint(1, shape[d] - start)})", [x])
        if op == "expand":
            if 1 not in shape and n >= 4:
                raise _Reject("nothing to expand")
            if 1 in shape:
                new = [r.choice([3, 5, 17]) if s == 1 else -1 for s in shape]
            else:
                new = [r.choice([2, 3])] + [-1] * n
            return self.add(op, f"{{0}}.expand({', '.join(map(str, new))})", [x])
        # __getitem__: a slice with a step, an offset, or an index
        d = r.randrange(n)
        u = r.random()
        if u < 0.45:
            last = f"{r.choice(['', '1'])}::{r.choice([2, 3])}"
        elif u < 0.8:
            last = f"{r.randint(0, max(0, shape[d] - 2))}:"
        else:
            last = str(r.randrange(shape[d]))
        self.add(op, f"{{0}}[{', '.join([':'] * d + [last])}]", [x])

    def k_where(self):
        r = self.r
        x = self.pick()
        shape, dtype = self._shape_of(x), self._dtype_of(x)
        c = self.pick(lambda n: self._broadcasts(self._shape_of(n), shape) and self._dtype_of(n) != "bool",
                      optional=True)
        cond = f"({{1}} > {r.choice([0, 0.5, -1])})" if c is not None else None
        other = self._operand_like(shape, dtype) if r.random() < 0.7 else None
        args = [x] + ([c] if c else [])
        if cond is None:
            cond = "({0} > 0)"
        other_text = r.choice(["0.0", "-1.5", "float(\"-inf\")"]) if dtype in FLOATS else "0"
        if other is not None:
            args.append(other)
            other_text = "{%d}" % (len(args) - 1)
        self.add("where", f"torch.where({cond}, {{0}}, {other_text})", args)

    def k_clamp(self):
        r = self.r
        x = self.pick(lambda n: self._dtype_of(n) != "bool")
        lo, hi = sorted([r.choice([-2, -1, -0.5, 0, 0.25]), r.choice([0.5, 1, 2, 3])])
        if self._dtype_of(x) in INTS:
            lo, hi = int(lo), int(hi) + 1
        form = r.random()
        expr = (f"torch.clamp({{0}}, min={lo!r}, max={hi!r})" if form < 0.6 else
                f"torch.clamp({{0}}, min={lo!r})" if form < 0.8 else f"torch.clamp({{0}}, max={hi!r})")
        self.add("clamp", expr, [x])

    def k_scan(self):
        r = self.r
        x = self.pick(lambda n: self._dtype_of(n) != "bool" and self._shape_of(n))
        if x is None:
            raise _Reject("no value")
        shape = self._shape_of(x)
        d = r.randrange(-len(shape), len(shape))
        ops = ["cumsum", "cumsum", "cummax", "cummin"] + (["cumprod", "logcumsumexp"] if self.is_float(x) else [])
        op = r.choice(ops)
        if op == "cumprod":
            return self.add(op, f"torch.cumprod(torch.tanh({{0}}), dim={d})", [x])
        if op in ("cummax", "cummin"):
            return self.add(op, f"torch.{op}({{0}}, dim={d}).{r.choice(['values', 'indices'])}", [x])
        self.add(op, f"torch.{op}({{0}}, dim={d})", [x])

    def k_masked_fill(self):
        r = self.r
        x = self.pick(lambda n: self._dtype_of(n) != "bool")
        shape, dtype = self._shape_of(x), self._dtype_of(x)
        value = r.choice([0.0, -1e4, 2.5] + (["float(\"-inf\")"] if dtype in FLOATS else [])) \
            if dtype in FLOATS else r.choice([0, -3, 7])
        if len(shape) >= 2 and r.random() < 0.5:  # a causal mask
            a, b = shape[-2:]
            fn = r.choice(["tril", "triu"])
            mask = f"~torch.ones({a}, {b}, dtype=torch.bool, device={{0}}.device).{fn}({r.choice([0, 0, 1, -1])})"
            return self.add("masked_fill", f"{{0}}.masked_fill({mask}, {value})", [x])
        m = self.pick(lambda n: self._broadcasts(self._shape_of(n), shape) and self._dtype_of(n) != "bool" and n != x,
                      optional=True)
        if m is not None:
            return self.add("masked_fill", f"{{0}}.masked_fill({{1}} > 0, {value})", [x, m])
        mask = self.new_input([s if r.random() < 0.7 else 1 for s in shape], "bool", "bool")
        self.add("masked_fill", f"{{0}}.masked_fill({{1}}, {value})", [x, mask])

    def k_tril(self):
        r = self.r
        x = self.pick(lambda n: len(self._shape_of(n)) >= 2)
        if x is None:
            raise _Reject("no matrix")
        op = r.choice(["tril", "triu"])
        self.add(op, f"torch.{op}({{0}}, diagonal={r.choice([0, 0, 1, -1, 2])})", [x])

    def k_cat(self):
        r = self.r
        x = self.pick(lambda n: self._shape_of(n))
        shape, dtype = self._shape_of(x), self._dtype_of(x)
        d = r.randrange(len(shape))
        if r.random() < 0.3:
            other = self._operand_like(shape, dtype)
            if self._shape_of(other) != shape:
                raise _Reject("shape")
            return self.add("stack", f"torch.stack([{{0}}, {{1}}], dim={d})", [x, other])
        s = list(shape)
        s[d] = r.choice([1, 3, shape[d]])
        other = self.new_input(s, dtype)
        self.add("cat", f"torch.cat([{{0}}, {{1}}], dim={d})" if r.random() < 0.5
                 else f"torch.cat([{{1}}, {{0}}], dim={d})", [x, other])

    def k_cast(self):
        r = self.r
        x = self.pick()
        dtype = self._dtype_of(x)
        to = r.choice([t for t in FLOATS + INTS if t != dtype])
        if to in INTS and dtype in FLOATS:
            # defined only in range; rounded, not truncated, so that a value
            # an ulp off an integer (i0(0) is 0.99999994 in eager PyTorch,
            # 1.0 compiled) does not change the integer
            # (NaN and infinities first made numbers: their casts are undefined)
            return self.add("to", f"torch.round(torch.clamp(torch.nan_to_num({{0}} * 4), -100, 100)).to(torch.{to})",
                            [x])
        self.add("to", f"{{0}}.to(torch.{to})", [x])

    def k_gather(self):
        r = self.r
        x = self.pick(lambda n: self._shape_of(n))
        shape = self._shape_of(x)
        d = r.randrange(len(shape))
        if r.random() < 0.5:
            idx = self.new_input([r.choice([1, 3, 5, 17])], "int64", f"index:{shape[d]}", layout="contiguous")
            return self.add("index_select", f"torch.index_select({{0}}, {d}, {{1}})", [x, idx])
        ishape = [max(1, s - r.choice([0, 1])) for s in shape]
        ishape[d] = r.choice([1, 3, 5])
        idx = self.new_input(ishape, "int64", f"index:{shape[d]}", layout="contiguous")
        self.add("gather", f"torch.gather({{0}}, {d}, {{1}})", [x, idx])

    def k_dropout(self):
        r = self.r
        x = self.pick(self.is_float)
        if x is None:
            raise _Reject("no float value")
        p = r.choice([0.1, 0.5])
        self.add("nn.functional.dropout", f"F.dropout({{0}}, p={p}, training=True)", [x],
                 replay=f'rand.dropout("{{name}}", {{0}}, {p})')

    def k_rand(self):
        r = self.r
        x = self.pick(self.is_float)
        if x is None:
            raise _Reject("no float value")
        op = r.choice(["rand_like", "randn_like", "bernoulli"])
        if op == "bernoulli":
            p = r.choice([0.2, 0.5])
            v = self.add(op, f"torch.bernoulli(torch.full_like({{0}}, {p}))", [x],
                         replay=f'rand.bernoulli("{{name}}", {{0}}, {p})')
        else:
            v = self.add(op, f"torch.{op}({{0}})", [x], replay=f'rand.{op}("{{name}}", {{0}})')
        # used right away, so that the random values meet the program's
        self.add("mul", "{0} * {1}" if r.random() < 0.5 else "{0} + {1}", [x, v])


def _dead_code(p: Program) -> Program:
    """Drops nodes nothing returned depends on, and unused inputs."""
    live = set(p.outputs)
    for n in reversed(p.nodes):
        if n.name in live:
            live.update(n.args)
    nodes = [n for n in p.nodes if n.name in live]
    used = {a for n in nodes for a in n.args} | set(p.outputs)
    inputs = [x for x in p.inputs if x.name in used]
    if not inputs:  # keep a signature
        inputs = p.inputs[:1]
    return dataclasses.replace(p, nodes=nodes, inputs=inputs)


# ---------------------------------------------------------------------------
# Running a program
# ---------------------------------------------------------------------------


class Replay:
    """The random operators in the eager reference: each replays its
    witness, the device run's own result (`eager=True`: the real op)."""

    def __init__(self, witnesses: Dict[str, Any], eager: bool = False):
        self.witnesses = witnesses
        self.eager = eager
        self.seen: Dict[str, Any] = {}  # name -> the eager input of the random op

    def _witness(self, name, x):
        return self.witnesses[name].to(device=x.device)

    def dropout(self, name, x, p):
        import torch.nn.functional as F
        if self.eager:
            return F.dropout(x, p=p, training=True)
        import torch
        self.seen[name] = x.detach()
        witness = self._witness(name, x)
        # kept: a non-zero result; of an infinity, one that is not NaN
        keep = torch.where(torch.isinf(x), ~torch.isnan(witness), witness != 0).to(x.dtype)
        return x * (keep / (1.0 - p))  # as ATen's CPU dropout: x * (mask / (1 - p))

    def rand_like(self, name, x):
        import torch
        return torch.rand_like(x) if self.eager else self._witness(name, x).to(x.dtype)

    def randn_like(self, name, x):
        import torch
        return torch.randn_like(x) if self.eager else self._witness(name, x).to(x.dtype)

    def bernoulli(self, name, x, p):
        import torch
        if self.eager:
            return torch.bernoulli(torch.full_like(x, p))
        self.seen[name] = p
        return self._witness(name, x).to(x.dtype)


_loaded = 0


def load_program(p: Program, workdir: Optional[str] = None):
    """The program's function, from its source in a file (so that
    tracebacks and Dynamo see the source)."""
    global _loaded
    workdir = workdir or _workdir()
    _loaded += 1
    path = os.path.join(workdir, f"program_{p.seed}_{os.getpid()}_{_loaded}.py")
    with open(path, "w") as f:
        f.write(p.source())
    spec = importlib.util.spec_from_file_location(f"fuzz_torch_program_{_loaded}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.program


_tmp: Optional[str] = None


def _workdir() -> str:
    global _tmp
    if _tmp is None:
        import atexit
        import shutil
        _tmp = tempfile.mkdtemp(prefix="mtia-fuzz-torch-")
        atexit.register(shutil.rmtree, _tmp, ignore_errors=True)
    return _tmp


def run_program(fn, p: Program, device: str, replay: Optional[Replay] = None, float64: bool = False,
                bases=None) -> list:
    """Runs `fn` (the program, compiled or not) on the program's inputs on
    `device`: its returned values, then with a backward pass the loss and
    the gradient of each input that requires grad, all on the CPU."""
    import torch
    if bases is None:
        bases, views = make_inputs(p, device, float64)
    else:
        views = [_view(x, b) for x, b in zip(p.inputs, bases)]
    outs = fn(*views, rand=replay) if replay is not None else fn(*views)
    outs = list(outs)
    result = [o.detach().cpu() for o in outs]
    if p.backward:
        loss_outs = [o for o in outs[:len(p.outputs)] if o.requires_grad and o.is_floating_point()]
        if loss_outs:
            weights = loss_weights(p, loss_outs)
            wdtype = torch.float64 if float64 else torch.float32
            loss = sum((o.to(wdtype) * w.to(device=device, dtype=wdtype)).sum() for o, w in zip(loss_outs, weights))
            loss.backward()
            result.append(loss.detach().cpu())
            result += [b.grad.cpu() if b.grad is not None else torch.zeros(b.shape, dtype=b.dtype)
                       for b in bases if b.requires_grad]
    return result


def _close(actual, expected) -> Optional[str]:
    """None when the values agree at their dtype's tolerance, else why not."""
    import torch
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return f"dtype/shape {actual.dtype}{list(actual.shape)} vs {expected.dtype}{list(expected.shape)}"
    name = str(actual.dtype).replace("torch.", "")
    rtol, atol = TOLERANCES.get(name, (0, 0))
    try:
        torch.testing.assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=True, check_device=False)
    except AssertionError as e:
        return " ".join(str(e).split("\n")[:4])
    return None


def compare(actual: list, expected: list, labels: List[str]) -> Optional[str]:
    for a, e, label in zip(actual, expected, labels):
        why = _close(a, e)
        if why:
            return f"{label}: {why}"
    if len(actual) != len(expected):
        return f"{len(actual)} results vs {len(expected)}"
    return None


def check_dropout(x, witness, p: float) -> Optional[str]:
    """The statistics of a dropout's result `witness` (on the device) of
    input `x` (eager): the fraction dropped within a binomial tolerance of
    p, and infinities kept as they are. None when it passes.

    The kept elements' scale, x / (1 - p), is not judged here: the witness
    is one of the program's results, which eager replays as
    x * keep / (1 - p), so it is compared like every other result, by the
    dtype's tolerance and the float64 rule. (Judged here against eager's
    input, a compiled program's input to the dropout, computed in fp32 and
    rounded once, is off by more than the tolerance wherever the
    computation upstream is ill-conditioned, e.g. digamma near a pole.)"""
    import torch
    x, witness = x.float(), witness.float()
    # A dropped finite element is 0, a dropped infinity NaN (inf * 0); a
    # zero or a NaN tells nothing.
    finite = torch.isfinite(x) & (x != 0)
    infinite = torch.isinf(x)
    n = int((finite | infinite).sum())
    dropped_mask = (finite & (witness == 0)) | (infinite & torch.isnan(witness))
    dropped = int(dropped_mask.sum())
    tolerance = SIGMAS * math.sqrt(n * p * (1 - p)) + 1
    if abs(dropped - n * p) > tolerance:
        return f"dropped {dropped} of {n}, expected {n * p:.1f} +- {tolerance:.1f} (p={p})"
    bad_inf = infinite & ~dropped_mask & (witness != x)
    if bad_inf.any():
        i = int(bad_inf.nonzero()[0])
        return f"kept element {witness.flatten()[i].item()!r}, expected {x.flatten()[i].item()!r}"
    return None


def check_random(kind: str, witness, p: Optional[float] = None) -> Optional[str]:
    """The statistics of rand_like / randn_like / bernoulli results."""
    import torch
    v = witness.float().flatten()
    n = v.numel()
    if kind == "rand_like":
        # Inductor draws rand_like in fp32 and rounds to the dtype: a draw
        # within half an ulp of 1 is 1.0 in fp16 / bf16 (upstream Inductor's
        # behaviour on every device, not the chip's).
        out = (v < 0) | ((v > 1) if witness.dtype in (torch.float16, torch.bfloat16) else (v >= 1))
        if out.any():
            return f"rand_like value out of [0, 1): {v[out][0].item()}"
        if n >= 30 and abs(v.mean().item() - 0.5) > SIGMAS * math.sqrt(1 / 12 / n):
            return f"rand_like mean {v.mean().item():.4f} over {n} values"
    elif kind == "randn_like":
        if n >= 30 and abs(v.mean().item()) > SIGMAS / math.sqrt(n):
            return f"randn_like mean {v.mean().item():.4f} over {n} values"
        if n >= 30 and abs(v.var().item() - 1) > SIGMAS * math.sqrt(2 / n) + 0.05:
            return f"randn_like variance {v.var().item():.4f} over {n} values"
    elif kind == "bernoulli":
        if not ((v == 0) | (v == 1)).all():
            return "bernoulli value other than 0 and 1"
        ones = int(v.sum())
        tolerance = SIGMAS * math.sqrt(n * p * (1 - p)) + 1
        if abs(ones - n * p) > tolerance:
            return f"bernoulli: {ones} ones of {n}, expected {n * p:.1f} +- {tolerance:.1f}"
    return None


def _same_values(a, b) -> bool:
    """Equal, NaN equal to NaN (a run repeated under its seed)."""
    import torch
    try:
        torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)
    except AssertionError:
        return False
    return True


def _labels(p: Program, n: int) -> List[str]:
    labels = [f"output {name}" for name in p.returned()]
    if p.backward:
        labels.append("loss")
        labels += [f"grad of {x.name}" for x in p.inputs if x.grad and x.dtype in FLOATS]
    return (labels + [f"result {i}" for i in range(len(labels), n)])[:n]


def _fault(exc: BaseException):
    """The KernelFault in an exception's chain, if any."""
    from .bench.failures import _chain
    from .errors import KernelFault
    for inner in _chain(exc):
        if isinstance(inner, KernelFault):
            return inner
    return None


def _first_line(exc: BaseException, lines: int = 1) -> str:
    from .bench.failures import first_line
    if lines > 1:
        return f"{type(exc).__name__}: " + "\n".join(str(exc).strip().splitlines()[:lines])[:1000]
    return f"{type(exc).__name__}: {first_line(exc)}"[:500]


#: The kernel the simulator launched last (or is running): its name and
#: shared object, beside which Triton's cache keeps its ttir.
_launching: Dict[str, str] = {}


def _record_launches() -> None:
    from . import runtime
    original = runtime.launch
    if getattr(original, "_fuzz_torch", False):
        return

    def launch(so_path, kernel, *args, **kwargs):
        _launching.update(kernel=kernel, so=str(so_path))
        return original(so_path, kernel, *args, **kwargs)

    launch._fuzz_torch = True
    runtime.launch = launch


def _launched() -> Dict[str, str]:
    """{"kernel", "ttir"} of the last launch, where known."""
    out = {}
    if _launching.get("kernel"):
        out["kernel"] = _launching["kernel"]
        ttir = os.path.splitext(_launching.get("so", ""))[0] + ".ttir"
        if os.path.exists(ttir):
            out["ttir"] = ttir
    return out


def _inductor_on_cpu(fn, p: Program, expected: list, device: Optional[list] = None) -> Optional[str]:
    """Why Inductor on the CPU fails or differs from eager too, or None
    when it matches eager (then a difference on the device is ours). Given
    the device's results `device` (of a program without random operators),
    None too when the device does not agree with Inductor on the CPU
    either: only a difference both share is Inductor's."""
    import torch
    import torch._inductor.config as config
    torch._dynamo.reset()
    try:
        with config.patch(fallback_random=True):
            torch.manual_seed(p.seed)
            on_cpu = run_program(torch.compile(fn), p, "cpu")
    except Exception as exc:
        return f"Inductor on the CPU fails too: {_first_line(exc)}"
    finally:
        torch._dynamo.reset()
    if p.witnesses():  # fallback_random: the same draws as eager under the seed
        torch.manual_seed(p.seed)
        expected = run_program(fn, p, "cpu", replay=Replay({}, eager=True))
    why = compare(on_cpu, expected, _labels(p, len(on_cpu)))
    if why and not _within_rounding(fn, p, on_cpu, expected, Replay({}, eager=True) if p.witnesses() else None):
        if device is not None and compare(device, on_cpu, _labels(p, len(on_cpu))) \
                and not _within_rounding(fn, p, device, on_cpu, None):
            return None  # the device differs from both
        return f"Inductor differs from eager on the CPU too: {why}"
    return None


def _inductor_on_cpu_replayed(fn, p: Program, witnesses: Dict[str, Any], expected: list,
                              device: list) -> Optional[str]:
    """For a program with random operators: Inductor on the CPU given the
    device's draws, as the eager reference is. Why Inductor differs from
    eager there too while the device agrees with it (Inductor computes a
    fused low-precision chain in fp32 and rounds once, eager rounds every
    op: an integer cast of the result can differ by one), else None."""
    import torch
    torch._dynamo.reset()
    try:
        on_cpu = run_program(torch.compile(fn), p, "cpu", replay=Replay(witnesses))
    except Exception:
        return None
    finally:
        torch._dynamo.reset()
    labels = _labels(p, len(on_cpu))
    why = compare(on_cpu, expected, labels)
    if why and compare(device, on_cpu, labels) is None:
        return f"Inductor differs from eager on the CPU too (the device's draws replayed): {why}"
    return None


def _within_rounding(fn, p: Program, actual: list, expected: list, replay: Optional[Replay]) -> bool:
    """bench.inductor_ops's rule: as close to a float64 reference as
    rounding explains (PyTorch's own accuracy check for compiled models)."""
    from .bench.inductor_ops import _within_rounding as within

    bases = [input_values(p.seed, x) for x in p.inputs]
    # The reference in float64 throughout: the program's casts to a float
    # dtype too (PyTorch's rule needs a float64 reference to apply).
    wide = dataclasses.replace(p, nodes=[dataclasses.replace(n, expr=re.sub(
        r"torch\.(float16|bfloat16|float32)\b", "torch.float64", n.expr)) for n in p.nodes])
    fn = load_program(wide) if wide != p else fn

    def exact(*bases64):
        bases64 = list(bases64)
        for x, b in zip(p.inputs, bases64):
            if p.backward and x.grad and b.is_floating_point():
                b.requires_grad_()
        import torch
        if replay is not None and replay.eager:
            torch.manual_seed(p.seed)
        default = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64)  # cosh(bool), torch.ones(...): in float64 too
        try:
            return run_program(fn, p, "cpu", replay=replay, float64=True, bases=bases64)
        finally:
            torch.set_default_dtype(default)

    # Small tensors get PyTorch's larger multiplier: a fuzzed program's
    # values are often a few elements, where one element rounded the other
    # way upstream (eager rounds every op, a compiled kernel once) is all
    # the error there is.
    return within(exact, tuple(bases), {}, actual, expected, small_tensors=True)


def evaluate(p: Program, cpu_check: bool = True) -> Dict:
    """Runs program `p` compiled on the device and eagerly on the CPU;
    returns {"outcome", "detail", "host_ops", "launches"}."""
    import torch

    import triton_mtia
    from . import runtime

    _record_launches()
    _launching.clear()
    fn = load_program(p)
    random_nodes = {n.name: n for n in p.nodes if n.random}
    # Eager on the CPU first: a program PyTorch refuses is not a finding.
    try:
        torch.manual_seed(p.seed)
        eager = run_program(fn, p, "cpu", replay=Replay({}, eager=True))
    except Exception as exc:
        return {"outcome": "unsupported", "detail": f"eager: {_first_line(exc)}"}
    torch._dynamo.reset()
    triton_mtia.device.reset_host_fallbacks()
    launches = runtime.launch_count
    compiled = torch.compile(fn)
    try:
        torch.manual_seed(p.seed)
        got = run_program(compiled, p, DEVICE)
        if random_nodes:  # by seed: the same draws again
            torch.manual_seed(p.seed)
            again = run_program(compiled, p, DEVICE)
    except Exception as exc:
        fault = _fault(exc)
        result = {"host_ops": triton_mtia.device.host_fallbacks(), "launches": runtime.launch_count - launches}
        if fault is not None:
            result.update(_launched())
            if fault.kind in ("deadlock", "hang"):
                return {"outcome": fault.kind, "detail": _first_line(fault, 4), **result}
        from .bench.failures import _chain, _innermost_frame, explain
        explained = explain(exc, "torch/_inductor")
        if fault is not None:
            detail = _first_line(fault, 4)
        elif explained["reason"].startswith(("compiler", "frontend")):
            detail = explained["reason"]
        else:
            detail = _first_line(exc)
        # where it was raised: the compiler's source line, or the innermost
        # frame of PyTorch or of this package
        where = explained.get("source") or next(
            (f for inner in reversed(list(_chain(exc))) for f in
             (_innermost_frame(inner, "torch/"), _innermost_frame(inner, "triton_mtia/")) if f), "")
        if where:
            result["where"] = where
        if cpu_check and fault is None:
            why = _inductor_on_cpu(fn, p, eager)
            if why and "fails too" in why:
                return {"outcome": "unsupported", "detail": why, **result}
        return {"outcome": "error", "detail": detail, **result}
    finally:
        torch._dynamo.reset()
    result = {"host_ops": triton_mtia.device.host_fallbacks(), "launches": runtime.launch_count - launches}
    labels = _labels(p, len(got))
    if random_nodes:
        for a, b, label in zip(got, again, labels):
            if not _same_values(a, b):
                return {"outcome": "wrong", "detail": f"not repeatable under the same seed: {label}", **result}
    returned = p.returned()
    witnesses = {name: got[returned.index(name)] for name in random_nodes}
    replay = Replay(witnesses)
    try:
        expected = run_program(fn, p, "cpu", replay=replay)
    except Exception as exc:
        return {"outcome": "unsupported", "detail": f"eager replay: {_first_line(exc)}", **result}
    for name, node in random_nodes.items():
        if node.op == "nn.functional.dropout":
            prob = float(node.expr.split("p=")[1].split(",")[0])
            why = check_dropout(replay.seen[name], witnesses[name], prob)
        else:
            why = check_random(node.op, witnesses[name], replay.seen.get(name))
        if why:
            return {"outcome": "wrong", "detail": f"{name} ({node.op}): {why}", **result}
    why = compare(got, expected, labels)
    if why is None:
        return {"outcome": "ok", "detail": "", **result}
    if _within_rounding(fn, p, got, expected, replay):
        return {"outcome": "ok", "detail": "within rounding", **result}
    if cpu_check:
        inductor = _inductor_on_cpu(fn, p, expected if not random_nodes else eager,
                                    None if random_nodes else got)
        if not inductor and random_nodes:
            inductor = _inductor_on_cpu_replayed(fn, p, witnesses, expected, got)
        if inductor:
            return {"outcome": "unsupported", "detail": inductor, **result}
    return {"outcome": "wrong", "detail": why[:600], **result}


# ---------------------------------------------------------------------------
# Worker processes
# ---------------------------------------------------------------------------


def _worker_init(watchdog: int):
    import logging
    import warnings
    warnings.simplefilter("ignore")
    for name in ("torch._inductor", "torch._dynamo"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    import torch._inductor.config as config

    import triton_mtia
    config.compile_threads = 1  # no compile workers: the fuzzer's workers are the parallelism
    triton_mtia.activate()
    triton_mtia.configure(watchdog_cycles=watchdog)
    triton_mtia.settings.keep_failed_temps = False


def _worker_main(conn, watchdog: int):
    _worker_init(watchdog)
    conn.send("ready")
    while True:
        msg = conn.recv()
        if msg is None:
            return
        try:
            result = evaluate(program_from_json(msg))
        except Exception:
            result = {"outcome": "error", "detail": "harness: " + traceback.format_exc()[-800:]}
        conn.send(result)


class Worker:
    """A process that evaluates programs, one at a time, each within a
    time limit: past it the process is killed (`hang`); a process that
    dies is a `crash`. Either way a fresh one starts for the next."""

    def __init__(self, watchdog: int = 1 << 26, recycle: int = 100):
        self.watchdog = watchdog
        self.recycle = recycle
        self.process = None
        self.runs = 0

    def _start(self):
        import multiprocessing
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child, self.watchdog))
        self.process.start()
        child.close()
        self.runs = 0
        try:
            if not self.conn.poll(600):
                raise RuntimeError("fuzz_torch: a worker did not start in 600 s")
            self.conn.recv()
        except EOFError:
            self.process.join(5)
            raise RuntimeError(f"fuzz_torch: a worker died while starting (exit code {self.process.exitcode}; "
                               "a spawned process imports the main module: run from a file, under "
                               "`if __name__ == \"__main__\":`)") from None

    def stop(self):
        if self.process is not None:
            if self.process.is_alive():
                try:
                    self.conn.send(None)
                except OSError:
                    pass
                self.process.join(5)
            if self.process.is_alive():
                self.process.kill()
                self.process.join()
            self.process = None

    def run(self, p: Program, timeout: float) -> Dict:
        if self.process is None or not self.process.is_alive() or self.runs >= self.recycle:
            self.stop()
            self._start()
        self.runs += 1
        start = time.monotonic()
        try:
            self.conn.send(program_to_json(p))
            if not self.conn.poll(timeout):
                self.process.kill()
                self.stop()
                return {"outcome": "hang", "detail": f"no result in {timeout:.0f} s",
                        "seconds": round(time.monotonic() - start, 2)}
            result = self.conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            self.process.join(5)
            code = self.process.exitcode
            self.stop()
            return {"outcome": "crash", "detail": f"the worker process died (exit code {code})",
                    "seconds": round(time.monotonic() - start, 2)}
        result["seconds"] = round(time.monotonic() - start, 2)
        return result


def run_isolated(p: Program, timeout: float = 600, watchdog: int = 1 << 26) -> Dict:
    """Evaluates `p` in a worker process of its own (a reproducer's way)."""
    w = Worker(watchdog)
    try:
        return w.run(p, timeout)
    finally:
        w.stop()


# ---------------------------------------------------------------------------
# Shrinking and reproducers
# ---------------------------------------------------------------------------


def _rename(p: Program, old: str, new: str) -> Program:
    nodes = [dataclasses.replace(n, args=[new if a == old else a for a in n.args]) for n in p.nodes if n.name != old]
    outputs = []
    for o in p.outputs:
        o = new if o == old else o
        if o not in outputs:
            outputs.append(o)
    return _dead_code(dataclasses.replace(p, nodes=nodes, outputs=outputs))


def candidates(p: Program):
    """Smaller programs, the largest cuts first."""
    if p.backward:
        yield dataclasses.replace(p, backward=False)
    if len(p.outputs) > 1:
        for o in p.outputs:
            yield _dead_code(dataclasses.replace(p, outputs=[x for x in p.outputs if x != o]))
    # The program cut short: an earlier node is the output.
    for n in p.nodes[:-1]:
        if n.name not in p.outputs:
            yield _dead_code(dataclasses.replace(p, outputs=[n.name]))
    next_input = max(int(x.name[1:]) for x in p.inputs) + 1 if p.inputs else 0
    # A node cut into a fresh input: everything before it goes.
    for n in p.nodes[:-1]:
        new = Input(f"x{next_input}", list(n.shape), n.dtype, "bool" if n.dtype == "bool" else "normal",
                    grad=n.dtype in FLOATS)
        q = dataclasses.replace(p, inputs=p.inputs + [new])
        yield _rename(q, n.name, new.name)
    # A node bypassed: its uses take an operand of its shape and dtype.
    for n in reversed(p.nodes):
        for a in dict.fromkeys(n.args):
            shape, dtype = _value_type(p, a)
            if shape == list(n.shape) and dtype == n.dtype:
                yield _rename(p, n.name, a)
                break
    for i, x in enumerate(p.inputs):
        if x.layout != "contiguous":
            inputs = list(p.inputs)
            inputs[i] = dataclasses.replace(x, layout="contiguous")
            yield dataclasses.replace(p, inputs=inputs)


def _value_type(p: Program, name: str):
    for x in p.inputs:
        if x.name == name:
            return list(x.shape), x.dtype
    for n in p.nodes:
        if n.name == name:
            return list(n.shape), n.dtype
    return None, None


def shrink(p: Program, outcome: str, outcome_of: Callable[[Program], str], budget: int = 40,
           seconds: float = 1200) -> Program:
    """Applies `candidates` while `outcome_of` stays `outcome`, within
    `budget` tries and `seconds`."""
    tries, start = 0, time.monotonic()
    progress = True
    while progress and tries < budget and time.monotonic() - start < seconds:
        progress = False
        for c in candidates(p):
            if not c.nodes:
                continue
            tries += 1
            if outcome_of(c) == outcome:
                p, progress = c, True
                break
            if tries >= budget or time.monotonic() - start >= seconds:
                break
    return p


REPRODUCER = '''"""Torch fuzzer reproducer (seed {seed}): {outcome}: {detail}

Run: python {name}  (runs the program compiled on mtia and eagerly on the
CPU, in a worker process with a {timeout} s limit, and prints the outcome).
"""
# Inputs: {inputs}
# Backward pass: {backward}
#
{source}
from triton_mtia import fuzz_torch

PROGRAM = {program}

if __name__ == "__main__":  # the worker is a spawned process, which imports this file
    p = fuzz_torch.program_from_json(PROGRAM)
    print(p.source())
    print(fuzz_torch.run_isolated(p, timeout={timeout}))
'''


def write_reproducer(out: str, seed: int, outcome: str, result: Dict, p: Program, timeout: float) -> str:
    """Writes DIR/repro_<outcome>_<seed>.py; `result` is the shrunk
    program's (its detail, and the kernel, ttir and source line where known)."""
    name = f"repro_{outcome}_{seed}.py"
    path = os.path.join(out, name)
    source = "\n".join("# " + line if line else "#" for line in p.source().splitlines())
    detail = result.get("detail", "")
    for key in ("kernel", "ttir", "where"):
        if result.get(key):
            detail += f"\n{key}: {result[key]}"
    with open(path, "w") as f:
        f.write(REPRODUCER.format(seed=seed, outcome=outcome, detail=detail[:1500].replace('"""', "'''"),
                                  name=name, timeout=int(timeout), inputs=p.describe_inputs(),
                                  backward=p.backward, source=source, program=repr(program_to_json(p))))
    return path


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------


def distinct(findings: List[Dict]) -> Dict[str, List[int]]:
    """Signature -> the seeds of its findings."""
    out: Dict[str, List[int]] = {}
    for r in sorted(findings, key=lambda r: r["seed"]):
        out.setdefault(r.get("signature") or signature(r), []).append(r["seed"])
    return out


def signature(result: Dict) -> str:
    """What tells one finding from another: the outcome, and the failing
    kernel (numbering dropped), the source line that raised, or the ops
    of the shrunk program."""
    outcome = result["outcome"]
    if result.get("kernel") and outcome in ("deadlock", "hang", "error"):
        return f"{outcome}: {re.sub(r'_[0-9]+$', '', result['kernel'])}"
    if result.get("where"):
        return f"{outcome}: {result['where']}"
    ops = sorted(set(n["op"] for n in result.get("program", {}).get("nodes", []))) or sorted(set(result.get("ops", [])))
    return f"{outcome}: {', '.join(ops)}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m triton_mtia.fuzz_torch", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0, help="first seed; program i uses seed + i")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 1)))
    ap.add_argument("--out", default="fuzz-torch-out", help="folder for reproducers")
    ap.add_argument("--json", help="write the counts, per-op counts and every finding here")
    ap.add_argument("--timeout", type=float, default=300, help="seconds a program may take (then: hang)")
    ap.add_argument("--watchdog-cycles", type=int, default=1 << 26)
    ap.add_argument("--shrink-budget", type=int, default=40, help="candidate programs tried per finding")
    ap.add_argument("--list", action="store_true", help="print the programs' sources and exit")
    args = ap.parse_args(argv)
    import warnings
    warnings.simplefilter("ignore")  # eager PyTorch's notes on the programs it runs while generating them

    if args.list:
        for seed in range(args.seed, args.seed + args.count):
            p = Generator(seed).program()
            print(f"# seed {seed}: {p.describe_inputs()}; backward={p.backward}\n{p.source()}")
        return 0
    os.makedirs(args.out, exist_ok=True)
    counts = {k: 0 for k in OUTCOMES}
    per_op: Dict[str, Dict[str, int]] = collections.defaultdict(lambda: collections.Counter())
    findings: List[Dict] = []
    unsupported: List[Dict] = []
    seconds: List[float] = []
    seeds = iter(range(args.seed, args.seed + args.count))
    lock, generating = threading.Lock(), threading.Lock()
    start = time.monotonic()
    done = [0]

    def report(result: Dict):
        with lock:
            counts[result["outcome"]] += 1
            done[0] += 1
            seconds.append(result.get("seconds", 0.0))
            for op in set(result.get("ops", [])):
                per_op[op]["programs"] += 1
                per_op[op][result["outcome"]] += 1
            if result["outcome"] in FINDINGS:
                findings.append(result)
            elif result["outcome"] == "unsupported":
                unsupported.append({k: result[k] for k in ("seed", "detail", "ops")})
            elapsed = time.monotonic() - start
            print(f"[{done[0]}/{args.count}] seed {result['seed']}: {result['outcome']:11s} "
                  f"{result.get('seconds', 0):6.1f} s | {elapsed:.0f} s, {done[0] / elapsed * 60:.1f}/min | "
                  + " ".join(f"{k}={v}" for k, v in counts.items() if v), file=sys.stderr, flush=True)
            if result["outcome"] not in ("ok", ):
                print("    " + result.get("detail", "")[:300], file=sys.stderr, flush=True)
                for key in ("kernel", "ttir", "where"):
                    if result.get(key):
                        print(f"    {key}: {result[key]}", file=sys.stderr, flush=True)
                if result.get("reproducer"):
                    print("    reproducer: " + result["reproducer"], file=sys.stderr, flush=True)

    def slot():
        worker = Worker(args.watchdog_cycles)
        try:
            while True:
                with lock:
                    seed = next(seeds, None)
                if seed is None:
                    return
                try:
                    with generating:  # one at a time: the OpInfo samples' cache and global RNGs are shared
                        p = Generator(seed).program()
                except Exception:
                    report({"seed": seed, "outcome": "error", "ops": [],
                            "detail": "generator: " + traceback.format_exc()[-600:]})
                    continue
                result = worker.run(p, args.timeout)
                result.update(seed=seed, ops=p.ops(), backward=p.backward)
                if result["outcome"] in FINDINGS:
                    small = shrink(p, result["outcome"], lambda c: worker.run(c, args.timeout)["outcome"],
                                   budget=args.shrink_budget, seconds=max(600, 4 * args.timeout))
                    again = worker.run(small, args.timeout)
                    result["detail_small"] = again.get("detail", "")
                    result["outcome_small"] = again["outcome"]
                    result.update({k: again[k] for k in ("kernel", "ttir", "where") if k in again})
                    result["source"] = small.source()
                    result["inputs"] = small.describe_inputs()
                    result["program"] = program_to_json(small)
                    result["reproducer"] = write_reproducer(args.out, seed, result["outcome"], again, small,
                                                            args.timeout)
                    result["signature"] = signature(result)
                report(result)
        finally:
            worker.stop()

    threads = [threading.Thread(target=slot, daemon=True) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - start
    for sig, seeds_of in distinct(findings).items():
        print(f"finding: {sig} (seeds {', '.join(map(str, seeds_of[:10]))}{' ...' if len(seeds_of) > 10 else ''})")
    print("fuzz_torch: " + ", ".join(f"{k} {v}" for k, v in counts.items()) +
          f"; {elapsed / max(1, done[0]):.1f} s per program (wall, {args.jobs} jobs), "
          f"{sum(seconds) / max(1, len(seconds)):.1f} s per program in a worker")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "count": args.count, "jobs": args.jobs, "timeout": args.timeout,
                       "counts": counts, "seconds": round(elapsed, 1),
                       "seconds_per_program": round(sum(seconds) / max(1, len(seconds)), 2),
                       "wall_seconds_per_program": round(elapsed / max(1, done[0]), 2),
                       "per_op": {op: dict(c) for op, c in sorted(per_op.items())},
                       "findings": sorted(findings, key=lambda r: r["seed"]),
                       "distinct_findings": distinct(findings),
                       "unsupported": sorted(unsupported, key=lambda r: r["seed"])}, f, indent=1)
    return 0 if not any(counts[k] for k in FINDINGS) else 1


if __name__ == "__main__":
    sys.exit(main())
