"""Simulated time of whole Triton kernels is deterministic and plausible.

Simulated cycles are a property of the model, not of the host, so they may be
asserted; host wall-clock time is measured in bench/, never here.
"""

import torch
import triton
import triton.language as tl

import triton_mtia
from triton_mtia.samples import vector_add


def lpddr_bytes_per_cycle() -> float:
    config = triton_mtia.simulator().config
    return config["lpddr_gbps"] / config["clock_ghz"]


def test_vector_add_4m_is_lpddr_bound(gen):
    """A vector add of 4M fp32 reads 8 bytes per element from LPDDR (cold SRAM
    at launch) and writes 4 into the write-back SRAM: it must take 0.9x to
    1.33x of the LPDDR bound of its reads. With the SRAM written through, the
    bound is 12 bytes per element."""
    n = 4 * 1024 * 1024
    x, y = torch.randn(n, generator=gen), torch.randn(n, generator=gen)
    for write_back, bytes_per_element in ((1, 8), (0, 12)):
        triton_mtia.configure(sram_write_back=write_back)
        try:
            out, _ = vector_add.run_triton(x, y)
        finally:
            triton_mtia.configure()
        torch.testing.assert_close(out, x + y)
        stats = triton_mtia.last_launch()
        bound = bytes_per_element * n / lpddr_bytes_per_cycle()
        ratio = stats.cycles / bound
        assert 0.9 <= ratio <= 1.33, (f"sram_write_back={write_back}: {stats.cycles} cycles is "
                                      f"{ratio:.3f}x the LPDDR bound {bound:.0f}")
        written = stats.stats["memory"]["lpddr"]["bytes_written"]
        assert (written == 0) if write_back else (written >= 4 * n)
        # Both directions of the fabric interface worked.
        assert stats.units["dma_in"] > 0 and stats.units["dma_out"] > 0


def test_cycles_do_not_depend_on_data(gen):
    """Functional values never change timing: two launches on different data
    in the same tensors take the same number of cycles. (Addresses may: LPDDR
    channels are interleaved by address, so the same tensors are reused.)"""
    n = 300_000
    x, y, out = torch.empty(n), torch.empty(n), torch.empty(n)
    cycles = []
    for _ in range(2):
        x.copy_(torch.randn(n, generator=gen))
        y.copy_(torch.randn(n, generator=gen))
        vector_add.add_kernel[(triton.cdiv(n, vector_add.BLOCK), )](x, y, out, n, BLOCK=vector_add.BLOCK)
        torch.testing.assert_close(out, x + y)
        cycles.append(triton_mtia.last_launch().cycles)
    assert cycles[0] == cycles[1]


@triton.jit
def _strided_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(acc))


def _scalar_cycles(trips: int, block: int = 256, **options) -> int:
    n = trips * block
    x, out = torch.ones(n), torch.zeros(1)
    _strided_sum[(1, )](x, out, n, BLOCK=block, **options)
    assert out.item() == n
    return triton_mtia.last_launch().stats["units"]["riscv"]["scalar_cycles"]


def test_scalar_code_of_a_loop_is_charged_per_iteration():
    """The compiler charges the core for its scalar code (mtia-scalar-cost):
    a loop's body pays its address arithmetic and loop control on every
    iteration, so the scalar cycles grow by the same amount per trip, and
    twice the trips cost about twice the cycles (the code outside the loop
    is paid once)."""
    s4, s8, s12 = (_scalar_cycles(t) for t in (4, 8, 12))
    assert s4 > 0
    per_trip = (s8 - s4) / 4
    assert per_trip > 0 and s12 - s8 == s8 - s4, (s4, s8, s12)
    assert 1.5 < s8 / s4 <= 2.0, (s4, s8)


def test_scalar_cost_can_be_turned_off():
    """`scalar_cost=False` (triton-mtia-compile --no-scalar-cost) compiles
    without scalarCycles calls: the core is charged per command only."""
    assert _scalar_cycles(4, scalar_cost=False) == 0
    assert _scalar_cycles(4) > 0
