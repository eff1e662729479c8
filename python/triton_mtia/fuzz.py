"""A differential fuzzer: random valid Triton programs, run on the MTIA
backend and under upstream's interpreter (Triton imported with
``TRITON_INTERPRET=1``, in a child process), compared.

    python -m triton_mtia.fuzz --seed 1 --count 200 --out fuzz-out --json fuzz.json

Each program is one kernel over a 1-D block, or a 2-D [BLOCK, BLOCK] tile
of a matrix (with tl.trans, and sometimes a tl.dot at the root, whose sum
is compared with a tolerance): loads of up to four inputs of
random dtypes (int8 ... int64, uint8, uint32, float32, float16; not
bfloat16, which the interpreter computes on as bit patterns)
under a mask with an odd bound and sometimes a lower bound, scalar loads,
an expression tree of arithmetic, bitwise, shift, division, comparison,
`tl.where`, cast and math ops, sometimes a loop with a loop-carried
accumulator (whose inputs are sometimes loaded inside it, shifted by the
induction variable), sometimes a branch on a loaded scalar, and a store; sometimes
a reduction (sum, max, min) or a scan (cumsum) as well, and sometimes loads
after stores to the same addresses in one program (the block read back
reversed or shifted and stored over, in-place updates in a loop, a scalar
store read back, a store read back through a second pointer argument bound
to the same tensor: a program must read its own writes). Integer inputs
hold the edges of their type (min, max, -1, 0, 1) at a few places. Every program is valid and defined: divisors are made
non-zero, shift amounts below the width, floats cast to integers only after
clamping (and NaN removed), so both sides must agree.

Results are compared bit for bit (NaNs equal) where the semantics are
exact: integers, and floats through correctly rounded ops (+ - * /, sqrt,
casts, min / max, comparisons) in the same order. Programs with
transcendental functions (exp, log, sin, ...) compare with a relative
tolerance of a few units in the last place of their dtype, float
reductions and scans (whose order is the implementation's) with a
tolerance scaled by the sum of magnitudes.

Outcomes: `ok`; `wrong` (a difference); `error` (our compiler or chip
rejected a valid program: CompilationError, KernelFault, ...); `hang`
(the simulator's watchdog); `crash` (the worker process died); `invalid`
(the interpreter itself rejected the program: a generator bug, counted
apart). Each discrepancy is shrunk (subtrees replaced by their operands or
by leaves, features dropped, while the outcome stays the same) and saved
as a standalone reproducer script in --out.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import random
import re
import sys
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Dict, List, Optional, Tuple

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint32"]
# No bfloat16: numpy has none, and Triton 3.9's interpreter keeps bf16 as
# its 16-bit pattern and computes on that (`-x` of bf16 -0.7656 gives
# 5.875), so it cannot be the reference for bf16 arithmetic.
FLOATS = ["float32", "float16"]
DTYPES = INTS + FLOATS
BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8, "uint32": 32,
        "float32": 32, "float16": 16}
# Clamp ranges for float -> integer casts (defined on every backend).
CAST_RANGE = {"int8": (-100, 100), "int16": (-30000, 30000), "int32": (-2**30, 2**30),
              "int64": (-2**40, 2**40), "uint8": (0, 200), "uint32": (0, 2**30)}
# Transcendentals: compared with a tolerance, taken only on float32 and of
# arguments brought into their domain. No libdevice: the interpreter has none.
MATH = {"exp": "tl.exp(tl.minimum(tl.maximum({x}, -20.0), 20.0))",
        "log": "tl.log(tl.abs({x}) + 1.0)",
        "sin": "tl.sin({x})",
        "cos": "tl.cos({x})",
        "exp2": "tl.exp2(tl.minimum(tl.maximum({x}, -30.0), 30.0))",
        "log2": "tl.log2(tl.abs({x}) + 1.0)",
        "rsqrt": "tl.rsqrt(tl.abs({x}) + 1.0)",
        "erf": "tl.erf({x})",
        "sigmoid": "tl.sigmoid({x})"}


def is_int(t: str) -> bool:
    return t in INTS


def is_unsigned(t: str) -> bool:
    return t.startswith("uint")


# ---------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class Node:
    """An expression of dtype `dtype`: `op` applied to `args`; leaves carry
    their source text in `text`."""
    op: str
    dtype: str
    args: List["Node"] = dataclasses.field(default_factory=list)
    text: str = ""
    extra: str = ""  # the comparison of a where, the target of a cast, ...

    def render(self) -> str:
        a = [x.render() for x in self.args]
        t = f"tl.{self.dtype}"
        if self.op == "leaf":
            return self.text
        if self.op in ("+", "-", "*", "&", "|", "^", "/"):
            return f"({a[0]} {self.op} {a[1]})"
        if self.op in ("//", "%") and is_int(self.dtype):
            # A divisor in [1, 127]: never zero, never -1.
            return f"({a[0]} {self.op} (({a[1]} & 127) | 1))"
        if self.op == "%":  # float: C's fmod, x % 0 is NaN on both sides
            return f"({a[0]} % {a[1]})"
        if self.op in ("<<", ">>"):
            return f"({a[0]} {self.op} ({a[1]} & {BITS[self.dtype] - 1}))"
        if self.op == "neg":
            return f"(-{a[0]})"
        if self.op in ("maximum", "minimum"):
            return f"tl.{self.op}({a[0]}, {a[1]})"
        if self.op == "abs":
            return f"tl.abs({a[0]})"
        if self.op in ("sqrt", "floor", "ceil"):
            inner = f"tl.abs({a[0]})" if self.op == "sqrt" else a[0]
            return f"tl.{self.op}({inner}.to(tl.float32)).to({t})"
        if self.op == "where":  # args: cond lhs, cond rhs, then, else
            return f"tl.where({a[0]} {self.extra} {a[1]}, {a[2]}, {a[3]})"
        if self.op == "cast":
            src = self.args[0].dtype
            if is_int(self.dtype) and not is_int(src):
                lo, hi = CAST_RANGE[self.dtype]
                if src == "float16":  # the bounds must be finite in the source type
                    lo, hi = max(lo, -60000), min(hi, 60000)
                x = a[0]
                return (f"tl.where({x} == {x}, tl.minimum(tl.maximum({x}, {float(lo)}), {float(hi)}), 0.0)"
                        f".to({t})")
            return f"{a[0]}.to({t})"
        if self.op in MATH:
            return MATH[self.op].format(x=a[0])
        if self.op == "trans":
            return f"tl.trans({a[0]})"
        if self.op == "dot":  # square tiles; float32 products, any summation order
            return f"tl.dot({a[0]}.to(tl.float32), {a[1]}.to(tl.float32), input_precision='ieee')"
        raise ValueError(self.op)

    def nodes(self):
        yield self
        for x in self.args:
            yield from x.nodes()

    @property
    def approx(self) -> bool:
        return any(n.op in MATH for n in self.nodes())

    @property
    def summed(self) -> bool:
        """Holds a dot, whose summation order is the implementation's."""
        return any(n.op == "dot" for n in self.nodes())


@dataclasses.dataclass
class Program:
    seed: int
    block: int
    n: int
    lo: int  # lower bound of the mask, -1: none
    programs: int
    inputs: List[str]  # dtypes of in0..in3
    others: List[str]  # `other` of each masked load
    scalars: List[str]  # dtypes of the scalar loads
    body: Node
    loop: Optional[Tuple[int, str]] = None  # (trip count, accumulate op)
    reduce: str = ""  # "", "sum", "max", "min", "cumsum"
    branch: bool = False  # r doubled when the first element of in0 is positive
    rank: int = 1  # 2: [BLOCK, BLOCK] tiles of an (n, n2) matrix, a program per tile
    # A program that reads its own writes (rank 1): "" none, "reverse" (the
    # block read back in reverse and stored over), "shift" (each element
    # reads its right neighbour's store), "rmw" (two in-place updates in a
    # loop), "scalar" (a scalar store read back), "alias" (in3 is bound to
    # the output tensor: the store through out_ptr is read back through in3).
    memory: str = ""
    n2: int = 1  # columns (rank 2)
    cols: int = 1  # programs along the columns (rank 2)
    # Rank 1 with a loop: the loop loads its inputs itself, shifted by the
    # induction variable (a gather by `(offs + i) % n`), instead of reusing
    # the loads before it; the next iteration's loads can then be issued
    # ahead (mtia-pipeline-commands).
    stream: bool = False
    # Rank 1 with a loop: the loop walks blocks (`for s in range(0, k *
    # BLOCK, BLOCK)`, its own loads at `(offs + s) % n`) and updates the
    # accumulator only where `offs + s < n`, a mask that holds on a prefix
    # of the iterations (tt-split-masked-loops splits such loops).
    chunked: bool = False

    @property
    def size(self) -> int:
        """Elements of each input and output buffer."""
        return self.block * self.programs * (self.block * self.cols if self.rank == 2 else 1)

    def source(self) -> str:
        shape = "[BLOCK]" if self.rank == 1 else "[BLOCK, BLOCK]"
        lines = ["import triton.language as tl", "", "",
                 "def kernel(in0, in1, in2, in3, out_ptr, red_ptr, n, n2, lo, BLOCK: tl.constexpr):",
                 "    pid = tl.program_id(0)"]
        if self.rank == 1:
            lines.append("    offs = pid * BLOCK + tl.arange(0, BLOCK)")
            lines.append("    mask = offs < n" + ("" if self.lo < 0 else " & (offs >= lo)"))
        else:
            # Row-major (n, n2) in a buffer of num_programs(1) * BLOCK columns.
            lines += ["    rm = pid * BLOCK + tl.arange(0, BLOCK)",
                      "    rn = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)",
                      "    offs = rm[:, None] * (tl.num_programs(1) * BLOCK) + rn[None, :]"]
            lines.append("    mask = (rm[:, None] < n) & (rn[None, :] < n2)" +
                         ("" if self.lo < 0 else " & (rm[:, None] >= lo)"))
        for i, t in enumerate(self.inputs):
            lines.append(f"    a{i} = tl.load(in{i} + offs, mask=mask, other={self.others[i]})")
        for i, t in enumerate(self.scalars):
            lines.append(f"    s{i} = tl.load(in{i} + (pid % 7))")
        expr = self.body.render().replace("SHAPE", shape)
        if self.loop:
            trips, op = self.loop
            start = 1 if op == "*" else 0
            lines.append(f"    acc = tl.full({shape}, {start}, dtype=tl.{self.body.dtype})")
            chunked = self.chunked and self.rank == 1
            if chunked:
                lines.append(f"    for s in range(0, {trips + 5} * BLOCK, BLOCK):")
                lines.append("        cols = offs + s")
                shifted = "cols % n"
            else:
                lines.append(f"    for i in range({trips}):")
                shifted = "(offs + i) % n"
            if (self.stream or chunked) and self.rank == 1:
                for k in range(len(self.inputs)):
                    if re.search(rf"\ba{k}\b", expr):
                        lines.append(f"        b{k} = tl.load(in{k} + {shifted}, mask=mask, "
                                     f"other={self.others[k]})")
                        expr = re.sub(rf"\ba{k}\b", f"b{k}", expr)
            if chunked:
                lines.append(f"        acc = tl.where(cols < n, (acc {op} {expr}).to(tl.{self.body.dtype}), acc)")
            else:
                lines.append(f"        acc = (acc {op} {expr}).to(tl.{self.body.dtype})")
            expr = "acc"
        # Triton promotes some ops (float16 % float16 is float32): r takes the
        # program's dtype, which a branch must keep.
        lines.append(f"    r = ({expr}).to(tl.{self.body.dtype})" if self.branch else f"    r = {expr}")
        if self.branch:
            lines.append("    if tl.load(in0) > 0:")
            lines.append(f"        r = (r + r).to(tl.{self.body.dtype})")
        lines.append("    tl.store(out_ptr + offs, r, mask=mask)")
        lines += self._memory_lines()
        # Reductions and scans run along the last axis; one result per row
        # of each program.
        axis = self.rank - 1
        slot = "pid" if self.rank == 1 else "rm * tl.num_programs(1) + tl.program_id(1)"
        if self.reduce == "cumsum":
            lines.append(f"    c = tl.cumsum(tl.where(mask, r, 0).to(red_ptr.dtype.element_ty), axis={axis})")
            lines.append("    tl.store(red_ptr + offs, c, mask=mask)")
        elif self.reduce:
            # The masked-off lanes take the neutral element of the reduction;
            # a sum adds in the wide dtype of the buffer (no overflow).
            fill = {"sum": "0", "max": self._extreme(low=True), "min": self._extreme(low=False)}
            lines.append(f"    v = tl.where(mask, r, {fill[self.reduce]})")
            if self.reduce == "sum":
                lines.append("    v = v.to(red_ptr.dtype.element_ty)")
            lines.append(f"    tl.store(red_ptr + {slot}, tl.{self.reduce}(v, axis={axis}))")
        return "\n".join(lines) + "\n"

    def _memory_lines(self) -> List[str]:
        """Loads after stores to the same addresses, within one program (the
        language orders them; across programs they would race)."""
        t = f"tl.{self.body.dtype}"
        # A value compared with a tolerance must not meet another in a sum
        # (cancellation would magnify the allowed difference): it is read
        # back and stored over as it is, or doubled (exact).
        exact = not (self.approx or self.summed)
        lower = "" if self.lo < 0 else " & ({x} >= lo)"
        written = "({x} < n)" + lower  # what the first store wrote, at index x
        if self.memory == "reverse":
            return ["    rev = pid * BLOCK + (BLOCK - 1 - tl.arange(0, BLOCK))",
                    f"    back = tl.load(out_ptr + rev, mask={written.format(x='rev')}, other=0)",
                    f"    tl.store(out_ptr + offs, {'(back + r)' if exact else 'back'}.to({t}), mask=mask)"]
        if self.memory == "shift":
            nxt = "(offs + 1)"
            keep = written.format(x=nxt) + f" & ({nxt} < pid * BLOCK + BLOCK)"
            return [f"    back = tl.load(out_ptr + offs + 1, mask={keep}, other=0)",
                    f"    tl.store(out_ptr + offs, {'(back - r)' if exact else 'back'}.to({t}), mask=mask)"]
        if self.memory == "rmw":
            return ["    for k in range(2):",
                    "        v = tl.load(out_ptr + offs, mask=mask, other=0)",
                    f"        tl.store(out_ptr + offs, ({'v * 3 + 1' if exact else 'v * 2'}).to({t}), mask=mask)"]
        if self.memory == "alias":
            return ["    back = tl.load(in3 + offs, mask=mask, other=0)  # in3 is out",
                    f"    tl.store(out_ptr + offs, ({'back * 2 + 1' if exact else 'back * 2'}).to({t}), mask=mask)"]
        if self.memory == "scalar":
            # Cast as the expressions do: a float is clamped before it becomes
            # an integer.
            loaded = Node("leaf", self.inputs[0], text="(tl.load(in0 + first) + 1)")
            value = Node("cast", self.body.dtype, [loaded]).render() \
                if self.inputs[0] != self.body.dtype else loaded.render()
            return ["    first = pid * BLOCK",
                    f"    tl.store(out_ptr + first, {value}, mask=first < n)",
                    "    again = tl.load(out_ptr + first, mask=first < n, other=0)",
                    f"    tl.store(out_ptr + first + 1, (again * 2).to({t}), mask=first + 1 < n)"]
        return []

    def _extreme(self, low: bool) -> str:
        t = self.body.dtype
        if not is_int(t):
            return "float('-inf')" if low else "float('inf')"
        if is_unsigned(t):
            return "0" if low else str(2**BITS[t] - 1)
        bits = BITS[t]
        return str(-2**(bits - 1)) if low else str(2**(bits - 1) - 1)

    @property
    def red_dtype(self) -> str:
        """The dtype of the reduction buffer: wide enough for what is stored."""
        t = self.body.dtype
        if not is_int(t):
            return "float32"
        return "int64"

    @property
    def approx(self) -> bool:
        return self.body.approx

    @property
    def summed(self) -> bool:
        return self.body.summed


class Generator:
    """Random programs, deterministic in the seed."""

    def __init__(self, seed: int):
        self.seed = seed
        self.r = random.Random(seed)

    def program(self) -> Program:
        r = self.r
        inputs = [r.choice(DTYPES) for _ in range(r.randint(1, 4))]
        rank = 2 if r.random() < 0.3 else 1
        self.rank = rank
        if rank == 1:
            block = r.choice([16, 32, 64, 128, 256])
            programs, cols = r.randint(1, 4), 1
            n2 = 1
        else:
            block = r.choice([8, 16, 32])
            programs, cols = r.randint(1, 3), r.randint(1, 3)
            n2 = r.randint(1, block * cols)
        n = r.randint(1, block * programs)
        lo = r.randint(0, n) if r.random() < 0.3 else -1
        # Scalar loads in 1-D programs (a scalar has no tl.trans).
        scalars = inputs[:r.randint(0, min(2, len(inputs)))] if rank == 1 else []
        others = [self._constant(t) for t in inputs]
        self.inputs, self.scalars = inputs, scalars
        out = r.choice(inputs) if r.random() < 0.6 else r.choice(DTYPES)
        body = self.expr(out, r.randint(1, 5))
        if r.random() < 0.2 and not body.approx and out == "float32":
            body = Node(r.choice(list(MATH)), "float32", [self.cast(body, "float32")])
        elif rank == 2 and out == "float32" and r.random() < 0.3:
            # A dot at the root: what follows it would magnify the summation
            # order's rounding differences.
            body = Node("dot", "float32", [self.expr(r.choice(FLOATS), 2), self.expr(r.choice(FLOATS), 2)])
        loop = None
        if r.random() < 0.2:
            loop = (r.randint(1, 4), r.choice(["+", "^", "*"] if is_int(out) else ["+", "*"]))
        reduce = ""
        if r.random() < 0.3:
            reduce = r.choice(["sum", "max", "min", "cumsum"])
        branch = r.random() < 0.2
        memory = r.choice(["reverse", "shift", "rmw", "scalar"]) if rank == 1 and r.random() < 0.3 else ""
        # Drawn last, so that the programs of the other seeds stay as they were.
        if not memory and rank == 1 and len(inputs) <= 3 and r.random() < 0.15:
            memory = "alias"
        # From a generator of its own, so that every other choice stays as it was.
        stream = loop is not None and rank == 1 and random.Random(self.seed * 7919 + 17).random() < 0.5
        chunked = loop is not None and rank == 1 and random.Random(self.seed * 104729 + 29).random() < 0.5
        return Program(self.seed, block, n, lo, programs, inputs, others, scalars, body, loop=loop,
                       reduce=reduce, branch=branch, rank=rank, n2=n2, cols=cols, memory=memory,
                       stream=stream, chunked=chunked)

    def _constant(self, t: str) -> str:
        if is_int(t):
            return str(self.r.choice([0, 1, 7] if is_unsigned(t) else [0, 1, -1, 7]))
        return self.r.choice(["0.0", "1.5", "-2.0", "float('nan')"])

    def leaf(self, t: str) -> Node:
        r = self.r
        choices = [("a", i) for i, u in enumerate(self.inputs) if u == t]
        choices += [("s", i) for i, u in enumerate(self.scalars) if u == t]
        if choices and r.random() < 0.8:
            kind, i = r.choice(choices)
            return Node("leaf", t, text=f"{kind}{i}")
        if r.random() < 0.5:
            # Another input, cast.
            i = r.randrange(len(self.inputs))
            src = Node("leaf", self.inputs[i], text=f"a{i}")
            return self.cast(src, t)
        if is_int(t):
            lo, hi = (0, 100) if is_unsigned(t) else (-100, 100)
            return Node("leaf", t, text=f"tl.full(SHAPE, {r.randint(lo, hi)}, tl.{t})")
        return Node("leaf", t, text=f"tl.full(SHAPE, {r.choice([0.5, -3.25, 1e4, 0.0])}, tl.{t})")

    def cast(self, x: Node, t: str) -> Node:
        return x if x.dtype == t else Node("cast", t, [x])

    def expr(self, t: str, depth: int) -> Node:
        r = self.r
        if depth <= 0 or r.random() < 0.15:
            return self.leaf(t)
        ops = ["+", "-", "*", "maximum", "minimum", "where", "cast", "abs", "neg"]
        if self.rank == 2:
            ops.append("trans")
        if is_int(t):
            ops += ["&", "|", "^", "<<", ">>", "//", "%"]
        else:
            ops += ["/", "%", "sqrt", "floor", "ceil"]
        op = r.choice(ops)
        sub = lambda u=t: self.expr(u, depth - 1)  # noqa: E731
        if op == "cast":
            return self.cast(sub(r.choice(DTYPES)), t)
        if op == "where":
            u = r.choice(DTYPES)
            cmp = r.choice(["<", "<=", ">", ">=", "==", "!="])
            return Node("where", t, [sub(u), sub(u), sub(), sub()], extra=cmp)
        if op in ("abs", "neg", "sqrt", "floor", "ceil", "trans"):
            if op == "neg" and is_unsigned(t):
                op = "abs"
            return Node(op, t, [sub()])
        return Node(op, t, [sub(), sub()])


# ---------------------------------------------------------------------------
# Running one program
# ---------------------------------------------------------------------------


def _inputs(p: Program):
    import torch
    g = torch.Generator().manual_seed(p.seed)
    size = p.size
    tensors = []
    for t in p.inputs:
        if is_int(t):
            lo, hi = (0, 2**BITS[t]) if is_unsigned(t) else (-2**(BITS[t] - 1), 2**(BITS[t] - 1))
            hi = min(hi, 2**63 - 1)
            if BITS[t] >= 32 and torch.rand(1, generator=g).item() < 0.5:
                lo, hi = max(lo, -1000), min(hi, 1000)  # small values too
            wide = torch.randint(lo, hi, (size, ), generator=g, dtype=torch.int64)
            # The edges of the type: min, max, -1, 0, 1 at a few places.
            edges = [lo, hi - 1, 0, 1] + ([-1] if lo < 0 else [])
            where = torch.randint(0, size, (len(edges), ), generator=g)
            wide[where] = torch.tensor(edges, dtype=torch.int64)
            if t == "uint32":
                x = wide.to(torch.int64).to(torch.uint32)
            else:
                x = wide.to(getattr(torch, t))
        else:
            x = (torch.randn(size, generator=g) * 10).to(getattr(torch, t))
            x[torch.randint(0, size, (2, ), generator=g)] = float("nan") if p.seed % 5 == 0 else 0.0
        tensors.append(x)
    while len(tensors) < 4:
        tensors.append(tensors[0])
    return tensors


def _load(source: str, path: str):
    with open(path, "w") as f:
        f.write(source)
    name = "fuzz_" + os.path.basename(path)[:-3]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.kernel


def _run(kernel, p: Program, inputs, device: str = "cpu"):
    """Launches program `p` on `inputs`; its outputs are made on `device`."""
    import torch
    out = torch.full((p.size, ), 3, dtype=getattr(torch, p.body.dtype), device=device)
    red = torch.full((p.size, ), 5, dtype=getattr(torch, p.red_dtype), device=device)
    if p.memory == "alias":  # two pointer arguments bound to one tensor
        inputs = list(inputs[:3]) + [out]
    kernel[(p.programs, p.cols)](*inputs, out, red, p.n, p.n2, max(p.lo, 0), BLOCK=p.block)
    return out, red


def _same(a, b, approx: bool, reduced: bool) -> Tuple[bool, str]:
    import torch
    if a.dtype.is_floating_point:
        a32, b32 = a.float(), b.float()
        nan_a, nan_b = torch.isnan(a32), torch.isnan(b32)
        if not torch.equal(nan_a, nan_b):
            i = int((nan_a != nan_b).nonzero()[0])
            return False, f"NaN at {i}: {a32[i].item()} vs {b32[i].item()}"
        a32, b32 = a32[~nan_a], b32[~nan_b]
        if approx or reduced:
            eps = {torch.float32: 2**-23, torch.float16: 2**-10}[a.dtype]
            tol = (64 if reduced else 8) * eps * (b32.abs() + (b32.abs().sum() if reduced else 0) + 1e-30)
            bad = ~((a32 - b32).abs() <= tol) & ~(a32 == b32)
        else:
            bad = ~(a32 == b32) | (torch.signbit(a32) != torch.signbit(b32)) & (a32 != 0)
        if bad.any():
            i = int(bad.nonzero()[0])
            return False, f"{a32[i].item()!r} vs {b32[i].item()!r} (element {i} of the non-NaN ones)"
        return True, ""
    if not torch.equal(a, b):
        i = int((a != b).nonzero()[0])
        return False, f"{a[i].item()} vs {b[i].item()} at {i}"
    return True, ""


def _interpreter_loop(conn, workdir: str):
    """The reference side, in a process of its own that imported Triton
    with TRITON_INTERPRET=1: only then are tl.max, tl.cumsum and the other
    @jit functions of triton.language interpretable."""
    import warnings
    warnings.simplefilter("ignore")  # numpy's divide-by-zero and overflow notes
    import triton
    while True:
        msg = conn.recv()
        if msg is None:
            return
        p = program_from_json(msg)
        try:
            fn = _load(p.source(), os.path.join(workdir, f"ref{p.seed}_{time.monotonic_ns()}.py"))
            conn.send(("ok", _run(triton.jit(fn), p, _inputs(p))))
        except Exception as e:  # the program is not valid Triton: our bug
            conn.send(("invalid", f"{type(e).__name__}: {str(e)[-400:]}"))


class Interpreter:
    """Runs programs under upstream's interpreter in a child process."""

    def __init__(self, workdir: str):
        import multiprocessing
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        saved = os.environ.get("TRITON_INTERPRET")
        os.environ["TRITON_INTERPRET"] = "1"
        try:
            self.process = ctx.Process(target=_interpreter_loop, args=(child, workdir), daemon=True)
            self.process.start()
        finally:
            if saved is None:
                del os.environ["TRITON_INTERPRET"]
            else:
                os.environ["TRITON_INTERPRET"] = saved

    def run(self, p: Program):
        self.conn.send(program_to_json(p))
        return self.conn.recv()


_interpreter: Optional[Interpreter] = None


def evaluate(p: Program, workdir: str) -> Dict:
    """Runs `p` on both sides; returns {"outcome", "detail"}."""
    global _interpreter
    import triton

    import triton_mtia
    from triton_mtia.errors import CompilationError, KernelFault

    if _interpreter is None:
        _interpreter = Interpreter(workdir)
    status, want = _interpreter.run(p)
    if status != "ok":
        return {"outcome": "invalid", "detail": want}
    fn = _load(p.source(), os.path.join(workdir, f"p{p.seed}_{time.monotonic_ns()}.py"))
    triton_mtia.activate()
    try:
        got = _run(triton.jit(fn), p, _inputs(p))
    except KernelFault as e:
        kind = "hang" if e.kind == "hang" else "error"
        return {"outcome": kind, "detail": str(e)[:600]}
    except (CompilationError, Exception) as e:
        return {"outcome": "error", "detail": f"{type(e).__name__}: {str(e)[:600]}"}
    ok, why = _same(got[0], want[0], p.approx, p.summed)
    if ok and p.reduce:
        ok, why = _same(got[1], want[1], p.approx, p.summed or p.reduce in ("sum", "cumsum"))
        why = "reduction: " + why
    return {"outcome": "ok" if ok else "wrong", "detail": why}


# ---------------------------------------------------------------------------
# Shrinking and reproducers
# ---------------------------------------------------------------------------


def _replace(root: Node, target: Node, new: Node) -> Node:
    if root is target:
        return new
    return dataclasses.replace(root, args=[_replace(a, target, new) for a in root.args])


def candidates(p: Program):
    """Smaller programs: features dropped, then subtrees replaced by an
    operand of the same dtype or by a leaf."""
    if p.loop:
        yield dataclasses.replace(p, loop=None)
    if p.stream:
        yield dataclasses.replace(p, stream=False)
    if p.chunked:
        yield dataclasses.replace(p, chunked=False)
    if p.reduce:
        yield dataclasses.replace(p, reduce="")
    if p.branch:
        yield dataclasses.replace(p, branch=False)
    if p.memory:
        yield dataclasses.replace(p, memory="")
    if p.lo >= 0:
        yield dataclasses.replace(p, lo=-1)
    if p.programs > 1:
        yield dataclasses.replace(p, programs=1, n=min(p.n, p.block))
    if p.cols > 1:
        yield dataclasses.replace(p, cols=1, n2=min(p.n2, p.block))
    for node in p.body.nodes():
        for a in node.args:
            if a.dtype == node.dtype:
                yield dataclasses.replace(p, body=_replace(p.body, node, a))
        if node.op != "leaf":
            leaves = [x for x in node.nodes() if x.op == "leaf" and x.dtype == node.dtype]
            for leaf in leaves[:1]:
                yield dataclasses.replace(p, body=_replace(p.body, node, leaf))


def shrink(p: Program, outcome: str, workdir: str, budget: int = 60) -> Program:
    tries = 0
    progress = True
    while progress and tries < budget:
        progress = False
        for c in candidates(p):
            tries += 1
            try:
                if evaluate(c, workdir)["outcome"] == outcome:
                    p, progress = c, True
                    break
            except Exception:
                pass
            if tries >= budget:
                break
    return p


REPRODUCER = '''"""Fuzzer reproducer (seed {seed}): {outcome}: {detail}

Run: python {name}  (compares the MTIA backend with Triton's interpreter)."""
import tempfile
from triton_mtia import fuzz

PROGRAM = {program}

if __name__ == "__main__":  # the interpreter runs in a spawned child, which imports this file
    p = fuzz.program_from_json(PROGRAM)
    print(p.source())
    print(fuzz.evaluate(p, tempfile.mkdtemp()))
'''


def program_to_json(p: Program) -> Dict:
    return dataclasses.asdict(p)


def program_from_json(d: Dict) -> Program:
    def node(x):
        return Node(x["op"], x["dtype"], [node(a) for a in x["args"]], x["text"], x["extra"])
    d = dict(d)
    d["body"] = node(d["body"])
    if d.get("loop"):
        d["loop"] = tuple(d["loop"])
    return Program(**d)


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------

_workdir = None


def _worker_init(watchdog: int):
    global _workdir
    import warnings
    warnings.simplefilter("ignore")
    import triton_mtia
    triton_mtia.activate()
    triton_mtia.configure(watchdog_cycles=watchdog)
    _workdir = tempfile.mkdtemp(prefix="mtia-fuzz-")
    sys.path.insert(0, _workdir)


def _one(seed: int) -> Dict:
    p = Generator(seed).program()
    start = time.monotonic()
    try:
        result = evaluate(p, _workdir)
    except Exception:
        result = {"outcome": "error", "detail": traceback.format_exc()[-600:]}
    result["seconds"] = round(time.monotonic() - start, 2)
    if result["outcome"] not in ("ok", "invalid"):
        small = shrink(p, result["outcome"], _workdir)
        result["program"] = program_to_json(small)
        result["source"] = small.source()
        try:
            result["detail_small"] = evaluate(small, _workdir)["detail"]
        except Exception:
            result["detail_small"] = traceback.format_exc()[-600:]
    result["seed"] = seed
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m triton_mtia.fuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0, help="first seed; program i uses seed + i")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 1)))
    ap.add_argument("--out", default="fuzz-out", help="folder for reproducers")
    ap.add_argument("--json", help="write the counts and every discrepancy here")
    ap.add_argument("--watchdog-cycles", type=int, default=1 << 24)
    args = ap.parse_args(argv)

    os.makedirs(args.out, exist_ok=True)
    counts = {k: 0 for k in ("ok", "wrong", "error", "hang", "crash", "invalid")}
    findings: List[Dict] = []
    seeds = list(range(args.seed, args.seed + args.count))
    start = time.monotonic()
    done = 0
    while seeds:
        pool = ProcessPoolExecutor(args.jobs, initializer=_worker_init, initargs=(args.watchdog_cycles, ))
        futures = {pool.submit(_one, s): s for s in seeds}
        seeds = []
        broken = False
        for future, seed in futures.items():
            try:
                result = future.result()
            except BrokenProcessPool:
                if not broken:  # the first dead one is the culprit; the rest run again
                    result = {"outcome": "crash", "detail": "the worker process died", "seed": seed}
                    broken = True
                else:
                    seeds.append(seed)
                    continue
            counts[result["outcome"]] += 1
            done += 1
            if result["outcome"] not in ("ok", ):
                findings.append(result)
                if "program" in result:
                    name = f"repro_{result['outcome']}_{seed}.py"
                    with open(os.path.join(args.out, name), "w") as f:
                        f.write(REPRODUCER.format(seed=seed, outcome=result["outcome"],
                                                  detail=result.get("detail_small", "")[:300].replace('"""', "'''"),
                                                  name=name, program=repr(result["program"])))
            elapsed = time.monotonic() - start
            print(f"[{done}/{args.count}] seed {seed}: {result['outcome']:7s} "
                  f"({elapsed:.0f} s) {' '.join(f'{k}={v}' for k, v in counts.items() if v)}", flush=True)
            if result["outcome"] not in ("ok", "invalid"):
                print("    " + result.get("detail_small", result.get("detail", ""))[:300], flush=True)
        pool.shutdown(cancel_futures=True)
    print("fuzz: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "count": args.count, "counts": counts, "findings": findings}, f, indent=1)
    return 0 if counts["wrong"] + counts["error"] + counts["hang"] + counts["crash"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
