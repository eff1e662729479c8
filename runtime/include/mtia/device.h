//===- device.h - The MTIA device API kernels are written against -*- C++ -*-===//
//
// This header is the contract between code that runs on a PE (C++ generated
// by the triton-mtia compiler, or an expert kernel written by hand) and the
// simulated chip. It is the only header generated code includes, and it
// depends on nothing but the C++ standard library, so clang can compile a
// kernel without our build tree.
//
// Programming model (see docs/design.md):
//  - A kernel body runs on the PE's RISC-V core once per program id. Its scalar
//    code runs natively; every call below is a *command* the core issues to a
//    fixed-function unit (FFU) through the command processor. Issue is
//    asynchronous: the call returns once the command is queued.
//  - FFUs work on tiles held in circular buffers (CBs) in the PE's local
//    memory. A CB is a FIFO of bytes with a read and a write pointer.
//      * Every command that *produces* a tile appends it to its destination CB
//        (the write cursor advances by the tile's bytes at issue time; the
//        command waits for free space and publishes the data when it
//        completes).
//      * Every command that *reads* a CB reads the front of the FIFO as it
//        stands in program order, plus an optional element offset. It waits
//        until the bytes it reads have been published.
//      * `cb_pop` releases bytes at the front once every command issued
//        before it that reads the CB has completed.
//    Blocking is on real pointers, at simulated time; the core never polls.
//  - Tensors in memory are addressed by plain 64-bit byte addresses (device
//    memory is host memory in the simulator); a DMA outside every allocation
//    registered for the launch is a fault.
//
// Calls dispatch through a function table in `Ctx`, so a kernel shared object
// has no link-time dependency on the simulator.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_DEVICE_H
#define MTIA_DEVICE_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace mtia {

/// Bumped whenever the layout of anything in this header changes; the
/// runtime refuses kernels built against another version.
/// 3 appended `Box::begin` (a lower bound of the region a DMA moves).
/// 4 widened `Box` to kMaxBoxRank dimensions.
/// 5 appended `Ctx::line` and the memory-order calls `fence`, `mayAlias`.
/// 6 appended `replaceFront`.
/// 7 appended `validBox`.
/// 8 appended `vecLoop` (and `VecStep`).
/// 9 appended `Ctx::peId` and `Ctx::peGrid`.
/// 10 appended `nocBroadcast` and `nocRecv`.
constexpr uint32_t kDeviceAbiVersion = 10;

/// Dimensions of tiles as the SE, vector core, MLU and DPE iterate them.
constexpr int kMaxRank = 4;
/// Dimensions of a DMA box. The fabric's address generator walks more than
/// the compute units do: a Triton tensor descriptor may have 5, and a
/// strided block of memory does not in general collapse to fewer (its
/// strides are run-time values), while the dense tile it fills does.
constexpr int kMaxBoxRank = 8;

/// Element types of tiles and operands. I1 occupies one byte (0 or 1).
enum class DType : uint8_t {
  I1, I8, I16, I32, I64, F16, BF16, F32, F64,
  F8E4M3, ///< fp8 e4m3fn (no infinities, one NaN encoding)
  F8E5M2, ///< fp8 e5m2 (IEEE-like)
};

constexpr int dtypeSize(DType t) {
  switch (t) {
  case DType::I1:
  case DType::I8:
  case DType::F8E4M3:
  case DType::F8E5M2:
    return 1;
  case DType::I16:
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I32:
  case DType::F32:
    return 4;
  case DType::I64:
  case DType::F64:
    return 8;
  }
  return 0;
}

constexpr bool dtypeIsFloat(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 ||
         t == DType::F64 || t == DType::F8E4M3 || t == DType::F8E5M2;
}

/// SIMD Engine elementwise opcodes (the list lives in se_ops.def).
enum class SeOp : uint16_t {
#define MTIA_SE_OP(Name, Arity) Name,
#include "mtia/se_ops.def"
};

/// SIMD Engine reductions (the list lives in se_reduce_ops.def).
enum class ReduceOp : uint8_t {
#define MTIA_SE_REDUCE(Name) Name,
#include "mtia/se_reduce_ops.def"
};

/// Reduction network links of a PE to its neighbours in the PE grid
/// (row-major ids: North is row - 1, West is column - 1).
enum class ReDir : uint8_t { North, South, West, East };

/// Read-modify-write operations of atomic commands (memory-side atomics).
enum class RmwOp : uint8_t { And, Or, Xor, Add, FAdd, Max, Min, UMax, UMin, Xchg };

/// Row-major tile shape, innermost dimension last. Rank 0 is a scalar tile.
struct Shape {
  int32_t rank = 0;
  int64_t dim[kMaxRank] = {1, 1, 1, 1};

  constexpr int64_t numElements() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i)
      n *= dim[i];
    return n;
  }
};

/// An N-D strided region of memory moved by one DMA command. The tile in
/// local memory is dense with `shape`; element i (tile offset row-major in
/// `shape`) is at `addr + sum_d i_d * stride[d]` elements in memory. Only the
/// elements with begin[d] <= i_d < valid[d] in every dimension move; the rest
/// of the tile is the pad (dmaIn) or is not written (dmaOut). A negative
/// begin or valid counts as 0; begin >= valid moves nothing. Only the region
/// that moves must lie in an allocation (`addr` itself may lie outside, e.g.
/// one element before a tensor for a load of x[i - 1] that begins at 1).
struct Box {
  int32_t rank = 0;
  int64_t shape[kMaxBoxRank] = {1, 1, 1, 1, 1, 1, 1, 1};
  int64_t stride[kMaxBoxRank] = {};                       ///< in elements, in memory
  int64_t valid[kMaxBoxRank] = {1, 1, 1, 1, 1, 1, 1, 1};  ///< end (exclusive) of the moved region
  int64_t begin[kMaxBoxRank] = {};                        ///< start of the moved region (ABI 3)
};

/// One input of an SE command: either a tile read from a CB through a strided
/// view, or an immediate scalar from a core register.
struct Operand {
  enum class Kind : uint8_t { Cb, Imm };
  Kind kind = Kind::Imm;
  DType dtype = DType::F32;
  int32_t cb = -1;
  /// Cb: element offset from the front of the CB.
  int64_t offset = 0;
  /// Cb: element stride of the view for each dimension of the command's
  /// iteration shape; 0 broadcasts along that dimension.
  int64_t stride[kMaxRank] = {0, 0, 0, 0};
  /// Imm: the value (integers in `i`, floats in `f`).
  int64_t i = 0;
  double f = 0.0;
};

/// Scalar kernel arguments, one 8-byte slot each: integers sign-extended in
/// `i`, floats widened in `f`, pointers as byte addresses in `u`.
union Arg {
  int64_t i;
  uint64_t u;
  double f;
};

/// Which fabric unit a `fence` holds back (a bit set). The two DMA units
/// take their queues independently, so without a fence a load can read
/// memory before an earlier store of the program has written it.
enum class Fence : uint8_t {
  /// dma_in starts no later command until every command issued before
  /// the fence on dma_out (stores, scatters, atomics) has completed: a
  /// load after a store that may overlap it (read after write).
  LoadsAfterStores = 1,
  /// dma_out starts no later command until every command issued before
  /// the fence on dma_in has completed: a store after a load that may
  /// overlap it (write after read).
  StoresAfterLoads = 2,
  Both = 3,
};

/// Fused vector loops (`vecLoop`): at most this many inputs and steps.
constexpr int kMaxLoopInputs = 8;
constexpr int kMaxLoopSteps = 16;

/// One instruction of a fused vector loop: the elementwise `op` (an `se`
/// opcode, with its semantics) over `numArgs` arguments, rounded to
/// `dtype`. An argument >= 0 is the loop input of that index (a CB view or
/// an immediate); -1 - k is the result of step k, an earlier step (a vector
/// register: a tile of step k's dtype that never reaches local memory).
struct VecStep {
  SeOp op = SeOp(0);
  DType dtype = DType::F32;
  int8_t numArgs = 0;
  int8_t arg[3] = {0, 0, 0};
};

/// The argument of a VecStep that reads the result of step `k`.
constexpr int8_t stepResult(int k) { return int8_t(-1 - k); }

struct Ctx;

/// The command set, implemented by the runtime. Kernels call the inline
/// wrappers below, never this table directly.
struct DeviceOps {
  void (*dmaIn)(Ctx *, int32_t cb, DType, uint64_t addr, const Box *,
                const Operand *pad);
  void (*dmaOut)(Ctx *, int32_t cb, DType, uint64_t addr, const Box *);
  void (*gatherIn)(Ctx *, int32_t cb, DType, const Shape *, int32_t addrCb,
                   int32_t maskCb, const Operand *pad);
  void (*scatterOut)(Ctx *, int32_t cb, DType, const Shape *, int32_t addrCb,
                     int32_t maskCb);
  void (*se)(Ctx *, SeOp, int32_t dstCb, DType, const Shape *,
             const Operand *operands, int32_t numOperands);
  void (*seReduce)(Ctx *, ReduceOp, int32_t dstCb, DType, const Shape *inShape,
                   int32_t axis, const Operand *src);
  void (*seIota)(Ctx *, int32_t dstCb, DType, int64_t length, int64_t start);
  void (*cbPop)(Ctx *, int32_t cb, int64_t bytes);
  int64_t (*readInt)(Ctx *, int32_t cb, DType, int64_t index);
  double (*readFloat)(Ctx *, int32_t cb, DType, int64_t index);
  void (*scalarCycles)(Ctx *, int64_t cycles);

  // Added in ABI 2 ---------------------------------------------------------

  /// DPE: appends the [m, n] tile a x b (+ acc) in `accType` (F32 for
  /// F16/BF16/F32 inputs, I32 for I8). `a` views [m, k], `b` views [k, n]
  /// (strides select transposed layouts); `acc` is a CB view of [m, n] or an
  /// immediate (0 for none).
  void (*dpe)(Ctx *, int32_t dstCb, DType accType, int64_t m, int64_t n,
              int64_t k, const Operand *a, const Operand *b, const Operand *acc);
  /// MLU: appends a dense copy of the strided view `src` in `shape`
  /// (transpose, reshape, broadcast materialisation, concat by offsets).
  void (*mluCopy)(Ctx *, int32_t dstCb, DType, const Shape *, const Operand *src);
  /// SE: inclusive scan of `src` (viewed in `shape`) along `axis`.
  void (*seScan)(Ctx *, ReduceOp, int32_t dstCb, DType, const Shape *,
                 int32_t axis, bool reverse, const Operand *src);
  /// SE: appends an I32 tile of `numBins` counts of the integer values of
  /// `src` (viewed in `inShape`) that fall in [0, numBins); elements whose
  /// I1 mask (front of maskCb, if >= 0) is 0 are not counted.
  void (*seHistogram)(Ctx *, int32_t dstCb, int64_t numBins,
                      const Shape *inShape, const Operand *src, int32_t maskCb);
  /// SE: out[i] = src[i with i[axis] replaced by index[i]] over `outShape`;
  /// `src` is viewed in `srcShape`, `index` (integer) in `outShape`.
  void (*seGather)(Ctx *, int32_t dstCb, DType, const Shape *outShape,
                   int32_t axis, const Operand *src, const Shape *srcShape,
                   const Operand *index);
  /// Fabric interface, memory-side atomics at the command's simulated time:
  /// for each element (I1 mask at the front of maskCb true, if >= 0) applies
  /// `op` with `value` at the address in the front I64 tile of `addrCb`; the
  /// old values are appended to `dstCb` (if >= 0).
  void (*atomicRmw)(Ctx *, int32_t dstCb, RmwOp, DType, const Shape *,
                    int32_t addrCb, const Operand *value, int32_t maskCb);
  /// As atomicRmw, compare-and-swap: stores `value` where memory == `cmp`.
  void (*atomicCas)(Ctx *, int32_t dstCb, DType, const Shape *, int32_t addrCb,
                    const Operand *cmp, const Operand *value);
  /// Device print of the front tile of `cb` once it is published (the core
  /// waits for it), one line per element:
  ///   `pid (x, y, z) idx (i, j) <prefix><value>`
  /// Each index is right-aligned to the width of the dimension's largest
  /// index; rank 0 prints `idx ()`. Values: floats `%f`; integers signed
  /// decimal, or unsigned when !isSigned; with `hex`, `0x` and the element's
  /// bits in 2 * size hex digits. The runtime hands each print to a sink
  /// (Python: sys.stdout).
  void (*printTile)(Ctx *, const char *prefix, int32_t cb, DType,
                    const Shape *, bool hex, bool isSigned);
  /// Device assert: a fault of kind "assert" carrying `message`, `file` and
  /// `line` when any element of the front I1 tile of `cb` is 0.
  void (*assertTile)(Ctx *, int32_t cb, const Shape *, const char *message,
                     const char *file, int32_t line);
  /// debug_barrier: the core waits until every command it issued has completed.
  void (*barrier)(Ctx *);

  // Appended in ABI 2 (a kernel that does not call them is unaffected) -----

  /// Selects the RISC-V core that issues the commands that follow: 0 the
  /// scalar core (the default at the start of every program), 1 the vector
  /// core. Each core has its own clock and pays its own issue cost, so
  /// splitting the issue between them (e.g. DMA on 0, DPE/SE on 1) runs
  /// command-issue-bound kernels faster. CB order is program order either way.
  void (*onCore)(Ctx *, int32_t core);
  /// RISC-V vector core (RVV, VLEN 512): the elementwise command of `se`
  /// (same opcodes, operands and semantics) on the vector unit, at 64/32/16
  /// elements per cycle for 8/16/32-bit elements.
  void (*vec)(Ctx *, SeOp, int32_t dstCb, DType, const Shape *, const Operand *operands,
              int32_t numOperands);
  /// Reduction engine (RE), one per PE, on its own unit and queue. It
  /// accumulates tiles arriving over the reduction network, a link to each
  /// grid neighbour, and hands the result off to a CB (where the SE, a DMA
  /// or the next reSend takes it).
  ///  reSend: forwards the tile `src` (over `shape`, elements of `t`) to
  ///    the neighbour in direction `to`. Completes when the tile has left
  ///    (its CB reads retire then); it arrives re_hop_cycles later. A
  ///    neighbour outside the grid is an invalid-command fault at issue.
  ///  reRecv: takes the oldest tile that arrived from direction `from`,
  ///    accumulates it with `local` (a CB view or an immediate) by `op`
  ///    (Sum, Max or Min; elementwise, rounded to `t`) and writes the
  ///    result as a dense tile of `shape` to `dstCb`. It waits (parked on
  ///    the network, never polled) until such a tile has arrived; a tile of
  ///    another size is an invalid-command fault.
  /// Tiles on one link arrive in the order they were sent.
  void (*reSend)(Ctx *, ReDir to, DType, const Shape *, const Operand *src);
  void (*reRecv)(Ctx *, ReduceOp, int32_t dstCb, DType, const Shape *, const Operand *local,
                 ReDir from);

  // Appended in ABI 5 ------------------------------------------------------

  /// Memory order between the fabric units (see `Fence`). The core does
  /// not wait; the held-back unit does, and only if the other still has
  /// commands of the program in flight. Commands of one unit start and
  /// complete in issue order, so stores after stores need no fence.
  void (*fence)(Ctx *, Fence);
  /// Whether byte addresses `a` and `b` may reach the same memory: false
  /// only when they lie in two different allocations of the launch (the
  /// storages of two tensor arguments), which an in-bounds access through
  /// one never leaves. The compiler fences accesses through two pointer
  /// arguments only when this says they may alias.
  int32_t (*mayAlias)(Ctx *, uint64_t a, uint64_t b);

  // Appended in ABI 6 ------------------------------------------------------

  /// Marks the next command, which must append a tile to `cb`, as the one
  /// that replaces the front tile of `cb`: it pops that many bytes of the
  /// front as it reads them (after every earlier reader of them), so its
  /// result may take their place in the buffer. An accumulator updated in
  /// a loop (`acc = acc + x`) then needs room for one tile, not two. The
  /// pop is issued with the command, in program order right after it; the
  /// command may read the front tile through any views (the unit reads its
  /// operands before it writes). A bit of the next command: no issue cost.
  void (*replaceFront)(Ctx *, int32_t cb);

  // Appended in ABI 7 ------------------------------------------------------

  /// Effective shape (the paper's 4.1.1): the next command, an `se`, `vec`
  /// or `seReduce`, works on the box of its shape with 0 <= i_d < valid[d]
  /// only (`valid` has the command's rank; a value below 0 counts as 0, one
  /// above the dimension as all of it), and takes time for those elements
  /// only. Elements of its result outside the box are unspecified (the
  /// simulator writes all-ones bytes there, a NaN or -1, so that a read of
  /// them shows). A reduction reads the lanes outside the box as `fill` (an
  /// immediate: the value the compiler proved they would hold), so its
  /// result is the one of the whole tile. A bit of the next command: no
  /// issue cost.
  void (*validBox)(Ctx *, const Shape *valid, const Operand *fill);

  // Appended in ABI 8 ------------------------------------------------------

  /// A fused elementwise loop on the RISC-V vector core (the paper's
  /// 4.2.2): `steps` run one after another on each strip of VLEN bits of
  /// the tile `shape`, their intermediates in vector registers, and the
  /// last step's result (of its dtype) is appended to `dstCb`. Each step
  /// computes exactly what a `vec` of its opcode would on tiles of the
  /// intermediate types, so the result is that of the unfused chain, bit
  /// for bit. Inputs are read once per strip, the result written once; the
  /// chain's intermediates take no CB room and no local-memory bandwidth.
  /// Time per strip: the busier of the vector unit's two pipes, which
  /// chain: the port to local memory, one vector register (VLEN bits) a
  /// cycle, for a load per input view that steps along the innermost
  /// dimension (a view broadcast along it is a scalar operand, the
  /// `.vf`/`.vx` form, as is an immediate) and one store; and the ALU, the
  /// steps' passes. A `vec` is the loop of one step: a chain of n unary
  /// vecs takes 2n cycles per strip, their loop max(2, n).
  void (*vecLoop)(Ctx *, int32_t dstCb, const Shape *, const Operand *inputs,
                  int32_t numInputs, const VecStep *steps, int32_t numSteps);

  // Appended in ABI 10 -----------------------------------------------------

  /// Broadcast over the NoC (the paper's row- and column-wise broadcast):
  /// one PE's tile to every other PE of its PE row (`axis` 1) or column
  /// (`axis` 0), through the 2-D mesh, never touching SRAM or LPDDR.
  ///  nocBroadcast: the fabric interface's outgoing side (the dma_out unit)
  ///    reads the tile `src` (over `shape`, elements of `t`) at
  ///    fi_bytes_per_cycle and sends it; it reaches a PE d hops away
  ///    d * noc_hop_cycles after it left. Completes when it has left (its
  ///    CB reads retire then). On a line of one PE it sends to nobody.
  ///  nocRecv: the incoming side (the dma_in unit) takes the oldest tile
  ///    that arrived by a broadcast along `axis` (in order of arrival) and
  ///    appends it to `dstCb` as a dense tile of `shape`, at
  ///    fi_bytes_per_cycle. It waits (parked on the network, never polled)
  ///    until one has arrived; a tile of another size is an
  ///    invalid-command fault.
  /// Mesh links are not a contended resource in this model: every
  /// broadcast sees the hop latency alone.
  void (*nocBroadcast)(Ctx *, int32_t axis, DType, const Shape *, const Operand *src);
  void (*nocRecv)(Ctx *, int32_t axis, int32_t dstCb, DType, const Shape *);
};

/// What a kernel sees of the PE it runs on.
struct Ctx {
  const DeviceOps *ops;
  void *impl;
  int32_t programId[3];
  int32_t numPrograms[3];
  /// The kernel's source line of the commands it issues next (0: unknown),
  /// kept up to date by generated code so that faults can name it.
  int32_t line;
  /// The PE running the program: its row and column in the PE grid, and
  /// the grid's rows and columns (`mtl.get_pe_id`, `mtl.get_pe_grid_size`).
  int32_t peId[2];
  int32_t peGrid[2];
};

/// Static facts about a compiled kernel, exported by its shared object as
/// `<kernel>_info` next to the entry point `<kernel>`.
constexpr int kMaxCbs = 15;
struct KernelInfo {
  uint32_t abiVersion;
  const char *name;
  int32_t numArgs;
  int32_t numCbs;
  int64_t cbCapacity[kMaxCbs]; ///< bytes of local memory per CB
};

using KernelEntry = void (*)(Ctx *, const Arg *);

//===----------------------------------------------------------------------===//
// Shape, box and operand builders
//===----------------------------------------------------------------------===//

/// Shapes of rank 1 and 2 (row-major, innermost dimension last).
inline Shape shape1(int64_t n) {
  Shape s;
  s.rank = 1;
  s.dim[0] = n;
  return s;
}
inline Shape shape2(int64_t rows, int64_t cols) {
  Shape s;
  s.rank = 2;
  s.dim[0] = rows;
  s.dim[1] = cols;
  return s;
}

/// The box of `rows` rows of `cols` elements, `ld` elements apart, all of
/// which move.
inline Box rowsBox(int64_t rows, int64_t cols, int64_t ld) {
  Box b;
  b.rank = 2;
  b.shape[0] = b.valid[0] = rows;
  b.shape[1] = b.valid[1] = cols;
  b.stride[0] = ld;
  b.stride[1] = 1;
  return b;
}

/// The front tile of `cb`, dense row-major in `shape`.
inline Operand tile(int32_t cb, DType t, const Shape &shape) {
  Operand o;
  o.kind = Operand::Kind::Cb;
  o.dtype = t;
  o.cb = cb;
  int64_t s = 1;
  for (int d = shape.rank - 1; d >= 0; --d) {
    o.stride[d] = shape.dim[d] == 1 ? 0 : s;
    s *= shape.dim[d];
  }
  return o;
}

/// A strided view of the front of `cb` (0 strides broadcast).
inline Operand view(int32_t cb, DType t, int64_t s0 = 0, int64_t s1 = 0,
                    int64_t s2 = 0, int64_t s3 = 0) {
  Operand o;
  o.kind = Operand::Kind::Cb;
  o.dtype = t;
  o.cb = cb;
  o.stride[0] = s0;
  o.stride[1] = s1;
  o.stride[2] = s2;
  o.stride[3] = s3;
  return o;
}

/// A strided view starting `offset` elements past the front of `cb`.
inline Operand viewAt(int32_t cb, DType t, int64_t offset, int64_t s0 = 0,
                      int64_t s1 = 0, int64_t s2 = 0, int64_t s3 = 0) {
  Operand o = view(cb, t, s0, s1, s2, s3);
  o.offset = offset;
  return o;
}

inline Operand immInt(DType t, int64_t v) {
  Operand o;
  o.dtype = t;
  o.i = v;
  o.f = static_cast<double>(v);
  return o;
}

inline Operand immFloat(DType t, double v) {
  Operand o;
  o.dtype = t;
  o.f = v;
  // Converting inf, NaN or an out-of-range value to an integer is undefined
  // behaviour (and -inf pads are common); such values keep i = 0.
  o.i = v > -9.2e18 && v < 9.2e18 ? static_cast<int64_t>(v) : 0;
  return o;
}

//===----------------------------------------------------------------------===//
// Commands
//===----------------------------------------------------------------------===//

inline int32_t programId(Ctx *c, int axis) { return c->programId[axis]; }
inline int32_t numPrograms(Ctx *c, int axis) { return c->numPrograms[axis]; }
inline int32_t peId(Ctx *c, int axis) { return c->peId[axis]; }
inline int32_t peGridSize(Ctx *c, int axis) { return c->peGrid[axis]; }

/// Fabric interface: memory -> a new tile at the back of `cb`.
inline void dmaIn(Ctx *c, int32_t cb, DType t, uint64_t addr, const Box &box,
                  const Operand &pad) {
  c->ops->dmaIn(c, cb, t, addr, &box, &pad);
}

/// Fabric interface: the valid part [begin, valid) of the front tile of `cb`
/// -> memory.
inline void dmaOut(Ctx *c, int32_t cb, DType t, uint64_t addr, const Box &box) {
  c->ops->dmaOut(c, cb, t, addr, &box);
}

/// Fabric interface gather: element i comes from the byte address held in
/// element i of the front I64 tile of `addrCb` (masked-off elements, where the
/// front I1 tile of `maskCb` is 0, take `pad`; maskCb < 0 means no mask).
inline void gatherIn(Ctx *c, int32_t cb, DType t, const Shape &s,
                     int32_t addrCb, int32_t maskCb, const Operand &pad) {
  c->ops->gatherIn(c, cb, t, &s, addrCb, maskCb, &pad);
}

/// Fabric interface scatter: the front tile of `cb` to per-element addresses.
inline void scatterOut(Ctx *c, int32_t cb, DType t, const Shape &s,
                       int32_t addrCb, int32_t maskCb) {
  c->ops->scatterOut(c, cb, t, &s, addrCb, maskCb);
}

/// SIMD Engine elementwise command over `shape`; result appended to `dst`.
inline void se(Ctx *c, SeOp op, int32_t dst, DType t, const Shape &s,
               const Operand &a) {
  c->ops->se(c, op, dst, t, &s, &a, 1);
}
inline void se(Ctx *c, SeOp op, int32_t dst, DType t, const Shape &s,
               const Operand &a, const Operand &b) {
  Operand v[2] = {a, b};
  c->ops->se(c, op, dst, t, &s, v, 2);
}
inline void se(Ctx *c, SeOp op, int32_t dst, DType t, const Shape &s,
               const Operand &a, const Operand &b, const Operand &d) {
  Operand v[3] = {a, b, d};
  c->ops->se(c, op, dst, t, &s, v, 3);
}

/// SIMD Engine reduction of `src` (viewed in `inShape`) along `axis`; the
/// result (rank - 1) is appended to `dst`.
inline void seReduce(Ctx *c, ReduceOp op, int32_t dst, DType t,
                     const Shape &inShape, int32_t axis, const Operand &src) {
  c->ops->seReduce(c, op, dst, t, &inShape, axis, &src);
}

/// SIMD Engine: appends the 1-D tile start, start+1, ... to `dst`.
inline void seIota(Ctx *c, int32_t dst, DType t, int64_t length,
                   int64_t start) {
  c->ops->seIota(c, dst, t, length, start);
}

/// Memory order between the fabric units; see `Fence`.
inline void fence(Ctx *c, Fence kind) { c->ops->fence(c, kind); }

/// Whether byte addresses `a` and `b` may reach the same allocation.
inline bool mayAlias(Ctx *c, uint64_t a, uint64_t b) { return c->ops->mayAlias(c, a, b) != 0; }

/// The next command's result replaces the front tile of `cb` (see DeviceOps).
inline void replaceFront(Ctx *c, int32_t cb) { c->ops->replaceFront(c, cb); }

/// The next se / vec / seReduce works on the box [0, valid) of its shape
/// (see DeviceOps::validBox); `fill` is what a reduction reads outside it.
inline void validBox(Ctx *c, const Shape &valid, const Operand &fill = Operand()) {
  c->ops->validBox(c, &valid, &fill);
}

/// Command processor: release `bytes` at the front of `cb`.
inline void cbPop(Ctx *c, int32_t cb, int64_t bytes) {
  c->ops->cbPop(c, cb, bytes);
}

/// Core reads element `index` of the front of `cb` into a register; blocks
/// the core until the data is published.
inline int64_t readInt(Ctx *c, int32_t cb, DType t, int64_t index = 0) {
  return c->ops->readInt(c, cb, t, index);
}
inline double readFloat(Ctx *c, int32_t cb, DType t, int64_t index = 0) {
  return c->ops->readFloat(c, cb, t, index);
}

/// Charges the core for scalar instructions the native code stands for.
inline void scalarCycles(Ctx *c, int64_t n) { c->ops->scalarCycles(c, n); }

inline void dpe(Ctx *c, int32_t dst, DType accType, int64_t m, int64_t n,
                int64_t k, const Operand &a, const Operand &b,
                const Operand &acc) {
  c->ops->dpe(c, dst, accType, m, n, k, &a, &b, &acc);
}
inline void mluCopy(Ctx *c, int32_t dst, DType t, const Shape &s,
                    const Operand &src) {
  c->ops->mluCopy(c, dst, t, &s, &src);
}
inline void seScan(Ctx *c, ReduceOp op, int32_t dst, DType t, const Shape &s,
                   int32_t axis, bool reverse, const Operand &src) {
  c->ops->seScan(c, op, dst, t, &s, axis, reverse, &src);
}
inline void seHistogram(Ctx *c, int32_t dst, int64_t numBins,
                        const Shape &inShape, const Operand &src,
                        int32_t maskCb = -1) {
  c->ops->seHistogram(c, dst, numBins, &inShape, &src, maskCb);
}
inline void seGather(Ctx *c, int32_t dst, DType t, const Shape &outShape,
                     int32_t axis, const Operand &src, const Shape &srcShape,
                     const Operand &index) {
  c->ops->seGather(c, dst, t, &outShape, axis, &src, &srcShape, &index);
}
inline void atomicRmw(Ctx *c, int32_t dst, RmwOp op, DType t, const Shape &s,
                      int32_t addrCb, const Operand &value, int32_t maskCb = -1) {
  c->ops->atomicRmw(c, dst, op, t, &s, addrCb, &value, maskCb);
}
inline void atomicCas(Ctx *c, int32_t dst, DType t, const Shape &s,
                      int32_t addrCb, const Operand &cmp, const Operand &value) {
  c->ops->atomicCas(c, dst, t, &s, addrCb, &cmp, &value);
}
inline void printTile(Ctx *c, const char *prefix, int32_t cb, DType t,
                      const Shape &s, bool hex = false, bool isSigned = true) {
  c->ops->printTile(c, prefix, cb, t, &s, hex, isSigned);
}
inline void assertTile(Ctx *c, int32_t cb, const Shape &s, const char *message,
                       const char *file, int32_t line) {
  c->ops->assertTile(c, cb, &s, message, file, line);
}
inline void barrier(Ctx *c) { c->ops->barrier(c); }
inline void onCore(Ctx *c, int32_t core) { c->ops->onCore(c, core); }
inline void reSend(Ctx *c, ReDir to, DType t, const Shape &s, const Operand &src) {
  c->ops->reSend(c, to, t, &s, &src);
}
inline void reRecv(Ctx *c, ReduceOp op, int32_t dst, DType t, const Shape &s,
                   const Operand &local, ReDir from) {
  c->ops->reRecv(c, op, dst, t, &s, &local, from);
}
inline void nocBroadcast(Ctx *c, int32_t axis, DType t, const Shape &s, const Operand &src) {
  c->ops->nocBroadcast(c, axis, t, &s, &src);
}
inline void nocRecv(Ctx *c, int32_t axis, int32_t dst, DType t, const Shape &s) {
  c->ops->nocRecv(c, axis, dst, t, &s);
}
inline void vec(Ctx *c, SeOp op, int32_t dst, DType t, const Shape &s, const Operand &a) {
  c->ops->vec(c, op, dst, t, &s, &a, 1);
}
inline void vec(Ctx *c, SeOp op, int32_t dst, DType t, const Shape &s, const Operand &a,
                const Operand &b) {
  Operand v[2] = {a, b};
  c->ops->vec(c, op, dst, t, &s, v, 2);
}
inline void vec(Ctx *c, SeOp op, int32_t dst, DType t, const Shape &s, const Operand &a,
                const Operand &b, const Operand &d) {
  Operand v[3] = {a, b, d};
  c->ops->vec(c, op, dst, t, &s, v, 3);
}

/// A fused vector loop (see DeviceOps::vecLoop).
inline void vecLoop(Ctx *c, int32_t dst, const Shape &s, const Operand *inputs,
                    int32_t numInputs, const VecStep *steps, int32_t numSteps) {
  c->ops->vecLoop(c, dst, &s, inputs, numInputs, steps, numSteps);
}

//===----------------------------------------------------------------------===//
// Integer semantics: the one definition, shared by the SE (tiles) and the
// kernels' scalar code, so that an op gives the same answer on both. Where
// C++ traps or is undefined, the answer is RISC-V's (and LLVM's on GPUs
// where it defines one): x / 0 = -1 (all ones), x % 0 = x, INT_MIN / -1 =
// INT_MIN with remainder 0; shifts by the width or more give 0 (arithmetic
// right: the sign); float -> integer truncates toward zero, saturating at
// the type's range, NaN -> 0. T is the (signed or unsigned) storage type;
// the unsigned ops compute on its unsigned counterpart.
//===----------------------------------------------------------------------===//

template <class T> constexpr T divSigned(T x, T y) {
  if (y == 0)
    return T(-1);
  if (std::is_signed_v<T> && x == std::numeric_limits<T>::min() && y == T(-1))
    return x;
  return T(x / y);
}
template <class T> constexpr T remSigned(T x, T y) {
  if (y == 0)
    return x;
  if (std::is_signed_v<T> && x == std::numeric_limits<T>::min() && y == T(-1))
    return T(0);
  return T(x % y);
}
template <class T> constexpr T divUnsigned(T x, T y) {
  using U = std::make_unsigned_t<T>;
  return y == 0 ? T(-1) : T(U(x) / U(y));
}
template <class T> constexpr T remUnsigned(T x, T y) {
  using U = std::make_unsigned_t<T>;
  return y == 0 ? x : T(U(x) % U(y));
}
template <class T> constexpr T shiftLeft(T x, T y) {
  using U = std::make_unsigned_t<T>;
  return U(y) >= sizeof(T) * 8 ? T(0) : T(U(U(x) << U(y)));
}
template <class T> constexpr T shiftRightSigned(T x, T y) {
  using U = std::make_unsigned_t<T>;
  using S = std::make_signed_t<T>;
  return U(y) >= sizeof(T) * 8 ? T(S(x) < 0 ? -1 : 0) : T(S(x) >> U(y));
}
template <class T> constexpr T shiftRightUnsigned(T x, T y) {
  using U = std::make_unsigned_t<T>;
  return U(y) >= sizeof(T) * 8 ? T(0) : T(U(x) >> U(y));
}
/// A float truncated toward zero into integer type To (signed or
/// unsigned), saturating; NaN gives 0.
template <class To, class From> inline To floatToInt(From v) {
  const double d = static_cast<double>(v); // exact for every float type
  if (std::isnan(d))
    return To(0);
  // 2^digits: the first value past the range.
  const double limit = std::ldexp(1.0, std::numeric_limits<To>::digits);
  if (d >= limit)
    return std::numeric_limits<To>::max();
  if (std::is_signed_v<To> ? d < -limit : d <= -1.0)
    return std::numeric_limits<To>::min();
  return static_cast<To>(d);
}
/// IEEE 754-2019 maximumNumber / minimumNumber (tl.maximum / tl.minimum,
/// propagate_nan=NONE, and float atomic max / min): a NaN gives the other
/// operand, and -0 < +0, so that the sign of a zero result does not depend
/// on the C library (fmax(-0, +0) may return either).
template <class V> inline V maxNumOf(V x, V y) {
  if (std::isnan(x))
    return y;
  if (std::isnan(y))
    return x;
  if (x == y)
    return std::signbit(x) ? y : x;
  return x > y ? x : y;
}
template <class V> inline V minNumOf(V x, V y) {
  if (std::isnan(x))
    return y;
  if (std::isnan(y))
    return x;
  if (x == y)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}
/// IEEE 754-2019 maximum / minimum (tl.maximum / tl.minimum with
/// propagate_nan=ALL): NaN if either is NaN, and -0 < +0.
template <class V> inline V maximumOf(V x, V y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<V>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? y : x;
  return x > y ? x : y;
}
template <class V> inline V minimumOf(V x, V y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<V>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

//===----------------------------------------------------------------------===//
// bfloat16 rounding: the one definition, shared by the simulator
// (mtia/sim/elements.h) and kernels' scalar code (below).
//===----------------------------------------------------------------------===//

/// A float's bits and back (shared with mtia/sim/elements.h).
inline uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline float floatOf(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

/// float -> bfloat16 bits, round to nearest even; a NaN stays a quiet NaN.
inline uint16_t bf16FromFloat(float f) {
  uint32_t x = bitsOf(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((x >> 16) | 0x0040u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

/// double -> float rounded to odd: a later rounding to a type with at most
/// 22 fraction bits is then the correctly rounded result of the double.
inline float floatRoundedToOdd(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || static_cast<double>(f) == d)
    return f;
  uint32_t b;
  std::memcpy(&b, &f, 4);
  if (std::fabs(static_cast<double>(f)) > std::fabs(d))
    --b; // rounding went away from zero: truncate instead
  b |= 1u;
  std::memcpy(&f, &b, 4);
  return f;
}

inline uint16_t bf16FromDouble(double d) { return bf16FromFloat(floatRoundedToOdd(d)); }

//===----------------------------------------------------------------------===//
// fp8 (e4m3fn, e5m2) rounding: the one definition, shared by the simulator
// (mtia/sim/elements.h) and kernels' scalar code, which holds an fp8 scalar
// as the float it denotes (every fp8 value is a float) and rounds it with
// roundToE4m3 / roundToE5m2 where the source converts to fp8.
//===----------------------------------------------------------------------===//

/// float -> an 8-bit float with `E` exponent and `M` mantissa bits, round to
/// nearest even. `Fn` selects the e4m3fn encoding (no infinities, NaN is the
/// all-ones code) instead of IEEE-like.
template <int E, int M, bool Fn> inline uint8_t fp8FromFloat(float f) {
  constexpr int kBias = (1 << (E - 1)) - 1;
  constexpr uint32_t kNan = Fn ? 0x7fu : 0x7eu;
  constexpr uint32_t kMaxCode = Fn ? 0x7eu : 0x7bu; // largest finite code
  uint32_t x = bitsOf(f);
  const uint8_t sign = static_cast<uint8_t>((x >> 24) & 0x80u);
  x &= 0x7fffffffu;
  if (x > 0x7f800000u)
    return sign | kNan;
  uint32_t code;
  if (x >= uint32_t(128 - kBias) << 23) { // a normal of the 8-bit type
    constexpr int kDrop = 23 - M;
    uint32_t r = x - (uint32_t(127 - kBias) << 23);
    r += (1u << (kDrop - 1)) - 1u + ((r >> kDrop) & 1u);
    code = r >> kDrop;
  } else {
    // Subnormal: |f| * 2^(bias - 1 + M) < 2^M is exact in float, and adding
    // 2^23 rounds it to an integer, to even.
    float scaled = floatOf(x) * std::ldexp(1.0f, kBias - 1 + M);
    code = bitsOf(scaled + 0x1p23f) - bitsOf(0x1p23f);
  }
  if (code > kMaxCode)
    return sign | (Fn ? kNan : 0x7cu); // e4m3fn has no infinity
  return sign | static_cast<uint8_t>(code);
}

template <int E, int M, bool Fn> inline float floatFromFp8(uint8_t c) {
  constexpr int kBias = (1 << (E - 1)) - 1;
  const uint32_t sign = static_cast<uint32_t>(c & 0x80u) << 24;
  const uint32_t e = (c >> M) & ((1u << E) - 1u), m = c & ((1u << M) - 1u);
  if (Fn ? (c & 0x7fu) == 0x7fu : e == (1u << E) - 1u) {
    if (Fn || m)
      return floatOf(sign | 0x7fc00000u);
    return floatOf(sign | 0x7f800000u);
  }
  if (e == 0) {
    float v = static_cast<float>(m) * std::ldexp(1.0f, 1 - kBias - M);
    return sign ? -v : v;
  }
  return floatOf(sign | ((e + uint32_t(127 - kBias)) << 23) | (m << (23 - M)));
}

inline uint8_t e4m3FromFloat(float f) { return fp8FromFloat<4, 3, true>(f); }
inline uint8_t e5m2FromFloat(float f) { return fp8FromFloat<5, 2, false>(f); }
inline float floatFromE4m3(uint8_t c) { return floatFromFp8<4, 3, true>(c); }
inline float floatFromE5m2(uint8_t c) { return floatFromFp8<5, 2, false>(c); }

/// A double rounded to the nearest fp8 value (through float rounded to odd,
/// so the second rounding is exact), as a float.
inline float roundToE4m3(double d) { return floatFromE4m3(e4m3FromFloat(floatRoundedToOdd(d))); }
inline float roundToE5m2(double d) { return floatFromE5m2(e5m2FromFloat(floatRoundedToOdd(d))); }

} // namespace mtia

#if defined(__clang__) && defined(__x86_64__)
// clang lowers a conversion to `__bf16` (the scalar type of generated code)
// to these compiler-runtime calls, which libgcc has only from GCC 13 on;
// without them a kernel that rounds a scalar to bf16 fails to load on a
// GCC 12 system (Debian 12). Weak and hidden: each kernel carries its own,
// and a runtime library's definition would do as well.
extern "C" __attribute__((weak, visibility("hidden"))) __bf16 __truncsfbf2(float f) {
  uint16_t bits = mtia::bf16FromFloat(f);
  __bf16 r;
  std::memcpy(&r, &bits, 2);
  return r;
}
extern "C" __attribute__((weak, visibility("hidden"))) __bf16 __truncdfbf2(double d) {
  uint16_t bits = mtia::bf16FromDouble(d);
  __bf16 r;
  std::memcpy(&r, &bits, 2);
  return r;
}
#endif

#endif // MTIA_DEVICE_H
