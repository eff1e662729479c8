"""Loops carrying tensors, while loops, if/else on runtime scalars, nested
loops, loops with a runtime step, and early returns."""

import pytest
import torch
import triton
import triton.language as tl

from _conf import make


@triton.jit
def row_sum_loop_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK, ), dtype=tl.float32)
    mx = tl.full((BLOCK, ), -float("inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):  # runtime trip count
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
        acc += x
        mx = tl.maximum(mx, tl.where(offs < n_cols, x, -float("inf")))
    tl.store(out_ptr + 2 * row, tl.sum(acc))
    tl.store(out_ptr + 2 * row + 1, tl.max(mx))


def test_for_loop_carried_tensors(gen):
    x = make((11, 300), torch.float32, gen)
    out = torch.empty(22)
    row_sum_loop_kernel[(11, )](x, out, 300, BLOCK=64)
    torch.testing.assert_close(out[0::2], x.sum(1), rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(out[1::2], x.amax(1))


@triton.jit
def if_else_kernel(x_ptr, out_ptr, n, mode, threshold, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if mode == 0:
        y = x + 1.0
    elif mode == 1:
        y = x * 2.0
    else:
        y = -x
    if tl.program_id(0) % 2 == 1:  # branches on the program id
        y = y + threshold
    tl.store(out_ptr + offs, y, mask=mask)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_if_else_on_scalars(mode, gen):
    x = make(700, torch.float32, gen)
    out = torch.empty_like(x)
    if_else_kernel[(triton.cdiv(700, 128), )](x, out, 700, mode, 0.25, BLOCK=128)
    ref = [x + 1, x * 2, -x][mode].clone()
    odd = (torch.arange(700) // 128) % 2 == 1
    ref[odd] += 0.25
    torch.testing.assert_close(out, ref)


@triton.jit
def nested_loop_kernel(out_ptr, n_outer, n_inner, step, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK, ), dtype=tl.int32)
    for i in range(n_outer):
        for j in range(0, n_inner, step):
            acc += i * j + tl.arange(0, BLOCK)
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)


def test_nested_loops_runtime_step():
    out = torch.empty(16, dtype=torch.int32)
    nested_loop_kernel[(1, )](out, 5, 13, 3, BLOCK=16)
    js = list(range(0, 13, 3))
    ref = sum(i * j for i in range(5) for j in js) + 5 * len(js) * torch.arange(16)
    torch.testing.assert_close(out, ref.int())


@triton.jit
def while_kernel(out_ptr, limit):
    # Collatz steps of `limit`: a data-dependent while loop on scalars.
    n = limit
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    tl.store(out_ptr, steps)


def test_while_loop():
    out = torch.zeros(1, dtype=torch.int32)
    while_kernel[(1, )](out, 27)
    assert out.item() == 111


@triton.jit
def early_return_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    if pid % 3 == 0:
        tl.store(out_ptr + offs, 0.0, mask=offs < n)
        return
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_early_return(gen):
    x = make(1000, torch.float32, gen)
    out = torch.full_like(x, 9.0)
    early_return_kernel[(triton.cdiv(1000, 64), )](x, out, 1000, BLOCK=64)
    ref = x.clone()
    ref[(torch.arange(1000) // 64) % 3 == 0] = 0.0
    torch.testing.assert_close(out, ref)


@triton.jit
def uniform_accumulator_kernel(x_ptr, out_ptr, n, TRIPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    s = tl.load(x_ptr + 3)
    acc = tl.full([BLOCK], 0, dtype=tl.uint8)
    for i in range(TRIPS):
        acc = (acc + s).to(tl.uint8)
    tl.store(out_ptr + offs, acc, mask=offs < n)


def test_loop_carried_tile_advanced_by_a_scalar_is_data():
    """A tile that a loop only advances by a scalar looks like a carried
    offset tensor; stored as data, it failed to compile ('value used before
    it was lowered'). Found by the fuzzer (seed 947 of 0..9999)."""
    x = torch.arange(16, dtype=torch.uint8) * 50
    out = torch.zeros(16, dtype=torch.uint8)
    uniform_accumulator_kernel[(1, )](x, out, 10, TRIPS=4, BLOCK=16)
    want = torch.zeros(16, dtype=torch.uint8)
    want[:10] = (150 * 4) % 256
    assert torch.equal(out, want)


@triton.jit
def while_tensor_kernel(x_ptr, out_ptr, steps_ptr, limit, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    steps = 0
    while tl.max(acc) < limit:  # the condition reads the carried tile
        acc += x
        steps += 1
    tl.store(out_ptr + offs, acc)
    tl.store(steps_ptr, steps)


@pytest.mark.parametrize("limit", [0.0, 5.0, 100.0])
def test_while_loop_carries_a_tensor(limit):
    """A while loop that carries a tensor was 'not supported: while loops
    that carry tensors' (conformance round three, item 3)."""
    x = torch.arange(8, dtype=torch.float32) * 0.5
    out = torch.zeros(8)
    steps = torch.zeros(1, dtype=torch.int32)
    while_tensor_kernel[(1, )](x, out, steps, limit, BLOCK=8)
    acc, k = torch.zeros(8), 0
    while acc.max() < limit:
        acc, k = acc + x, k + 1
    assert steps.item() == k
    assert torch.equal(out, acc)


@triton.jit
def _quadrant(x, y):
    if x > 0:
        if y > 0:
            return 1
        else:
            return 4
    else:
        if y > 0:
            return 2
        else:
            return 3


@triton.jit
def quadrant_kernel(xy_ptr, out_ptr):
    i = tl.program_id(0)
    tl.store(out_ptr + i, _quadrant(tl.load(xy_ptr + 2 * i), tl.load(xy_ptr + 2 * i + 1)))


def test_nested_if_else_returning_values():
    """A function whose nested if/else returns a value from every branch
    reaches ttir as branches that carry values: 'branches that carry values
    are not supported' (conformance round three, item 2)."""
    xy = torch.tensor([[1, 1], [-1, 1], [-1, -1], [1, -1], [0, 0]], dtype=torch.int32)
    out = torch.zeros(5, dtype=torch.int32)
    quadrant_kernel[(5, )](xy, out)
    assert out.tolist() == [1, 2, 3, 4, 3]


@triton.jit
def nested_return_kernel(out_ptr, flag, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 1.0)
    if flag > 0:
        if flag > 5:
            return
        tl.store(out_ptr + offs, 2.0)
    tl.store(out_ptr + BLOCK + offs, 3.0)


@pytest.mark.parametrize("flag, first, second", [(0, 1.0, 3.0), (3, 2.0, 3.0), (9, 1.0, 0.0)])
def test_return_inside_nested_ifs(flag, first, second):
    """`if a: if b: return` with code after both ifs: 'this early return is
    not supported (unstructured control flow)' (conformance round three,
    item 2)."""
    out = torch.zeros(8)
    nested_return_kernel[(1, )](out, flag, BLOCK=4)
    assert out.tolist() == [first] * 4 + [second] * 4
