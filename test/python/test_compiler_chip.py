"""The compiler plans for the configured chip (runtime.COMPILER_PARAMETERS
travel with every compile): a kernel that fits the default chip compiles
for a smaller one and gives the right answer; a binary built for another
chip is refused at launch instead of faulting."""

import pytest
import torch
import triton

import triton_mtia
from triton_mtia.samples import vector_add


@pytest.fixture(autouse=True)
def _default_chip():
    preset = triton_mtia.settings.preset
    yield
    triton_mtia.configure(preset)  # later tests run on the chip they expect


def _launch(x, y):
    """The sample vector add in blocks of 8192 fp32 elements: three 32 KiB
    tiles, double-buffered on the default chip (384 KiB of local memory)."""
    n = x.numel()
    o = torch.empty_like(x)
    kernel = vector_add.add_kernel[(triton.cdiv(n, 8192), )](x, y, o, n, BLOCK=8192)
    torch.testing.assert_close(o, x + y)
    return kernel


@pytest.mark.parametrize("chip", [dict(local_memory_bytes=32768), dict(max_cbs=6),
                                  dict(local_memory_bytes=32768, max_cbs=6)], ids=str)
def test_a_kernel_compiles_for_the_configured_chip(chip):
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(3 * 8192 + 5, generator=g), torch.randn(3 * 8192 + 5, generator=g)
    default = _launch(x, y)
    triton_mtia.configure(**chip)
    small = _launch(x, y)  # compiled again, for this chip; faulted before
    planned = dict(small.metadata.chip)
    for name, value in chip.items():
        assert planned[name] == value
    assert dict(default.metadata.chip)["local_memory_bytes"] == 393216
    assert small.hash != default.hash  # the chip is in the kernel's cache key


def test_a_binary_for_another_chip_is_refused_at_launch():
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(8192, generator=g), torch.randn(8192, generator=g)
    kernel = _launch(x, y)
    triton_mtia.configure(local_memory_bytes=32768)
    with pytest.raises(RuntimeError, match=r"compiled for another chip: local_memory_bytes=393216 "
                                           r"\(the simulator has 32768\)"):
        kernel[(1, 1, 1)](x, y, torch.empty_like(x), x.numel())


def test_eager_kernels_compile_again_for_a_new_chip():
    from triton_mtia.aten import per_op
    x = torch.randn(64, 33).to("mtia")
    torch.testing.assert_close(torch.special.erfcx(x).cpu(), torch.special.erfcx(x.cpu()))
    assert per_op.compiled_signatures() > 0
    triton_mtia.configure(max_cbs=6)
    assert per_op.compiled_signatures() == 0
    torch.testing.assert_close(torch.special.erfcx(x).cpu(), torch.special.erfcx(x.cpu()))
