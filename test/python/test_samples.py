"""The sample kernels (ordinary GPU-style Triton) match PyTorch on the
simulated chip, at sizes that are not multiples of the block and with grids
larger than the 64 PEs."""

import pytest
import torch
import triton
import triton.language as tl

import triton_mtia
from triton_mtia import samples
from triton_mtia.samples import layernorm, softmax, vector_add


@pytest.mark.parametrize("sample", samples.SAMPLES, ids=lambda s: s.name)
def test_matches_torch(sample, gen):
    inputs = sample.make_inputs(gen)
    actual, compiled = sample.run_triton(*inputs)
    torch.testing.assert_close(actual, sample.run_torch(*inputs))
    assert triton_mtia.last_launch().programs > 64
    assert "extern \"C\"" in compiled.asm["cpp"]


def test_sample_sizes_are_awkward(gen):
    # Guards the point of the test above against someone "simplifying" sizes.
    (x, _) = vector_add.make_inputs(gen)
    assert x.numel() % vector_add.BLOCK != 0 and triton.cdiv(x.numel(), vector_add.BLOCK) > 64
    (x, ) = softmax.make_inputs(gen)
    assert x.shape[1] != triton.next_power_of_2(x.shape[1]) and x.shape[0] > softmax.PROGRAMS > 64
    x, _, _ = layernorm.make_inputs(gen)
    assert x.shape[1] % layernorm.BLOCK != 0 and x.shape[0] > 64


@pytest.mark.parametrize("n", [1, 1023, 1025, 64 * 1024 + 7])
def test_vector_add_sizes(n, gen):
    x, y = torch.randn(n, generator=gen), torch.randn(n, generator=gen)
    out, _ = vector_add.run_triton(x, y)
    torch.testing.assert_close(out, x + y)


def test_softmax_strided_rows(gen):
    # Rows of a wider tensor: the row stride (600) is not the row length (300).
    base = torch.randn(70, 2 * 300, generator=gen)
    x = base[:, :300]
    out, _ = softmax.run_triton(x)
    torch.testing.assert_close(out, torch.softmax(x, dim=-1))


@triton.jit
def descriptor_copy_kernel(in_desc, out_ptr, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M
    tile = in_desc.load([rows, 0])
    offsets = (rows + tl.arange(0, BLOCK_M))[:, None] * n_cols + tl.arange(0, BLOCK_N)[None, :]
    tl.store(out_ptr + offsets, tile)


def test_host_tensor_descriptor_copy(gen):
    from triton.tools.tensor_descriptor import TensorDescriptor
    x = torch.randn(8 * 70, 16, generator=gen)
    out = torch.empty_like(x)
    descriptor_copy_kernel[(70, )](TensorDescriptor.from_tensor(x, [8, 16]), out, 16, BLOCK_M=8, BLOCK_N=16)
    torch.testing.assert_close(out, x)
