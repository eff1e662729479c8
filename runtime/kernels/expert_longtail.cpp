//===- expert_longtail.cpp - Hand-written long-tail kernels ---------------===//
//
// The expert C++ baselines of the long-tail operators (the paper's Figure 8),
// written by hand against device.h the way an MTIA expert would, and launched
// on torch tensors by python/triton_mtia/kernels/expert.py:
//
//  - expert_softmax: y = softmax(x) over each row of x [rows, cols] (f32).
//  - expert_rms_norm: y = x / sqrt(mean(x^2) + eps) * w over each row (f32).
//  - expert_layer_norm: y = (x - mean) / sqrt(var + eps) * w + b over each
//    row (f32), two passes over the row in local memory as the Triton
//    kernel makes.
//  - expert_swiglu: y = silu(a) * b, elementwise over n f32 values.
//  - expert_cumsum: y = the running sum of each row of x [rows, cols] (f32),
//    one SE scan per chunk of rows.
//  - expert_quantize_int8: q = round(x / scale) and scale = max|x| / 127 per
//    row of x [rows, cols] (f32 in, int8 and f32 out), the SE's Quantize
//    rounding and saturating in one command.
//  - expert_embedding_bag: out[b] = the sum of weight's rows indices[i] for
//    offsets[b] <= i < offsets[b + 1] (f32 rows, int64 indices).
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
//    in the input CB), and the result's DMA out overlaps the next chunk;
//  * the fabric's commands are issued by the scalar core 0, the SIMD
//    engine's by the vector core 1 (onCore), so neither core's issue cost
//    delays the other's unit;
//  * accumulating commands replace the tile they read (replaceFront), so a
//    CB holds one tile where it would hold two;
//  * the embedding bag reads a program's offsets and each bag's indices in
//    one DMA each (the core reads them from local memory), issues the
//    bag's row DMAs back to back so that they are in flight together, and
//    sums the rows, which land one after another in one CB, with one
//    reduction per group of rows instead of an add per row.
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

Shape shape1(int64_t n) {
  Shape s;
  s.rank = 1;
  s.dim[0] = n;
  return s;
}

Shape shape2(int64_t a, int64_t b) {
  Shape s;
  s.rank = 2;
  s.dim[0] = a;
  s.dim[1] = b;
  return s;
}

/// `rows` rows of `cols` f32 values at `addr`, `ld` elements apart.
Box rowsBox(int64_t rows, int64_t cols, int64_t ld) {
  Box b;
  b.rank = 2;
  b.shape[0] = b.valid[0] = rows;
  b.shape[1] = b.valid[1] = cols;
  b.stride[0] = ld;
  b.stride[1] = 1;
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

constexpr int32_t kIn = 0, kStat = 1, kWork = 2, kOut = 3, kW = 4, kBias = 5, kSquare = 6;

/// Issues the fabric's commands on core 0 and the engines' on core 1.
void fabric(Ctx *c) { onCore(c, 0); }
void engines(Ctx *c) { onCore(c, 1); }

/// The row kernels' pipeline: the band's rows of `x` (f32, `cols` wide,
/// `ld` apart) move into kIn in chunks of R, each chunk's DMA issued one
/// chunk ahead on core 0; `compute(r0, n)` issues a chunk's engine
/// commands on core 1; then `store(r0, n)` the chunk's DMA out on core 0.
template <class Compute, class Store>
void overRowChunks(Ctx *c, Band band, int64_t R, uint64_t x, int64_t cols, int64_t ld, Compute compute,
                   Store store) {
  auto load = [&](int64_t r0) {
    scalarCycles(c, 8); // the chunk's rows and address
    dmaIn(c, kIn, DType::F32, x + uint64_t(r0 * ld) * 4, rowsBox(min64(R, band.end - r0), cols, ld),
          immFloat(DType::F32, 0));
  };
  if (band.first < band.end)
    load(band.first);
  for (int64_t r0 = band.first; r0 < band.end; r0 += R) {
    scalarCycles(c, 10); // loop control, the chunk's rows, the next chunk's test
    const int64_t n = min64(R, band.end - r0);
    if (r0 + R < band.end)
      load(r0 + R);
    engines(c);
    compute(r0, n);
    fabric(c);
    store(r0, n);
  }
}

/// `n` rows of the f32 tile at the front of kOut to `y`, `ld` apart.
void storeRows(Ctx *c, uint64_t y, int64_t r0, int64_t n, int64_t cols, int64_t ld) {
  scalarCycles(c, 6); // the output address
  dmaOut(c, kOut, DType::F32, y + uint64_t(r0 * ld) * 4, rowsBox(n, cols, ld));
  cbPop(c, kOut, n * cols * 4);
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
  const Operand inverseCols = immFloat(DType::F32, 1.0 / double(cols));
  overRowChunks(
      c, band, R, x, cols, ld,
      [&](int64_t, int64_t n) {
        const Shape tile = shape2(n, cols), stat = shape1(n);
        const Operand rowsView = view(kWork, DType::F32, cols, 1), statColumn = view(kStat, DType::F32, 1, 0);
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
        se(c, SeOp::Fma, kStat, DType::F32, stat, view(kStat, DType::F32, 1), inverseCols,
           immFloat(DType::F32, eps));
        replaceFront(c, kStat);
        se(c, SeOp::Rsqrt, kStat, DType::F32, stat, view(kStat, DType::F32, 1));
        // y = d * rstd * w + b.
        se(c, SeOp::Mul, kSquare, DType::F32, tile, rowsView, statColumn);
        cbPop(c, kWork, n * cols * 4);
        cbPop(c, kStat, n * 4);
        se(c, SeOp::Fma, kOut, DType::F32, tile, view(kSquare, DType::F32, cols, 1), view(kW, DType::F32, 0, 1),
           view(kBias, DType::F32, 0, 1));
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
  auto box = [](int64_t n) {
    Box b;
    b.rank = 1;
    b.shape[0] = b.valid[0] = n;
    b.stride[0] = 1;
    return b;
  };
  auto load = [&](int64_t i) {
    scalarCycles(c, 10);
    const int64_t n = min64(chunk, band.end - i);
    dmaIn(c, kIn, DType::F32, A + uint64_t(i) * 4, box(n), immFloat(DType::F32, 0));
    dmaIn(c, kW, DType::F32, B + uint64_t(i) * 4, box(n), immFloat(DType::F32, 0));
  };
  if (band.first < band.end)
    load(band.first);
  for (int64_t i = band.first; i < band.end; i += chunk) {
    scalarCycles(c, 10);
    const int64_t n = min64(chunk, band.end - i);
    if (i + chunk < band.end)
      load(i + chunk);
    engines(c);
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
    fabric(c);
    scalarCycles(c, 4);
    dmaOut(c, kOut, DType::F32, Y + uint64_t(i) * 4, box(n));
    cbPop(c, kOut, n * 4);
  }
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

/// Args: x, q, scale, rows, cols, R.
void expert_quantize_int8(Ctx *c, const Arg *a) {
  const uint64_t x = a[0].u, q = a[1].u, scales = a[2].u;
  const int64_t rows = a[3].i, cols = a[4].i, R = a[5].i;
  const Band band = bandOf(c, rows);
  scalarCycles(c, 56);
  constexpr int32_t kMask = kBias;
  overRowChunks(
      c, band, R, x, cols, cols,
      [&](int64_t, int64_t n) {
        const Shape tile = shape2(n, cols), stat = shape1(n);
        // scale = max|x| / 127, 1 for a row of zeros.
        se(c, SeOp::Abs, kWork, DType::F32, tile, view(kIn, DType::F32, cols, 1));
        seReduce(c, ReduceOp::Max, kStat, DType::F32, tile, /*axis=*/1, view(kWork, DType::F32, cols, 1));
        cbPop(c, kWork, n * cols * 4);
        replaceFront(c, kStat);
        se(c, SeOp::Div, kStat, DType::F32, stat, view(kStat, DType::F32, 1), immFloat(DType::F32, 127.0));
        se(c, SeOp::CmpGt, kMask, DType::I1, stat, view(kStat, DType::F32, 1), immFloat(DType::F32, 0.0));
        replaceFront(c, kStat);
        se(c, SeOp::Select, kStat, DType::F32, stat, view(kMask, DType::I1, 1), view(kStat, DType::F32, 1),
           immFloat(DType::F32, 1.0));
        cbPop(c, kMask, n);
        // q = sat(rint(x / scale)).
        se(c, SeOp::Div, kWork, DType::F32, tile, view(kIn, DType::F32, cols, 1), view(kStat, DType::F32, 1, 0));
        cbPop(c, kIn, n * cols * 4);
        se(c, SeOp::Quantize, kOut, DType::I8, tile, view(kWork, DType::F32, cols, 1), immFloat(DType::F32, 1.0),
           immInt(DType::I32, 0));
        cbPop(c, kWork, n * cols * 4);
      },
      [&](int64_t r0, int64_t n) {
        scalarCycles(c, 10); // two addresses
        dmaOut(c, kOut, DType::I8, q + uint64_t(r0 * cols), rowsBox(n, cols, cols));
        cbPop(c, kOut, n * cols);
        Box scaleBox;
        scaleBox.rank = 1;
        scaleBox.shape[0] = scaleBox.valid[0] = n;
        scaleBox.stride[0] = 1;
        dmaOut(c, kStat, DType::F32, scales + uint64_t(r0) * 4, scaleBox);
        cbPop(c, kStat, n * 4);
      });
}

/// Args: weight, indices, offsets, out, bags, dim. Rows in groups of at most
/// kBagGroupRows per reduction.
constexpr int64_t kBagGroupRows = 16;
void expert_embedding_bag(Ctx *c, const Arg *a) {
  const uint64_t weight = a[0].u, indices = a[1].u, offsets = a[2].u, out = a[3].u;
  const int64_t bags = a[4].i, dim = a[5].i;
  const Band band = bandOf(c, bags);
  scalarCycles(c, 50);
  if (band.first >= band.end)
    return;
  auto box1 = [](int64_t n) {
    Box b;
    b.rank = 1;
    b.shape[0] = b.valid[0] = n;
    b.stride[0] = 1;
    return b;
  };
  // The band's offsets, band + 1 of them, read by the core from local memory.
  const int64_t count = band.end - band.first;
  dmaIn(c, kBias, DType::I64, offsets + uint64_t(band.first) * 8, box1(count + 1), immInt(DType::I64, 0));
  for (int64_t bag = band.first; bag < band.end; ++bag) {
    scalarCycles(c, 12); // loop control, two offsets, the bag's length
    const int64_t start = readInt(c, kBias, DType::I64, bag - band.first);
    const int64_t end = readInt(c, kBias, DType::I64, bag - band.first + 1);
    const Shape row = shape1(dim);
    if (end <= start) { // an empty bag sums to 0
      engines(c);
      se(c, SeOp::Copy, kOut, DType::F32, row, immFloat(DType::F32, 0));
    } else {
      dmaIn(c, kStat, DType::I64, indices + uint64_t(start) * 8, box1(end - start), immInt(DType::I64, 0));
      bool first = true;
      for (int64_t g = start; g < end; g += kBagGroupRows) {
        const int64_t rows = min64(kBagGroupRows, end - g);
        fabric(c);
        for (int64_t i = 0; i < rows; ++i) {
          scalarCycles(c, 8); // loop control, the row's address
          const int64_t index = readInt(c, kStat, DType::I64, g - start + i);
          dmaIn(c, kIn, DType::F32, weight + uint64_t(index * dim) * 4, rowsBox(1, dim, dim),
                immFloat(DType::F32, 0));
        }
        engines(c);
        const Shape group = shape2(rows, dim);
        if (first) {
          seReduce(c, ReduceOp::Sum, kOut, DType::F32, group, /*axis=*/0, view(kIn, DType::F32, dim, 1));
        } else {
          seReduce(c, ReduceOp::Sum, kWork, DType::F32, group, /*axis=*/0, view(kIn, DType::F32, dim, 1));
          replaceFront(c, kOut);
          se(c, SeOp::Add, kOut, DType::F32, row, view(kOut, DType::F32, 1), view(kWork, DType::F32, 1));
          cbPop(c, kWork, dim * 4);
        }
        cbPop(c, kIn, rows * dim * 4);
        first = false;
      }
      fabric(c);
      cbPop(c, kStat, (end - start) * 8);
    }
    fabric(c);
    scalarCycles(c, 4);
    dmaOut(c, kOut, DType::F32, out + uint64_t(bag * dim) * 4, rowsBox(1, dim, dim));
    cbPop(c, kOut, dim * 4);
  }
  cbPop(c, kBias, (count + 1) * 8);
}

/// Capacities (kernels/expert.py picks R and chunk to fit them): for the
/// row kernels, a chunk of R rows is at most kRowChunkBytes (R <= 1024 for
/// the statistics), with two input tiles, one working tile, two output
/// tiles and a row of up to 8,192 weights: 360 KiB of the PE's 384. For
/// swiglu, a chunk is at most kSwigluChunkBytes, two of each input and of
/// the output in flight. Layer norm keeps a second working tile, so its
/// chunks are at most kLayerNormChunkBytes (368 KiB in all).
constexpr int64_t kRowChunkBytes = 64 * 1024;
constexpr int64_t kLayerNormChunkBytes = 48 * 1024;
constexpr int64_t kSwigluChunkBytes = 16 * 1024;
extern const KernelInfo expert_softmax_info = {
    kDeviceAbiVersion, "expert_softmax", 7, 4,
    {2 * kRowChunkBytes, 2 * 4096, kRowChunkBytes, 2 * kRowChunkBytes}};
extern const KernelInfo expert_rms_norm_info = {
    kDeviceAbiVersion, "expert_rms_norm", 8, 5,
    {2 * kRowChunkBytes, 2 * 4096, kRowChunkBytes, 2 * kRowChunkBytes, 8192 * 4}};
extern const KernelInfo expert_layer_norm_info = {
    kDeviceAbiVersion, "expert_layer_norm", 9, 7,
    {2 * kLayerNormChunkBytes, 2 * 4096, kLayerNormChunkBytes, 2 * kLayerNormChunkBytes, 8192 * 4, 8192 * 4,
     kLayerNormChunkBytes}};
extern const KernelInfo expert_cumsum_info = {
    kDeviceAbiVersion, "expert_cumsum", 6, 4, {2 * kRowChunkBytes, 0, 0, 2 * kRowChunkBytes}};
extern const KernelInfo expert_quantize_int8_info = {
    kDeviceAbiVersion, "expert_quantize_int8", 6, 6,
    {2 * kRowChunkBytes, 2 * 4096, kRowChunkBytes, 2 * kRowChunkBytes / 4, 0, 2 * 1024}};
/// Embedding bag: rows of at most kBagDim f32 values, a band of at most
/// 4,095 bags' offsets, bags of at most 4,096 indices (204 KiB in all).
constexpr int64_t kBagDim = 1024;
extern const KernelInfo expert_embedding_bag_info = {
    kDeviceAbiVersion, "expert_embedding_bag", 6, 6,
    {2 * kBagGroupRows * kBagDim * 4, 4096 * 8, kBagDim * 4, 2 * kBagDim * 4, 0, 4096 * 8}};
extern const KernelInfo expert_swiglu_info = {
    kDeviceAbiVersion, "expert_swiglu", 5, 5,
    {2 * kSwigluChunkBytes, kSwigluChunkBytes, kSwigluChunkBytes, 2 * kSwigluChunkBytes,
     2 * kSwigluChunkBytes}};

} // extern "C"
