//===- fabric.h - What the fabric interface's DMA commands move -*- C++ -*-===//
//
// The functional part of the four DMA commands, plus the memory accesses they
// present to the MemorySystem for timing. Contract:
//  - dmaIn/dmaOut move the valid box (the elements with begin[d] <= i_d <
//    valid[d] in each dimension, strides in elements); dmaIn fills the rest
//    of the dense tile with the pad value, dmaOut leaves the rest of memory
//    alone. The valid box's address span (not the whole tile's) must lie in
//    one allocation.
//  - gatherIn/scatterOut move element i to/from the byte address in element i
//    of an I64 tile unless the I1 mask tile has 0 there (masked-off elements
//    make no access; gathered ones take the pad value). Every accessed
//    element must lie in an allocation.
//  - Only moved bytes are accounted. When `functional` is false nothing is
//    copied and gather/scatter addresses (garbage then) are not checked.
// On an illegal access nothing is moved and the result names the address.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_FABRIC_H
#define MTIA_SIM_FABRIC_H

#include "mtia/device.h"
#include "mtia/sim/memory_system.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mtia::sim {

struct DmaOutcome {
  uint64_t bytes = 0;       ///< bytes moved
  bool outOfBounds = false;
  uint64_t badAddress = 0;  ///< first byte of the illegal access
  uint64_t badBytes = 0;    ///< its length
  bool changedMemory = false; ///< an atomic changed a byte (timing-only: any atomic)
};

/// Whether `box` is well formed (rank 0..kMaxBoxRank, shape >= 0, valid <= shape; any
/// begin); the reason otherwise.
const char *checkBox(const Box &box);

DmaOutcome dmaBoxIn(MemorySystem &mem, MemoryRequest &req, uint64_t addr, const Box &box,
                    DType t, const uint8_t *pad, uint8_t *tile, bool functional);
DmaOutcome dmaBoxOut(MemorySystem &mem, MemoryRequest &req, uint64_t addr, const Box &box,
                     DType t, const uint8_t *tile, bool functional);
DmaOutcome dmaGather(MemorySystem &mem, MemoryRequest &req, int64_t n, DType t,
                     const uint8_t *addrs, const uint8_t *mask, const uint8_t *pad,
                     uint8_t *tile, bool functional);
DmaOutcome dmaScatter(MemorySystem &mem, MemoryRequest &req, int64_t n, DType t,
                      const uint8_t *addrs, const uint8_t *mask, const uint8_t *tile,
                      bool functional);

/// Why an atomic with `op` (ignored for CAS) cannot act on `t`, or "".
std::string checkAtomic(RmwOp op, DType t, bool cas);

/// Memory-side atomics, applied element by element in index order at the
/// command's execution time: for each element whose mask byte is nonzero
/// (mask may be null), reads the old value at the address in `addrs`,
/// writes op(old, value) (CAS: value where old's bits equal cmp's) and
/// stores old into `old` (null: dropped; masked-off elements get 0). `cmp`
/// and `value` are dense tiles of `t`. Every active address is checked
/// first; nothing changes on an illegal one. Without `functional`, only the
/// bytes are charged.
DmaOutcome dmaAtomic(MemorySystem &mem, MemoryRequest &req, bool cas, RmwOp op, int64_t n,
                     DType t, const uint8_t *addrs, const uint8_t *mask, const uint8_t *cmp,
                     const uint8_t *value, uint8_t *old, bool functional);

/// Bytes [lo, hi) of memory.
struct ByteSpan {
  uint64_t lo = 0, hi = 0;
};

/// Appends the bytes the valid box at `addr` moves: one span per innermost
/// row when it is contiguous, else one per element.
void boxSpans(uint64_t addr, const Box &box, DType t, std::vector<ByteSpan> &out);
/// Appends one span per element of a gather, scatter or atomic whose mask
/// byte is nonzero (mask may be null).
void elementSpans(int64_t n, DType t, const uint8_t *addrs, const uint8_t *mask,
                  std::vector<ByteSpan> &out);
/// Sorts `spans` and merges the ones that overlap or touch.
void mergeSpans(std::vector<ByteSpan> &spans);
/// Whether two merged span lists share a byte; the first shared span in `at`.
bool spansIntersect(const std::vector<ByteSpan> &a, const std::vector<ByteSpan> &b,
                    ByteSpan &at);

} // namespace mtia::sim

#endif // MTIA_SIM_FABRIC_H
