"""The MTIA language extensions (`import triton_mtia.language as mtl`,
docs/extensions.md) as a kernel author meets them: real Triton kernels on
real tensors, compiled by upstream Triton's frontend, unmodified."""

import pytest
import torch
import triton
import triton.language as tl

import triton_mtia
import triton_mtia.language as mtl


@triton.jit
def pe_facts(out_ptr):
    """out[4 * pid: 4 * pid + 4] = the PE's row and column, the grid's rows
    and columns."""
    pid = tl.program_id(0)
    tl.store(out_ptr + 4 * pid, mtl.get_pe_id(0))
    tl.store(out_ptr + 4 * pid + 1, mtl.get_pe_id(1))
    tl.store(out_ptr + 4 * pid + 2, mtl.get_pe_grid_size(0))
    tl.store(out_ptr + 4 * pid + 3, mtl.get_pe_grid_size(1))


def test_user_mapping_runs_program_k_on_pe_k():
    """pid_mapping="user": one program per PE, program k on PE k (row-major
    in the 8x8 grid), so the PE ids are the author's mapping."""
    out = torch.full((64 * 4, ), -1, dtype=torch.int32)
    pe_facts[(64, )](out, pid_mapping="user")
    expected = torch.tensor([[k // 8, k % 8, 8, 8] for k in range(64)], dtype=torch.int32).flatten()
    torch.testing.assert_close(out, expected)
    assert triton_mtia.last_launch().pes_used == 64


def test_pe_ids_under_the_other_mappings_name_the_pe_that_runs_the_program():
    """128 programs, linear: PE k runs programs 2k and 2k + 1."""
    out = torch.full((128 * 4, ), -1, dtype=torch.int32)
    pe_facts[(128, )](out, pid_mapping="linear")
    pes = out.view(128, 4)
    torch.testing.assert_close(pes[:, 0] * 8 + pes[:, 1], torch.arange(128, dtype=torch.int32) // 2)


def test_user_mapping_needs_one_program_per_pe():
    out = torch.zeros(63 * 4, dtype=torch.int32)
    with pytest.raises(triton_mtia.KernelFault, match="grid must have 64 programs \\(8x8 PEs\\), not 63"):
        pe_facts[(63, )](out, pid_mapping="user")


@triton.jit
def pe_of_axis(out_ptr, AXIS: tl.constexpr):
    tl.store(out_ptr, mtl.get_pe_id(AXIS))


@triton.jit
def pe_of_runtime_axis(out_ptr, axis):
    tl.store(out_ptr, mtl.get_pe_id(axis))


def test_axis_must_be_a_constant_0_or_1():
    out = torch.zeros(1, dtype=torch.int32)
    pe_of_axis[(1, )](out, AXIS=1)  # a constexpr is a constant
    with pytest.raises(triton.CompilationError, match="axis must be the constant 0 .* or 1 .*not 2") as bad:
        pe_of_axis[(1, )](out, AXIS=2)
    assert "mtl.get_pe_id(AXIS)" in str(bad.value)  # the kernel's source line
    # (not 1: Triton specializes an integer argument of 1 to a constant)
    with pytest.raises(triton.CompilationError, match="axis must be the constant 0"):
        pe_of_runtime_axis[(1, )](out, 0)


def test_outside_a_kernel_the_error_says_what_the_function_is():
    with pytest.raises(RuntimeError, match="mtl.get_pe_id is a language extension of the MTIA backend"):
        mtl.get_pe_id(0)
