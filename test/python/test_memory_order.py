"""A program reads its own writes: loads after stores (and stores after loads)
to the same memory keep program order, through one pointer or two that are
the same tensor; the simulator's sanitizer catches a pair left unordered
(mtia-order-memory, docs/compiler.md "Memory order")."""

import inspect

import pytest
import torch
import triton
import triton.language as tl

import triton_mtia
from triton_mtia.bench.memory_order import copy_blocks_kernel


def _line_of(fn, needle):
    lines, first = inspect.getsourcelines(fn.fn)
    return first + next(i for i, line in enumerate(lines) if needle in line)


@triton.jit
def store_then_load(inp, out, res, n, BLOCK: tl.constexpr):
    c = tl.arange(0, BLOCK)
    m = c < n
    x = tl.load(inp + c, mask=m)
    tl.store(out + c, x * 2, mask=m)
    y = tl.load(out + c, mask=m)  # reads the store above
    tl.store(res + c, y + 1, mask=m)


@pytest.mark.parametrize("n", [256, 200])
def test_load_after_store(n):
    x = torch.arange(256, dtype=torch.float32)
    out = torch.full((256, ), 100.0)
    res = torch.zeros(256)
    store_then_load[(1, )](x, out, res, n, BLOCK=256)
    torch.testing.assert_close(res[:n], x[:n] * 2 + 1)
    torch.testing.assert_close(out[n:], torch.full((256 - n, ), 100.0))


@triton.jit
def store_then_load_2d(inp, out, res, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.arange(0, BLOCK_M)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    x = tl.load(inp + rows * stride + cols)
    tl.store(out + rows * stride + cols, x - 1)
    y = tl.load(out + rows * stride + cols)
    tl.store(res + rows * BLOCK_N + cols, y * 3)


def test_load_after_store_2d_runtime_stride():
    x = torch.randn(32, 48)
    out = torch.zeros(32, 48)
    res = torch.zeros(32, 32)
    store_then_load_2d[(1, )](x, out, res, 48, BLOCK_M=32, BLOCK_N=32)
    torch.testing.assert_close(res, (x[:, :32] - 1) * 3)


@triton.jit
def read_modify_write_loop(buf, steps, BLOCK: tl.constexpr):
    c = tl.arange(0, BLOCK)
    for i in range(steps):
        v = tl.load(buf + c)
        tl.store(buf + c, v + i)


def test_read_modify_write_in_a_loop():
    buf = torch.ones(128)
    read_modify_write_loop[(1, )](buf, 10, BLOCK=128)
    torch.testing.assert_close(buf, torch.full((128, ), 1.0 + sum(range(10))))


@triton.jit
def in_place_blocks(buf, n, BLOCK: tl.constexpr):
    # Each iteration its own block: the compiler proves the next load is past
    # the previous store, so no fence holds it back.
    c = tl.arange(0, BLOCK)
    for start in range(0, n, BLOCK):
        v = tl.load(buf + start + c)
        tl.store(buf + start + c, v * 2 + 1)


def test_in_place_blocks_need_no_load_fence():
    buf = torch.arange(1024, dtype=torch.float32)
    expected = buf * 2 + 1
    in_place_blocks[(1, )](buf, 1024, BLOCK=128)
    torch.testing.assert_close(buf, expected)
    assert triton_mtia.last_launch().stats["units"]["dma_in"]["fences"] == 0


@triton.jit
def through_two_pointers(a, b, res, BLOCK: tl.constexpr):
    c = tl.arange(0, BLOCK)
    tl.store(a + c, c.to(tl.float32) * 0.5)
    y = tl.load(b + c)  # the store's bytes when a and b are one tensor
    tl.store(res + c, y)


def test_two_arguments_bound_to_one_tensor():
    x = torch.zeros(64)
    res = torch.zeros(64)
    through_two_pointers[(1, )](x, x, res, BLOCK=64)
    torch.testing.assert_close(res, torch.arange(64, dtype=torch.float32) * 0.5)
    # Two tensors: the same kernel, and nothing to wait for.
    other = torch.full((64, ), 7.0)
    through_two_pointers[(1, )](x, other, res, BLOCK=64)
    torch.testing.assert_close(res, other)
    assert triton_mtia.last_launch().stats["units"]["dma_in"]["fences"] == 0


def test_two_views_of_one_storage():
    # Two views, different data pointers, one allocation: may alias.
    base = torch.zeros(128)
    res = torch.zeros(64)
    through_two_pointers[(1, )](base[32:96], base[32:], res, BLOCK=64)
    torch.testing.assert_close(res, torch.arange(64, dtype=torch.float32) * 0.5)


@triton.jit
def partly_overlapping(inp, out, res, BLOCK: tl.constexpr, SHIFT: tl.constexpr):
    c = tl.arange(0, BLOCK)
    tl.store(out + c, tl.load(inp + c))
    tl.store(res + c, tl.load(out + SHIFT + c))


def test_partly_overlapping_windows():
    x = torch.arange(128, dtype=torch.float32)
    out = torch.full((256, ), -5.0)
    res = torch.zeros(128)
    partly_overlapping[(1, )](x, out, res, BLOCK=128, SHIFT=64)
    torch.testing.assert_close(res[:64], x[64:])
    torch.testing.assert_close(res[64:], torch.full((64, ), -5.0))


@triton.jit
def load_then_overwrite(src, dst, out, BLOCK: tl.constexpr):
    c = tl.arange(0, BLOCK)
    v = tl.load(src + c)
    tl.store(dst + c, tl.full([BLOCK], -1.0, tl.float32))  # may overwrite src
    tl.store(out + c, v)


def test_store_after_load():
    buf = torch.arange(256, dtype=torch.float32)
    expected = buf.clone()
    out = torch.zeros(256)
    load_then_overwrite[(1, )](buf, buf, out, BLOCK=256)
    torch.testing.assert_close(out, expected)
    torch.testing.assert_close(buf, torch.full((256, ), -1.0))


@triton.jit
def store_twice(a, b, BLOCK: tl.constexpr):
    c = tl.arange(0, BLOCK)
    tl.store(a + c, c.to(tl.float32))
    tl.store(b + c, c.to(tl.float32) + 1)


def test_store_after_store():
    x = torch.zeros(64)
    store_twice[(1, )](x, x, BLOCK=64)
    torch.testing.assert_close(x, torch.arange(64, dtype=torch.float32) + 1)


@triton.jit
def normed_cumsum(x, out, n, BLOCK: tl.constexpr):
    # flag-gems' multinomial: a scan stored, its last element and the scan
    # read back to normalize it.
    c = tl.arange(0, BLOCK)
    m = c < n
    s = tl.cumsum(tl.load(x + c, mask=m, other=0.0), 0)
    tl.store(out + c, s, mask=m)
    total = tl.load(out + n - 1)
    y = tl.load(out + c, mask=m)
    tl.store(out + c, y / total, mask=m)


def test_normed_cumsum():
    x = torch.rand(100) + 0.1
    out = torch.zeros(100)
    normed_cumsum[(1, )](x, out, 100, BLOCK=128)
    expected = torch.cumsum(x, 0)
    torch.testing.assert_close(out, expected / expected[-1])


@triton.jit
def carry_through_memory(x, out, blocks, BLOCK: tl.constexpr):
    # A running prefix sum whose carry is re-read from the output each block.
    c = tl.arange(0, BLOCK)
    carry = 0.0
    for i in range(blocks):
        s = tl.cumsum(tl.load(x + i * BLOCK + c), 0) + carry
        tl.store(out + i * BLOCK + c, s)
        carry = tl.load(out + i * BLOCK + BLOCK - 1)


def test_carry_through_memory_in_a_loop():
    x = torch.rand(512)
    out = torch.zeros(512)
    carry_through_memory[(1, )](x, out, 4, BLOCK=128)
    torch.testing.assert_close(out, torch.cumsum(x, 0), rtol=1e-5, atol=1e-4)


@triton.jit
def many_programs(x, out, BLOCK: tl.constexpr):
    # Every program stores its block and reads it back reversed.
    base = tl.program_id(0) * BLOCK
    c = tl.arange(0, BLOCK)
    tl.store(out + base + c, tl.load(x + base + c) + 1)
    tl.store(x + base + c, tl.load(out + base + BLOCK - 1 - c))


def test_many_programs_per_pe():
    x = torch.randn(256 * 96)
    expected = (x + 1).view(96, 256).flip(1).reshape(-1)
    out = torch.zeros_like(x)
    many_programs[(96, )](x, out, BLOCK=256)
    torch.testing.assert_close(x, expected)


# --------------------------------------------------------------- the sanitizer


def test_sanitizer_catches_an_unordered_pair():
    x = torch.arange(256, dtype=torch.float32)
    out = torch.full((256, ), 100.0)
    res = torch.zeros(256)
    with pytest.raises(triton_mtia.KernelFault) as info:
        store_then_load[(1, )](x, out, res, 256, BLOCK=256, memory_order=False)
    fault = info.value
    assert fault.kind == "memory-order hazard"
    assert fault.unit == "dma_in"
    assert fault.line == _line_of(store_then_load, "y = tl.load(out + c")
    assert "dmaOut" in str(fault) and f"(line {_line_of(store_then_load, 'tl.store(out + c')})" in str(fault)
    # The simulator is still usable, and the ordered kernel right.
    store_then_load[(1, )](x, out, res, 256, BLOCK=256)
    torch.testing.assert_close(res, x * 2 + 1)


def test_without_fences_or_sanitizer_the_answer_is_stale():
    # What the fences prevent: with both off, the load sees old memory.
    triton_mtia.configure(check_memory_order=False)
    try:
        x = torch.arange(256, dtype=torch.float32)
        out = torch.full((256, ), 100.0)
        res = torch.zeros(256)
        store_then_load[(1, )](x, out, res, 256, BLOCK=256, memory_order=False)
        assert torch.equal(res, torch.full((256, ), 101.0))
    finally:
        triton_mtia.configure()


def test_distinct_tensors_cost_no_fence():
    # The loads of the next blocks run ahead of this block's store as before:
    # x and out are two allocations, so no fence is issued, and the cycles
    # are those of the kernel without ordering but for the alias tests.
    x = torch.randn(64 * 1024)
    out = torch.empty_like(x)
    cycles = {}
    for ordered in (True, False):
        copy_blocks_kernel[(8, )](x, out, x.numel(), BLOCK=1024, memory_order=ordered)
        torch.testing.assert_close(out, x * 2)
        stats = triton_mtia.last_launch()
        assert stats.stats["units"]["dma_in"]["fences"] == 0
        assert stats.stats["units"]["dma_out"]["fences"] == 0
        cycles[ordered] = stats.cycles
    assert cycles[True] <= cycles[False] * 1.01
