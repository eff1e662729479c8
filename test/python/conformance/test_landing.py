"""Features whose lowerings land during issue 4: dot, trans, atomics, scan,
casts, rand, print, assert, join/split, histogram, gather, clamp,
debug_barrier. A test that fails today is a strict xfail naming what is
missing; when the lowering lands it turns red and its marker goes."""

import subprocess
import sys
import textwrap

import pytest
import torch
import triton
import triton.language as tl

from _conf import BLOCK, N, grid1d, ids, make


def landing(reason):
    return pytest.mark.xfail(reason=reason, strict=True)


# ----------------------------------------------------------------------------- dot, trans


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, m, n, k, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, k, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * k + rk[None, :], mask=(rm[:, None] < m) & (rk[None, :] < k), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * n + rn[None, :], mask=(rk[:, None] < k) & (rn[None, :] < n), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * n + rn[None, :], acc, mask=(rm[:, None] < m) & (rn[None, :] < n))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=ids)
def test_dot(dtype, gen):
    m, n, k = 45, 37, 70  # masked K tail
    a, b = make((m, k), dtype, gen), make((k, n), dtype, gen)
    c = torch.empty(m, n)
    matmul_kernel[(triton.cdiv(m, 32), triton.cdiv(n, 32))](a, b, c, m, n, k, BM=32, BN=32, BK=32)
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-3, atol=1e-3)


@triton.jit
def int8_dot_kernel(a_ptr, b_ptr, c_ptr, B: tl.constexpr):
    r = tl.arange(0, B)
    a = tl.load(a_ptr + r[:, None] * B + r[None, :])
    b = tl.load(b_ptr + r[:, None] * B + r[None, :])
    tl.store(c_ptr + r[:, None] * B + r[None, :], tl.dot(a, b, out_dtype=tl.int32))


def test_dot_int8(gen):
    a, b = make((32, 32), torch.int8, gen), make((32, 32), torch.int8, gen)
    c = torch.empty(32, 32, dtype=torch.int32)
    int8_dot_kernel[(1, )](a, b, c, B=32)
    torch.testing.assert_close(c, (a.int() @ b.int()))


@triton.jit
def trans_kernel(x_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :])
    tl.store(out_ptr + tl.arange(0, BN)[:, None] * BM + tl.arange(0, BM)[None, :], tl.trans(x))


def test_trans(gen):
    x = make((16, 32), torch.float32, gen)
    out = torch.empty(32, 16)
    trans_kernel[(1, )](x, out, BM=16, BN=32)
    torch.testing.assert_close(out, x.T)


# ----------------------------------------------------------------------------- atomics


@triton.jit
def atomic_add_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x))  # every program adds to one cell
    tl.atomic_max(out_ptr + 1 + offs % 4, x, mask=offs < n)


def test_atomic_add_max_across_programs(gen):
    x = make(N, torch.float32, gen)
    out = torch.tensor([0.0] + [-float("inf")] * 4)
    atomic_add_kernel[grid1d()](x, out, N, BLOCK=BLOCK)
    torch.testing.assert_close(out[0], x.sum(), rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(out[1:], x.view(-1, 4).amax(0))


@triton.jit
def counter_kernel(counter_ptr, out_ptr):
    # atomic_cas spin lock around a read-modify-write.
    while tl.atomic_cas(counter_ptr, 0, 1) == 1:
        pass
    v = tl.load(out_ptr)
    tl.store(out_ptr, v + 1)
    tl.atomic_xchg(counter_ptr, 0)


def test_atomic_cas_lock():
    lock, out = torch.zeros(1, dtype=torch.int32), torch.zeros(1, dtype=torch.int32)
    counter_kernel[(100, )](lock, out)
    assert out.item() == 100 and lock.item() == 0


# ----------------------------------------------------------------------------- scan


@triton.jit
def cumsum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0), mask=offs < n)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32], ids=ids)
def test_cumsum(dtype, gen):
    x = make(300, dtype, gen)
    out = torch.empty_like(x)
    cumsum_kernel[(1, )](x, out, 300, BLOCK=512)
    torch.testing.assert_close(out, x.cumsum(0).to(dtype), rtol=1e-5, atol=1e-4)


# ----------------------------------------------------------------------------- casts


@triton.jit
def cast_kernel(x_ptr, out_ptr, n, DST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(DST), mask=mask)


CASTS = [
    (torch.float32, torch.float16, tl.float16),
    (torch.float32, torch.bfloat16, tl.bfloat16),
    (torch.float16, torch.float32, tl.float32),
    (torch.bfloat16, torch.float32, tl.float32),
    (torch.float32, torch.int32, tl.int32),
    (torch.int32, torch.float32, tl.float32),
    (torch.int32, torch.int8, tl.int8),
    (torch.int8, torch.int32, tl.int32),
    (torch.float32, torch.float64, tl.float64),
    (torch.uint8, torch.int32, tl.int32),
]


@pytest.mark.parametrize("src, dst, tl_dst", CASTS, ids=[f"{ids(s)}-{ids(d)}" for s, d, _ in CASTS])
def test_cast(src, dst, tl_dst, gen):
    x = (torch.randn(N, generator=gen) * 100).to(src) if src.is_floating_point else torch.randint(
        0 if src == torch.uint8 else -300, 300, (N, ), generator=gen).to(src)
    out = torch.empty(N, dtype=dst)
    cast_kernel[grid1d()](x, out, N, DST=tl_dst, BLOCK=BLOCK)
    # Float -> int truncates; int -> narrower int wraps (as C and Triton do).
    ref = x.to(dst) if not (dst == torch.int8 and src == torch.int32) else ((x.long() + 128) % 256 - 128).to(dst)
    torch.testing.assert_close(out, ref)


@triton.jit
def bitcast_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(tl.int32, bitcast=True), mask=mask)


def test_bitcast(gen):
    x = make(N, torch.float32, gen)
    out = torch.empty(N, dtype=torch.int32)
    bitcast_kernel[grid1d()](x, out, N, BLOCK=BLOCK)
    torch.testing.assert_close(out, x.view(torch.int32))


# ----------------------------------------------------------------------------- rand


@triton.jit
def rand_kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.rand(seed, offs), mask=offs < n)


def test_rand_matches_upstream_stream():
    # Upstream's interpreter runs the same Philox stream on the host.
    code = textwrap.dedent(f"""
        import os, sys
        os.environ["TRITON_INTERPRET"] = "1"
        sys.path.insert(0, {repr(__file__.rsplit('/', 1)[0])})
        import torch, triton
        from test_landing import rand_kernel
        out = torch.empty({N})
        rand_kernel[triton.cdiv({N}, {BLOCK}),](out, 1234, {N}, BLOCK={BLOCK})
        torch.save(out, sys.argv[1])
    """)
    import tempfile
    with tempfile.NamedTemporaryFile(suffix=".pt") as f:
        subprocess.run([sys.executable, "-c", code, f.name], check=True, timeout=300)
        expected = torch.load(f.name)
    out = torch.empty(N)
    rand_kernel[grid1d()](out, 1234, N, BLOCK=BLOCK)
    assert ((out >= 0) & (out < 1)).all()
    torch.testing.assert_close(out, expected, rtol=0, atol=0)


# ----------------------------------------------------------------------------- print, assert, barrier


@triton.jit
def print_kernel(x_ptr):
    tl.device_print("value", tl.load(x_ptr + tl.arange(0, 4)))


def test_device_print(capfd):
    print_kernel[(1, )](torch.tensor([1.5, 2.5, 3.5, 4.5]))
    out = capfd.readouterr().out
    assert "value" in out and "3.5" in out


@triton.jit
def assert_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_assert(x >= 0, "negative input")


def test_device_assert():
    x = torch.tensor([1, 2, -3, 4], dtype=torch.int32)
    with pytest.raises(Exception, match="negative input"):
        assert_kernel[(1, )](x, 4, BLOCK=4, debug=True)


@triton.jit
def barrier_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2)
    tl.debug_barrier()
    tl.store(out_ptr + offs, tl.load(out_ptr + BLOCK - 1 - offs) + 1)


def test_debug_barrier(gen):
    x = make(64, torch.float32, gen)
    out = torch.empty(64)
    barrier_kernel[(1, )](x, out, BLOCK=64)
    # The second store reads the first's result: elements 32.. are read back
    # after the lower half was overwritten, as on one GPU warp group.
    half = (x * 2).flip(0)[:32] + 1
    torch.testing.assert_close(out[:32], half)


# ----------------------------------------------------------------------------- join/split, histogram, gather, clamp


@triton.jit
def join_split_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    j = tl.join(tl.load(x_ptr + offs), tl.load(y_ptr + offs))  # (BLOCK, 2)
    a, b = tl.split(j * 2)
    tl.store(out_ptr + offs, a - b)
    tl.store(out_ptr + BLOCK + offs, a)


def test_join_split(gen):
    x, y = make(32, torch.float32, gen), make(32, torch.float32, gen)
    out = torch.zeros(64)
    join_split_kernel[(1, )](x, y, out, BLOCK=32)
    torch.testing.assert_close(out, torch.cat([2 * x - 2 * y, 2 * x]))


@triton.jit
def histogram_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, BINS: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(tl.load(x_ptr + tl.arange(0, BLOCK)), BINS))


def test_histogram(gen):
    x = torch.randint(0, 16, (256, ), generator=gen, dtype=torch.int32)
    out = torch.empty(16, dtype=torch.int32)
    histogram_kernel[(1, )](x, out, BLOCK=256, BINS=16)
    torch.testing.assert_close(out, torch.bincount(x, minlength=16).int())


@triton.jit
def gather_kernel(x_ptr, idx_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.gather(tl.load(x_ptr + offs), tl.load(idx_ptr + offs), 0))


def test_gather(gen):
    x = make(64, torch.float32, gen)
    idx = torch.randint(0, 64, (64, ), generator=gen, dtype=torch.int32)
    out = torch.empty(64)
    gather_kernel[(1, )](x, idx, out, BLOCK=64)
    torch.testing.assert_close(out, x[idx.long()])


@triton.jit
def clamp_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.clamp(tl.load(x_ptr + offs, mask=mask), -0.5, 0.75), mask=mask)


def test_clamp(gen):
    x = make(N, torch.float32, gen)
    out = torch.empty(N)
    clamp_kernel[grid1d()](x, out, N, BLOCK=BLOCK)
    torch.testing.assert_close(out, x.clamp(-0.5, 0.75))
