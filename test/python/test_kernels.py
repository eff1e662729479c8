"""The kernel library (triton_mtia.kernels) matches PyTorch: the GEMM
dispatcher's variants on the shapes each is for, fused and decomposed
attention, and the 17 long-tail operators on their first benchmark shape."""

import pytest
import torch

import triton_mtia
from triton_mtia.kernels import LONG_TAIL, attention, attention_decomposed, bmm, gemm, gemm_plan, roofline_cycles
from triton_mtia.kernels import expert
from triton_mtia.kernels.expert import EXPERTS


def _compare(got, want, tolerance):
    got = got if isinstance(got, tuple) else (got, )
    want = want if isinstance(want, tuple) else (want, )
    assert len(got) == len(want)
    for a, b in zip(got, want):
        a = a.cpu()
        assert a.dtype == b.dtype and a.shape == b.shape
        if a.dtype.is_floating_point:
            torch.testing.assert_close(a.float(), b.float(), rtol=tolerance[0], atol=tolerance[1])
        else:
            assert torch.equal(a, b)


@pytest.mark.parametrize("name", list(LONG_TAIL))
def test_long_tail_operator_matches_torch(name):
    op = LONG_TAIL[name]
    inputs = op.make_inputs(torch.Generator().manual_seed(0), *op.shapes[0])
    _compare(op.run(*(t.to("mtia") for t in inputs)), op.reference(*inputs), op.tolerance)


def test_jagged_kernels_over_one_and_several_tiles():
    """Segments of 0 rows, of one tile (JAGGED_ROWS) exactly, one row
    past it and of several tiles (the online pass and the second read of
    jagged softmax), in columns that are not a power of two; dense slabs
    shorter and longer than the segments."""
    from triton_mtia.kernels.longtail import JAGGED_ROWS
    g = torch.Generator().manual_seed(3)
    lengths = torch.tensor([0, 1, JAGGED_ROWS, JAGGED_ROWS + 1, 0, 3 * JAGGED_ROWS - 5, 7, 2 * JAGGED_ROWS])
    offsets = torch.zeros(len(lengths) + 1, dtype=torch.int64)
    offsets[1:] = lengths.cumsum(0)
    values = torch.randn(int(offsets[-1]), 40, generator=g) * 4
    for name in ("jagged_sum", "jagged_softmax"):
        op = LONG_TAIL[name]
        _compare(op.run(values.to("mtia"), offsets.to("mtia")), op.reference(values, offsets), (1e-4, 1e-4))
    for max_len in (5, 2 * JAGGED_ROWS + 3):
        dense = torch.randn(len(lengths), max_len, 40, generator=g)
        op = LONG_TAIL["jagged_dense_add"]
        _compare(op.run(values.to("mtia"), offsets.to("mtia"), dense.to("mtia")),
                 op.reference(values, offsets, dense), (1e-5, 1e-5))


def test_tiled_kernels_at_their_edges():
    """The long-tail kernels that give a program a 2-D or 3-D tile, where
    the tile and the data part: a last program with fewer rows than the
    others, extents that are not powers of two (group norm's channels per
    group and spatial size, rope's heads, top-k's columns), scatter_add's
    source rows of one program and of several programs landing on one
    destination row, top-k's ties, and bags empty or longer than a tile."""
    g = torch.Generator().manual_seed(5)
    x, w, b = torch.randn(7, 12, 5, generator=g) * 3 + 1, torch.randn(12, generator=g), torch.randn(12, generator=g)
    op = LONG_TAIL["group_norm"]  # 8 groups
    x8, w8, b8 = torch.randn(3, 24, 3, 3, generator=g), torch.randn(24, generator=g), torch.randn(24, generator=g)
    _compare(op.run(x8.to("mtia"), w8.to("mtia"), b8.to("mtia")), op.reference(x8, w8, b8), op.tolerance)
    from triton_mtia.kernels.longtail import group_norm
    got = group_norm(x.to("mtia"), 4, w.to("mtia"), b.to("mtia")).cpu()
    torch.testing.assert_close(got, torch.nn.functional.group_norm(x, 4, w, b), rtol=1e-4, atol=1e-4)

    out, src = torch.randn(70, 24, generator=g), torch.randn(333, 24, generator=g)
    index = torch.randint(0, 70, (333, ), generator=g)
    index[:40] = 5
    index[::9] = 69
    op = LONG_TAIL["scatter_add"]
    _compare(op.run(out.to("mtia"), index.to("mtia"), src.to("mtia")), op.reference(out, index, src), (1e-4, 1e-4))

    # rope: 3 heads in a tile of 4, positions 8 to a program but the last.
    x, cos, sin = torch.randn(515, 3, 16, generator=g), torch.randn(515, 8, generator=g), torch.randn(515, 8, generator=g)
    op = LONG_TAIL["rope"]
    _compare(op.run(x.to("mtia"), cos.to("mtia"), sin.to("mtia")), op.reference(x, cos, sin), op.tolerance)

    # top-k: two rows to a program but the last, 33 columns, ties.
    x = torch.randint(-3, 4, (601, 33), generator=g).float()
    values, indices = LONG_TAIL["topk"].run(x.to("mtia"))
    want = x.topk(8, 1)
    assert torch.equal(values.cpu(), want.values)
    # Ties go to the first position: gather the picks back, and check them.
    assert torch.equal(x.gather(1, indices.cpu()), want.values)
    assert all(len(set(row.tolist())) == 8 for row in indices.cpu())

    # embedding bag: empty bags, bags longer than a tile, mean size 3.
    weight = torch.randn(300, 20, generator=g)
    lengths = torch.tensor([0, 1, 3, 2, 0, 40, 3, 1, 0, 7] * 3)
    offsets = torch.zeros(len(lengths) + 1, dtype=torch.int64)
    offsets[1:] = lengths.cumsum(0)
    indices = torch.randint(0, 300, (int(offsets[-1]), ), generator=g)
    op = LONG_TAIL["embedding_bag"]
    _compare(op.run(weight.to("mtia"), indices.to("mtia"), offsets.to("mtia")),
             op.reference(weight, indices, offsets), op.tolerance)


def test_there_are_17_long_tail_operators():
    assert len(LONG_TAIL) == 17


# (M, N, K, dtype, the variant the policy picks)
GEMMS = [
    (512, 512, 256, torch.float16, "tiles"),
    (300, 200, 260, torch.bfloat16, "tiles"),
    (96, 80, 70, torch.float32, "tiles"),
    (100, 300, 200, torch.int8, "tiles"),
    (32, 2048, 1024, torch.float16, "weight_streaming"),
    (16, 2048, 1024, torch.int8, "weight_streaming"),
    (64, 64, 4096, torch.float16, "split_k"),
]


@pytest.mark.parametrize("M,N,K,dtype,variant", GEMMS, ids=lambda v: str(v).replace("torch.", ""))
def test_gemm_variant_matches_torch(M, N, K, dtype, variant):
    g = torch.Generator().manual_seed(1)
    if dtype == torch.int8:
        a = torch.randint(-128, 128, (M, K), generator=g, dtype=torch.int8)
        b = torch.randint(-128, 128, (K, N), generator=g, dtype=torch.int8)
    else:
        a, b = torch.randn(M, K, generator=g).to(dtype), torch.randn(K, N, generator=g).to(dtype)
    assert gemm_plan(M, N, K, dtype).variant == variant
    c = gemm(a.to("mtia"), b.to("mtia")).cpu()
    if dtype == torch.int8:
        assert c.dtype == torch.int32 and torch.equal(c, a.int() @ b.int())
    else:
        assert c.dtype == torch.float32
        torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=1e-2, atol=1e-2 * K**0.5)
    # No launch beats the chip's roofline.
    assert triton_mtia.last_launch().cycles >= roofline_cycles(M, N, K, dtype, level="sram")


def test_every_variant_runs_a_shape_of_another_class():
    g = torch.Generator().manual_seed(2)
    a, b = torch.randn(48, 1024, generator=g).half(), torch.randn(1024, 96, generator=g).half()
    want = a.double() @ b.double()
    for variant in ("tiles", "split_k", "weight_streaming"):
        c = gemm(a.to("mtia"), b.to("mtia"), variant=variant).cpu()
        torch.testing.assert_close(c.double(), want, rtol=1e-2, atol=0.4)


def test_gemm_errors_name_the_problem():
    a = torch.zeros(4, 8, dtype=torch.int8)
    with pytest.raises(ValueError, match="variant must be one of"):
        gemm(a, torch.zeros(8, 4, dtype=torch.int8), variant="systolic")
    with pytest.raises(ValueError, match="int8 GEMMs use tiles or weight_streaming"):
        gemm(a, torch.zeros(8, 4, dtype=torch.int8), variant="split_k")
    with pytest.raises(ValueError, match="M <= 64"):
        gemm(torch.zeros(100, 8).half(), torch.zeros(8, 4).half(), variant="weight_streaming")
    with pytest.raises(ValueError, match="A is \\[M, K\\]"):
        gemm(a, torch.zeros(4, 4, dtype=torch.int8))


@pytest.mark.parametrize("causal", [False, True])
def test_fused_and_decomposed_attention_match_torch(causal):
    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(2, 192, 64, generator=g).half() for _ in range(3))
    want = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
    fused = attention(*(t.to("mtia") for t in (q, k, v)), causal=causal).cpu()
    launches_before = triton_mtia.runtime.launch_count
    decomposed = attention_decomposed(*(t.to("mtia") for t in (q, k, v)), causal=causal).cpu()
    torch.testing.assert_close(fused.float(), want, rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(decomposed.float(), want, rtol=2e-2, atol=2e-2)
    assert triton_mtia.runtime.launch_count - launches_before == 3  # GEMM, softmax, GEMM over all heads
    # The expert C++ fused attention, one and (causal, more query blocks
    # than PEs) two query blocks per program.
    for heads in (2, 24):
        q, k, v = (torch.randn(heads, 192, 64, generator=g).half() for _ in range(3))
        want = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
        got = expert.attention(*(t.to("mtia") for t in (q, k, v)), causal=causal).cpu()
        torch.testing.assert_close(got.float(), want, rtol=2e-2, atol=2e-2)


def test_bmm_matches_torch():
    g = torch.Generator().manual_seed(6)
    a, b = torch.randn(5, 70, 40, generator=g).half(), torch.randn(5, 40, 90, generator=g).half()
    c = bmm(a.to("mtia"), b.to("mtia").transpose(1, 2).contiguous().transpose(1, 2)).cpu()
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=1e-2, atol=5e-2)


@pytest.mark.parametrize("name", list(EXPERTS))
def test_expert_baseline_matches_torch(name):
    """The expert C++ kernels (runtime/kernels/expert_longtail.cpp) compute
    what their Triton counterparts and PyTorch do, on every shape."""
    op = LONG_TAIL[name]
    for shape in op.shapes:
        inputs = [t.to("mtia") for t in op.make_inputs(torch.Generator().manual_seed(4), *shape)]
        before = triton_mtia.runtime.launch_count
        result = EXPERTS[name](*inputs)
        # One launch, the expert's: a launcher's checks run on the host (an
        # operator on mtia tensors would be a kernel, timed with it).
        assert triton_mtia.runtime.launch_count == before + 1
        _compare(result, op.reference(*(t.cpu() for t in inputs)), op.tolerance)


def test_expert_kernels_refuse_what_they_do_not_take():
    with pytest.raises(ValueError, match="2-D float32"):
        EXPERTS["softmax"](torch.zeros(4, 8, dtype=torch.float16))
    with pytest.raises(ValueError, match="at most 8192"):
        EXPERTS["rms_norm"](torch.zeros(2, 10000), torch.zeros(10000))
    with pytest.raises(ValueError, match="segments of at most 32 rows of 256, not 40"):
        EXPERTS["jagged_sum"](torch.zeros(40, 256), torch.tensor([0, 40]))
    with pytest.raises(ValueError, match="int64"):
        EXPERTS["jagged_sum"](torch.zeros(4, 8), torch.tensor([0, 4], dtype=torch.int32))
    with pytest.raises(ValueError, match="C a multiple of the groups"):
        expert.group_norm(torch.zeros(2, 6, 4), torch.zeros(6), torch.zeros(6), num_groups=4)
    with pytest.raises(ValueError, match="1 <= k <= 64"):
        expert.topk(torch.zeros(4, 100), 65)
    with pytest.raises(ValueError, match="seq a multiple of 64"):
        expert.attention(*(torch.zeros(1, 100, 64, dtype=torch.float16) for _ in range(3)))
    with pytest.raises(ValueError, match="at most 4095 bags a program"):
        EXPERTS["embedding_bag"](torch.zeros(4, 8), torch.zeros(0, dtype=torch.int64),
                                 torch.zeros(4095 * 64 + 2, dtype=torch.int64))


def test_expert_embedding_bag_of_empty_and_long_bags():
    # Bags of 0, 1, 16, 17 and 40 rows: an empty bag is zeros; bags past 16
    # rows are summed in groups.
    g = torch.Generator().manual_seed(5)
    weight = torch.randn(300, 96, generator=g)
    lengths = torch.tensor([0, 1, 16, 17, 40, 3])
    offsets = torch.zeros(len(lengths) + 1, dtype=torch.int64)
    offsets[1:] = lengths.cumsum(0)
    indices = torch.randint(0, 300, (int(offsets[-1]), ), generator=g)
    want = torch.nn.functional.embedding_bag(indices, weight, offsets, mode="sum", include_last_offset=True)
    got = EXPERTS["embedding_bag"](weight.to("mtia"), indices.to("mtia"), offsets.to("mtia"))
    torch.testing.assert_close(got.cpu(), want, rtol=1e-5, atol=1e-5)


def test_expert_kernels_at_their_edges():
    """Chunks of several rows where the expert kernels change course: group
    norm's runs of groups that wrap within a chunk, a scatter_add row that
    receives more source rows than one reduction sums, jagged chunks that
    end at segment boundaries with empty segments and whole empty bands,
    and the top-1."""
    g = torch.Generator().manual_seed(7)
    x, w, b = torch.randn(128, 12, 5, generator=g), torch.randn(12, generator=g), torch.randn(12, generator=g)
    got = expert.group_norm(x.to("mtia"), w.to("mtia"), b.to("mtia"), num_groups=3).cpu()
    torch.testing.assert_close(got, torch.nn.functional.group_norm(x, 3, w, b), rtol=1e-4, atol=1e-4)

    out, src = torch.randn(70, 24, generator=g), torch.randn(40, 24, generator=g)
    index = torch.full((40, ), 5, dtype=torch.int64)
    index[::7] = 69
    got = EXPERTS["scatter_add"](out.to("mtia"), index.to("mtia"), src.to("mtia")).cpu()
    torch.testing.assert_close(got, out.clone().index_add_(0, index, src), rtol=1e-5, atol=1e-5)

    lengths = torch.tensor([0] * 70 + [5, 0, 32, 1, 0, 31, 32, 7] * 40)
    offsets = torch.zeros(len(lengths) + 1, dtype=torch.int64)
    offsets[1:] = lengths.cumsum(0)
    values = torch.randn(int(offsets[-1]), 256, generator=g)
    for name in ("jagged_sum", "jagged_softmax"):
        op = LONG_TAIL[name]
        _compare(EXPERTS[name](values.to("mtia"), offsets.to("mtia")), op.reference(values, offsets), (1e-4, 1e-4))
    dense = torch.randn(len(lengths), 20, 256, generator=g)
    _compare(EXPERTS["jagged_dense_add"](values.to("mtia"), offsets.to("mtia"), dense.to("mtia")),
             LONG_TAIL["jagged_dense_add"].reference(values, offsets, dense), (1e-5, 1e-5))

    x = torch.randn(600, 33, generator=g)
    values, indices = expert.topk(x.to("mtia"), 1)
    assert torch.equal(values.cpu(), x.max(1, keepdim=True).values)
    assert torch.equal(indices.cpu(), x.argmax(1, keepdim=True))
