"""Simulated time of whole Triton kernels is deterministic and plausible.

Simulated cycles are a property of the model, not of the host, so they may be
asserted; host wall-clock time is measured in bench/, never here.
"""

import torch
import triton

import triton_mtia
from triton_mtia.samples import vector_add


def lpddr_bytes_per_cycle() -> float:
    config = triton_mtia.simulator().config
    return config["lpddr_gbps"] / config["clock_ghz"]


def test_vector_add_4m_is_lpddr_bound(gen):
    """A vector add of 4M fp32 reads 8 and writes 4 bytes per element from and
    to LPDDR (cold SRAM at launch): it must take 0.66x to 1.33x of the LPDDR
    bandwidth bound."""
    n = 4 * 1024 * 1024
    x, y = torch.randn(n, generator=gen), torch.randn(n, generator=gen)
    out, _ = vector_add.run_triton(x, y)
    torch.testing.assert_close(out, x + y)
    stats = triton_mtia.last_launch()
    bound = 12 * n / lpddr_bytes_per_cycle()
    ratio = stats.cycles / bound
    assert 0.66 <= ratio <= 1.33, f"{stats.cycles} cycles is {ratio:.3f}x the LPDDR bound {bound:.0f}"
    # Both directions of the fabric interface worked; the grid used every PE.
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
