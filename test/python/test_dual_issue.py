"""mtia-dual-issue (docs/compiler.md, "Dual issue") gives the fabric
interface's commands to the PE's scalar core and the compute units' to the
vector core. These kernels run with the switch on and off: the results must
be the same bits, and PyTorch's; where one core's command issue was the
bound, the split is faster in simulated cycles (deterministic for one set of
tensors)."""

import pytest
import torch
import triton
import triton.language as tl

import triton_mtia
from triton_mtia.samples.layernorm import layernorm_kernel
from triton_mtia.samples.matmul import matmul_kernel


def riscv(launch):
    return launch.stats["units"]["riscv"]


@pytest.fixture
def run_both(on_and_off):
    # Off, every command is the scalar core's.
    def run(launch):
        on, on_stats, off_stats = on_and_off(launch, "dual_issue")
        assert riscv(off_stats)["core1_commands"] == 0
        return on, on_stats, off_stats

    return run


def test_layernorm_of_many_small_commands_is_faster(gen, run_both):
    # 256-column chunks: 140 commands per row, one core's issue is the bound
    # (five rows per PE).
    x = torch.randn(320, 781, generator=gen)
    w, b = torch.rand(781, generator=gen) + 0.5, torch.randn(781, generator=gen)

    def launch(**opts):
        y, mean, rstd = torch.empty_like(x), torch.empty(320), torch.empty(320)
        layernorm_kernel[(320, )](x, y, w, b, mean, rstd, x.stride(0), 781, 1e-5, BLOCK=256, **opts)
        return [y, mean, rstd]

    (y, mean, _), on, off = run_both(launch)
    torch.testing.assert_close(y, torch.nn.functional.layer_norm(x, (781, ), w, b, 1e-5), atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(mean, x.mean(1), atol=1e-5, rtol=1e-5)
    assert riscv(on)["core1_commands"] > 0
    # Measured 0.90: the SE commands and their pops left core 0.
    assert on.cycles < 0.95 * off.cycles, (on.cycles, off.cycles)


def test_small_gemm_with_short_k_steps_is_faster(gen, run_both):
    # M = 32, K = 4096 in steps of 16: a DPE command of 16 cycles per step,
    # and the scalar core would also issue both loads and compute their
    # addresses.
    a = torch.randn(32, 4096, generator=gen).half()
    b = torch.randn(4096, 128, generator=gen).half()

    def launch(**opts):
        c = torch.empty(32, 128)
        matmul_kernel[(4, )](a, b, c, 32, 128, 4096, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                             c.stride(1), BLOCK_M=32, BLOCK_N=32, BLOCK_K=16, GROUP_M=4, **opts)
        return [c]

    (c, ), on, off = run_both(launch)
    torch.testing.assert_close(c, a.float() @ b.float(), atol=0.05, rtol=1e-3)
    # Measured 0.94.
    assert on.cycles < 0.97 * off.cycles, (on.cycles, off.cycles)


@triton.jit
def branchy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Commands of both cores under a branch, in a loop, and after both: the
    # generated code must select the right core on every path.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    if pid % 2 == 0:
        x = tl.exp(x)
        tl.store(out_ptr + offs, x, mask=mask)
    acc = x
    for i in range(pid % 3):
        acc = acc * 0.5 + tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, acc + 1.0, mask=mask)


def test_commands_under_branches_and_loops(gen, run_both):
    # 200 programs on 64 PEs: each PE runs several, every one from core 0.
    n = 200 * 64 - 5
    x = torch.randn(n, generator=gen)

    def launch(**opts):
        out = torch.empty(n)
        branchy_kernel[(200, )](x, out, n, BLOCK=64, **opts)
        return [out]

    (out, ), on, _ = run_both(launch)
    expected = torch.empty(n)
    for pid in range(200):
        s = slice(pid * 64, min(n, (pid + 1) * 64))
        acc = torch.exp(x[s]) if pid % 2 == 0 else x[s]
        for _ in range(pid % 3):
            acc = acc * 0.5 + x[s]
        expected[s] = acc + 1.0
    torch.testing.assert_close(out, expected)
    assert riscv(on)["core1_commands"] > 0


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_kernel_of_dmas_only_is_left_on_one_core(gen, run_both):
    x = torch.randn(1000, generator=gen)

    def launch(**opts):
        out = torch.empty(1000)
        copy_kernel[(4, )](x, out, 1000, BLOCK=256, **opts)
        return [out]

    (out, ), on, off = run_both(launch)
    assert torch.equal(out, x)
    assert riscv(on)["core1_commands"] == 0
    assert on.cycles == off.cycles
