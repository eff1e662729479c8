"""mtia-pipeline-commands (docs/compiler.md, "Command pipelining") issues a
loop's next iteration's loads and the commands computed from them before
this iteration's tail. These kernels run with the switch on and off: the
results must be the same bits, and PyTorch's. Edge cases: loops that run
zero times or once, a partial last block, nested loops, and a loop that
stores (left alone)."""

import pytest
import torch
import triton
import triton.language as tl



@triton.jit
def dot_rows_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # One row per program: sum(x * y) over the row, a block at a time.
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK, ), tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + row * n + offs, mask=mask, other=0.0)
        y = tl.load(y_ptr + row * n + offs, mask=mask, other=0.0)
        acc += x * y
    tl.store(out_ptr + row, tl.sum(acc))


@pytest.mark.parametrize("n", [0, 50, 64, 300])
def test_loop_of_loads_and_elementwise(n, gen, on_and_off):
    x, y = torch.randn(4, n, generator=gen), torch.randn(4, n, generator=gen)

    def launch(**opts):
        out = torch.full((4, ), 7.0)
        dot_rows_kernel[(4, )](x, y, out, n, BLOCK=64, **opts)
        return [out]

    (out, ), _, _ = on_and_off(launch, "command_pipelining")
    torch.testing.assert_close(out, (x * y).sum(1), atol=1e-4, rtol=1e-4)


@triton.jit
def gather_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # A gather whose addresses the SE computes from the induction variable:
    # the address commands and the gather are the next iteration's stage 0.
    acc = tl.zeros((BLOCK, ), tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + (offs * offs) % n, mask=offs < n, other=0.0)
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)


@pytest.mark.parametrize("n", [1, 64, 300])
def test_loop_of_gathers_by_computed_addresses(n, gen, on_and_off):
    x = torch.randn(n, generator=gen)

    def launch(**opts):
        out = torch.empty(64)
        gather_sum_kernel[(1, )](x, out, n, BLOCK=64, **opts)
        return [out]

    (out, ), _, _ = on_and_off(launch, "command_pipelining")
    offs = torch.arange(triton.cdiv(n, 64) * 64)
    vals = torch.where(offs < n, x[(offs * offs) % n], 0.0)
    torch.testing.assert_close(out, vals.reshape(-1, 64).sum(0))


@triton.jit
def block_scores_kernel(q_ptr, k_ptr, out_ptr, n_outer, n_inner, D: tl.constexpr, B: tl.constexpr):
    # Nested loops, a dot in the inner one: out[j] = sum over i of
    # rowmax(q k_i^T) for the blocks of rows j * n_inner + i of k.
    offs_b = tl.arange(0, B)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + offs_b[:, None] * D + offs_d[None, :])
    for j in range(0, n_outer):
        total = tl.zeros((B, ), tl.float32)
        for i in range(0, n_inner):
            rows = (j * n_inner + i) * B + offs_b
            k = tl.load(k_ptr + rows[:, None] * D + offs_d[None, :])
            s = tl.dot(q, tl.trans(k))
            total += tl.max(s * 0.5, 1)
        tl.store(out_ptr + j * B + offs_b, total)


def test_nested_loops_with_a_dot(gen, on_and_off):
    D, B, n_outer, n_inner = 32, 16, 3, 4
    q = torch.randn(B, D, generator=gen).half()
    k = torch.randn(n_outer * n_inner * B, D, generator=gen).half()

    def launch(**opts):
        out = torch.empty(n_outer * B)
        block_scores_kernel[(1, )](q, k, out, n_outer, n_inner, D=D, B=B, **opts)
        return [out]

    (out, ), _, _ = on_and_off(launch, "command_pipelining")
    s = (q.float() @ k.float().t() * 0.5).reshape(B, n_outer, n_inner, B).amax(-1).sum(-1)
    torch.testing.assert_close(out, s.t().reshape(-1), atol=1e-3, rtol=1e-3)


@triton.jit
def prefix_rows_kernel(x_ptr, n_blocks, BLOCK: tl.constexpr):
    # Each block becomes itself plus the previous (already updated) block:
    # the next iteration's load must see this iteration's store, so the
    # loop is not pipelined.
    offs = tl.arange(0, BLOCK)
    for i in range(1, n_blocks):
        prev = tl.load(x_ptr + (i - 1) * BLOCK + offs)
        cur = tl.load(x_ptr + i * BLOCK + offs)
        tl.store(x_ptr + i * BLOCK + offs, prev * 0.5 + cur)


def test_a_loop_that_stores_reads_its_own_writes(gen, on_and_off):
    x = torch.randn(6, 32, generator=gen)

    def launch(**opts):
        y = x.clone()
        prefix_rows_kernel[(1, )](y, 6, BLOCK=32, **opts)
        return [y]

    (y, ), _, _ = on_and_off(launch, "command_pipelining")
    expected = x.clone()
    for i in range(1, 6):
        expected[i] = expected[i - 1] * 0.5 + expected[i]
    torch.testing.assert_close(y, expected)


@triton.jit
def segment_sums_kernel(values_ptr, offsets_ptr, out_ptr, sums_ptr, BLOCK: tl.constexpr):
    # A CSR program: its segment's start and end offsets (two scalar loads),
    # then a loop over the segment; its sum is stored, then loaded back,
    # which must see the store.
    seg = tl.program_id(0)
    start = tl.load(offsets_ptr + seg)
    end = tl.load(offsets_ptr + seg + 1)
    acc = tl.zeros((BLOCK, ), tl.float32)
    for i in range(start, end, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        acc += tl.load(values_ptr + offs, mask=offs < end, other=0.0)
    tl.store(sums_ptr + seg, tl.sum(acc))
    again = tl.load(sums_ptr + seg)
    tl.store(out_ptr + seg, again * 2)


def test_scalar_loads_issued_before_the_reads_before_them(gen, on_and_off):
    """mtia-issue-loads-early (the command_pipelining switch): the end offset
    is loaded before the core waits for the start, so the program is
    shorter; a load after a store still sees it."""
    lengths = torch.tensor([0, 5, 64, 65, 1, 130, 7, 0])
    offsets = torch.zeros(len(lengths) + 1, dtype=torch.int64)
    offsets[1:] = lengths.cumsum(0)
    values = torch.randn(int(offsets[-1]), generator=gen)
    n = len(lengths)

    def launch(**opts):
        out, sums = torch.empty(n, device="mtia"), torch.zeros(n, device="mtia")
        segment_sums_kernel[(n, )](values.to("mtia"), offsets.to("mtia"), out, sums, BLOCK=64, **opts)
        return [out.cpu(), sums.cpu()]

    (out, sums), on, off = on_and_off(launch, "command_pipelining")
    want = torch.stack([values[offsets[b]:offsets[b + 1]].sum() for b in range(n)])
    torch.testing.assert_close(sums, want, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(out, 2 * want, rtol=1e-5, atol=1e-5)
    assert on.cycles < off.cycles
