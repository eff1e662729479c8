"""The MTIA language extensions (`import triton_mtia.language as mtl`,
docs/extensions.md) as a kernel author meets them: real Triton kernels on
real tensors, compiled by upstream Triton's frontend, unmodified."""

import pytest
import torch
import triton
import triton.language as tl

import triton_mtia
import triton_mtia.language as mtl
from triton.language.extra import libdevice


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


# --- mtl.re_reduce: reductions over the reduction network -------------------


@triton.jit
def chain_reduce(x_ptr, out_ptr, OP: tl.constexpr, AXIS: tl.constexpr, GROUP: tl.constexpr, N: tl.constexpr):
    """Each PE loads its row of x (PE k: row k) and reduces it over chains of
    GROUP PEs along AXIS; every PE stores what it gets back."""
    row = mtl.get_pe_id(0)
    col = mtl.get_pe_id(1)
    pe = row * mtl.get_pe_grid_size(1) + col
    along = row if AXIS == 0 else col
    offs = tl.arange(0, N)
    values = tl.load(x_ptr + pe * N + offs)
    out = mtl.re_reduce(OP, values, along % GROUP == 0, along % GROUP == GROUP - 1, axis=AXIS)
    tl.store(out_ptr + pe * N + offs, out)


def _chain_reference(x, op, axis, group):
    """What each PE gets back: its chain's values up to itself, combined one
    PE after the other and rounded to the values' type at every step (as
    the RE does)."""
    combine = {"add": torch.add, "max": torch.maximum, "min": torch.minimum}[op]
    grid = x.view(8, 8, -1)
    out = torch.empty_like(grid)
    for r in range(8):
        for c in range(8):
            along = r if axis == 0 else c
            prev = (r - 1, c) if axis == 0 else (r, c - 1)
            out[r, c] = grid[r, c] if along % group == 0 else combine(out[prev], grid[r, c])
    return out.view(x.shape)


@pytest.mark.parametrize("op, axis, group, dtype", [
    ("add", 0, 8, torch.float32),  # the paper's listing: down whole PE columns
    ("add", 1, 4, torch.float16),  # along rows, two chains of 4 per row
    ("max", 0, 2, torch.int32),
    ("min", 1, 8, torch.bfloat16),
])
def test_re_reduce_gives_each_pe_its_chain_up_to_itself(op, axis, group, dtype):
    gen = torch.Generator().manual_seed(1)
    x = (torch.randn(64, 128, generator=gen) * 100).to(dtype)
    out = torch.empty_like(x)
    chain_reduce[(64, )](x, out, OP=op, AXIS=axis, GROUP=group, N=128, pid_mapping="user")
    torch.testing.assert_close(out, _chain_reference(x, op, axis, group), rtol=0, atol=0)
    assert triton_mtia.last_launch().stats["units"]["re"]["commands"] > 0


@triton.jit
def bottom_row_sum(x_ptr, out_ptr, N: tl.constexpr):
    """The paper's listing: a column sum; only the bottom PE stores."""
    row = mtl.get_pe_id(0)
    col = mtl.get_pe_id(1)
    offs = tl.arange(0, N)
    values = tl.load(x_ptr + (row * 8 + col) * N + offs)
    is_top_pe = mtl.get_pe_id(0) == 0
    is_bottom_pe = mtl.get_pe_id(0) == mtl.get_pe_grid_size(0) - 1
    output = mtl.re_reduce("add", values, is_top_pe, is_bottom_pe)
    if is_bottom_pe:
        tl.store(out_ptr + col * N + offs, output)


def test_re_reduce_the_papers_listing():
    x = torch.randn(64, 256, generator=torch.Generator().manual_seed(2))
    out = torch.zeros(8, 256)
    bottom_row_sum[(64, )](x, out, N=256, pid_mapping="user")
    torch.testing.assert_close(out, x.view(8, 8, 256).sum(0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("variant", ["re", "re_bcast", "atomic", "two_pass"])
def test_split_k_gemm_matches_torch(variant):
    """The split-K GEMM sample: partial tiles added over the RE (A loaded by
    every PE, or by one per PE row and broadcast), by atomics, or by a second
    pass; M, N and K not multiples of the blocks."""
    from triton_mtia.kernels import splitk
    gen = torch.Generator().manual_seed(3)
    a = torch.randn(40, 1000, generator=gen).half()
    b = torch.randn(1000, 300, generator=gen).half()
    if variant == "re_bcast":
        c = splitk.splitk_re(a, b, block=(32, 32, 32), broadcast_a=True)
    else:
        c = getattr(splitk, f"splitk_{variant}")(a, b, block=(32, 32, 32))
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-4, atol=1e-3)


@triton.jit
def re_reduce_misuse(x_ptr, out_ptr, HOW: tl.constexpr):
    offs = tl.arange(0, 16)
    values = tl.load(x_ptr + offs)
    row = mtl.get_pe_id(0)
    if HOW == "op":
        out = mtl.re_reduce("mul", values, row == 0, row == 7)
    elif HOW == "flags":
        out = mtl.re_reduce("add", values, offs == 0, row == 7)
    elif HOW == "dtype":
        out = mtl.re_reduce("add", values.to(tl.float64), row == 0, row == 7).to(tl.float32)
    elif HOW == "no_first":
        out = mtl.re_reduce("add", values, False, row == 7)
    else:
        out = mtl.re_reduce("add", values, row == 0, row == 7)
    tl.store(out_ptr + offs, out)


@pytest.mark.parametrize("how, message", [
    ("op", "op must be one of 'add', 'max', 'min', not 'mul'"),
    ("flags", "is_first must be a scalar condition \\(one per PE\\), not a tensor of shape \\[16\\]"),
    ("dtype", "the RE combines float32, float16, bfloat16 and integers of up to 32 bits, not fp64"),
])
def test_re_reduce_misuse_is_an_error_at_the_call(how, message):
    x, out = torch.zeros(16), torch.zeros(16)
    with pytest.raises(triton.CompilationError, match=message) as bad:
        re_reduce_misuse[(64, )](x, out, HOW=how, pid_mapping="user")
    assert "mtl.re_reduce(" in str(bad.value)  # the kernel's source line


def test_re_reduce_needs_one_program_per_pe():
    x, out = torch.zeros(16), torch.zeros(16)
    with pytest.raises(triton.CompilationError, match='launch with pid_mapping="user"'):
        re_reduce_misuse[(64, )](x, out, HOW="ok", pid_mapping="linear")


def test_re_reduce_without_a_first_pe_is_a_fault_not_a_hang():
    """Every PE waits for a tile from the north: the top row has no north
    neighbour, which the simulator reports at the command."""
    x, out = torch.zeros(16), torch.zeros(16)
    with pytest.raises(triton_mtia.KernelFault, match="no north neighbour"):
        re_reduce_misuse[(64, )](x, out, HOW="no_first", pid_mapping="user")


# --- mtl.broadcast: along a PE row or column over the NoC -------------------


@triton.jit
def line_broadcast(x_ptr, out_ptr, SOURCE: tl.constexpr, AXIS: tl.constexpr, N: tl.constexpr):
    """The PE at SOURCE along AXIS of each line loads its row of x (PE k:
    row k) and broadcasts it; every PE stores what it gets, plus one."""
    row = mtl.get_pe_id(0)
    col = mtl.get_pe_id(1)
    pe = row * mtl.get_pe_grid_size(1) + col
    is_source = (col if AXIS == 1 else row) == SOURCE
    offs = tl.arange(0, N)
    # The other PEs' masked loads move nothing.
    values = tl.load(x_ptr + pe * N + offs, mask=is_source, other=0)
    got = mtl.broadcast(values, is_source, axis=AXIS)
    tl.store(out_ptr + pe * N + offs, got + 1)


@pytest.mark.parametrize("axis, source, dtype", [(1, 0, torch.float32), (1, 5, torch.bfloat16),
                                                 (0, 7, torch.int32), (0, 2, torch.float16)])
def test_broadcast_gives_every_pe_of_the_line_the_sources_values(axis, source, dtype):
    x = (torch.randn(64, 128, generator=torch.Generator().manual_seed(4)) * 50).to(dtype)
    out = torch.empty_like(x)
    line_broadcast[(64, )](x, out, SOURCE=source, AXIS=axis, N=128, pid_mapping="user")
    grid = x.view(8, 8, 128)
    sources = grid[:, source:source + 1] if axis == 1 else grid[source:source + 1]
    torch.testing.assert_close(out, (sources.expand(8, 8, 128) + 1).reshape(64, 128), rtol=0, atol=0)
    # Only the sources' rows came from memory: the bytes through the memory
    # crossbars are 8 rows loaded and 64 stored (and a few partial lines),
    # not 64 loaded.
    row_bytes = 128 * x.element_size()
    crossbars = triton_mtia.last_launch().stats["memory"]["noc"]
    crossed = sum(xbar["bytes"] for xbar in crossbars.values())
    assert (8 + 64) * row_bytes <= crossed < (8 + 64 + 1) * row_bytes


@triton.jit
def broadcast_misuse(x_ptr, out_ptr, HOW: tl.constexpr):
    offs = tl.arange(0, 16)
    values = tl.load(x_ptr + offs)
    col = mtl.get_pe_id(1)
    if HOW == "pointers":
        out = tl.load(mtl.broadcast(x_ptr + offs, col == 0))
    elif HOW == "axis":
        out = mtl.broadcast(values, col == 0, axis=2)
    elif HOW == "no_source":
        out = mtl.broadcast(values, False)
    else:
        out = mtl.broadcast(values, col == 0)
    tl.store(out_ptr + offs, out)


@pytest.mark.parametrize("how, message", [
    ("pointers", "values must be numbers, not pointers"),
    ("axis", "axis must be the constant 0 \\(along a PE column\\) or 1 \\(along a PE row\\), not 2"),
])
def test_broadcast_misuse_is_an_error_at_the_call(how, message):
    x, out = torch.zeros(16), torch.zeros(16)
    with pytest.raises(triton.CompilationError, match=message) as bad:
        broadcast_misuse[(64, )](x, out, HOW=how, pid_mapping="user")
    assert "mtl.broadcast(" in str(bad.value)


def test_broadcast_needs_one_program_per_pe():
    x, out = torch.zeros(16), torch.zeros(16)
    with pytest.raises(triton.CompilationError, match='mtl.broadcast needs one program per PE'):
        broadcast_misuse[(64, )](x, out, HOW="ok", pid_mapping="zigzag")


def test_broadcast_without_a_source_is_a_deadlock_that_says_so():
    x, out = torch.zeros(16), torch.zeros(16)
    with pytest.raises(triton_mtia.KernelFault, match="waits for a tile broadcast along its PE row"):
        broadcast_misuse[(64, )](x, out, HOW="no_source", pid_mapping="user")


def test_layernorm_of_long_rows_over_pe_columns_matches_torch():
    """Each row split over a PE column; its mean and variance put together
    with re_reduce down the column and broadcast back up. 11 rows (columns
    0-2 take two, the rest one) of 50000 (segments of 8192, the last PE row's
    partly masked)."""
    from triton_mtia.samples.layernorm_long_rows import layernorm_long_rows
    gen = torch.Generator().manual_seed(5)
    x = torch.randn(11, 50000, generator=gen) * 3 + 1
    w, b = torch.rand(50000, generator=gen) + 0.5, torch.randn(50000, generator=gen)
    y = layernorm_long_rows(x.to("mtia"), w.to("mtia"), b.to("mtia"))
    torch.testing.assert_close(y.cpu(), torch.nn.functional.layer_norm(x, (50000, ), w, b, 1e-5))
    stats = triton_mtia.last_launch().stats["units"]
    assert stats["re"]["commands"] > 0 and stats["dma_in"]["commands"] > 0


# --- mtl.extract_slice: parts of a tile, without reloading ------------------


@triton.jit
def slices_of_a_tile(x_ptr, out_ptr, off, K: tl.constexpr):
    """out = the sum of the four 16x16 column blocks of rows [8, 24), plus
    the block at rows [off, off + 16), columns [0, 16) (a run-time offset)."""
    r = tl.arange(0, 32)
    c = tl.arange(0, K)
    A = tl.load(x_ptr + r[:, None] * K + c[None, :])
    acc = tl.zeros((16, 16), tl.float32)
    for k in tl.static_range(0, K, 16):
        acc += mtl.extract_slice(A, [8, k], [16, 16])
    acc += mtl.extract_slice(A, [off, 0], [16, 16])
    tl.store(out_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], acc)


def test_extract_slice_at_constant_and_run_time_offsets():
    x = torch.randn(32, 64, generator=torch.Generator().manual_seed(6))
    out = torch.empty(16, 16)
    compiled = slices_of_a_tile[(1, )](x, out, 3, K=64)
    torch.testing.assert_close(out, x[8:24].view(16, 4, 16).sum(1) + x[3:19, :16])
    # The constant slices are views of A's tile: one gather is left, the
    # run-time one (rows at `off`; its column slice is a view again).
    assert compiled.asm["cpp"].count("seGather(") == 1


def test_extract_slice_out_of_range():
    x, out = torch.randn(32, 64), torch.empty(16, 16)
    with pytest.raises(triton_mtia.KernelFault, match="seGather index 32 is outside \\[0, 32\\) along axis 0"):
        slices_of_a_tile[(1, )](x, out, 17, K=64)


@triton.jit
def slice_misuse(x_ptr, HOW: tl.constexpr):
    A = tl.load(x_ptr + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])
    if HOW == "past_the_end":
        s = mtl.extract_slice(A, [0, 24], [16, 16])
    elif HOW == "size":
        s = mtl.extract_slice(A, [0, 0], [16, 12])
    else:
        s = mtl.extract_slice(A, [0], [16])
    tl.store(x_ptr + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 16)[None, :], s)


@pytest.mark.parametrize("how, message", [
    ("past_the_end", "the slice \\[24, 40\\) of dimension 1 is outside the input's \\[0, 32\\)"),
    ("size", "sizes\\[1\\] must be a constant power of two, not 12"),
    ("rank", "offsets has 1 values for a tensor of rank 2"),
])
def test_extract_slice_misuse_is_an_error_at_the_call(how, message):
    with pytest.raises(triton.CompilationError, match=message) as bad:
        slice_misuse[(1, )](torch.zeros(32 * 32), HOW=how)
    assert "mtl.extract_slice(" in str(bad.value)


@pytest.mark.parametrize("reuse", [False, True])
def test_slice_reuse_gemm_matches_torch(reuse):
    """The paper's listing: A rows loaded once and sliced (reuse), or every A
    tile reloaded (the portable baseline); M and N not multiples of the
    blocks."""
    from triton_mtia.samples.slice_reuse import gemm_rows
    gen = torch.Generator().manual_seed(7)
    a = torch.randn(100, 256, generator=gen).half()
    b = torch.randn(256, 300, generator=gen).half()
    torch.testing.assert_close(gemm_rows(a, b, reuse), a.float() @ b.float(), rtol=1e-4, atol=1e-3)


# --- placement: mtl.core_hint, mtl.unit_hint, the libdevice_unit option -----


@triton.jit
def exp_twice(x_ptr, out_ptr, N: tl.constexpr, HINTS: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    if HINTS:
        e = mtl.unit_hint(libdevice.exp(x), "vector")
        y = mtl.core_hint(e * 2.0, "scalar")
    else:
        y = libdevice.exp(x) * 2.0
    tl.store(out_ptr + offs, y)


def test_placement_hints_move_commands_not_results():
    x = torch.randn(1024, generator=torch.Generator().manual_seed(8))
    plain, hinted = torch.empty(1024), torch.empty(1024)
    k_plain = exp_twice[(1, )](x, plain, N=1024, HINTS=False)
    k_hinted = exp_twice[(1, )](x, hinted, N=1024, HINTS=True)
    torch.testing.assert_close(plain, torch.exp(x) * 2)
    torch.testing.assert_close(hinted, torch.exp(x) * 2)
    assert "se(ctx, SeOp::Exp," in k_plain.asm["cpp"]
    cpp = k_hinted.asm["cpp"]
    assert "vec(ctx, SeOp::Exp," in cpp  # unit_hint: on the vector core
    mul = cpp.index("SeOp::Mul")  # core_hint: issued by the scalar core
    assert cpp.rfind("onCore(ctx, 0)", 0, mul) > cpp.rfind("onCore(ctx, 1)", 0, mul)


@pytest.mark.parametrize("unit, exp_on", [("auto", "se(ctx, SeOp::Exp,"), ("se", "se(ctx, SeOp::Exp,"),
                                          ("vec", "{SeOp::Exp,")])
def test_libdevice_unit_option(unit, exp_on):
    x = torch.randn(1024, generator=torch.Generator().manual_seed(9))
    out = torch.empty(1024)
    compiled = exp_twice[(1, )](x, out, N=1024, HINTS=False, libdevice_unit=unit)
    torch.testing.assert_close(out, torch.exp(x) * 2)
    assert exp_on in compiled.asm["cpp"]


def test_libdevice_unit_option_is_checked():
    with pytest.raises(ValueError, match="libdevice_unit must be one of auto, se, vec, not 'gpu'"):
        exp_twice[(1, )](torch.zeros(16), torch.zeros(16), N=16, HINTS=False, libdevice_unit="gpu")


@triton.jit
def hint_misuse(x_ptr, HOW: tl.constexpr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    if HOW == "erfc_on_se":
        y = mtl.unit_hint(libdevice.erfc(x), "se")
    elif HOW == "core":
        y = mtl.core_hint(x + 1, "dsp")
    else:
        y = mtl.unit_hint(tl.full((16, ), 1.0, tl.float32), "se")
    tl.store(x_ptr + offs, y)


@pytest.mark.parametrize("how, message", [
    # Found by our compiler (triton_mtia.CompilationError), at the line.
    ("erfc_on_se", "the SE has no lookup table for Erfc; it runs on the vector core only"),
    ("constant", "unit_hint applies to a tensor computed by a command just before it"),
    # Found by the builtin (Triton's CompilationError), at the line.
    ("core", 'core must be "scalar" or "vector" \\(0 or 1\\), not \'dsp\''),
])
def test_hint_misuse_is_an_error_at_the_call(how, message):
    with pytest.raises((triton.CompilationError, triton_mtia.CompilationError), match=message) as bad:
        hint_misuse[(1, )](torch.zeros(16), HOW=how)
    assert "_hint(" in str(bad.value)


# --- struct types: @triton_mtia.struct_type, TensorView ---------------------


@triton.jit
def scale_view(src, dst, alpha, BLOCK: tl.constexpr):
    """dst = alpha * src, two TensorViews of any strides."""
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    for c0 in range(0, src.shape[1], BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        p, m = mtl.tensor_view_ptrs_2d(src, rows, cols)
        q, _ = mtl.tensor_view_ptrs_2d(dst, rows, cols)
        tl.store(q, tl.load(p, mask=m) * alpha, mask=m)


def test_a_kernel_takes_tensor_views():
    x = torch.randn(50, 70, generator=torch.Generator().manual_seed(10)).t()  # 70x50, strides (1, 70)
    y = torch.empty(70, 50)
    scale_view[(triton.cdiv(70, 32), )](triton_mtia.tensor_view(x), triton_mtia.tensor_view(y), 2.5, BLOCK=32)
    torch.testing.assert_close(y, x * 2.5)


def test_tensor_view_is_the_c_structure():
    import ctypes
    x = torch.zeros(3, 4, 5)
    view = triton_mtia.tensor_view(x)
    c = view.to_ctypes()
    assert ctypes.sizeof(c) == 80  # int64[4], int64[4], void*, int32 (+ padding)
    assert list(c.shape) == [3, 4, 5, 1] and list(c.stride) == [20, 5, 1, 0]
    assert c.base == x.data_ptr() and c.ndim == 3
    back = triton_mtia.TensorView.from_ctypes(c)
    assert back.shape == (3, 4, 5, 1) and back.base == x.data_ptr()


import ctypes  # noqa: E402  (the struct types below are module-level, as a user's would be)


@triton_mtia.struct_type
class Range(ctypes.Structure):
    _fields_ = [("lo", ctypes.c_int32), ("hi", ctypes.c_int32)]


@triton_mtia.struct_type
class Job(ctypes.Structure):
    _fields_ = [("rows", Range.ctype), ("data", ctypes.POINTER(ctypes.c_float)), ("factor", ctypes.c_float),
                ("bias", ctypes.c_int32 * 2)]


@triton.jit
def in_range(r, offs):
    return (offs >= r.lo) & (offs < r.hi)


@triton.jit
def run_job(job, out):
    offs = tl.arange(0, 64)
    m = in_range(job.rows, offs)  # a nested struct, passed to a helper
    tl.store(out + offs, tl.load(job.data + offs, mask=m, other=0.0) * job.factor + job.bias[1], mask=m)


def test_nested_structs_arrays_and_pointers():
    data, out = torch.arange(64.0), torch.zeros(64)
    run_job[(1, )](Job(rows=Range(3, 40), data=data, factor=2.0, bias=(0, 7)), out)
    expected = torch.zeros(64)
    expected[3:40] = data[3:40] * 2 + 7
    torch.testing.assert_close(out, expected)


def test_struct_type_misuse_is_an_error_that_names_it():
    with pytest.raises(TypeError, match="decorates a ctypes.Structure subclass"):
        triton_mtia.struct_type(int)

    class Text(ctypes.Structure):
        _fields_ = [("name", ctypes.c_wchar_p)]

    with pytest.raises(TypeError, match="Text.name: fields of type c_wchar_p are not supported"):
        triton_mtia.struct_type(Text)

    class Plain(ctypes.Structure):
        _fields_ = [("x", ctypes.c_int32)]

    class Holder(ctypes.Structure):
        _fields_ = [("inner", Plain)]

    with pytest.raises(TypeError, match="nested structure Plain must be decorated"):
        triton_mtia.struct_type(Holder)
    with pytest.raises(TypeError, match="Job has no field 'scale'"):
        Job(scale=2.0)
    with pytest.raises(ValueError, match="Job.bias holds 2 values, got 3"):
        Job(bias=(1, 2, 3))


@triton.jit
def read_missing_field(job, out):
    tl.store(out, job.scale)


def test_a_field_that_does_not_exist_is_a_compile_error_at_the_line():
    with pytest.raises(triton.CompilationError, match="has no attribute scale") as bad:
        read_missing_field[(1, )](Job(data=torch.zeros(4)), torch.zeros(1))
    assert "tl.store(out, job.scale)" in str(bad.value)


def test_the_extensions_example_runs(capsys):
    """examples/language_extensions.py, as a user runs it (each step checks
    itself against PyTorch)."""
    import runpy
    from pathlib import Path
    example = Path(__file__).resolve().parents[2] / "examples" / "language_extensions.py"
    runpy.run_path(str(example), run_name="__main__")
    out = capsys.readouterr().out
    assert "column sum over the RE" in out and "TensorView" in out
