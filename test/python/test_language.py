"""The rest of the Triton language on the simulated PE, against PyTorch (or a
numpy Philox): atomics across programs and a spin lock (layernorm backward),
tl.rand / tl.randint, gathers (embedding lookup), scans, argmax, histogram,
tl.gather, casts, early returns, noinline calls, debug_barrier, device print
and device assert, and the DMA report."""

from typing import Any, NamedTuple

import numpy as np
import pytest
import torch
import triton
import triton.language as tl

import triton_mtia
from triton_mtia.errors import KernelFault


# --- atomics ----------------------------------------------------------------

@triton.jit
def atomic_add_kernel(x_ptr, out_ptr, cnt_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    tl.atomic_add(out_ptr + offs % 8, x, mask=m)
    tl.atomic_max(out_ptr + 8 + offs % 8, x, mask=m)
    tl.atomic_add(cnt_ptr, 1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_atomic_add_and_max_across_programs(dtype, gen):
    n = 1000
    x = (torch.randn(n, generator=gen) * 10).to(dtype)
    out = torch.zeros(16, dtype=dtype)
    out[8:] = -1000
    cnt = torch.zeros(1, dtype=torch.int32)
    atomic_add_kernel[(triton.cdiv(n, 128), )](x, out, cnt, n, BLOCK=128)
    idx = torch.arange(n) % 8
    ref_sum = torch.zeros(8, dtype=torch.float64).index_add_(0, idx, x.double())
    ref_max = torch.full((8, ), -1000, dtype=dtype).scatter_reduce(0, idx, x, "amax")
    torch.testing.assert_close(out[:8].double(), ref_sum, rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(out[8:], ref_max)
    assert cnt.item() == triton.cdiv(n, 128)


@triton.jit
def layernorm_bwd_dx_fused(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N,
                           GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    # GPU style: each row adds its dw/db partials into one of GROUP_SIZE_M
    # buffers, serialized by a spin lock per buffer.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = tl.where(mask, xhat, 0.)
    wdy = tl.where(mask, wdy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = (dy).to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.atomic_xchg(Lock, 0)


def test_layernorm_backward_with_spin_lock(gen):
    M, N, GROUP = 37, 100, 4
    x = torch.randn(M, N, generator=gen)
    w = torch.randn(N, generator=gen)
    b = torch.randn(N, generator=gen)
    dy = torch.randn(M, N, generator=gen)
    xr = x.clone().requires_grad_()
    wr = w.clone().requires_grad_()
    br = b.clone().requires_grad_()
    y = torch.nn.functional.layer_norm(xr, (N, ), wr, br, eps=1e-5)
    y.backward(dy)
    mean = x.mean(1)
    rstd = 1 / torch.sqrt(x.var(1, unbiased=False) + 1e-5)
    dx = torch.empty_like(x)
    dw_part = torch.zeros(GROUP, N)
    db_part = torch.zeros(GROUP, N)
    locks = torch.zeros(2 * GROUP, dtype=torch.int32)
    layernorm_bwd_dx_fused[(M, )](dx, dy, dw_part, db_part, x, w, mean, rstd, locks, x.stride(0), N,
                                  GROUP_SIZE_M=GROUP, BLOCK_SIZE_N=128)
    torch.testing.assert_close(dx, xr.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(dw_part.sum(0), wr.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(db_part.sum(0), br.grad, rtol=1e-4, atol=1e-4)
    assert locks[:GROUP].tolist() == [0] * GROUP  # every lock released


# --- random numbers -----------------------------------------------------------

def philox_ref(seed, offsets, rounds=10):
    """Philox 4x32 as Triton defines tl.randint (first of the four words)."""
    mask = np.uint64(0xFFFFFFFF)
    c0 = offsets.astype(np.uint64) & mask
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0 = np.uint64(seed & 0xFFFFFFFF)
    k1 = np.uint64((seed >> 32) & 0xFFFFFFFF)
    ra, rb = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for _ in range(rounds):
        a, c = c0, c2
        c0 = (((rb * c) >> np.uint64(32)) ^ c1 ^ k0) & mask
        c2 = (((ra * a) >> np.uint64(32)) ^ c3 ^ k1) & mask
        c1 = (rb * c) & mask
        c3 = (ra * a) & mask
        k0 = (k0 + np.uint64(0x9E3779B9)) & mask
        k1 = (k1 + np.uint64(0xBB67AE85)) & mask
    return c0.astype(np.uint32).view(np.int32)


@triton.jit
def dropout_kernel(x_ptr, out_ptr, bits_ptr, seed, p, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    r = tl.rand(seed, offs)
    keep = r > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=m)
    tl.store(bits_ptr + offs, tl.randint(seed, offs), mask=m)


def test_low_memory_dropout_matches_philox(gen):
    n, seed, p = 1000, 1234, 0.3
    x = torch.randn(n, generator=gen)
    out = torch.empty_like(x)
    bits = torch.empty(n, dtype=torch.int32)
    dropout_kernel[(triton.cdiv(n, 256), )](x, out, bits, seed, p, n, BLOCK=256)
    ref_bits = philox_ref(seed, np.arange(n))
    np.testing.assert_array_equal(bits.numpy(), ref_bits)
    u = np.where(ref_bits < 0, ~ref_bits, ref_bits).astype(np.float32) * np.float32(4.6566127342e-10)
    ref = torch.where(torch.from_numpy(u) > p, x / (1 - p), torch.zeros_like(x))
    torch.testing.assert_close(out, ref)


# --- gathers, scans, reductions ---------------------------------------------------

@triton.jit
def embedding_kernel(idx_ptr, table_ptr, out_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = rows < n
    idx = tl.load(idx_ptr + rows, mask=m, other=0)
    cols = tl.arange(0, D)
    v = tl.load(table_ptr + idx[:, None] * D + cols[None, :], mask=m[:, None])
    tl.store(out_ptr + rows[:, None] * D + cols[None, :], v, mask=m[:, None])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_embedding_lookup(dtype, gen):
    vocab, D, n = 50, 16, 77
    table = torch.randn(vocab, D, generator=gen).to(dtype)
    idx = torch.randint(0, vocab, (n, ), generator=gen, dtype=torch.int32)
    out = torch.empty(n, D, dtype=dtype)
    embedding_kernel[(triton.cdiv(n, 32), )](idx, table, out, n, D=D, BLOCK=32)
    torch.testing.assert_close(out, table[idx.long()])


@triton.jit
def scan_reduce_kernel(x_ptr, cum_ptr, rcum_ptr, prod_ptr, idx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    tl.store(cum_ptr + offs, tl.cumsum(x, 0), mask=m)
    tl.store(rcum_ptr + offs, tl.cumsum(x, 0, reverse=True), mask=m)
    tl.store(prod_ptr + offs, tl.cumprod(tl.where(m, x, 1), 0), mask=m)
    xm = tl.where(m, x, float("-inf"))
    tl.store(idx_ptr, tl.argmax(xm, 0))
    tl.store(idx_ptr + 1, tl.argmin(tl.where(m, x, float("inf")), 0))
    v, i = tl.max(xm, 0, return_indices=True)
    tl.store(idx_ptr + 2, i)


def test_cumsum_cumprod_argmax(gen):
    n = 100
    x = torch.randn(n, generator=gen) * 0.5 + 1
    cum, rcum, prod = torch.empty(n), torch.empty(n), torch.empty(n)
    idx = torch.empty(3, dtype=torch.int32)
    scan_reduce_kernel[(1, )](x, cum, rcum, prod, idx, n, BLOCK=128)
    torch.testing.assert_close(cum, torch.cumsum(x, 0), rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(rcum, torch.flip(torch.cumsum(torch.flip(x, [0]), 0), [0]), rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(prod, torch.cumprod(x, 0), rtol=1e-4, atol=1e-4)
    assert idx.tolist() == [x.argmax().item(), x.argmin().item(), x.argmax().item()]


@triton.jit
def argmax_rows_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(out_ptr + r, tl.argmax(x, 1))
    tl.store(out_ptr + M + c, tl.argmin(x, 0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_argmax_2d(dtype, gen):
    M, N = 8, 32
    x = (torch.randn(M, N, generator=gen) * 100).to(dtype)
    out = torch.empty(M + N, dtype=torch.int32)
    argmax_rows_kernel[(1, )](x, out, M=M, N=N)
    assert out[:M].tolist() == x.argmax(1).tolist()
    assert out[M:].tolist() == x.argmin(0).tolist()


@triton.jit
def histogram_gather_kernel(x_ptr, h_ptr, g_ptr, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(h_ptr + tl.arange(0, BINS), tl.histogram(x, BINS))
    src = x.to(tl.float32) * 2
    tl.store(g_ptr + offs, tl.gather(src, BLOCK - 1 - offs, 0))


def test_histogram_and_gather(gen):
    x = torch.randint(0, 16, (256, ), generator=gen, dtype=torch.int32)
    h = torch.empty(16, dtype=torch.int32)
    g = torch.empty(256)
    histogram_gather_kernel[(1, )](x, h, g, BLOCK=256, BINS=16)
    assert h.tolist() == torch.bincount(x, minlength=16).tolist()
    torch.testing.assert_close(g, torch.flip(x.float() * 2, [0]))


# --- casts --------------------------------------------------------------------

@triton.jit
def cast_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + 0 * n + offs, x.to(tl.float8e4nv).to(tl.float32), mask=m)
    tl.store(out_ptr + 1 * n + offs, x.to(tl.float8e5).to(tl.float32), mask=m)
    tl.store(out_ptr + 2 * n + offs, tl.abs(x).to(tl.uint32).to(tl.float32), mask=m)
    tl.store(out_ptr + 3 * n + offs, x.to(tl.int32, bitcast=True).to(tl.float32, bitcast=True), mask=m)
    tl.store(out_ptr + 4 * n + offs, x.to(tl.bfloat16).to(tl.float16).to(tl.float64).to(tl.float32), mask=m)
    tl.store(out_ptr + 5 * n + offs, x.to(tl.int8).to(tl.int64).to(tl.uint8).to(tl.float32), mask=m)


def test_casts_round_trip(gen):
    n = 100
    x = torch.randn(n, generator=gen) * 20
    out = torch.empty(6 * n)
    cast_kernel[(1, )](x, out, n, BLOCK=128)
    o = out.view(6, n)
    torch.testing.assert_close(o[0], x.to(torch.float8_e4m3fn).float())
    torch.testing.assert_close(o[1], x.to(torch.float8_e5m2).float())
    torch.testing.assert_close(o[2], x.abs().to(torch.int64).float())
    torch.testing.assert_close(o[3], x)
    torch.testing.assert_close(o[4], x.to(torch.bfloat16).to(torch.float16).double().float())
    torch.testing.assert_close(o[5], x.to(torch.int8).to(torch.int64).to(torch.uint8).float())


# --- control flow, calls, debugging -------------------------------------------------

@triton.jit(noinline=True)
def scale_of(pid, k):
    return pid * k + 1


@triton.jit
def early_return_kernel(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.debug_barrier()
    tl.store(x_ptr + offs, x * scale_of(pid, 2))


def test_early_return_noinline_call_and_barrier():
    x = torch.ones(4 * 64)
    early_return_kernel[(6, )](x, 4 * 64, BLOCK=64)  # programs 4 and 5 return early
    ref = torch.cat([torch.full((64, ), float(2 * p + 1)) for p in range(4)])
    torch.testing.assert_close(x, ref)


@triton.jit
def print_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_print("x=", x)
    tl.device_print("pid=", tl.program_id(0))


def test_device_print(capfd):
    x = torch.tensor([1.5, -2.0, 3.25, 4.0])
    print_kernel[(1, )](x, BLOCK=4)
    out = capfd.readouterr().out
    for v in ("1.5", "-2", "3.25", "4"):
        assert v in out
    assert "x=" in out and "pid=" in out


@triton.jit
def assert_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_assert(x > 0, "x must be positive")


def test_device_assert_raises_with_message():
    x = torch.tensor([1.0, 2.0, -3.0, 4.0])
    with pytest.raises(Exception, match="x must be positive"):
        assert_kernel[(1, )](x, BLOCK=4, debug=True)
    assert_kernel[(1, )](x.abs(), BLOCK=4, debug=True)  # passes


# --- porting aids -------------------------------------------------------------------

@triton.jit
def lookup_kernel(idx_ptr, table_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    i = tl.load(idx_ptr + offs, mask=m)
    tl.store(out_ptr + offs, tl.load(table_ptr + i, mask=m), mask=m)


def test_dma_report_names_the_gather(monkeypatch):
    monkeypatch.setattr(triton_mtia.settings, "dma_report", True)
    idx = torch.tensor([3, 1, 2], dtype=torch.int32)
    table = torch.arange(8, dtype=torch.float32)
    out = torch.empty(3)
    k = lookup_kernel[(1, )](idx, table, out, 3, BLOCK=4)
    report = k.metadata.dma_report
    assert len(report) == 1 and "load is not a DMA" in report[0] and "test_language.py" in report[0]
    assert "gather by address" in report[0]  # also printed to stderr when compiled
    torch.testing.assert_close(out, table[idx.long()])


@triton.jit
def masked_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)  # no `other`: relies on zeros
    tl.store(out_ptr, tl.sum(x, 0))


def test_masked_lanes_are_zero_and_poisoned_in_check_mode():
    x = torch.ones(5)
    out = torch.empty(1)
    masked_sum_kernel[(1, )](x, out, 5, BLOCK=8)
    assert out.item() == 5.0  # documented: masked-out lanes are zero
    # The check mode, as a launch option (the setting is its default for
    # kernels compiled afterwards; this specialization is already compiled).
    masked_sum_kernel[(1, )](x, out, 5, BLOCK=8, poison_masked_loads=True)
    assert torch.isnan(out).item()  # it exposes the reliance on zeros


@triton.jit
def assume_kernel(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    tl.assume(stride > 0)
    tl.assume(n % BLOCK == 0)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs * stride) + 1)


def test_assume_is_a_hint(gen):
    """tl.assume (Inductor's templates use it) changes nothing in the result."""
    x = torch.randn(512, generator=gen)
    out = torch.empty(256)
    k = assume_kernel[(4, )](x, out, 256, 2, BLOCK=64)
    torch.testing.assert_close(out, x[::2] + 1)
    # The facts reach the C++ compiler of the core's code, and LLVM on the
    # LLVM IR that the same lowering writes (asm['llir'], on the C++ path too).
    assert k.asm["cpp"].count("__builtin_assume(") == 2
    assert k.asm["llir"].count("call void @llvm.assume(") == 2


@pytest.mark.parametrize("codegen", ["cpp", "llvm"])
def test_every_compiled_kernel_has_its_llvm_ir(codegen, gen):
    x = torch.randn(512, generator=gen)
    out = torch.empty(256)
    k = assume_kernel[(4, )](x, out, 256, 2, BLOCK=64, codegen=codegen)
    assert "define void @mtia_kernel_assume_kernel(" in k.asm["llir"]
    assert ("cpp" in k.asm) == (codegen == "cpp")


# --- one element as a scalar, pointers as data, named tuples ----------------

@triton.jit
def pair_kernel(x_ptr, out_ptr):
    first, second = tl.split(tl.load(x_ptr + tl.arange(0, 2)))  # a 2-element split gives scalars
    tl.static_assert(first.shape == [])
    total = tl.sum(tl.load(x_ptr + tl.arange(0, 4)).reshape(4, 1), 0).item()
    tl.store(out_ptr, first * 100 + second)
    tl.store(out_ptr + 1, total)
    tl.store(out_ptr + 2, tl.reshape(tl.load(x_ptr + 3 + tl.arange(0, 1)), ()))


def test_one_element_tensors_become_scalars():
    """tl.split of two elements, .item() and a reshape to no dimensions
    (tt.unsplat) were unsupported ops."""
    x = torch.tensor([3.0, 4.0, 5.0, 6.0])
    out = torch.zeros(3)
    pair_kernel[(1, )](x, out)
    assert out.tolist() == [304.0, 18.0, 6.0]


@triton.jit
def pick_address_kernel(choose_ptr, a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    # Addresses stored as data in int64 tensors, made pointers and selected.
    a = tl.load(a_ptr + offs, mask=m).to(tl.pointer_type(tl.int32))
    b = tl.load(b_ptr + offs, mask=m).to(tl.pointer_type(tl.int32))
    picked = tl.where(tl.load(choose_ptr + offs, mask=m) != 0, a, b)
    tl.store(out_ptr + offs, picked.to(tl.int64), mask=m)


def test_where_selects_pointer_tensors_read_as_data(gen):
    """A select of pointer tensors whose result is data (stored as int64)
    crashed the compiler: its tile had a pointer element type."""
    n = 100
    choose = torch.randint(0, 2, (n, ), dtype=torch.int32, generator=gen)
    a = torch.randint(-2**40, 2**40, (n, ), generator=gen)
    b = torch.randint(-2**40, 2**40, (n, ), generator=gen)
    out = torch.zeros(n, dtype=torch.int64)
    pick_address_kernel[(1, )](choose, a, b, out, n, BLOCK=128)
    assert torch.equal(out, torch.where(choose != 0, a, b))


class Strided(NamedTuple):
    base: Any
    shape: tuple
    strides: tuple


class Op(NamedTuple):
    fn: tl.constexpr
    extra: tuple


@triton.jit
def _scale(x, factor_ptr):
    return x * tl.load(factor_ptr)


@triton.jit
def _window_mask(t, R: tl.constexpr, C: tl.constexpr):
    return (tl.arange(0, R)[:, None] < t.shape[0]) & (tl.arange(0, C)[None, :] < t.shape[1])


@triton.jit
def named_tuple_kernel(op, _Src, dst, R: tl.constexpr, C: tl.constexpr):
    # A parameter named with a leading underscore and a capital (`_Src.base`
    # names a C++ variable `_Src_base`, reserved in C++) sent the C++
    # emitter's name picking into an endless loop.
    rows, cols = tl.arange(0, R)[:, None], tl.arange(0, C)[None, :]
    x = tl.load(_Src.base + rows * _Src.strides[0] + cols * _Src.strides[1], mask=_window_mask(_Src, R, C), other=0)
    y = op.fn(x, *op.extra)
    tl.store(dst.base + rows * dst.strides[0] + cols * dst.strides[1], y, mask=_window_mask(dst, R, C))


def test_named_tuples_carrying_a_function_and_reserved_names(gen):
    src = torch.randn(24, 20, generator=gen)
    dst = torch.zeros(10, 12)
    factor = torch.tensor([2.5])
    named_tuple_kernel[(1, )](Op(_scale, (factor, )), Strided(src, src.shape, src.stride()),
                              Strided(dst, dst.shape, dst.stride()), R=32, C=32)
    torch.testing.assert_close(dst, src[:10, :12] * 2.5)


@triton.jit
def scalar_bf16_kernel(out_ptr, v, w):
    offs = tl.arange(0, 4)
    tl.store(out_ptr + offs, tl.zeros([4], tl.bfloat16) + v.to(tl.bfloat16) * w.to(tl.bfloat16))


def test_scalar_bf16_rounding():
    """Scalar code that rounds to bf16 (the kernel carries the compiler
    runtime's conversion, which GCC 12's libgcc lacks) rounds to nearest
    even, like torch."""
    out = torch.empty(4, dtype=torch.bfloat16)
    v, w = 1 + 2 ** -8 + 2 ** -20, 3.0  # v rounds up to 1 + 2^-7
    scalar_bf16_kernel[(1, )](out, v, w)
    expected = torch.tensor(v).to(torch.bfloat16) * torch.tensor(w).to(torch.bfloat16)
    assert torch.equal(out, expected.expand(4))


@triton.jit
def masked_scalar_load_kernel(x_ptr, out_ptr, n):
    i = tl.program_id(0)
    v = tl.load(x_ptr + i, mask=i < n, other=-1.0)
    w = tl.load(x_ptr + i, mask=i < n)  # no `other`: zero
    tl.store(out_ptr + i, v + w)


def test_masked_scalar_load_reads_padding_and_no_memory():
    """A masked-out scalar load (Inductor's bucketize has them) gives `other`
    or zero and does not touch memory: x has 5 elements, programs 5..7 would
    read past it."""
    x = torch.arange(1.0, 6.0)
    out = torch.empty(8)
    masked_scalar_load_kernel[(8, )](x, out, 5)
    assert out.tolist() == [2.0, 4.0, 6.0, 8.0, 10.0, -1.0, -1.0, -1.0]


@triton.jit
def pick_pointer(first, second, take_first: tl.constexpr):
    if take_first:
        return first
    return second


@triton.jit
def const_pointer_kernel(src: tl.const, dst, spare, n, use_spare: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    target = pick_pointer(spare, dst, use_spare)
    tl.store(target + offs, tl.load(src + offs, mask=mask) * 3, mask=mask)


@pytest.mark.parametrize("use_spare", [False, True])
def test_const_pointer_arguments(use_spare, gen):
    # `tl.const` pointers are in Triton 3.9's "constant" address space; a
    # helper returns one of two writable pointers, chosen at compile time.
    src = torch.randn(100, generator=gen)
    dst, spare = torch.zeros(100), torch.zeros(100)
    const_pointer_kernel[(1, )](src, dst, spare, 100, use_spare=use_spare, BLOCK=128)
    torch.testing.assert_close(spare if use_spare else dst, src * 3)
    assert not (dst if use_spare else spare).any()


@triton.jit
def store_to_const_kernel(dst: tl.const, BLOCK: tl.constexpr):
    tl.store(dst + tl.arange(0, BLOCK), 1.0)


def test_store_to_a_const_pointer_is_a_compile_error():
    with pytest.raises(triton.CompilationError) as info:
        store_to_const_kernel[(1, )](torch.zeros(16), BLOCK=16)
    assert "constant pointer" in str(info.value) + str(info.value.__cause__)


# --- a tile read as data and as addresses -----------------------------------

@triton.jit
def dropout_mask_kernel(seed_ptr, keep_ptr, value_ptr, n_rows, XBLOCK: tl.constexpr, R: tl.constexpr):
    rows = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    cols = tl.arange(0, R)[None, :]
    idx = cols + R * rows  # the random stream's offsets (data) and the stores' addresses
    m = rows < n_rows
    v = tl.rand(tl.load(seed_ptr), idx.to(tl.uint32))
    tl.store(keep_ptr + idx, v > 0.5, m)
    tl.store(value_ptr + idx, v, m)


def test_offsets_read_as_data_and_as_scatter_addresses():
    """Inductor's fused causal-mask + softmax + dropout kernel deadlocked
    (issue 43): a bool store is a scatter, whose addresses were recomputed
    from the two broadcast halves of `cols + R * rows` after their tiles had
    been popped, because that sum was computed (as the random offsets)
    already. The addresses now come from the sum's tile; mtia-assign-cbs
    reports any read of a CB after its last pop as a compiler bug."""
    seed = torch.tensor([7], dtype=torch.int64)
    keep = torch.zeros(40 * 16, dtype=torch.bool)
    value = torch.zeros(40 * 16)
    k = dropout_mask_kernel[(5, )](seed, keep, value, 40, XBLOCK=8, R=16)
    assert "scatterOut(" in k.asm["cpp"]
    assert torch.equal(keep, value > 0.5)
    assert 0.0 < value.min() and value.max() < 1.0 and value.unique().numel() > 600
