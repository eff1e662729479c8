"""mtia-fuse-vector-loops (docs/compiler.md, "Fused vector loops"): a chain
of commands on the RISC-V vector core runs as one loop, its intermediates in
registers. These kernels run with the switch on and off: the results must be
the same bits, and PyTorch's; the vector core must issue fewer commands and
be busy for less time where a chain folds, and the same where a result has
another reader."""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

import triton_mtia


def vec_stats(stats):
    vec = stats.stats["units"]["vec"]
    return vec["commands"], vec["busy_cycles"]


@triton.jit
def chain_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # log1p and atan have no SE table: both run on the vector core.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask, other=0.0)
    tl.store(y_ptr + offs, libdevice.atan(libdevice.log1p(x)), mask)


def test_chain_is_one_loop(gen, on_and_off):
    x = torch.rand(4096, generator=gen) * 10

    def launch(**opts):
        y = torch.empty_like(x)
        chain_kernel[(4, )](x, y, x.numel(), BLOCK=1024, **opts)
        return [y]

    (y, ), on, off = on_and_off(launch, "vector_loop_fusion")
    torch.testing.assert_close(y, torch.atan(torch.log1p(x)))
    (on_cmds, on_busy), (off_cmds, off_busy) = vec_stats(on), vec_stats(off)
    assert (on_cmds, off_cmds) == (4, 8)
    # Per strip of 16 fp32: log1p and atan each a load and a store on the
    # port (2 + 2 cycles) against the loop's load, two passes and a store
    # (2 cycles): half the time.
    assert 2 * on_busy == off_busy


@triton.jit
def tree_kernel(x_ptr, z_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    z = tl.load(z_ptr + offs)
    tl.store(y_ptr + offs, libdevice.atan2(libdevice.log1p(x), libdevice.expm1(z)))


def test_tree_of_two_inputs(gen, on_and_off):
    x, z = torch.rand(2048, generator=gen), torch.randn(2048, generator=gen)

    def launch(**opts):
        y = torch.empty_like(x)
        tree_kernel[(2, )](x, z, y, BLOCK=1024, **opts)
        return [y]

    (y, ), on, off = on_and_off(launch, "vector_loop_fusion")
    torch.testing.assert_close(y, torch.atan2(torch.log1p(x), torch.expm1(z)))
    assert vec_stats(on)[0] == 2 and vec_stats(off)[0] == 6


@triton.jit
def rows_kernel(x_ptr, y_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    # fp16 in and out, the chain in f32 between two casts, over the columns
    # of each row in a loop whose last block is masked.
    row = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask, other=0.0).to(tl.float32)
        y = libdevice.asinh(libdevice.log1p(x * x))
        tl.store(y_ptr + row * n_cols + cols, y.to(tl.float16), mask)


def test_masked_rows_in_a_loop(gen, on_and_off):
    x = torch.randn(3, 700, generator=gen).half()

    def launch(**opts):
        y = torch.empty_like(x)
        rows_kernel[(3, )](x, y, 3, 700, BLOCK=256, **opts)
        return [y]

    (y, ), on, off = on_and_off(launch, "vector_loop_fusion")
    xf = x.float()
    torch.testing.assert_close(y, torch.asinh(torch.log1p(xf * xf)).half())
    assert vec_stats(on)[0] < vec_stats(off)[0]
    assert vec_stats(on)[1] < vec_stats(off)[1]


@triton.jit
def two_readers_kernel(x_ptr, a_ptr, b_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = libdevice.log1p(tl.load(x_ptr + offs))
    tl.store(a_ptr + offs, a)
    tl.store(b_ptr + offs, libdevice.atan(a))


def test_a_stored_result_stays_a_tile(gen, on_and_off):
    x = torch.rand(512, generator=gen)

    def launch(**opts):
        a, b = torch.empty_like(x), torch.empty_like(x)
        two_readers_kernel[(1, )](x, a, b, BLOCK=512, **opts)
        return [a, b]

    (a, b), on, off = on_and_off(launch, "vector_loop_fusion")
    torch.testing.assert_close(a, torch.log1p(x))
    torch.testing.assert_close(b, torch.atan(torch.log1p(x)))
    assert vec_stats(on) == vec_stats(off)


def test_setting_switches_it_off(gen):
    x = torch.rand(1024, generator=gen)
    previous = triton_mtia.settings.vector_loop_fusion
    try:
        triton_mtia.settings.vector_loop_fusion = False
        y = torch.empty_like(x)
        chain_kernel[(1, )](x, y, x.numel(), BLOCK=1024)
        assert vec_stats(triton_mtia.last_launch())[0] == 2
    finally:
        triton_mtia.settings.vector_loop_fusion = previous
    torch.testing.assert_close(y, torch.atan(torch.log1p(x)))
