"""The expert C++ baselines of the long-tail operators (the paper's
Figure 8), launched on torch tensors.

runtime/kernels/expert_longtail.cpp holds the kernels, written by hand
against the device API (its header says what makes them expert work); this
module builds it once per process like a generated kernel (through the
object cache) and launches its kernels on the simulated chip, one program
per PE. `EXPERTS` maps an operator of `LONG_TAIL` to its expert version,
which takes the same arguments.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path
from typing import Callable, Dict, Sequence

import torch

from .. import runtime
from ..backend import object_cache
from ..backend.compiler import _run_tool
from ..settings import settings

#: Programs per launch: one per PE of the 8x8 grid.
PROGRAMS = 64
#: Mirrors of expert_longtail.cpp's capacities (kRowChunkBytes,
#: kLayerNormChunkBytes, kSwigluChunkBytes): the kernels' KernelInfo is
#: what the runtime checks.
ROW_CHUNK_BYTES = 64 * 1024
LAYER_NORM_CHUNK_BYTES = 48 * 1024
SWIGLU_CHUNK_BYTES = 16 * 1024


def _source() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "expert_longtail.cpp", here.parent.parent.parent / "runtime" / "kernels" /
                      "expert_longtail.cpp"):
        if candidate.exists():
            return candidate
    raise FileNotFoundError("expert_longtail.cpp is neither installed nor in the source tree")


@functools.lru_cache(None)
def _shared_object() -> str:
    """The built kernels, as a file (the simulator loads a path)."""
    include = settings.require_include_dir()
    source = _source().read_text()
    toolchain = [settings.cxx, *settings.cxx_flags, "-fPIC", "-shared", *settings.link_flags]
    binary = object_cache.get_or_build(
        source, toolchain, include,
        lambda: _run_tool("so", "expert_longtail", source, "cpp", "so",
                          lambda cpp, so: [*toolchain, f"-I{include}", cpp, "-o", so]))
    path = Path(tempfile.mkdtemp(prefix="triton-mtia-expert-"), "expert_longtail.so")
    path.write_bytes(binary)
    return str(path)


def _launch(kernel: str, args: Sequence[object]) -> None:
    sim_args, regions = [], {}
    for value in args:
        if isinstance(value, torch.Tensor):
            storage = value.untyped_storage()
            regions[storage.data_ptr()] = storage.nbytes()
            sim_args.append(("p", value.data_ptr()))
        elif isinstance(value, float):
            sim_args.append(("f", value))
        else:
            sim_args.append(("i", int(value)))
    runtime.launch(_shared_object(), kernel, (PROGRAMS, 1, 1), sim_args, sorted(regions.items()))


def _rows_per_chunk(rows: int, cols: int, chunk_bytes: int = ROW_CHUNK_BYTES) -> int:
    if cols * 4 > chunk_bytes:
        raise ValueError(f"this expert row kernel takes rows of at most {chunk_bytes // 4} f32 values, not {cols}")
    per_program = -(-rows // PROGRAMS)
    # At least four chunks a program where its band allows, so that loads,
    # compute and stores of consecutive chunks overlap.
    return max(1, min(chunk_bytes // (cols * 4), 1024, -(-per_program // 4)))


def _f32_rows(x: torch.Tensor) -> torch.Tensor:
    if x.dtype != torch.float32 or x.dim() != 2:
        raise ValueError(f"the expert row kernels take a 2-D float32 tensor, not {x.dtype} {tuple(x.shape)}")
    return x if x.stride(1) == 1 else x.contiguous()


def softmax(x: torch.Tensor) -> torch.Tensor:
    x = _f32_rows(x)
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    rows, cols = x.shape
    _launch("expert_softmax", [x, y, rows, cols, x.stride(0), y.stride(0), _rows_per_chunk(rows, cols)])
    return y


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    x = _f32_rows(x).contiguous()
    if x.shape[1] > 8192:
        raise ValueError(f"expert rms_norm takes rows of at most 8192 values, not {x.shape[1]}")
    y = torch.empty_like(x)
    rows, cols = x.shape
    _launch("expert_rms_norm", [x, weight.contiguous(), y, rows, cols, cols, float(eps), _rows_per_chunk(rows, cols)])
    return y


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    x = _f32_rows(x).contiguous()
    y = torch.empty_like(x)
    rows, cols = x.shape
    _launch("expert_layer_norm", [x, weight.contiguous(), bias.contiguous(), y, rows, cols, cols, float(eps),
                                  _rows_per_chunk(rows, cols, LAYER_NORM_CHUNK_BYTES)])
    return y


def swiglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    a, b = a.contiguous(), b.contiguous()
    if a.dtype != torch.float32 or b.dtype != torch.float32 or a.shape != b.shape:
        raise ValueError("expert swiglu takes two float32 tensors of one shape")
    y = torch.empty_like(a)
    n = a.numel()
    chunk = max(1, min(SWIGLU_CHUNK_BYTES // 4, -(-n // (4 * PROGRAMS))))
    _launch("expert_swiglu", [a, b, y, n, chunk])
    return y


def cumsum(x: torch.Tensor) -> torch.Tensor:
    x = _f32_rows(x).contiguous()
    y = torch.empty_like(x)
    rows, cols = x.shape
    _launch("expert_cumsum", [x, y, rows, cols, cols, _rows_per_chunk(rows, cols)])
    return y


def quantize_int8(x: torch.Tensor):
    x = _f32_rows(x).contiguous()
    rows, cols = x.shape
    q = torch.empty(x.shape, dtype=torch.int8, device=x.device)
    scale = torch.empty(rows, dtype=torch.float32, device=x.device)
    _launch("expert_quantize_int8", [x, q, scale, rows, cols, _rows_per_chunk(rows, cols)])
    return q, scale


def embedding_bag(weight: torch.Tensor, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    weight = weight.contiguous()
    bags, dim = offsets.numel() - 1, weight.shape[1]
    longest = int((offsets[1:] - offsets[:-1]).max()) if bags else 0
    if weight.dtype != torch.float32 or dim > 1024 or -(-bags // PROGRAMS) >= 4096 or longest > 4096:
        raise ValueError("expert embedding_bag takes float32 rows of at most 1024 values, at most 4095 bags "
                         f"a program and 4096 indices a bag, not {weight.dtype} rows of {dim}, {bags} bags "
                         f"and a bag of {longest}")
    if indices.dtype != torch.int64 or offsets.dtype != torch.int64:
        raise ValueError("expert embedding_bag takes int64 indices and offsets")
    out = torch.empty((bags, dim), dtype=weight.dtype, device=weight.device)
    _launch("expert_embedding_bag", [weight, indices, offsets, out, bags, dim])
    return out


#: Expert versions of `LONG_TAIL` operators, by name.
EXPERTS: Dict[str, Callable] = {"softmax": softmax, "layer_norm": layer_norm, "rms_norm": rms_norm,
                                "swiglu": swiglu, "embedding_bag": embedding_bag, "quantize_int8": quantize_int8,
                                "cumsum": cumsum}
