"""Scalar code gives the same answers as the same ops on tiles, and never
traps: integer division by zero, INT_MIN // -1, shifts by the width or more,
and float -> integer of NaN, infinities and values out of range (device.h,
"Integer semantics"). Scalar code runs natively on the host, so before this
a scalar `a // 0` killed the Python process with SIGFPE."""

import math

import torch
import triton
import triton.language as tl

INT_MIN = -2**31
INT_MAX = 2**31 - 1

A = [7, -7, INT_MIN, INT_MIN, 12345, -1, 3, 0]
B = [0, 0, -1, 0, 33, 40, 32, 0]
F = [math.nan, math.inf, -math.inf, 3e9, -3e9, 2.9, -2.9, 1e30]

# Columns: a // b, a % b, a << b, a >> b, (a as uint32) >> b, (a as uint32) // b,
# float -> int32, float -> uint8.
COLUMNS = 8


@triton.jit
def int_edges_kernel(a_ptr, b_ptr, f_ptr, scalar_ptr, tile_ptr, N: tl.constexpr):
    # The scalar path: one element at a time, in core registers.
    for i in tl.static_range(N):
        a = tl.load(a_ptr + i)
        b = tl.load(b_ptr + i)
        f = tl.load(f_ptr + i)
        row = scalar_ptr + i * 8
        tl.store(row + 0, a // b)
        tl.store(row + 1, a % b)
        tl.store(row + 2, a << b)
        tl.store(row + 3, a >> b)
        tl.store(row + 4, (a.to(tl.uint32, bitcast=True) >> b.to(tl.uint32)).to(tl.int32, bitcast=True))
        tl.store(row + 5, (a.to(tl.uint32, bitcast=True) // b.to(tl.uint32)).to(tl.int32, bitcast=True))
        tl.store(row + 6, f.to(tl.int32))
        tl.store(row + 7, f.to(tl.uint8).to(tl.int32))
    # The tile path: the same ops on the SIMD engine.
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r)
    b = tl.load(b_ptr + r)
    f = tl.load(f_ptr + r)
    rows = tile_ptr + r * 8
    tl.store(rows + 0, a // b)
    tl.store(rows + 1, a % b)
    tl.store(rows + 2, a << b)
    tl.store(rows + 3, a >> b)
    tl.store(rows + 4, (a.to(tl.uint32, bitcast=True) >> b.to(tl.uint32)).to(tl.int32, bitcast=True))
    tl.store(rows + 5, (a.to(tl.uint32, bitcast=True) // b.to(tl.uint32)).to(tl.int32, bitcast=True))
    tl.store(rows + 6, f.to(tl.int32))
    tl.store(rows + 7, f.to(tl.uint8).to(tl.int32))


def test_scalar_and_tile_paths_agree_and_never_trap():
    a = torch.tensor(A, dtype=torch.int32)
    b = torch.tensor(B, dtype=torch.int32)
    f = torch.tensor(F, dtype=torch.float32)
    scalar = torch.zeros(len(A), COLUMNS, dtype=torch.int32)
    tile = torch.zeros_like(scalar)
    int_edges_kernel[(1, )](a, b, f, scalar, tile, N=len(A))
    assert torch.equal(scalar, tile), (scalar, tile)
    # The defined answers (RISC-V's, LLVM's where a GPU defines one).
    div, rem, shl, shr, shru, divu, f2i, f2u8 = (scalar[:, k].tolist() for k in range(COLUMNS))
    assert div[:4] == [-1, -1, INT_MIN, -1]  # x // 0 = -1; INT_MIN // -1 = INT_MIN
    assert rem[:4] == [7, -7, 0, INT_MIN]  # x % 0 = x; INT_MIN % -1 = 0
    assert shl[4] == 0 and shl[6] == 0  # shifts by the width or more
    assert shr[5] == -1 and shr[4] == 0  # arithmetic: the sign
    assert shru[5] == 0
    assert divu[0] == -1  # all ones
    assert f2i[:5] == [0, INT_MAX, INT_MIN, INT_MAX, INT_MIN]  # NaN -> 0, saturating
    assert f2i[5:7] == [2, -2]  # toward zero
    assert f2u8[0] == 0 and f2u8[1] == 255 and f2u8[2] == 0 and f2u8[5] == 2


@triton.jit
def _bool_add(a, b):
    return a + b


@triton.jit
def _store_bool_arith(row, p, q):
    # Comparisons are i1, and Triton keeps i1 in arithmetic: it wraps as a
    # 1-bit integer (true + true = false), on GPUs and in the interpreter.
    # `row` and p, q are scalars or tiles alike.
    tl.store(row + 0, (p + q).to(tl.int32))
    tl.store(row + 1, (p - q).to(tl.int32))
    tl.store(row + 2, (p * q).to(tl.int32))
    tl.store(row + 3, tl.maximum(p, q).to(tl.int32))
    tl.store(row + 4, tl.minimum(p, q).to(tl.int32))


@triton.jit
def bool_arith_kernel(x_ptr, y_ptr, scalar_ptr, tile_ptr, parity_ptr, N: tl.constexpr):
    for i in tl.static_range(N):  # the scalar path
        _store_bool_arith(scalar_ptr + i * 5, tl.load(x_ptr + i) > 0, tl.load(y_ptr + i) > 0)
    r = tl.arange(0, N)
    p = tl.load(x_ptr + r) > 0
    q = tl.load(y_ptr + r) > 0
    _store_bool_arith(tile_ptr + r * 5, p, q)
    tl.store(parity_ptr, tl.reduce(p, 0, _bool_add).to(tl.int32))


def test_bool_arithmetic_wraps_like_one_bit_integers():
    """`bool + bool` compiled and then faulted on the chip ('SE Add is not
    defined on i1', no source line), and scalar code computed true + true
    as true (robustness issue, defect 6)."""
    x = torch.tensor([1., 1., -1., -1., 1., 1., 1., -1.])
    y = torch.tensor([1., -1., 1., -1., 1., 1., -1., -1.])
    n = len(x)
    scalar = torch.zeros(n, 5, dtype=torch.int32)
    tile = torch.zeros_like(scalar)
    parity = torch.zeros(1, dtype=torch.int32)
    bool_arith_kernel[(1, )](x, y, scalar, tile, parity, N=n)
    p, q = (x > 0).int(), (y > 0).int()
    want = torch.stack([p ^ q, p ^ q, p & q, p | q, p & q], dim=1)
    assert torch.equal(tile, want), (tile, want)
    assert torch.equal(scalar, want), (scalar, want)
    assert parity.item() == int(p.sum()) % 2


@triton.jit
def narrow_scalar_kernel(h_ptr, i_ptr, out_h_ptr, out_i_ptr):
    h = tl.load(h_ptr)  # a float16 scalar
    i = tl.load(i_ptr)  # an int8 scalar
    tl.store(out_h_ptr + 0, tl.abs(h))
    tl.store(out_h_ptr + 1, tl.maximum(h, tl.full([], 0.5, tl.float16)))
    tl.store(out_h_ptr + 2, tl.minimum(h, tl.full([], 0.5, tl.float16)))
    tl.store(out_h_ptr + 3, tl.sqrt(tl.abs(h).to(tl.float32)).to(tl.float16))
    tl.store(out_i_ptr + 0, tl.minimum(i, tl.full([], 26, tl.int8)))
    tl.store(out_i_ptr + 1, tl.maximum(i, tl.full([], -12, tl.int8)))
    tl.store(out_i_ptr + 2, tl.abs(i))


def test_narrow_scalars_in_library_calls():
    """Scalar min / max / abs of float16 and int8 values: the generated C++
    called std::fabs(_Float16) (ambiguous) and std::min(int8_t, int) (no
    overload) and failed to build. Found by the fuzzer
    (python -m triton_mtia.fuzz, seeds 316, 328, 385, 519 of 0..999)."""
    h = torch.tensor([-3.25], dtype=torch.float16)
    i = torch.tensor([-100], dtype=torch.int8)
    out_h = torch.zeros(4, dtype=torch.float16)
    out_i = torch.zeros(3, dtype=torch.int8)
    narrow_scalar_kernel[(1, )](h, i, out_h, out_i)
    assert out_h.tolist() == [3.25, 0.5, -3.25, torch.tensor(3.25).sqrt().half().item()]
    assert out_i.tolist() == [-100, -12, 100]
