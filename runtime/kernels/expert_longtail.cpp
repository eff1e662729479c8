//===- expert_longtail.cpp - Hand-written long-tail kernels ---------------===//
//
// The expert C++ baselines of the long-tail operators (the paper's Figure 8),
// written by hand against device.h the way an MTIA expert would, and launched
// on torch tensors by python/triton_mtia/kernels/expert.py (all f32):
//
//  - expert_softmax, expert_rms_norm, expert_layer_norm: over each row of
//    x [rows, cols]; layer norm in two passes over the row in local memory.
//  - expert_group_norm: layer norm over each (sample, group) of x [N, C, HW],
//    with per-channel weights widened once per program.
//  - expert_cross_entropy: logsumexp(x) - x[target] per row.
//  - expert_cumsum: the running sum of each row, one SE scan per chunk.
//  - expert_quantize_rows: q = x / scale, scale = max|x| / 127 (int8, the
//    SE's Quantize rounding and saturating in the conversion) or / 448 (fp8
//    e4m3) per row.
//  - expert_topk: the K largest values of each row and their positions.
//  - expert_swiglu: silu(a) * b, elementwise.
//  - expert_rope: rotary embedding of x [seq, heads, dim], "rotate half".
//  - expert_embedding_bag, expert_index_select, expert_scatter_add: rows of
//    a table summed per bag, gathered, or added into the rows an index
//    names.
//  - expert_jagged_sum, expert_jagged_softmax, expert_jagged_dense_add: over
//    the segments of a jagged tensor (values [total, dim], offsets [B + 1]).
//
// What makes them expert work rather than a transcription of the Triton
// kernels:
//  * a program owns a contiguous band of rows (ceil(rows / programs) each)
//    and moves it in chunks of R rows, R chosen by the host so that the
//    chunk's tiles fill the PE's local memory; one DMA, one reduction and
//    one elementwise command per chunk instead of per row;
//  * tiles have the row's exact width (781 columns, not 1024): no padding,
//    no masks, no work on lanes that hold nothing;
//  * the DMA of chunk i + 1 is issued before chunk i is computed (two tiles
//    in the input CB), and the result's DMA out overlaps the next chunk
//    (overChunks, the one pipeline of every kernel here);
//  * the fabric's commands are issued by the scalar core 0, the SIMD
//    engine's by the vector core 1 (onCore), so neither core's issue cost
//    delays the other's unit;
//  * accumulating commands replace the tile they read (replaceFront), so a
//    CB holds one tile where it would hold two;
//  * gathers (embedding bag, index_select, scatter_add) read a band's
//    indices in one DMA (the core reads them from local memory) and issue
//    the rows' DMAs back to back so that they are in flight together; rows
//    to sum land one after another in one CB and are summed by one
//    reduction per group of rows instead of an add per row;
//  * scatter_add moves a chunk of source rows in one DMA and adds it into
//    its rows of the output with one atomic command over the chunk, its
//    addresses made by one SE command;
//  * jagged kernels move chunks of whole segments in one DMA (segments are
//    contiguous) and reduce each segment along its rows in local memory;
//  * cross-entropy gathers each row's target logit from the chunk already
//    in local memory (seGather), rope broadcasts cos and sin over the heads
//    through views, group norm applies a run of consecutive groups' weights
//    in one command.
//
// The scalar code between the commands is charged with scalarCycles() by the
// cost table of the compiler's mtia-scalar-cost pass (1 per ALU op, 3 per
// multiply, 20 per divide, 2 per loop iteration), counted by hand, as in
// expert_gemm.cpp, so that expert and compiled kernels pay by the same rules.
//
//===----------------------------------------------------------------------===//

#include "mtia/device.h"

using namespace mtia;

namespace {

int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/// `n` consecutive values.
Box box1(int64_t n) {
  Box b;
  b.rank = 1;
  b.shape[0] = b.valid[0] = n;
  b.stride[0] = 1;
  return b;
}

/// A program's band of rows [first, end) of `rows`, split evenly.
struct Band {
  int64_t first, end;
};

Band bandOf(Ctx *c, int64_t rows) {
  const int64_t programs = numPrograms(c, 0);
  const int64_t per = (rows + programs - 1) / programs;
  const int64_t first = min64(rows, programId(c, 0) * per);
  return {first, min64(rows, first + per)};
}

constexpr int32_t kIn = 0, kStat = 1, kWork = 2, kOut = 3, kW = 4, kBias = 5, kSquare = 6, kWide = 7, kWideBias = 8;

/// Issues the fabric's commands on core 0 and the engines' on core 1.
void fabric(Ctx *c) { onCore(c, 0); }
void engines(Ctx *c) { onCore(c, 1); }

/// The pipeline every kernel here runs: [first, end) in chunks, chunk
/// [b, next(b)) after chunk b; `load(b, e)` issues a chunk's DMAs in, one
/// chunk ahead, on core 0; `compute(b, e)` its engine commands on core 1;
/// then `store(b, e)` its DMAs out on core 0, which overlap the next
/// chunk's compute.
template <class Next, class Load, class Compute, class Store>
void overChunks(Ctx *c, int64_t first, int64_t end, Next next, Load load, Compute compute, Store store) {
  if (first >= end)
    return;
  int64_t following = next(first);
  load(first, following);
  for (int64_t begin = first; begin < end;) {
    scalarCycles(c, 10); // loop control, the chunk's bounds, the next chunk's test
    const int64_t stop = following;
    if (stop < end) {
      following = next(stop);
      load(stop, following);
    }
    engines(c);
    compute(begin, stop);
    fabric(c);
    store(begin, stop);
    begin = stop;
  }
}

/// The row kernels' chunks: the band's rows of `x` (f32, `cols` wide, `ld`
/// apart) move into kIn R rows at a time; `compute(r0, n)` and
/// `store(r0, n)` take the chunk's first row and its number of rows.
template <class Compute, class Store>
void overRowChunks(Ctx *c, Band band, int64_t R, uint64_t x, int64_t cols, int64_t ld, Compute compute,
                   Store store) {
  overChunks(
      c, band.first, band.end, [&](int64_t r0) { return min64(band.end, r0 + R); },
      [&](int64_t r0, int64_t r1) {
        scalarCycles(c, 8); // the chunk's rows and address
        dmaIn(c, kIn, DType::F32, x + uint64_t(r0 * ld) * 4, rowsBox(r1 - r0, cols, ld), immFloat(DType::F32, 0));
      },
      [&](int64_t r0, int64_t r1) { compute(r0, r1 - r0); }, [&](int64_t r0, int64_t r1) { store(r0, r1 - r0); });
}

/// `n` rows of the f32 tile at the front of kOut to `y`, `ld` apart.
void storeRows(Ctx *c, uint64_t y, int64_t r0, int64_t n, int64_t cols, int64_t ld) {
  scalarCycles(c, 6); // the output address
  dmaOut(c, kOut, DType::F32, y + uint64_t(r0 * ld) * 4, rowsBox(n, cols, ld));
  cbPop(c, kOut, n * cols * 4);
}

/// Layer norm's statistics and centring of the chunk of n rows at the
/// front of kIn: leaves (x - mean) * rstd at the back of kSquare and pops
/// the chunk.
void normalizeRows(Ctx *c, int64_t n, int64_t cols, double eps) {
  const Shape tile = shape2(n, cols), stat = shape1(n);
  const Operand rowsView = view(kWork, DType::F32, cols, 1), statColumn = view(kStat, DType::F32, 1, 0);
  const Operand inverseCols = immFloat(DType::F32, 1.0 / double(cols));
  // mean = sum(x) / cols; d = x - mean.
  seReduce(c, ReduceOp::Sum, kStat, DType::F32, tile, /*axis=*/1, view(kIn, DType::F32, cols, 1));
  replaceFront(c, kStat);
  se(c, SeOp::Mul, kStat, DType::F32, stat, view(kStat, DType::F32, 1), inverseCols);
  se(c, SeOp::Sub, kWork, DType::F32, tile, view(kIn, DType::F32, cols, 1), statColumn);
  cbPop(c, kIn, n * cols * 4);
  cbPop(c, kStat, n * 4);
  // rstd = rsqrt(sum(d * d) / cols + eps).
  se(c, SeOp::Mul, kSquare, DType::F32, tile, rowsView, rowsView);
  seReduce(c, ReduceOp::Sum, kStat, DType::F32, tile, /*axis=*/1, view(kSquare, DType::F32, cols, 1));
  cbPop(c, kSquare, n * cols * 4);
  replaceFront(c, kStat);
  se(c, SeOp::Fma, kStat, DType::F32, stat, view(kStat, DType::F32, 1), inverseCols, immFloat(DType::F32, eps));
  replaceFront(c, kStat);
  se(c, SeOp::Rsqrt, kStat, DType::F32, stat, view(kStat, DType::F32, 1));
  // d * rstd.
  se(c, SeOp::Mul, kSquare, DType::F32, tile, rowsView, statColumn);
  cbPop(c, kWork, n * cols * 4);
  cbPop(c, kStat, n * 4);
}

/// The sum of `count` rows of `dim` f32 values, row i at `address(i)`,
/// appended to kOut: the rows' DMAs in groups of kGroupRows, issued back to
/// back so that they are in flight together and land one after another in
/// kIn, and one reduction per group instead of an add per row.
constexpr int64_t kGroupRows = 16;
template <class Address>
void sumOfRows(Ctx *c, int64_t count, int64_t dim, Address address) {
  const Shape row = shape1(dim);
  if (count == 0) { // an empty sum is 0
    engines(c);
    se(c, SeOp::Copy, kOut, DType::F32, row, immFloat(DType::F32, 0));
    fabric(c);
    return;
  }
  for (int64_t g = 0; g < count; g += kGroupRows) {
    const int64_t rows = min64(kGroupRows, count - g);
    fabric(c);
    for (int64_t i = 0; i < rows; ++i) {
      scalarCycles(c, 8); // loop control, the row's address
      dmaIn(c, kIn, DType::F32, address(g + i), rowsBox(1, dim, dim), immFloat(DType::F32, 0));
    }
    engines(c);
    const Shape group = shape2(rows, dim);
    if (g == 0) {
      seReduce(c, ReduceOp::Sum, kOut, DType::F32, group, /*axis=*/0, view(kIn, DType::F32, dim, 1));
    } else {
      seReduce(c, ReduceOp::Sum, kWork, DType::F32, group, /*axis=*/0, view(kIn, DType::F32, dim, 1));
      replaceFront(c, kOut);
      se(c, SeOp::Add, kOut, DType::F32, row, view(kOut, DType::F32, 1), view(kWork, DType::F32, 1));
      cbPop(c, kWork, dim * 4);
    }
    cbPop(c, kIn, rows * dim * 4);
  }
  fabric(c);
}

/// The jagged kernels' chunks: the band of segments [first, end) (its
/// end + 1 offsets read into kBias once, by the core from local memory) in
/// chunks of whole segments, at most R segments and R rows in all (the host
/// checks that a segment has at most R rows), the chunk's rows of `values`
/// (contiguous, `dim` f32 values each) in one DMA into kIn. `loadMore(s0,
/// s1)` issues more of a chunk's DMAs; `segment(s, rows, len)` a segment's
/// engine commands, `rows` the view of its `len` rows in kIn; `store(s0,
/// s1)` the chunk's DMAs out. `offset(s)` is the first row of segment s.
struct Segments {
  Ctx *c;
  Band band;
  int64_t offset(int64_t s) const { return readInt(c, kBias, DType::I64, s - band.first); }
};

template <class Load, class Segment, class Store>
void overSegmentChunks(Ctx *c, const Segments &segs, int64_t R, uint64_t values, int64_t dim, Load loadMore,
                       Segment segment, Store store) {
  overChunks(
      c, segs.band.first, segs.band.end,
      [&](int64_t s0) {
        int64_t s1 = s0 + 1;
        while (s1 < segs.band.end && s1 - s0 < R && segs.offset(s1 + 1) - segs.offset(s0) <= R) {
          scalarCycles(c, 6); // an offset, a compare, loop control
          ++s1;
        }
        return s1;
      },
      [&](int64_t s0, int64_t s1) {
        scalarCycles(c, 10); // the chunk's rows and address
        const int64_t first = segs.offset(s0), rows = segs.offset(s1) - first;
        if (rows > 0)
          dmaIn(c, kIn, DType::F32, values + uint64_t(first * dim) * 4, rowsBox(rows, dim, dim),
                immFloat(DType::F32, 0));
        loadMore(s0, s1);
      },
      [&](int64_t s0, int64_t s1) {
        const int64_t first = segs.offset(s0);
        for (int64_t s = s0; s < s1; ++s) {
          scalarCycles(c, 10); // two offsets, the length, loop control
          const int64_t start = segs.offset(s);
          segment(s, viewAt(kIn, DType::F32, (start - first) * dim, dim, 1), segs.offset(s + 1) - start);
        }
        if (segs.offset(s1) > first)
          cbPop(c, kIn, (segs.offset(s1) - first) * dim * 4);
      },
      store);
}

/// The band's int64 values at `ptr` (targets, indices) in one DMA into
/// kBias, for the engines' views and the core's reads.
void loadBandValues(Ctx *c, Band band, uint64_t ptr) {
  dmaIn(c, kBias, DType::I64, ptr + uint64_t(band.first) * 8, box1(band.end - band.first), immInt(DType::I64, 0));
}
void releaseBandValues(Ctx *c, Band band) { cbPop(c, kBias, (band.end - band.first) * 8); }

/// The band of `segments` of this program with its offsets read into kBias
/// (see overSegmentChunks); an empty band reads nothing.
Segments segmentsOf(Ctx *c, int64_t segments, uint64_t offsets) {
  const Band band = bandOf(c, segments);
  if (band.first < band.end)
    dmaIn(c, kBias, DType::I64, offsets + uint64_t(band.first) * 8, box1(band.end - band.first + 1),
          immInt(DType::I64, 0));
  return {c, band};
}

/// Releases what segmentsOf read.
void releaseOffsets(const Segments &segs) {
  if (segs.band.first < segs.band.end)
    cbPop(segs.c, kBias, (segs.band.end - segs.band.first + 1) * 8);
}

} // namespace

extern "C" {

/// Args: x, y, rows, cols, ld_x, ld_y, R (rows per chunk).
void expert_softmax(Ctx *c, const Arg *a) {
  const uint64_t x = a[0].u, y = a[1].u;
  const int64_t rows = a[2].i, cols = a[3].i, ldx = a[4].i, ldy = a[5].i, R = a[6].i;
  const Band band = bandOf(c, rows);
  scalarCycles(c, 60); // 7 argument loads, the band: a divide, two multiplies, clamps
  overRowChunks(
      c, band, R, x, cols, ldx,
      [&](int64_t, int64_t n) {
        const Shape tile = shape2(n, cols);
        // m = max over the row; t = x - m; e = exp(t) in place; s = sum(e);
        // y = e / s.
        seReduce(c, ReduceOp::Max, kStat, DType::F32, tile, /*axis=*/1, view(kIn, DType::F32, cols, 1));
        se(c, SeOp::Sub, kWork, DType::F32, tile, view(kIn, DType::F32, cols, 1), view(kStat, DType::F32, 1, 0));
        cbPop(c, kIn, n * cols * 4);
        cbPop(c, kStat, n * 4);
        replaceFront(c, kWork);
        se(c, SeOp::Exp, kWork, DType::F32, tile, view(kWork, DType::F32, cols, 1));
        seReduce(c, ReduceOp::Sum, kStat, DType::F32, tile, /*axis=*/1, view(kWork, DType::F32, cols, 1));
        se(c, SeOp::Div, kOut, DType::F32, tile, view(kWork, DType::F32, cols, 1),
           view(kStat, DType::F32, 1, 0));
        cbPop(c, kWork, n * cols * 4);
        cbPop(c, kStat, n * 4);
      },
      [&](int64_t r0, int64_t n) { storeRows(c, y, r0, n, cols, ldy); });
}

/// Args: x, w, y, rows, cols, ld (x and y), eps, R.
void expert_rms_norm(Ctx *c, const Arg *a) {
  const uint64_t x = a[0].u, w = a[1].u, y = a[2].u;
  const int64_t rows = a[3].i, cols = a[4].i, ld = a[5].i;
  const double eps = a[6].f;
  const int64_t R = a[7].i;
  const Band band = bandOf(c, rows);
  scalarCycles(c, 60);
  if (band.first >= band.end)
    return;
  // The weights once per program, broadcast over the chunk's rows.
  dmaIn(c, kW, DType::F32, w, rowsBox(1, cols, cols), immFloat(DType::F32, 0));
  overRowChunks(
      c, band, R, x, cols, ld,
      [&](int64_t, int64_t n) {
        const Shape tile = shape2(n, cols), stat = shape1(n);
        // q = x * x; s = sum(q); r = rsqrt(s / cols + eps); y = x * r * w.
        se(c, SeOp::Mul, kWork, DType::F32, tile, view(kIn, DType::F32, cols, 1), view(kIn, DType::F32, cols, 1));
        seReduce(c, ReduceOp::Sum, kStat, DType::F32, tile, /*axis=*/1, view(kWork, DType::F32, cols, 1));
        cbPop(c, kWork, n * cols * 4);
        replaceFront(c, kStat);
        se(c, SeOp::Fma, kStat, DType::F32, stat, view(kStat, DType::F32, 1),
           immFloat(DType::F32, 1.0 / double(cols)), immFloat(DType::F32, eps));
        replaceFront(c, kStat);
        se(c, SeOp::Rsqrt, kStat, DType::F32, stat, view(kStat, DType::F32, 1));
        se(c, SeOp::Mul, kWork, DType::F32, tile, view(kIn, DType::F32, cols, 1), view(kStat, DType::F32, 1, 0));
        cbPop(c, kIn, n * cols * 4);
        cbPop(c, kStat, n * 4);
        se(c, SeOp::Mul, kOut, DType::F32, tile, view(kWork, DType::F32, cols, 1), view(kW, DType::F32, 0, 1));
        cbPop(c, kWork, n * cols * 4);
      },
      [&](int64_t r0, int64_t n) { storeRows(c, y, r0, n, cols, ld); });
  cbPop(c, kW, cols * 4);
}

/// Args: x, w, b, y, rows, cols, ld (x and y), eps, R.
void expert_layer_norm(Ctx *c, const Arg *a) {
  const uint64_t x = a[0].u, w = a[1].u, bias = a[2].u, y = a[3].u;
  const int64_t rows = a[4].i, cols = a[5].i, ld = a[6].i;
  const double eps = a[7].f;
  const int64_t R = a[8].i;
  const Band band = bandOf(c, rows);
  scalarCycles(c, 64);
  if (band.first >= band.end)
    return;
  // Weights and bias once per program, broadcast over the chunk's rows.
  dmaIn(c, kW, DType::F32, w, rowsBox(1, cols, cols), immFloat(DType::F32, 0));
  dmaIn(c, kBias, DType::F32, bias, rowsBox(1, cols, cols), immFloat(DType::F32, 0));
  overRowChunks(
      c, band, R, x, cols, ld,
      [&](int64_t, int64_t n) {
        normalizeRows(c, n, cols, eps);
        // y = d * rstd * w + b.
        se(c, SeOp::Fma, kOut, DType::F32, shape2(n, cols), view(kSquare, DType::F32, cols, 1),
           view(kW, DType::F32, 0, 1), view(kBias, DType::F32, 0, 1));
        cbPop(c, kSquare, n * cols * 4);
      },
      [&](int64_t r0, int64_t n) { storeRows(c, y, r0, n, cols, ld); });
  cbPop(c, kW, cols * 4);
  cbPop(c, kBias, cols * 4);
}

/// Args: a, b, y, n, chunk (elements per command).
void expert_swiglu(Ctx *c, const Arg *args) {
  const uint64_t A = args[0].u, B = args[1].u, Y = args[2].u;
  const int64_t total = args[3].i, chunk = args[4].i;
  const Band band = bandOf(c, total);
  scalarCycles(c, 50);
  overChunks(
      c, band.first, band.end, [&](int64_t i) { return min64(band.end, i + chunk); },
      [&](int64_t i, int64_t e) {
        scalarCycles(c, 10);
        dmaIn(c, kIn, DType::F32, A + uint64_t(i) * 4, box1(e - i), immFloat(DType::F32, 0));
        dmaIn(c, kW, DType::F32, B + uint64_t(i) * 4, box1(e - i), immFloat(DType::F32, 0));
      },
      [&](int64_t i, int64_t e) {
        const int64_t n = e - i;
        const Shape s = shape1(n);
        // silu(a) * b = a * b / (1 + exp(-a)): e = exp(-a); d = e + 1;
        // p = a * b; y = p / d.
        se(c, SeOp::Neg, kWork, DType::F32, s, view(kIn, DType::F32, 1));
        replaceFront(c, kWork);
        se(c, SeOp::Exp, kWork, DType::F32, s, view(kWork, DType::F32, 1));
        replaceFront(c, kWork);
        se(c, SeOp::Add, kWork, DType::F32, s, view(kWork, DType::F32, 1), immFloat(DType::F32, 1.0));
        se(c, SeOp::Mul, kStat, DType::F32, s, view(kIn, DType::F32, 1), view(kW, DType::F32, 1));
        cbPop(c, kIn, n * 4);
        cbPop(c, kW, n * 4);
        se(c, SeOp::Div, kOut, DType::F32, s, view(kStat, DType::F32, 1), view(kWork, DType::F32, 1));
        cbPop(c, kStat, n * 4);
        cbPop(c, kWork, n * 4);
      },
      [&](int64_t i, int64_t e) {
        scalarCycles(c, 4);
        dmaOut(c, kOut, DType::F32, Y + uint64_t(i) * 4, box1(e - i));
        cbPop(c, kOut, (e - i) * 4);
      });
}

/// Args: x, y, rows, cols, ld (x and y), R.
void expert_cumsum(Ctx *c, const Arg *a) {
  const uint64_t x = a[0].u, y = a[1].u;
  const int64_t rows = a[2].i, cols = a[3].i, ld = a[4].i, R = a[5].i;
  scalarCycles(c, 50);
  overRowChunks(
      c, bandOf(c, rows), R, x, cols, ld,
      [&](int64_t, int64_t n) {
        seScan(c, ReduceOp::Sum, kOut, DType::F32, shape2(n, cols), /*axis=*/1, /*reverse=*/false,
               view(kIn, DType::F32, cols, 1));
        cbPop(c, kIn, n * cols * 4);
      },
      [&](int64_t r0, int64_t n) { storeRows(c, y, r0, n, cols, ld); });
}

/// Args: x, q, scale, rows, cols, R, fp8 (0: int8, 1: fp8 e4m3).
void expert_quantize_rows(Ctx *c, const Arg *a) {
  const uint64_t x = a[0].u, q = a[1].u, scales = a[2].u;
  const int64_t rows = a[3].i, cols = a[4].i, R = a[5].i;
  const bool fp8 = a[6].i != 0;
  const DType qType = fp8 ? DType::F8E4M3 : DType::I8;
  const double qmax = fp8 ? 448.0 : 127.0;
  const Band band = bandOf(c, rows);
  scalarCycles(c, 60);
  constexpr int32_t kMask = kBias;
  overRowChunks(
      c, band, R, x, cols, cols,
      [&](int64_t, int64_t n) {
        const Shape tile = shape2(n, cols), stat = shape1(n);
        // scale = max|x| / qmax, 1 for a row of zeros.
        se(c, SeOp::Abs, kWork, DType::F32, tile, view(kIn, DType::F32, cols, 1));
        seReduce(c, ReduceOp::Max, kStat, DType::F32, tile, /*axis=*/1, view(kWork, DType::F32, cols, 1));
        cbPop(c, kWork, n * cols * 4);
        replaceFront(c, kStat);
        se(c, SeOp::Div, kStat, DType::F32, stat, view(kStat, DType::F32, 1), immFloat(DType::F32, qmax));
        se(c, SeOp::CmpGt, kMask, DType::I1, stat, view(kStat, DType::F32, 1), immFloat(DType::F32, 0.0));
        replaceFront(c, kStat);
        se(c, SeOp::Select, kStat, DType::F32, stat, view(kMask, DType::I1, 1), view(kStat, DType::F32, 1),
           immFloat(DType::F32, 1.0));
        cbPop(c, kMask, n);
        // q = x / scale: int8 rounded and saturated by the SE's Quantize in
        // the same command as the conversion, fp8 rounded by the conversion.
        se(c, SeOp::Div, kWork, DType::F32, tile, view(kIn, DType::F32, cols, 1), view(kStat, DType::F32, 1, 0));
        cbPop(c, kIn, n * cols * 4);
        if (fp8)
          se(c, SeOp::Copy, kOut, qType, tile, view(kWork, DType::F32, cols, 1));
        else
          se(c, SeOp::Quantize, kOut, qType, tile, view(kWork, DType::F32, cols, 1), immFloat(DType::F32, 1.0),
             immInt(DType::I32, 0));
        cbPop(c, kWork, n * cols * 4);
      },
      [&](int64_t r0, int64_t n) {
        scalarCycles(c, 10); // two addresses
        dmaOut(c, kOut, qType, q + uint64_t(r0 * cols), rowsBox(n, cols, cols));
        cbPop(c, kOut, n * cols);
        dmaOut(c, kStat, DType::F32, scales + uint64_t(r0) * 4, box1(n));
        cbPop(c, kStat, n * 4);
      });
}

/// Args: weight, indices, offsets, out, bags, dim.
void expert_embedding_bag(Ctx *c, const Arg *a) {
  const uint64_t weight = a[0].u, indices = a[1].u, offsets = a[2].u, out = a[3].u;
  const int64_t bags = a[4].i, dim = a[5].i;
  scalarCycles(c, 50);
  // The band's offsets, band + 1 of them, read by the core from local memory.
  const Segments segs = segmentsOf(c, bags, offsets);
  for (int64_t bag = segs.band.first; bag < segs.band.end; ++bag) {
    scalarCycles(c, 12); // loop control, two offsets, the bag's length
    const int64_t start = segs.offset(bag), end = segs.offset(bag + 1);
    if (end > start) // the bag's indices in one DMA
      dmaIn(c, kStat, DType::I64, indices + uint64_t(start) * 8, box1(end - start), immInt(DType::I64, 0));
    sumOfRows(c, end - start, dim, [&](int64_t i) {
      return weight + uint64_t(readInt(c, kStat, DType::I64, i) * dim) * 4;
    });
    if (end > start)
      cbPop(c, kStat, (end - start) * 8);
    scalarCycles(c, 4);
    dmaOut(c, kOut, DType::F32, out + uint64_t(bag * dim) * 4, rowsBox(1, dim, dim));
    cbPop(c, kOut, dim * 4);
  }
  releaseOffsets(segs);
}

/// Args: logits, target, loss, rows, cols, ld, R. loss = logsumexp(x) -
/// x[target] per row.
void expert_cross_entropy(Ctx *c, const Arg *a) {
  const uint64_t x = a[0].u, target = a[1].u, loss = a[2].u;
  const int64_t rows = a[3].i, cols = a[4].i, ld = a[5].i, R = a[6].i;
  const Band band = bandOf(c, rows);
  scalarCycles(c, 60);
  if (band.first >= band.end)
    return;
  // The band's targets in one DMA; each chunk gathers its picked logits
  // from the rows already in local memory (no second read of memory).
  loadBandValues(c, band, target);
  overRowChunks(
      c, band, R, x, cols, ld,
      [&](int64_t r0, int64_t n) {
        const Shape tile = shape2(n, cols), stat = shape1(n);
        // m = max; e = exp(x - m); lse = log(sum(e)) + m.
        seReduce(c, ReduceOp::Max, kStat, DType::F32, tile, /*axis=*/1, view(kIn, DType::F32, cols, 1));
        se(c, SeOp::Sub, kWork, DType::F32, tile, view(kIn, DType::F32, cols, 1), view(kStat, DType::F32, 1, 0));
        replaceFront(c, kWork);
        se(c, SeOp::Exp, kWork, DType::F32, tile, view(kWork, DType::F32, cols, 1));
        seReduce(c, ReduceOp::Sum, kSquare, DType::F32, tile, /*axis=*/1, view(kWork, DType::F32, cols, 1));
        cbPop(c, kWork, n * cols * 4);
        seGather(c, kW, DType::F32, shape2(n, 1), /*axis=*/1, view(kIn, DType::F32, cols, 1), tile,
                 viewAt(kBias, DType::I64, r0 - band.first, 1, 0));
        cbPop(c, kIn, n * cols * 4);
        replaceFront(c, kSquare);
        se(c, SeOp::Log, kSquare, DType::F32, stat, view(kSquare, DType::F32, 1));
        replaceFront(c, kSquare);
        se(c, SeOp::Add, kSquare, DType::F32, stat, view(kSquare, DType::F32, 1), view(kStat, DType::F32, 1));
        cbPop(c, kStat, n * 4);
        se(c, SeOp::Sub, kOut, DType::F32, stat, view(kSquare, DType::F32, 1), view(kW, DType::F32, 1));
        cbPop(c, kSquare, n * 4);
        cbPop(c, kW, n * 4);
      },
      [&](int64_t r0, int64_t n) {
        scalarCycles(c, 4);
        dmaOut(c, kOut, DType::F32, loss + uint64_t(r0) * 4, box1(n));
        cbPop(c, kOut, n * 4);
      });
  releaseBandValues(c, band);
}

/// Args: x, w, b, y, rows (samples x groups), group size, hw, groups, eps,
/// R. Group norm of x [N, C, HW] as layer norm over rows of C / G * HW;
/// weight and bias, one per channel, are widened once per program to a
/// table [G, C / G * HW] that a run of consecutive groups reads densely.
void expert_group_norm(Ctx *c, const Arg *a) {
  const uint64_t x = a[0].u, w = a[1].u, bias = a[2].u, y = a[3].u;
  const int64_t rows = a[4].i, size = a[5].i, hw = a[6].i, groups = a[7].i;
  const double eps = a[8].f;
  const int64_t R = a[9].i;
  const int64_t channels = groups * (size / hw);
  const Band band = bandOf(c, rows);
  scalarCycles(c, 70);
  if (band.first >= band.end)
    return;
  const Shape table = shape2(channels, hw);
  dmaIn(c, kW, DType::F32, w, box1(channels), immFloat(DType::F32, 0));
  dmaIn(c, kBias, DType::F32, bias, box1(channels), immFloat(DType::F32, 0));
  engines(c);
  se(c, SeOp::Copy, kWide, DType::F32, table, view(kW, DType::F32, 1, 0));
  se(c, SeOp::Copy, kWideBias, DType::F32, table, view(kBias, DType::F32, 1, 0));
  cbPop(c, kW, channels * 4);
  cbPop(c, kBias, channels * 4);
  fabric(c);
  overRowChunks(
      c, band, R, x, size, size,
      [&](int64_t r0, int64_t n) {
        normalizeRows(c, n, size, eps);
        // y = d * rstd * w + b, one command per run of rows whose groups
        // are consecutive (the chunk's groups wrap at the last group).
        for (int64_t r = r0; r < r0 + n;) {
          scalarCycles(c, 30); // the run's group (a remainder), its length and offsets
          const int64_t g = r % groups, m = min64(groups - g, r0 + n - r);
          se(c, SeOp::Fma, kOut, DType::F32, shape2(m, size), viewAt(kSquare, DType::F32, (r - r0) * size, size, 1),
             viewAt(kWide, DType::F32, g * size, size, 1), viewAt(kWideBias, DType::F32, g * size, size, 1));
          r += m;
        }
        cbPop(c, kSquare, n * size * 4);
      },
      [&](int64_t r0, int64_t n) { storeRows(c, y, r0, n, size, size); });
  cbPop(c, kWide, channels * hw * 4);
  cbPop(c, kWideBias, channels * hw * 4);
}

/// Args: x, cos, sin, y, positions, heads, dim, P (positions per chunk).
/// Rotary embedding, "rotate half": y1 = x1 c - x2 s, y2 = x2 c + x1 s
/// over the halves of each head, every head of a position by the same
/// angles: a chunk's commands work on [P, heads, dim / 2] views with cos
/// and sin broadcast over the heads, never materialized per head.
void expert_rope(Ctx *c, const Arg *a) {
  const uint64_t x = a[0].u, cosines = a[1].u, sines = a[2].u, y = a[3].u;
  const int64_t positions = a[4].i, heads = a[5].i, dim = a[6].i, P = a[7].i;
  const int64_t half = dim / 2, row = heads * dim;
  const Band band = bandOf(c, positions);
  scalarCycles(c, 60);
  constexpr int32_t kCos = kW, kSin = kBias, kNegSin = kSquare;
  auto halves = [&](int64_t p) { // one half of each head of p positions
    Box b;
    b.rank = 3;
    b.shape[0] = b.valid[0] = p;
    b.shape[1] = b.valid[1] = heads;
    b.shape[2] = b.valid[2] = half;
    b.stride[0] = row;
    b.stride[1] = dim;
    b.stride[2] = 1;
    return b;
  };
  overChunks(
      c, band.first, band.end, [&](int64_t p0) { return min64(band.end, p0 + P); },
      [&](int64_t p0, int64_t p1) {
        scalarCycles(c, 14); // three addresses
        const int64_t p = p1 - p0;
        dmaIn(c, kIn, DType::F32, x + uint64_t(p0 * row) * 4, rowsBox(p, row, row), immFloat(DType::F32, 0));
        dmaIn(c, kCos, DType::F32, cosines + uint64_t(p0 * half) * 4, rowsBox(p, half, half),
              immFloat(DType::F32, 0));
        dmaIn(c, kSin, DType::F32, sines + uint64_t(p0 * half) * 4, rowsBox(p, half, half), immFloat(DType::F32, 0));
      },
      [&](int64_t p0, int64_t p1) {
        const int64_t p = p1 - p0;
        Shape s;
        s.rank = 3;
        s.dim[0] = p;
        s.dim[1] = heads;
        s.dim[2] = half;
        const Operand x1 = view(kIn, DType::F32, row, dim, 1), x2 = viewAt(kIn, DType::F32, half, row, dim, 1);
        const Operand cs = view(kCos, DType::F32, half, 0, 1), sn = view(kSin, DType::F32, half, 0, 1);
        const Operand halfTile = view(kWork, DType::F32, heads * half, half, 1);
        // -s once per position (1 / (2 heads) of the tile), then two
        // products and two fused multiply-adds over half tiles.
        se(c, SeOp::Neg, kNegSin, DType::F32, shape2(p, half), view(kSin, DType::F32, half, 1));
        se(c, SeOp::Mul, kWork, DType::F32, s, x2, view(kNegSin, DType::F32, half, 0, 1));
        se(c, SeOp::Fma, kOut, DType::F32, s, x1, cs, halfTile);
        cbPop(c, kWork, p * heads * half * 4);
        se(c, SeOp::Mul, kWork, DType::F32, s, x1, sn);
        se(c, SeOp::Fma, kOut, DType::F32, s, x2, cs, halfTile);
        cbPop(c, kWork, p * heads * half * 4);
        cbPop(c, kIn, p * row * 4);
        cbPop(c, kCos, p * half * 4);
        cbPop(c, kSin, p * half * 4);
        cbPop(c, kNegSin, p * half * 4);
      },
      [&](int64_t p0, int64_t p1) {
        scalarCycles(c, 8); // two addresses
        const int64_t p = p1 - p0;
        dmaOut(c, kOut, DType::F32, y + uint64_t(p0 * row) * 4, halves(p));
        cbPop(c, kOut, p * heads * half * 4);
        dmaOut(c, kOut, DType::F32, y + uint64_t(p0 * row + half) * 4, halves(p));
        cbPop(c, kOut, p * heads * half * 4);
      });
}

/// Args: x, index, y, n, dim, G (rows per chunk). y[i] = x[index[i]]: a
/// chunk's G row DMAs back to back, in flight together, landing one after
/// another in kIn, and the chunk out in one DMA; no engine touches the data.
void expert_index_select(Ctx *c, const Arg *a) {
  const uint64_t x = a[0].u, index = a[1].u, y = a[2].u;
  const int64_t n = a[3].i, dim = a[4].i, G = a[5].i;
  const Band band = bandOf(c, n);
  scalarCycles(c, 50);
  if (band.first >= band.end)
    return;
  loadBandValues(c, band, index);
  overChunks(
      c, band.first, band.end, [&](int64_t i) { return min64(band.end, i + G); },
      [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) {
          scalarCycles(c, 8); // loop control, the row's address
          const int64_t src = readInt(c, kBias, DType::I64, i - band.first);
          dmaIn(c, kIn, DType::F32, x + uint64_t(src * dim) * 4, rowsBox(1, dim, dim), immFloat(DType::F32, 0));
        }
      },
      [&](int64_t, int64_t) {},
      [&](int64_t i0, int64_t i1) {
        scalarCycles(c, 4);
        dmaOut(c, kIn, DType::F32, y + uint64_t(i0 * dim) * 4, rowsBox(i1 - i0, dim, dim));
        cbPop(c, kIn, (i1 - i0) * dim * 4);
      });
  releaseBandValues(c, band);
}

/// Args: out, index, src, n (rows of src), dim, G (rows per chunk).
/// out[index[i]] += src[i] with the memory-side atomics, as rows of several
/// programs may land on one row of out: a program's band of source rows in
/// chunks of G rows, each chunk one DMA in, one address tile built by the SE
/// (index * dim * 4 + the column's byte offset, broadcast along the row)
/// and one atomic add command for the whole chunk.
void expert_scatter_add(Ctx *c, const Arg *a) {
  const uint64_t out = a[0].u, index = a[1].u, src = a[2].u;
  const int64_t n = a[3].i, dim = a[4].i, G = a[5].i;
  const Band band = bandOf(c, n);
  scalarCycles(c, 50);
  if (band.first >= band.end)
    return;
  constexpr int32_t kColumns = kW, kAddresses = kWork;
  loadBandValues(c, band, index);
  // out + 4 d for each column d, once per program.
  engines(c);
  seIota(c, kColumns, DType::I64, dim, 0);
  replaceFront(c, kColumns);
  se(c, SeOp::Fma, kColumns, DType::I64, shape1(dim), view(kColumns, DType::I64, 1), immInt(DType::I64, 4),
     immInt(DType::I64, int64_t(out)));
  fabric(c);
  overChunks(
      c, band.first, band.end, [&](int64_t i) { return min64(band.end, i + G); },
      [&](int64_t i0, int64_t i1) {
        scalarCycles(c, 8); // the chunk's rows and address
        dmaIn(c, kIn, DType::F32, src + uint64_t(i0 * dim) * 4, rowsBox(i1 - i0, dim, dim), immFloat(DType::F32, 0));
      },
      [&](int64_t i0, int64_t i1) {
        se(c, SeOp::Fma, kAddresses, DType::I64, shape2(i1 - i0, dim),
           viewAt(kBias, DType::I64, i0 - band.first, 1, 0), immInt(DType::I64, dim * 4),
           view(kColumns, DType::I64, 0, 1));
      },
      [&](int64_t i0, int64_t i1) {
        const int64_t rows = i1 - i0;
        atomicRmw(c, -1, RmwOp::FAdd, DType::F32, shape2(rows, dim), kAddresses, view(kIn, DType::F32, dim, 1));
        cbPop(c, kAddresses, rows * dim * 8);
        cbPop(c, kIn, rows * dim * 4);
      });
  cbPop(c, kColumns, dim * 8);
  releaseBandValues(c, band);
}

/// Args: x, values, indices, rows, cols, ld, K, R. The K largest values of
/// each row and their first positions, sorted: K rounds of max, first
/// position of the max, and masking it out, each over a chunk of R rows in
/// a few SE commands.
void expert_topk(Ctx *c, const Arg *a) {
  const uint64_t x = a[0].u, values = a[1].u, indices = a[2].u;
  const int64_t rows = a[3].i, cols = a[4].i, ld = a[5].i, K = a[6].i, R = a[7].i;
  const Band band = bandOf(c, rows);
  scalarCycles(c, 60);
  if (band.first >= band.end)
    return;
  // The rounds' maxima and positions collect in kStat and kW, which the
  // chunk's compute pops itself: a view of a CB that the other core pops
  // (store, on core 0) would be resolved before that pop.
  constexpr int32_t kIota = kBias, kMask = kSquare, kBest = kStat, kWhere = kW, kWhere64 = kWide, kX = 9;
  engines(c);
  seIota(c, kIota, DType::I32, cols, 0);
  fabric(c);
  // values and indices of a chunk come out as [K, n] tiles (round-major)
  // through a transposed box into the [rows, K] outputs.
  auto transposed = [&](int64_t n) {
    Box b;
    b.rank = 2;
    b.shape[0] = b.valid[0] = K;
    b.shape[1] = b.valid[1] = n;
    b.stride[0] = 1;
    b.stride[1] = K;
    return b;
  };
  overRowChunks(
      c, band, R, x, cols, ld,
      [&](int64_t, int64_t n) {
        const Shape tile = shape2(n, cols);
        const Operand iota = view(kIota, DType::I32, 0, 1);
        for (int64_t k = 0; k < K; ++k) {
          scalarCycles(c, 4);
          // best = max; where = min(x == best ? col : cols); x[where] = -inf,
          // x masked into kX (kIn holds the next chunk behind this one).
          const Operand rowsView = view(k == 0 ? kIn : kX, DType::F32, cols, 1);
          seReduce(c, ReduceOp::Max, kBest, DType::F32, tile, /*axis=*/1, rowsView);
          se(c, SeOp::CmpEq, kMask, DType::I1, tile, rowsView, viewAt(kBest, DType::F32, k * n, 1, 0));
          se(c, SeOp::Select, kWork, DType::I32, tile, view(kMask, DType::I1, cols, 1), iota,
             immInt(DType::I32, cols));
          cbPop(c, kMask, n * cols);
          seReduce(c, ReduceOp::Min, kWhere, DType::I32, tile, /*axis=*/1, view(kWork, DType::I32, cols, 1));
          cbPop(c, kWork, n * cols * 4);
          if (k + 1 < K) {
            se(c, SeOp::CmpEq, kMask, DType::I1, tile, iota, viewAt(kWhere, DType::I32, k * n, 1, 0));
            if (k > 0)
              replaceFront(c, kX);
            se(c, SeOp::Select, kX, DType::F32, tile, view(kMask, DType::I1, cols, 1),
               immFloat(DType::F32, -__builtin_inf()), rowsView);
            cbPop(c, kMask, n * cols);
          }
          if (k == 0)
            cbPop(c, kIn, n * cols * 4);
        }
        if (K > 1)
          cbPop(c, kX, n * cols * 4);
        se(c, SeOp::Copy, kOut, DType::F32, shape2(K, n), view(kBest, DType::F32, n, 1));
        cbPop(c, kBest, K * n * 4);
        se(c, SeOp::Copy, kWhere64, DType::I64, shape2(K, n), view(kWhere, DType::I32, n, 1));
        cbPop(c, kWhere, K * n * 4);
      },
      [&](int64_t r0, int64_t n) {
        scalarCycles(c, 10); // two addresses
        dmaOut(c, kOut, DType::F32, values + uint64_t(r0 * K) * 4, transposed(n));
        cbPop(c, kOut, K * n * 4);
        dmaOut(c, kWhere64, DType::I64, indices + uint64_t(r0 * K) * 8, transposed(n));
        cbPop(c, kWhere64, K * n * 8);
      });
  cbPop(c, kIota, cols * 4);
}

/// Args: values, offsets, out, segments, dim, R. out[b] = the sum of
/// segment b's rows: chunks of whole segments in one DMA each, one
/// reduction per segment, the chunk's sums out in one DMA.
void expert_jagged_sum(Ctx *c, const Arg *a) {
  const uint64_t values = a[0].u, offsets = a[1].u, out = a[2].u;
  const int64_t segments = a[3].i, dim = a[4].i, R = a[5].i;
  scalarCycles(c, 50);
  const Segments segs = segmentsOf(c, segments, offsets);
  overSegmentChunks(
      c, segs, R, values, dim, [](int64_t, int64_t) {},
      [&](int64_t, const Operand &rows, int64_t len) {
        if (len == 0)
          se(c, SeOp::Copy, kOut, DType::F32, shape1(dim), immFloat(DType::F32, 0));
        else
          seReduce(c, ReduceOp::Sum, kOut, DType::F32, shape2(len, dim), /*axis=*/0, rows);
      },
      [&](int64_t s0, int64_t s1) { storeRows(c, out, s0, s1 - s0, dim, dim); });
  releaseOffsets(segs);
}

/// Args: values, offsets, out, segments, dim, R. Softmax over each
/// segment's rows, per column: max, exp and sum along the segment's rows
/// in local memory, the chunk out in one DMA.
void expert_jagged_softmax(Ctx *c, const Arg *a) {
  const uint64_t values = a[0].u, offsets = a[1].u, out = a[2].u;
  const int64_t segments = a[3].i, dim = a[4].i, R = a[5].i;
  scalarCycles(c, 50);
  const Segments segs = segmentsOf(c, segments, offsets);
  overSegmentChunks(
      c, segs, R, values, dim, [](int64_t, int64_t) {},
      [&](int64_t, const Operand &rows, int64_t len) {
        if (len == 0)
          return;
        const Shape tile = shape2(len, dim);
        const Operand column = view(kStat, DType::F32, 0, 1);
        seReduce(c, ReduceOp::Max, kStat, DType::F32, tile, /*axis=*/0, rows);
        se(c, SeOp::Sub, kWork, DType::F32, tile, rows, column);
        cbPop(c, kStat, dim * 4);
        replaceFront(c, kWork);
        se(c, SeOp::Exp, kWork, DType::F32, tile, view(kWork, DType::F32, dim, 1));
        seReduce(c, ReduceOp::Sum, kStat, DType::F32, tile, /*axis=*/0, view(kWork, DType::F32, dim, 1));
        se(c, SeOp::Div, kOut, DType::F32, tile, view(kWork, DType::F32, dim, 1), column);
        cbPop(c, kWork, len * dim * 4);
        cbPop(c, kStat, dim * 4);
      },
      [&](int64_t s0, int64_t s1) {
        const int64_t first = segs.offset(s0), n = segs.offset(s1) - first;
        if (n > 0)
          storeRows(c, out, first, n, dim, dim);
      });
  releaseOffsets(segs);
}

/// Args: values, offsets, dense, out, segments, max_len, dim, R. out = values
/// + dense[b, i] on row i < max_len of segment b (out starts zeroed): the
/// chunk's values in one DMA, each segment's dense rows in one more, loaded
/// a chunk ahead; one add per segment.
void expert_jagged_dense_add(Ctx *c, const Arg *a) {
  const uint64_t values = a[0].u, offsets = a[1].u, dense = a[2].u, out = a[3].u;
  const int64_t segments = a[4].i, maxLen = a[5].i, dim = a[6].i, R = a[7].i;
  scalarCycles(c, 60);
  const Segments segs = segmentsOf(c, segments, offsets);
  auto rowsOf = [&](int64_t s) { return min64(segs.offset(s + 1) - segs.offset(s), maxLen); };
  overSegmentChunks(
      c, segs, R, values, dim,
      [&](int64_t s0, int64_t s1) {
        for (int64_t s = s0; s < s1; ++s) {
          scalarCycles(c, 10);
          if (rowsOf(s) > 0)
            dmaIn(c, kW, DType::F32, dense + uint64_t(s * maxLen * dim) * 4, rowsBox(rowsOf(s), dim, dim),
                  immFloat(DType::F32, 0));
        }
      },
      [&](int64_t, const Operand &rows, int64_t len) {
        const int64_t n = min64(len, maxLen);
        if (n == 0)
          return;
        se(c, SeOp::Add, kOut, DType::F32, shape2(n, dim), rows, view(kW, DType::F32, dim, 1));
        cbPop(c, kW, n * dim * 4);
      },
      [&](int64_t s0, int64_t s1) {
        for (int64_t s = s0; s < s1; ++s)
          if (rowsOf(s) > 0)
            storeRows(c, out, segs.offset(s), rowsOf(s), dim, dim);
      });
  releaseOffsets(segs);
}

/// Capacities (kernels/expert.py picks R and chunk to fit them): for the
/// row kernels, a chunk of R rows is at most kRowChunkBytes (R <= 1024 for
/// the statistics), with two input tiles, one working tile, two output
/// tiles and a row of up to 8,192 weights: 360 KiB of the PE's 384. For
/// swiglu, a chunk is at most kSwigluChunkBytes, two of each input and of
/// the output in flight. Layer norm keeps a second working tile, so its
/// chunks are at most kLayerNormChunkBytes (368 KiB in all); group norm
/// adds two widened tables of up to 8,192 values and takes smaller chunks.
/// A band's targets, indices or offsets are at most 4,096 values.
constexpr int64_t kRowChunkBytes = 64 * 1024;
constexpr int64_t kLayerNormChunkBytes = 48 * 1024;
constexpr int64_t kGroupNormChunkBytes = 32 * 1024;
constexpr int64_t kTopkChunkBytes = 40 * 1024;
constexpr int64_t kSwigluChunkBytes = 16 * 1024;
constexpr int64_t kRopeChunkBytes = 32 * 1024;
constexpr int64_t kJaggedChunkBytes = 32 * 1024;
constexpr int64_t kIndexChunkBytes = 64 * 1024;
constexpr int64_t kScatterChunkBytes = 32 * 1024;
constexpr int64_t kTable = 8192 * 4, kBandIndices = 4096 * 8, kStats = 2 * 4096;
extern const KernelInfo expert_softmax_info = {
    kDeviceAbiVersion, "expert_softmax", 7, 4,
    {2 * kRowChunkBytes, kStats, kRowChunkBytes, 2 * kRowChunkBytes}};
extern const KernelInfo expert_rms_norm_info = {
    kDeviceAbiVersion, "expert_rms_norm", 8, 5,
    {2 * kRowChunkBytes, kStats, kRowChunkBytes, 2 * kRowChunkBytes, kTable}};
extern const KernelInfo expert_layer_norm_info = {
    kDeviceAbiVersion, "expert_layer_norm", 9, 7,
    {2 * kLayerNormChunkBytes, kStats, kLayerNormChunkBytes, 2 * kLayerNormChunkBytes, kTable, kTable,
     kLayerNormChunkBytes}};
extern const KernelInfo expert_group_norm_info = {
    kDeviceAbiVersion, "expert_group_norm", 10, 9,
    {2 * kGroupNormChunkBytes, kStats, kGroupNormChunkBytes, 2 * kGroupNormChunkBytes, kTable, kTable,
     kGroupNormChunkBytes, kTable, kTable}};
extern const KernelInfo expert_cumsum_info = {
    kDeviceAbiVersion, "expert_cumsum", 6, 4, {2 * kRowChunkBytes, 0, 0, 2 * kRowChunkBytes}};
extern const KernelInfo expert_quantize_rows_info = {
    kDeviceAbiVersion, "expert_quantize_rows", 7, 6,
    {2 * kRowChunkBytes, kStats, kRowChunkBytes, 2 * kRowChunkBytes / 4, 0, 2 * 1024}};
extern const KernelInfo expert_cross_entropy_info = {
    kDeviceAbiVersion, "expert_cross_entropy", 7, 7,
    {2 * kRowChunkBytes, kStats, kRowChunkBytes, kStats, kStats, kBandIndices, kStats}};
/// Embedding bag (sumOfRows): rows of at most kSumDim f32 values, a bag of
/// at most 4,096 indices. scatter_add: chunks of src of at most
/// kScatterChunkBytes, their addresses twice that.
constexpr int64_t kSumDim = 1024;
extern const KernelInfo expert_embedding_bag_info = {
    kDeviceAbiVersion, "expert_embedding_bag", 6, 6,
    {2 * kGroupRows * kSumDim * 4, kBandIndices, kSumDim * 4, 2 * kSumDim * 4, 0, kBandIndices}};
extern const KernelInfo expert_scatter_add_info = {
    kDeviceAbiVersion, "expert_scatter_add", 6, 6,
    {2 * kScatterChunkBytes, 0, 2 * 2 * kScatterChunkBytes, 0, 2 * kSumDim * 8, kBandIndices}};
extern const KernelInfo expert_index_select_info = {
    kDeviceAbiVersion, "expert_index_select", 6, 6, {2 * kIndexChunkBytes, 0, 0, 0, 0, kBandIndices}};
extern const KernelInfo expert_swiglu_info = {
    kDeviceAbiVersion, "expert_swiglu", 5, 5,
    {2 * kSwigluChunkBytes, kSwigluChunkBytes, kSwigluChunkBytes, 2 * kSwigluChunkBytes,
     2 * kSwigluChunkBytes}};
/// Rope: a chunk of x is at most kRopeChunkBytes; cos and sin are at most
/// half of it.
extern const KernelInfo expert_rope_info = {
    kDeviceAbiVersion, "expert_rope", 8, 7,
    {2 * kRopeChunkBytes, 0, kRopeChunkBytes / 2, 2 * kRopeChunkBytes, kRopeChunkBytes, kRopeChunkBytes,
     kRopeChunkBytes / 2}};
/// Top-k: chunks of x of at most kTopkChunkBytes, rows of at most 8,192, at
/// most 4,096 / K rows a chunk (the [K, n] results at most 16 KiB).
extern const KernelInfo expert_topk_info = {
    kDeviceAbiVersion, "expert_topk", 8, 10,
    {2 * kTopkChunkBytes, 16 * 1024, kTopkChunkBytes, 2 * 16 * 1024, 16 * 1024, kTable, kTopkChunkBytes / 4,
     2 * 32 * 1024, 0, kTopkChunkBytes}};
/// Jagged: chunks of at most kJaggedChunkBytes of values (and of dense rows,
/// and of sums), a band of at most 4,095 segments.
extern const KernelInfo expert_jagged_sum_info = {
    kDeviceAbiVersion, "expert_jagged_sum", 6, 6,
    {2 * kJaggedChunkBytes, 0, 0, 2 * kJaggedChunkBytes, 0, kBandIndices}};
extern const KernelInfo expert_jagged_softmax_info = {
    kDeviceAbiVersion, "expert_jagged_softmax", 6, 6,
    {2 * kJaggedChunkBytes, 2 * kSumDim * 4, kJaggedChunkBytes, 2 * kJaggedChunkBytes, 0, kBandIndices}};
extern const KernelInfo expert_jagged_dense_add_info = {
    kDeviceAbiVersion, "expert_jagged_dense_add", 8, 6,
    {2 * kJaggedChunkBytes, 0, 0, 2 * kJaggedChunkBytes, 2 * kJaggedChunkBytes, kBandIndices}};

} // extern "C"
