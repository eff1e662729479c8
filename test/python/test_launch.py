"""Launch statistics, determinism and traces."""

import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch
import triton
import triton.language as tl

import triton_mtia
from triton_mtia.samples import vector_add


def _launch(gen, n=5000):
    x, y = torch.randn(n, generator=gen), torch.randn(n, generator=gen)
    vector_add.run_triton(x, y)
    return triton_mtia.last_launch()


def test_last_launch_fields(gen):
    stats = _launch(gen)
    assert isinstance(stats, triton_mtia.LaunchStats)
    assert stats.kernel == "add_kernel"
    assert stats.grid == (5, 1, 1) and stats.programs == 5
    assert isinstance(stats.cycles, int) and stats.cycles > 0
    assert stats.seconds > 0 and stats.microseconds == pytest.approx(stats.seconds * 1e6)
    assert {"riscv", "dma_in", "dma_out", "se"} <= set(stats.units)
    assert 1 <= stats.pes_used <= 64
    assert isinstance(stats.stats, dict)
    for unit, fraction in stats.utilization().items():
        assert 0.0 <= fraction <= 1.0, unit


def test_same_launch_same_cycles(gen):
    x, y = torch.randn(77_777, generator=gen), torch.randn(77_777, generator=gen)
    vector_add.run_triton(x, y)
    first = triton_mtia.last_launch()
    vector_add.run_triton(x, y)
    second = triton_mtia.last_launch()
    assert first is not second
    assert first.cycles == second.cycles
    assert first.units == second.units


def test_launches_from_many_threads():
    # One simulator per process: launches from threads take turns, every
    # result is right, and each thread's last_launch() is its own launch
    # (sizes differ per launch, so a mixed-up one shows in its grid).
    def one(i):
        n = 1000 + 37 * i
        x, y = torch.randn(n), torch.randn(n)
        out, _ = vector_add.run_triton(x, y)
        stats = triton_mtia.last_launch()
        return torch.equal(out, x + y), stats.grid, (triton.cdiv(n, vector_add.BLOCK), 1, 1)

    vector_add.run_triton(torch.zeros(4), torch.zeros(4))  # compiled once, up front
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(one, range(120)))
    assert all(right for right, _, _ in results)
    assert [grid for _, grid, _ in results] == [expected for _, _, expected in results]
    # A thread that never launched has no last launch of its own.
    seen = []
    worker = threading.Thread(target=lambda: seen.append(triton_mtia.last_launch()))
    worker.start()
    worker.join()
    assert seen == [None]


def test_trace_written(gen, tmp_path):
    path = tmp_path / "add.json"
    with triton_mtia.trace(str(path)) as recording:
        _launch(gen)
    assert len(recording.launches) == 1
    doc = json.loads(path.read_text())
    assert isinstance(doc["traceEvents"], list) and doc["traceEvents"]
    # The same trace can be written again, anywhere, from the stats.
    again = recording.launches[0].write_trace(str(tmp_path / "sub" / "again.json"))
    assert json.loads(open(again).read()) == doc


def test_untraced_launch_cannot_write_trace(gen, tmp_path):
    stats = _launch(gen)
    assert not stats.has_trace
    with pytest.raises(RuntimeError, match="trace"):
        stats.write_trace(str(tmp_path / "x.json"))


def test_trace_launches_setting(gen, tmp_path, monkeypatch):
    monkeypatch.setattr(triton_mtia.settings, "trace_launches", True)
    assert _launch(gen).has_trace


def test_configure_rejects_unknown_parameter():
    with pytest.raises(KeyError, match="no_such_parameter"):
        triton_mtia.configure(no_such_parameter=1)
    with pytest.raises(ValueError, match="preset"):
        triton_mtia.configure("no-such-preset")


def test_presets_have_the_default():
    assert triton_mtia.settings.preset in triton_mtia.presets()


@triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 2048})], key=["n"])
@triton.jit
def autotuned_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


def test_autotune_uses_simulated_time(gen):
    n = 20_000
    x, y = torch.randn(n, generator=gen), torch.randn(n, generator=gen)
    out = torch.empty_like(x)
    autotuned_add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]), )](x, y, out, n)
    torch.testing.assert_close(out, x + y)
    timings = autotuned_add_kernel.configs_timings
    assert len(timings) == 2 and all(t[0] > 0 for t in timings.values())
    # Each timing is the simulated time of one launch with that config.
    for config, (ms, *_) in timings.items():
        block = config.kwargs["BLOCK"]
        autotuned_add_kernel.fn[(triton.cdiv(n, block), )](x, y, out, n, BLOCK=block)
        assert ms == pytest.approx(triton_mtia.last_launch().seconds * 1e3)


@triton.jit
def prefix_rows_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # Row p sums rows 0..p of x: work grows with the program id, like the
    # rows of a causal attention.
    p = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, ), dtype=tl.float32)
    for r in range(0, p + 1):
        acc += tl.load(x_ptr + r * BLOCK + cols)
    tl.store(out_ptr + p * BLOCK + cols, acc)


@pytest.mark.parametrize("mapping", ["round_robin", "zigzag"])
def test_pid_mapping_balances_growing_work(mapping, gen):
    rows, block = 256, 256
    x = torch.randn(rows, block, generator=gen)
    expected = x.cumsum(0)
    cycles = {}
    for m in ("linear", mapping):
        out = torch.empty_like(x)
        prefix_rows_kernel[(rows, )](x, out, BLOCK=block, pid_mapping=m)
        torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-4)
        cycles[m] = triton_mtia.last_launch().cycles
    # 256 programs on 64 PEs: linear gives the last PE rows 252-255 (1018
    # row loads), round robin rows 63, 127, 191, 255 (640), zigzag 514 on
    # every PE.
    assert cycles[mapping] < cycles["linear"] / 1.4, cycles


def test_pid_mapping_setting_and_bad_name(gen, monkeypatch):
    x = torch.randn(8, 16, generator=gen)
    out = torch.empty_like(x)
    monkeypatch.setattr(triton_mtia.settings, "pid_mapping", "zigzag")
    prefix_rows_kernel[(8, )](x, out, BLOCK=16)
    torch.testing.assert_close(out, x.cumsum(0))
    with pytest.raises(ValueError, match="pid_mapping must be one of linear, round_robin, zigzag, user"):
        prefix_rows_kernel[(8, )](x, out, BLOCK=16, pid_mapping="diagonal")


def test_a_launch_has_its_roofline(tmp_path):
    """LaunchStats.roofline_points (roofline.py): the DPE's achieved FLOP/s
    of a GEMM under its roof, which is under its peak; and the picture."""
    from triton_mtia.kernels import gemm
    g = torch.Generator().manual_seed(0)
    gemm(torch.randn(128, 128, generator=g).half(), torch.randn(128, 128, generator=g).half())
    stats = triton_mtia.last_launch()
    dpe = stats.roofline_points("fp16")["units"]["dpe"]
    assert 0 < dpe["achieved"] <= dpe["roof"] <= dpe["peak"]
    assert os.path.getsize(stats.roofline(str(tmp_path / "roofline.png"))) > 0
