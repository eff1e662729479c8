"""The MTIA language extensions in one small kernel each (docs/extensions.md).

    python examples/language_extensions.py

1. A column sum over the reduction network: each PE of a PE column loads
   its row, `mtl.re_reduce` adds them down the column, the bottom PE stores.
2. A row broadcast over the NoC: the leftmost PE of each PE row loads a
   vector, `mtl.broadcast` gives it to the other seven.
3. `mtl.extract_slice`: a tile loaded once and read in parts, no reload.
4. A struct argument: a `triton_mtia.TensorView` of a transposed tensor.
"""

import torch
import triton
import triton.language as tl

import triton_mtia
import triton_mtia.language as mtl


@triton.jit
def column_sum(x_ptr, out_ptr, N: tl.constexpr):
    row = mtl.get_pe_id(0)
    col = mtl.get_pe_id(1)
    values = tl.load(x_ptr + (row * 8 + col) * N + tl.arange(0, N))
    is_bottom = row == mtl.get_pe_grid_size(0) - 1
    total = mtl.re_reduce("add", values, row == 0, is_bottom)
    if is_bottom:
        tl.store(out_ptr + col * N + tl.arange(0, N), total)


@triton.jit
def row_broadcast(x_ptr, out_ptr, N: tl.constexpr):
    row = mtl.get_pe_id(0)
    col = mtl.get_pe_id(1)
    is_left = col == 0
    offs = tl.arange(0, N)
    values = tl.load(x_ptr + row * N + offs, mask=is_left, other=0.0)  # moves nothing off the left column
    got = mtl.broadcast(values, is_left)
    tl.store(out_ptr + (row * 8 + col) * N + offs, got)


@triton.jit
def sum_of_quarters(x_ptr, out_ptr):
    tile = tl.load(x_ptr + tl.arange(0, 32)[:, None] * 64 + tl.arange(0, 64)[None, :])
    acc = tl.zeros((32, 16), tl.float32)
    for k in tl.static_range(0, 64, 16):
        acc += mtl.extract_slice(tile, [0, k], [32, 16])  # a view of the tile: no copy, no reload
    tl.store(out_ptr + tl.arange(0, 32)[:, None] * 16 + tl.arange(0, 16)[None, :], acc)


@triton.jit
def double_view(src, dst, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK)
    p, mask = mtl.tensor_view_ptrs_2d(src, rows, cols)
    q, _ = mtl.tensor_view_ptrs_2d(dst, rows, cols)
    tl.store(q, tl.load(p, mask=mask) * 2, mask=mask)


def main():
    x = torch.randn(64, 256, device="mtia")
    sums = torch.empty(8, 256, device="mtia")
    column_sum[(64, )](x, sums, N=256, pid_mapping="user")  # one program per PE
    torch.testing.assert_close(sums.cpu(), x.cpu().view(8, 8, 256).sum(0), rtol=1e-5, atol=1e-5)
    stats = triton_mtia.last_launch()
    print(f"column sum over the RE: {stats.cycles} cycles, {stats.stats['units']['re']['commands']} RE commands")

    v = torch.randn(8, 128, device="mtia")
    out = torch.empty(64, 128, device="mtia")
    row_broadcast[(64, )](v, out, N=128, pid_mapping="user")
    torch.testing.assert_close(out.cpu().view(8, 8, 128), v.cpu()[:, None, :].expand(8, 8, 128))
    print(f"row broadcast over the NoC: {triton_mtia.last_launch().cycles} cycles")

    t = torch.randn(32, 64, device="mtia")
    quarters = torch.empty(32, 16, device="mtia")
    compiled = sum_of_quarters[(1, )](t, quarters)
    torch.testing.assert_close(quarters.cpu(), t.cpu().view(32, 4, 16).sum(1))
    print(f"extract_slice: {compiled.asm['cpp'].count('dmaIn(')} load(s) for four slices")

    a = torch.randn(20, 30, device="mtia").t()  # 30 x 20, not contiguous
    b = torch.empty(30, 20, device="mtia")
    double_view[(1, )](triton_mtia.tensor_view(a), triton_mtia.tensor_view(b), BLOCK=32)
    torch.testing.assert_close(b.cpu(), a.cpu() * 2)
    print("TensorView: a transposed tensor through a struct argument, doubled")


if __name__ == "__main__":
    main()
