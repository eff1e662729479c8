"""The expert C++ baselines of the long-tail operators (the paper's
Figure 8) and of fused attention (Figure 7), launched on torch tensors.

runtime/kernels/expert_longtail.cpp and expert_attention.cpp hold the
kernels, written by hand against the device API (their headers say what
makes them expert work); this module builds each once per process like a
generated kernel (through the object cache) and launches its kernels on the
simulated chip, the long-tail ones one program per PE. `EXPERTS` maps an
operator of `LONG_TAIL` to its expert version, which takes the same
arguments; `attention` is the expert `kernels.attention`.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path
from typing import Callable, Dict, Sequence

import torch

from .. import runtime
from ..backend import object_cache
from ..backend.compiler import run_tool
from .._settings import settings

#: Programs per launch: one per PE of the 8x8 grid.
PROGRAMS = 64
#: Mirrors of expert_longtail.cpp's capacities (its KernelInfo is what the
#: runtime checks): bytes of a chunk of each kind of kernel.
ROW_CHUNK_BYTES = 64 * 1024
LAYER_NORM_CHUNK_BYTES = 48 * 1024
GROUP_NORM_CHUNK_BYTES = 32 * 1024
TOPK_CHUNK_BYTES = 40 * 1024
SWIGLU_CHUNK_BYTES = 16 * 1024
ROPE_CHUNK_BYTES = 32 * 1024
JAGGED_CHUNK_BYTES = 32 * 1024
INDEX_CHUNK_BYTES = 64 * 1024
SCATTER_CHUNK_BYTES = 32 * 1024
#: Values in a weight table (rms norm, layer norm, group norm's widened
#: tables), in a band's targets, indices or offsets, and in a summed row
#: (embedding bag, scatter_add).
TABLE_VALUES = 8192
BAND_INDICES = 4096
SUM_DIM = 1024


def _source(stem: str) -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / f"{stem}.cpp", here.parent.parent.parent / "runtime" / "kernels" / f"{stem}.cpp"):
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"{stem}.cpp is neither installed nor in the source tree")


@functools.lru_cache(None)
def _shared_object(stem: str) -> str:
    """The built kernels of runtime/kernels/STEM.cpp, as a file (the
    simulator loads a path)."""
    include = settings.require_include_dir()
    source = _source(stem).read_text()
    toolchain = [settings.cxx, *settings.cxx_flags, "-fPIC", "-shared", *settings.link_flags]
    binary = object_cache.get_or_build(
        source, toolchain, include,
        lambda: run_tool("so", stem, source, "cpp", "so",
                         lambda cpp, so: [*toolchain, f"-I{include}", cpp, "-o", so]))
    path = Path(tempfile.mkdtemp(prefix="triton-mtia-expert-"), f"{stem}.so")
    path.write_bytes(binary)
    return str(path)


def _launch(kernel: str, args: Sequence[object], programs: int = PROGRAMS, stem: str = "expert_longtail") -> None:
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
    runtime.launch(_shared_object(stem), kernel, (programs, 1, 1), sim_args, sorted(regions.items()))


def _per_program(n: int) -> int:
    return -(-n // PROGRAMS)


def _chunk(count: int, item_bytes: int, chunk_bytes: int, what: str = "an item") -> int:
    """Items of `item_bytes` per chunk of a program's band of `count`: as
    many as fit `chunk_bytes`, at most 1024 (the statistics), and at least
    four chunks a program where its band allows, so that loads, compute and
    stores of consecutive chunks overlap."""
    if item_bytes > chunk_bytes:
        raise ValueError(f"this expert kernel takes {what} of at most {chunk_bytes} bytes, not {item_bytes}")
    return max(1, min(chunk_bytes // item_bytes, 1024, -(-_per_program(count) // 4)))


def _rows_per_chunk(rows: int, cols: int, chunk_bytes: int = ROW_CHUNK_BYTES) -> int:
    if cols * 4 > chunk_bytes:
        raise ValueError(f"this expert row kernel takes rows of at most {chunk_bytes // 4} f32 values, not {cols}")
    return _chunk(rows, cols * 4, chunk_bytes)


def _check_band(count: int, what: str, offsets: bool = False) -> None:
    """A program's band of `count` reads its indices (or its offsets, one
    more) into a buffer of BAND_INDICES values."""
    most = BAND_INDICES - 1 if offsets else BAND_INDICES
    if _per_program(count) > most:
        raise ValueError(f"this expert kernel takes at most {most} {what} a program "
                         f"({most * PROGRAMS} in all), not {count}")


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
    if x.shape[1] > TABLE_VALUES:
        raise ValueError(f"expert rms_norm takes rows of at most {TABLE_VALUES} values, not {x.shape[1]}")
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


def quantize_rows(x: torch.Tensor, dtype: torch.dtype = torch.int8):
    x = _f32_rows(x).contiguous()
    if dtype not in (torch.int8, torch.float8_e4m3fn):
        raise ValueError(f"expert quantize_rows: dtype is torch.int8 or torch.float8_e4m3fn, not {dtype}")
    rows, cols = x.shape
    q = torch.empty(x.shape, dtype=dtype, device=x.device)
    scale = torch.empty(rows, dtype=torch.float32, device=x.device)
    _launch("expert_quantize_rows", [x, q, scale, rows, cols, _rows_per_chunk(rows, cols), int(dtype != torch.int8)])
    return q, scale


def _longest(offsets: torch.Tensor) -> int:
    """The most rows of a bag or segment that `offsets` [n + 1] bound:
    the launcher's check, on the host (on `mtia` tensors the subtraction
    and maximum would be kernels on the chip, timed with the expert's)."""
    if offsets.numel() <= 1:
        return 0
    host = offsets.cpu()
    return int((host[1:] - host[:-1]).max())


def _int64(*tensors: torch.Tensor) -> None:
    if any(t.dtype != torch.int64 for t in tensors):
        raise ValueError("the expert kernels take int64 indices, targets and offsets")


def embedding_bag(weight: torch.Tensor, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    weight = weight.contiguous()
    bags, dim = offsets.numel() - 1, weight.shape[1]
    longest = _longest(offsets)
    if weight.dtype != torch.float32 or dim > SUM_DIM or longest > BAND_INDICES:
        raise ValueError(f"expert embedding_bag takes float32 rows of at most {SUM_DIM} values and bags of at most "
                         f"{BAND_INDICES} indices, not {weight.dtype} rows of {dim} and a bag of {longest}")
    _check_band(bags, "bags", offsets=True)
    _int64(indices, offsets)
    out = torch.empty((bags, dim), dtype=weight.dtype, device=weight.device)
    _launch("expert_embedding_bag", [weight, indices, offsets, out, bags, dim])
    return out


def cross_entropy(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    logits = _f32_rows(logits)
    _int64(target)
    rows, cols = logits.shape
    _check_band(rows, "rows")
    loss = torch.empty(rows, dtype=torch.float32, device=logits.device)
    _launch("expert_cross_entropy", [logits, target.contiguous(), loss, rows, cols, logits.stride(0),
                                     _rows_per_chunk(rows, cols)])
    return loss


def group_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, num_groups: int = 8,
               eps: float = 1e-5) -> torch.Tensor:
    x = x.contiguous()
    n, c = x.shape[:2]
    hw = x[0, 0].numel()
    if x.dtype != torch.float32 or c % num_groups or c * hw > TABLE_VALUES:
        raise ValueError(f"expert group_norm takes float32 x [N, C, *] with C a multiple of the groups and "
                         f"C x spatial at most {TABLE_VALUES}, not {x.dtype} {tuple(x.shape)} in {num_groups} groups")
    rows, size = n * num_groups, (c // num_groups) * hw
    y = torch.empty_like(x)
    _launch("expert_group_norm", [x, weight.contiguous(), bias.contiguous(), y, rows, size, hw, num_groups,
                                  float(eps), _rows_per_chunk(rows, size, GROUP_NORM_CHUNK_BYTES)])
    return y


def rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    seq, heads, dim = x.shape
    if x.dtype != torch.float32 or dim % 2:
        raise ValueError(f"expert rope takes float32 x [seq, heads, dim] with an even dim, not {x.dtype} "
                         f"{tuple(x.shape)}")
    y = torch.empty_like(x)
    positions = _chunk(seq, heads * dim * 4, ROPE_CHUNK_BYTES, "a position's heads")
    _launch("expert_rope", [x, cos.contiguous(), sin.contiguous(), y, seq, heads, dim, positions])
    return y


def index_select(x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    _int64(index)
    n, dim = index.numel(), x.shape[1]
    if x.dtype != torch.float32:
        raise ValueError(f"expert index_select takes float32 rows, not {x.dtype}")
    _check_band(n, "indices")
    y = torch.empty((n, dim), dtype=x.dtype, device=x.device)
    _launch("expert_index_select", [x, index.contiguous(), y, n, dim, _chunk(n, dim * 4, INDEX_CHUNK_BYTES, "a row")])
    return y


def scatter_add(out: torch.Tensor, index: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    src = src.contiguous()
    _int64(index)
    n, dim = src.shape
    if out.dtype != torch.float32 or src.dtype != torch.float32 or not out.is_contiguous() or dim > SUM_DIM:
        raise ValueError(f"expert scatter_add takes contiguous float32 rows of at most {SUM_DIM} values, "
                         f"not {src.dtype} [{n}, {dim}]")
    _check_band(n, "source rows")
    _launch("expert_scatter_add", [out, index.contiguous(), src, n, dim, _chunk(n, dim * 4, SCATTER_CHUNK_BYTES, "a row")])
    return out


def topk(x: torch.Tensor, k: int):
    x = _f32_rows(x)
    rows, cols = x.shape
    if cols > TABLE_VALUES or not 1 <= k <= min(cols, 64):
        raise ValueError(f"expert topk takes rows of at most {TABLE_VALUES} values and 1 <= k <= 64, "
                         f"not {cols} and {k}")
    values = torch.empty((rows, k), dtype=torch.float32, device=x.device)
    indices = torch.empty((rows, k), dtype=torch.int64, device=x.device)
    per_chunk = min(_rows_per_chunk(rows, cols, TOPK_CHUNK_BYTES), 4096 // k)
    _launch("expert_topk", [x, values, indices, rows, cols, x.stride(0), k, per_chunk])
    return values, indices


def _segments(values: torch.Tensor, offsets: torch.Tensor):
    """(segments, dim, rows per chunk) of a jagged float32 tensor."""
    _int64(offsets)
    if values.dtype != torch.float32 or values.dim() != 2:
        raise ValueError(f"the expert jagged kernels take float32 values [total, dim], not {values.dtype} "
                         f"{tuple(values.shape)}")
    segments, dim = offsets.numel() - 1, values.shape[1]
    _check_band(segments, "segments", offsets=True)
    # Chunks of whole segments of at most this many rows (and segments).
    per_chunk = JAGGED_CHUNK_BYTES // (dim * 4)
    longest = _longest(offsets)
    if longest > per_chunk:
        raise ValueError(f"the expert jagged kernels take segments of at most {per_chunk} rows of {dim}, "
                         f"not {longest}")
    return segments, dim, per_chunk


def jagged_sum(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    segments, dim, per_chunk = _segments(values, offsets)
    out = torch.empty((segments, dim), dtype=values.dtype, device=values.device)
    _launch("expert_jagged_sum", [values.contiguous(), offsets, out, segments, dim, per_chunk])
    return out


def jagged_softmax(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    segments, dim, per_chunk = _segments(values, offsets)
    if dim > SUM_DIM:
        raise ValueError(f"expert jagged_softmax takes rows of at most {SUM_DIM} values, not {dim}")
    out = torch.empty_like(values)
    _launch("expert_jagged_softmax", [values.contiguous(), offsets, out, segments, dim, per_chunk])
    return out


def jagged_dense_add(values: torch.Tensor, offsets: torch.Tensor, dense: torch.Tensor) -> torch.Tensor:
    segments, dim, per_chunk = _segments(values, offsets)
    out = torch.zeros_like(values)
    _launch("expert_jagged_dense_add", [values.contiguous(), offsets, dense.contiguous(), out, segments,
                                        dense.shape[1], dim, per_chunk])
    return out


def takes_attention(seq: int, dim: int) -> bool:
    """Whether the expert attention takes sequences of `seq` and heads of
    `dim`: whole blocks of 64 keys, d a multiple of 16 up to 128."""
    return seq % 64 == 0 and dim % 16 == 0 and dim <= 128


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False) -> torch.Tensor:
    """softmax(q k^T / sqrt(d)) v for fp16 q, k, v [heads, seq, d] of a
    shape `takes_attention` accepts (runtime/kernels/expert_attention.cpp):
    the expert counterpart of `kernels.attention`."""
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    heads, seq, dim = q.shape
    if any(t.dtype != torch.float16 or t.shape != q.shape for t in (q, k, v)) or not takes_attention(seq, dim):
        raise ValueError(f"expert attention takes fp16 q, k, v of one shape [heads, seq, d] with seq a multiple "
                         f"of 64 and d a multiple of 16 up to 128, not {q.dtype} {tuple(q.shape)}")
    o = torch.empty_like(q)
    blocks = seq // 64
    # Causal blocks in pairs of equal work where they outnumber the PEs.
    paired = causal and heads * blocks > PROGRAMS
    programs = heads * (-(-blocks // 2) if paired else blocks)
    _launch("expert_attention", [q, k, v, o, heads, seq, dim, dim**-0.5 * 1.4426950408889634, int(causal),
                                 int(paired)], programs=programs, stem="expert_attention")
    return o


#: Expert versions of the `LONG_TAIL` operators, by name; each takes the
#: same arguments as its Triton counterpart.
EXPERTS: Dict[str, Callable] = {
    "softmax": softmax, "layer_norm": layer_norm, "rms_norm": rms_norm, "group_norm": group_norm,
    "swiglu": swiglu, "rope": rope, "cross_entropy": cross_entropy, "embedding_bag": embedding_bag,
    "index_select": index_select, "scatter_add": lambda o, i, s: scatter_add(o.clone(), i, s), "cumsum": cumsum,
    "topk": lambda x: topk(x, 8), "jagged_dense_add": jagged_dense_add, "jagged_sum": jagged_sum,
    "jagged_softmax": jagged_softmax, "quantize_int8": quantize_rows,
    "quantize_fp8": lambda x: quantize_rows(x, torch.float8_e4m3fn),
}
