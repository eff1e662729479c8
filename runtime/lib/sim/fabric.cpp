//===- fabric.cpp - What the fabric interface's DMA commands move ---------===//

#include "mtia/sim/fabric.h"

#include "mtia/sim/elements.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace mtia::sim {

namespace {

/// A box padded to kMaxBoxRank dimensions with leading dimensions of 1;
/// begin and valid clamped at 0. Dimension d moves the indices
/// [begin[d], valid[d]).
constexpr int kDims = kMaxBoxRank;
constexpr int kInner = kDims - 1;
struct PaddedBox {
  int64_t shape[kDims], stride[kDims], begin[kDims], valid[kDims];
  explicit PaddedBox(const Box &b) {
    int pad = kDims - b.rank;
    for (int i = 0; i < kDims; ++i) {
      bool lead = i < pad;
      shape[i] = lead ? 1 : b.shape[i - pad];
      stride[i] = lead ? 0 : b.stride[i - pad];
      valid[i] = lead ? 1 : std::max<int64_t>(b.valid[i - pad], 0);
      begin[i] = lead ? 0 : std::max<int64_t>(b.begin[i - pad], 0);
    }
  }
  /// The number of indices of dimension d that move.
  int64_t extent(int d) const { return std::max<int64_t>(valid[d] - begin[d], 0); }
  /// The number of innermost rows that move.
  int64_t rows() const {
    int64_t n = 1;
    for (int d = 0; d < kInner; ++d)
      n *= extent(d);
    return n;
  }
  int64_t validElements() const { return rows() * extent(kInner); }
  int64_t tileElements() const {
    int64_t n = 1;
    for (int d = 0; d < kDims; ++d)
      n *= shape[d];
    return n;
  }
};

/// The byte span [lo, hi) the (non-empty) valid box touches at `addr`.
void boxSpan(const PaddedBox &b, uint64_t addr, int64_t es, uint64_t &lo, uint64_t &hi) {
  int64_t minOff = 0, maxOff = 0;
  for (int d = 0; d < kDims; ++d) {
    int64_t first = b.begin[d] * b.stride[d], last = (b.valid[d] - 1) * b.stride[d];
    minOff += std::min(first, last);
    maxOff += std::max(first, last);
  }
  lo = addr + uint64_t(minOff * es);
  hi = addr + uint64_t(maxOff * es + es);
}

/// The granules the valid box costs, counted as the row-by-row path would
/// (merging only within a row) except that a box with no gaps is one span.
uint64_t boxGranuleBytes(const MemorySystem &mem, const PaddedBox &b, int64_t es, uint64_t lo,
                         uint64_t hi, uint64_t bytes) {
  if (hi - lo == bytes)
    return mem.inGranules(bytes);
  const uint64_t rows = uint64_t(b.rows());
  const uint64_t inner = uint64_t(b.stride[kInner] < 0 ? -b.stride[kInner] : b.stride[kInner]);
  const uint64_t perRow =
      inner * uint64_t(es) >= mem.accessBytes()
          ? uint64_t(b.extent(kInner)) * mem.inGranules(uint64_t(es))
          : mem.inGranules((uint64_t(b.extent(kInner) - 1) * inner + 1) * uint64_t(es));
  return rows * perRow;
}

/// Whether the (non-empty) valid box lies in SRAM scratch: its granules are
/// then charged to `req` at once (write: as a store) and true returned.
bool chargeScratch(MemorySystem &mem, MemoryRequest &req, const PaddedBox &b, uint64_t addr,
                   int64_t es, uint64_t bytes, bool write) {
  if (bytes == 0)
    return false;
  uint64_t lo, hi;
  boxSpan(b, addr, es, lo, hi);
  const uint64_t cost = boxGranuleBytes(mem, b, es, lo, hi, bytes);
  return write ? mem.writeScratch(req, lo, hi, cost) : mem.readScratch(req, lo, hi, cost);
}

/// Calls f(tileOffset, memAddress, count) for each innermost row of the valid
/// box, in row-major order; offsets in elements, the address in bytes.
template <class F> void forEachRow(const PaddedBox &b, uint64_t addr, int64_t es, F &&f) {
  const int64_t count = b.extent(kInner);
  if (count == 0 || b.rows() == 0)
    return;
  // An odometer over the outer dimensions; tile and memory offsets move
  // with it.
  int64_t idx[kDims];
  int64_t tileStride[kDims];
  tileStride[kInner] = 1;
  for (int d = kInner - 1; d >= 0; --d)
    tileStride[d] = tileStride[d + 1] * b.shape[d + 1];
  int64_t tileOff = 0, memOff = 0;
  for (int d = 0; d < kDims; ++d) {
    idx[d] = b.begin[d];
    tileOff += b.begin[d] * tileStride[d];
    memOff += b.begin[d] * b.stride[d];
  }
  while (true) {
    f(tileOff, addr + uint64_t(memOff * es), count);
    int d = kInner - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < b.valid[d]) {
        tileOff += tileStride[d];
        memOff += b.stride[d];
        break;
      }
      const int64_t back = idx[d] - 1 - b.begin[d];
      tileOff -= back * tileStride[d];
      memOff -= back * b.stride[d];
      idx[d] = b.begin[d];
    }
    if (d < 0)
      return;
  }
}

/// Legality of the box, checked once before any byte moves.
bool boxInBounds(const MemorySystem &mem, const PaddedBox &b, uint64_t addr, int64_t es,
                 DmaOutcome &out) {
  if (b.validElements() == 0)
    return true;
  uint64_t lo, hi;
  boxSpan(b, addr, es, lo, hi);
  if (mem.allocations().contains(lo, hi))
    return true;
  out.outOfBounds = true;
  out.badAddress = lo;
  out.badBytes = hi - lo;
  return false;
}

/// Every active element's address lies in an allocation; else fills `out`.
bool elementsInBounds(const MemorySystem &mem, int64_t n, int64_t es, const uint8_t *addrs,
                      const uint8_t *mask, DmaOutcome &out) {
  for (int64_t i = 0; i < n; ++i) {
    if (mask && !mask[i])
      continue;
    uint64_t a;
    std::memcpy(&a, addrs + i * 8, 8);
    if (!mem.allocations().contains(a, a + uint64_t(es))) {
      out.outOfBounds = true;
      out.badAddress = a;
      out.badBytes = uint64_t(es);
      return false;
    }
  }
  return true;
}

/// Calls f(fn) with the combining function of `op` on V; false if `op` has
/// no meaning on V.
template <class V, class F> bool withRmw(RmwOp op, F &&f) {
  if (op == RmwOp::Xchg) {
    f([](V, V y) { return y; });
    return true;
  }
  if constexpr (std::is_floating_point_v<V>) {
    switch (op) {
    case RmwOp::Add:
    case RmwOp::FAdd: f([](V x, V y) { return x + y; }); return true;
    case RmwOp::Max: f([](V x, V y) { return maxNumOf(x, y); }); return true;
    case RmwOp::Min: f([](V x, V y) { return minNumOf(x, y); }); return true;
    default: return false;
    }
  } else if constexpr (std::is_same_v<V, bool>) {
    return false;
  } else {
    using U = std::make_unsigned_t<V>;
    switch (op) {
    case RmwOp::And: f([](V x, V y) { return V(x & y); }); return true;
    case RmwOp::Or: f([](V x, V y) { return V(x | y); }); return true;
    case RmwOp::Xor: f([](V x, V y) { return V(x ^ y); }); return true;
    case RmwOp::Add: f([](V x, V y) { return V(U(U(x) + U(y))); }); return true;
    case RmwOp::Max: f([](V x, V y) { return std::max(x, y); }); return true;
    case RmwOp::Min: f([](V x, V y) { return std::min(x, y); }); return true;
    case RmwOp::UMax: f([](V x, V y) { return U(x) > U(y) ? x : y; }); return true;
    case RmwOp::UMin: f([](V x, V y) { return U(x) < U(y) ? x : y; }); return true;
    default: return false;
    }
  }
}

} // namespace

std::string checkAtomic(RmwOp op, DType t, bool cas) {
  if (!isValidDType(t) || t == DType::I1)
    return "atomics act on integer and float elements, not " +
           std::string(isValidDType(t) ? dtypeName(t) : "an invalid dtype");
  if (cas)
    return "";
  if (uint8_t(op) > uint8_t(RmwOp::Xchg))
    return "unknown atomic operation " + std::to_string(int(op));
  bool ok = dispatchDType(t, [&](auto d) {
    return withRmw<ValueOf<decltype(d)::value>>(op, [](auto) {});
  });
  return ok ? "" : "atomic operation " + std::to_string(int(op)) + " is not defined on " +
                       dtypeName(t);
}

DmaOutcome dmaAtomic(MemorySystem &mem, MemoryRequest &req, bool cas, RmwOp op, int64_t n,
                     DType t, const uint8_t *addrs, const uint8_t *mask, const uint8_t *cmp,
                     const uint8_t *value, uint8_t *old, bool functional) {
  DmaOutcome out;
  const int64_t es = dtypeSize(t);
  if (!functional) {
    mem.readUncached(req, uint64_t(n) * mem.inGranules(uint64_t(es)));
    mem.writeUncached(req, uint64_t(n) * mem.inGranules(uint64_t(es)));
    out.bytes = uint64_t(n * es);
    out.changedMemory = n > 0;
    return out;
  }
  if (!elementsInBounds(mem, n, es, addrs, mask, out))
    return out;
  dispatchDType(t, [&](auto d) {
    constexpr DType D = decltype(d)::value;
    using V = ValueOf<D>;
    auto apply = [&](auto fn) {
      for (int64_t i = 0; i < n; ++i) {
        uint8_t *o = old ? old + i * es : nullptr;
        if (mask && !mask[i]) {
          if (o)
            std::memset(o, 0, size_t(es));
          continue;
        }
        uint64_t a;
        std::memcpy(&a, addrs + i * 8, 8);
        uint8_t *p = reinterpret_cast<uint8_t *>(a);
        uint8_t before[8];
        std::memcpy(before, p, size_t(es));
        if (o)
          std::memcpy(o, before, size_t(es));
        if (cas) {
          if (std::memcmp(p, cmp + i * es, size_t(es)) == 0)
            std::memcpy(p, value + i * es, size_t(es));
        } else {
          storeElement<D>(p, roundTo<D>(fn(loadElement<D>(p), loadElement<D>(value + i * es))));
        }
        // The watchdog's progress: a spin on `atomic_add(flag, 0)` or a
        // failing compare-and-swap changes nothing.
        out.changedMemory |= std::memcmp(before, p, size_t(es)) != 0;
        mem.read(req, a, uint64_t(es));
        mem.write(req, a, uint64_t(es));
        out.bytes += uint64_t(es);
      }
    };
    if (cas || !withRmw<V>(op, apply))
      apply([](V x, V) { return x; });
  });
  return out;
}

const char *checkBox(const Box &box) {
  if (box.rank < 0 || box.rank > kMaxBoxRank)
    return "box rank must be in [0, 8]";
  for (int d = 0; d < box.rank; ++d) {
    if (box.shape[d] < 0)
      return "box shape must be >= 0";
    if (box.valid[d] > box.shape[d])
      return "box valid extent exceeds its shape";
    // Any begin is legal: one at or past valid[d] makes the box empty.
  }
  return nullptr;
}

DmaOutcome dmaBoxIn(MemorySystem &mem, MemoryRequest &req, uint64_t addr, const Box &box,
                    DType t, const uint8_t *pad, uint8_t *tile, bool functional) {
  DmaOutcome out;
  const PaddedBox b(box);
  const int64_t es = dtypeSize(t);
  if (!boxInBounds(mem, b, addr, es, out))
    return out;
  out.bytes = uint64_t(b.validElements() * es);
  if (functional && b.validElements() != b.tileElements())
    for (int64_t i = 0, n = b.tileElements(); i < n; ++i)
      std::memcpy(tile + i * es, pad, es);
  // A box inside SRAM scratch costs its bytes whatever its shape: charge
  // them at once instead of row by row (the hot path of SRAM-fed GEMMs).
  const bool charged = chargeScratch(mem, req, b, addr, es, out.bytes, false);
  if (charged && !functional)
    return out;
  const int64_t inner = b.stride[kInner];
  forEachRow(b, addr, es, [&](int64_t tileOff, uint64_t a, int64_t count) {
    uint8_t *dst = tile + tileOff * es;
    if (inner == 1) {
      if (functional)
        std::memcpy(dst, reinterpret_cast<const void *>(a), count * es);
      if (!charged)
        mem.read(req, a, count * es);
      return;
    }
    for (int64_t i = 0; i < count; ++i) {
      uint64_t e = a + uint64_t(i * inner * es);
      if (functional)
        std::memcpy(dst + i * es, reinterpret_cast<const void *>(e), es);
      if (!charged)
        mem.read(req, e, es);
    }
  });
  return out;
}

DmaOutcome dmaBoxOut(MemorySystem &mem, MemoryRequest &req, uint64_t addr, const Box &box,
                     DType t, const uint8_t *tile, bool functional) {
  DmaOutcome out;
  const PaddedBox b(box);
  const int64_t es = dtypeSize(t);
  if (!boxInBounds(mem, b, addr, es, out))
    return out;
  out.bytes = uint64_t(b.validElements() * es);
  const bool charged = chargeScratch(mem, req, b, addr, es, out.bytes, true);
  if (charged && !functional)
    return out;
  const int64_t inner = b.stride[kInner];
  forEachRow(b, addr, es, [&](int64_t tileOff, uint64_t a, int64_t count) {
    const uint8_t *src = tile + tileOff * es;
    if (inner == 1) {
      if (functional)
        std::memcpy(reinterpret_cast<void *>(a), src, count * es);
      if (!charged)
        mem.write(req, a, count * es);
      return;
    }
    for (int64_t i = 0; i < count; ++i) {
      uint64_t e = a + uint64_t(i * inner * es);
      if (functional)
        std::memcpy(reinterpret_cast<void *>(e), src + i * es, es);
      if (!charged)
        mem.write(req, e, es);
    }
  });
  return out;
}

DmaOutcome dmaGather(MemorySystem &mem, MemoryRequest &req, int64_t n, DType t,
                     const uint8_t *addrs, const uint8_t *mask, const uint8_t *pad,
                     uint8_t *tile, bool functional) {
  DmaOutcome out;
  const int64_t es = dtypeSize(t);
  if (!functional) {
    mem.readUncached(req, uint64_t(n) * mem.inGranules(uint64_t(es)));
    out.bytes = uint64_t(n * es);
    return out;
  }
  if (!elementsInBounds(mem, n, es, addrs, mask, out))
    return out;
  for (int64_t i = 0; i < n; ++i) {
    uint8_t *dst = tile + i * es;
    if (mask && !mask[i]) {
      std::memcpy(dst, pad, es);
      continue;
    }
    uint64_t a;
    std::memcpy(&a, addrs + i * 8, 8);
    std::memcpy(dst, reinterpret_cast<const void *>(a), es);
    mem.read(req, a, es);
    out.bytes += uint64_t(es);
  }
  return out;
}

DmaOutcome dmaScatter(MemorySystem &mem, MemoryRequest &req, int64_t n, DType t,
                      const uint8_t *addrs, const uint8_t *mask, const uint8_t *tile,
                      bool functional) {
  DmaOutcome out;
  const int64_t es = dtypeSize(t);
  if (!functional) {
    mem.writeUncached(req, uint64_t(n) * mem.inGranules(uint64_t(es)));
    out.bytes = uint64_t(n * es);
    return out;
  }
  if (!elementsInBounds(mem, n, es, addrs, mask, out))
    return out;
  for (int64_t i = 0; i < n; ++i) {
    if (mask && !mask[i])
      continue;
    uint64_t a;
    std::memcpy(&a, addrs + i * 8, 8);
    std::memcpy(reinterpret_cast<void *>(a), tile + i * es, es);
    mem.write(req, a, es);
    out.bytes += uint64_t(es);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Footprints (the memory-order sanitizer)
//===----------------------------------------------------------------------===//

void boxSpans(uint64_t addr, const Box &box, DType t, std::vector<ByteSpan> &out) {
  const PaddedBox b(box);
  const int64_t es = dtypeSize(t);
  const int64_t inner = b.stride[kInner];
  const bool contiguous = inner == 1 || b.extent(kInner) == 1;
  forEachRow(b, addr, es, [&](int64_t, uint64_t at, int64_t count) {
    if (contiguous) {
      out.push_back({at, at + uint64_t(count * es)});
      return;
    }
    for (int64_t i = 0; i < count; ++i) {
      const uint64_t e = at + uint64_t(i * inner * es);
      out.push_back({e, e + uint64_t(es)});
    }
  });
}

void elementSpans(int64_t n, DType t, const uint8_t *addrs, const uint8_t *mask,
                  std::vector<ByteSpan> &out) {
  const uint64_t es = uint64_t(dtypeSize(t));
  for (int64_t i = 0; i < n; ++i) {
    if (mask && !mask[i])
      continue;
    uint64_t a;
    std::memcpy(&a, addrs + i * 8, 8);
    out.push_back({a, a + es});
  }
}

void mergeSpans(std::vector<ByteSpan> &spans) {
  std::sort(spans.begin(), spans.end(),
            [](const ByteSpan &x, const ByteSpan &y) { return x.lo < y.lo; });
  size_t n = 0;
  for (const ByteSpan &s : spans) {
    if (s.hi <= s.lo)
      continue;
    if (n > 0 && s.lo <= spans[n - 1].hi)
      spans[n - 1].hi = std::max(spans[n - 1].hi, s.hi);
    else
      spans[n++] = s;
  }
  spans.resize(n);
}

bool spansIntersect(const std::vector<ByteSpan> &a, const std::vector<ByteSpan> &b,
                    ByteSpan &at) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const uint64_t lo = std::max(a[i].lo, b[j].lo), hi = std::min(a[i].hi, b[j].hi);
    if (lo < hi) {
      at = {lo, hi};
      return true;
    }
    if (a[i].hi <= b[j].hi)
      ++i;
    else
      ++j;
  }
  return false;
}

} // namespace mtia::sim
