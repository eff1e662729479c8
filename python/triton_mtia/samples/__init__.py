"""Sample kernels shared by the demo, the host-overhead benchmark and the tests.

They are ordinary GPU-style Triton kernels: nothing in them knows about MTIA.
Each `Sample` bundles a kernel with the host code that launches it, a PyTorch
reference, and inputs of a default size chosen to exercise the awkward cases
(sizes that are not multiples of the block, grids larger than the 64 PEs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Tuple

from . import layernorm, softmax, vector_add


@dataclass(frozen=True)
class Sample:
    name: str
    description: str
    #: The @triton.jit function.
    kernel: object
    #: (generator, scale) -> input tensors; scale 1 is the default size.
    make_inputs: Callable
    #: inputs -> (output, CompiledKernel): launches the Triton kernel.
    run_triton: Callable
    #: inputs -> output, with PyTorch eager.
    run_torch: Callable


SAMPLES: Tuple[Sample, ...] = tuple(
    Sample(m.NAME, m.DESCRIPTION, m.KERNEL, m.make_inputs, m.run_triton, m.run_torch)
    for m in (vector_add, softmax, layernorm))


def get(name: str) -> Sample:
    for sample in SAMPLES:
        if sample.name == name:
            return sample
    raise KeyError(f"no sample named {name!r}; have {[s.name for s in SAMPLES]}")


def check(actual, expected):
    """(passed, max |error|) under torch.testing.assert_close's default
    tolerances for the dtype - the criterion the demo and tests use."""
    import torch
    actual = actual.to(expected.device)  # a result on the mtia device
    max_err = (actual - expected).abs().max().item() if actual.numel() else 0.0
    try:
        torch.testing.assert_close(actual, expected)
    except AssertionError:
        return False, max_err
    return True, max_err
