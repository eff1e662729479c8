"""`mtl.extract_slice`: explicit reuse of a tile in local memory (the
paper's 6.2.1).

    A = tl.load(a_ptrs)                                    # [BLOCK_M, K], once
    for k in tl.static_range(0, K, BLOCK_K):
        a = mtl.extract_slice(A, [0, k], [BLOCK_M, BLOCK_K])

A Triton tensor is used whole; on a GPU a kernel that needs a part of a
tensor again loads it again and the caches catch the reuse. A PE has no
cache: what is not in its local memory comes from SRAM or LPDDR. With
`extract_slice` a kernel loads a tensor once and takes parts of it.

Semantics: a copy of the part of `input` that starts at `offsets` and has
the shape `sizes`. It is spelled in upstream Triton's own ops, so the same
kernel runs on every backend: one `tl.gather` along each dimension that
the slice cuts, by the index `offset + arange(size)`. Our compiler sees
the pattern: at constant offsets the slice is a view of the input's tile
(no copy, no command: the input stays in its CB until the slice's last
reader); at offsets known only at run time the gathers copy on the SE,
and an index out of range is a kernel fault naming the line.
"""

from triton.language import core

from .pe import _extension


def _as_list(name, value, rank):
    value = core._unwrap_if_constexpr(value)
    if isinstance(value, core.tuple):
        value = list(value.values)
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"mtl.extract_slice: {name} must be a list of {rank} values, one per dimension")
    value = [core._unwrap_if_constexpr(v) for v in value]
    if len(value) != rank:
        raise ValueError(f"mtl.extract_slice: {name} has {len(value)} values for a tensor of rank {rank}")
    return value


@_extension
def extract_slice(input, offsets, sizes, _semantic=None):
    """The part of `input` of shape `sizes` that starts at `offsets`, a copy.

    `sizes` are constants (powers of two, as every Triton block dimension);
    `offsets` integers, constant or not. A constant offset out of range is a
    compile error; a run-time one, a kernel fault at the call."""
    input = _semantic.to_tensor(input)
    if not input.type.is_block():
        raise ValueError("mtl.extract_slice: input must be a tensor (a block)")
    shape = [core._unwrap_if_constexpr(d) for d in input.shape]
    rank = len(shape)
    offsets = _as_list("offsets", offsets, rank)
    sizes = _as_list("sizes", sizes, rank)
    for d, size in enumerate(sizes):
        if type(size) is not int or size < 1 or size & (size - 1):
            raise ValueError(f"mtl.extract_slice: sizes[{d}] must be a constant power of two, not {size!r}")
        if size > shape[d]:
            raise ValueError(f"mtl.extract_slice: sizes[{d}] = {size} is larger than the input's dimension {d} "
                             f"({shape[d]})")
        if type(offsets[d]) is int and not 0 <= offsets[d] <= shape[d] - size:
            raise ValueError(f"mtl.extract_slice: the slice [{offsets[d]}, {offsets[d] + size}) of dimension {d} "
                             f"is outside the input's [0, {shape[d]})")
    result = input
    for d, (offset, size) in enumerate(zip(offsets, sizes)):
        if type(offset) is int and offset == 0 and size == shape[d]:
            continue  # this dimension is kept whole
        offset = _semantic.to_tensor(offset)
        if offset.type.is_block() or not offset.dtype.is_int():
            raise ValueError(f"mtl.extract_slice: offsets[{d}] must be an integer scalar, not {offset.type}")
        if offset.dtype != core.int32:
            offset = _semantic.cast(offset, core.int32)
        index = _semantic.add(_semantic.arange(0, size), offset, True)
        # [size] -> rank dimensions, `size` along d, broadcast along the rest.
        for axis in range(rank):
            if axis != d:
                index = _semantic.expand_dims(index, axis)
        out_shape = [core._unwrap_if_constexpr(x) for x in result.shape]
        out_shape[d] = size
        index = _semantic.broadcast_impl_shape(index, out_shape)
        result = _semantic.gather(result, index, d)
    # (The whole tensor is the input itself: a tensor is a value, so a copy
    # and the original cannot be told apart.)
    return result
