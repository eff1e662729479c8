//===- memory_system.h - Allocations, SRAM and LPDDR timing -----*- C++ -*-===//
//
// Device memory is host memory: a DMA moves real bytes at plain addresses.
// This component decides whether an access is legal (it must lie inside one
// allocation registered for the launch) and how long it takes.
//
// Timing contract: the shared memories are bandwidth servers, not flits.
//  - LPDDR is lpddr_channels FIFO servers of lpddr_gbps / channels each;
//    addresses interleave over them every lpddr_interleave_bytes, so a
//    stream spread over many addresses uses every channel and a hot spot
//    only one.
//  - An allocation placed in SRAM (Region::sram, "scratch") lives in SRAM
//    regions of sram_region_bytes: its reads and writes are served by the
//    SRAM server alone and never touch LPDDR. The rest of the SRAM caches
//    LPDDR.
//  - SRAM is a memory-side cache of LPDDR with LRU pages of sram_page_bytes.
//    A read of a resident page is served by the SRAM server; a read of a
//    missing page fills the whole page from LPDDR (the page is usable once
//    the fill is done) and installs it. Writes go through to LPDDR and update
//    a resident page; they never allocate.
//  - Between the PEs and the memories, every byte a DMA moves crosses the
//    NoC crossbar of its PE's die edge: noc_crossbars servers of
//    noc_crossbar_gbps, crossbar i serving the i-th band of PE columns.
//    PEs of one edge contend there even when the memories have bandwidth
//    to spare.
//  - A server reserves bytes / bandwidth cycles starting at
//    max(request time, the end of its previous reservation). Requests are
//    made in event-time order, so sharing is FIFO-fair and contention shows.
// At the start of a launch the servers are idle and the SRAM is empty, unless
// keep_sram_warm is set, in which case its pages survive from the previous
// launch of the same chip.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_MEMORY_SYSTEM_H
#define MTIA_SIM_MEMORY_SYSTEM_H

#include "mtia/sim/config.h"
#include "mtia/sim/event_queue.h"
#include "mtia/sim/stats.h"

#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

namespace mtia::sim {

/// An allocation a launch may touch: [addr, addr + bytes).
struct Region {
  uint64_t addr = 0;
  uint64_t bytes = 0;
  bool sram = false; ///< placed in SRAM scratch regions instead of LPDDR
};

/// The allocations of one launch, merged into disjoint sorted intervals.
class AddressMap {
public:
  void assign(std::vector<Region> regions);
  /// True when [lo, hi) lies inside one allocation.
  bool contains(uint64_t lo, uint64_t hi) const;
  /// False only when `a` and `b` lie in two different allocations (as
  /// given, not merged) and no allocation holds both.
  bool mayAlias(uint64_t a, uint64_t b) const;
  /// True when `addr` lies in an allocation placed in SRAM.
  bool inSram(uint64_t addr) const;
  /// True when [lo, hi) lies inside one allocation placed in SRAM.
  bool inSram(uint64_t lo, uint64_t hi) const;
  /// Bytes of SRAM the scratch allocations occupy, in whole regions of
  /// `regionBytes` (each allocation rounded up on its own).
  uint64_t sramBytes(uint64_t regionBytes) const;

private:
  std::vector<Region> given_; ///< sorted, as given
  std::vector<Region> merged_;
  std::vector<Region> sram_; ///< sorted, as given
};

constexpr int kMaxLpddrChannels = 64;

/// The memory-side timing of one DMA command, accumulated access by access.
struct MemoryRequest {
  Cycle start = 0;
  double sramReadBytes = 0;
  double sramWriteBytes = 0;
  /// Per LPDDR channel: writes and reads that bypass the SRAM (no cache).
  double lpddrBytes[kMaxLpddrChannels] = {};
  /// Latest fill a hit must wait for, and latest fill this request started.
  double pageReady = 0;
  double fillEnd = 0;
  /// The NoC crossbar the issuing PE reaches memory through, and the bytes
  /// it carries to or from the PE.
  int crossbar = 0;
  double nocBytes = 0;
  /// Router hops between the PE and its crossbar, each way.
  int64_t hops = 0;
  /// The granules the request's previous read and write covered: the DMA
  /// engine merges an access with the one just before it (the rows of a
  /// box, neighbouring gathered elements), so a granule two accesses share
  /// is paid once.
  uint64_t readLo = 0, readHi = 0, writeLo = 0, writeHi = 0;
};

/// When a DMA's data is at the far end, and how long the memory held it.
struct MemoryTiming {
  Cycle serverEnd = 0; ///< when the last server finished with the request
  Cycle done = 0;      ///< serverEnd plus the latency of each level involved
  Cycle latency = 0;   ///< the largest latency of the levels involved
};

class MemorySystem {
public:
  MemorySystem(const Config &cfg, StatGroup &stats);

  /// Resets the servers (and the SRAM unless keep_sram_warm) for a launch
  /// over `regions`. Throws FaultError "invalid launch" when the SRAM
  /// placements do not fit in the SRAM.
  void beginLaunch(std::vector<Region> regions);

  const AddressMap &allocations() const { return allocations_; }
  /// The crossbar of the PE at grid column `col`.
  int crossbarOf(int64_t col) const {
    return int(col * int64_t(crossbars_.size()) / cfg_.pe_cols);
  }
  /// Router hops from the PE at grid column `col` to its crossbar: the first
  /// half of the crossbars sit on the west edge, the rest on the east one.
  int64_t hopsOf(int64_t col) const {
    const bool west = 2 * crossbarOf(col) < int(crossbars_.size());
    return west ? col + 1 : cfg_.pe_cols - col;
  }

  /// The memories' access granule (memory_access_bytes).
  uint64_t accessBytes() const { return granule_; }
  /// `bytes` rounded up to whole granules.
  uint64_t inGranules(uint64_t bytes) const { return (bytes + granule_ - 1) & ~(granule_ - 1); }

  /// Adds a read / write of [addr, addr+len) to `req`: the granules it
  /// touches, less one the request's previous access already paid.
  void read(MemoryRequest &req, uint64_t addr, uint64_t len);
  void write(MemoryRequest &req, uint64_t addr, uint64_t len);
  /// Charges `len` bytes straight to LPDDR, bypassing the SRAM (accesses
  /// whose addresses are unknown, as in timing-only gathers).
  void readUncached(MemoryRequest &req, uint64_t len);
  /// When [lo, hi) lies in one SRAM scratch allocation, charges `bytes` of
  /// reads / writes to the SRAM at once and returns true (what read / write
  /// would charge access by access, without walking the accesses); else
  /// charges nothing and returns false.
  bool readScratch(MemoryRequest &req, uint64_t lo, uint64_t hi, uint64_t bytes);
  bool writeScratch(MemoryRequest &req, uint64_t lo, uint64_t hi, uint64_t bytes);
  void writeUncached(MemoryRequest &req, uint64_t len);
  /// Reserves the servers for what `req` accumulated.
  MemoryTiming finish(MemoryRequest &req);

private:
  /// A FIFO bandwidth server; time in fractional cycles so small transfers
  /// are not rounded up one by one.
  struct Server {
    double bytesPerCycle = 1;
    double freeAt = 0;
    /// Reserves `bytes` from max(t, freeAt); returns the end.
    double reserve(double t, double bytes);
  };
  struct Page {
    std::list<uint64_t>::iterator lru;
    double readyAt;
    /// Written since it was filled: goes back to LPDDR when evicted.
    bool dirty = false;
    /// Allocated by writes, without a fill: only `written` bytes are
    /// valid (write-allocate keeps per-granule valid bits; we count bytes)
    /// and a read fills the rest first.
    bool partial = false;
    uint64_t written = 0;
  };

  /// The resident page `page`, or nullptr; a hit moves it to the LRU front.
  Page *lookup(uint64_t page);
  /// Installs `page`, ready at `readyAt`, evicting the least recently used
  /// (written back from cycle `now` if dirty). Returns the new page.
  Page &install(uint64_t page, double readyAt, double now);
  /// Writes [addr, addr+len) back to LPDDR from cycle `t`, in the
  /// background: it takes the channels' bandwidth, nobody waits for it.
  void writeBack(double t, uint64_t addr, uint64_t len);

  /// The LPDDR channel of `addr`.
  int channelOf(uint64_t addr) const {
    return int((addr / uint64_t(cfg_.lpddr_interleave_bytes)) % uint64_t(channels_));
  }
  /// Widens [addr, addr+len) to whole granules, less what [lo, hi) (the
  /// request's previous access) covered, and makes it the new [lo, hi).
  /// False when nothing is left to pay.
  bool toGranules(uint64_t &addr, uint64_t &len, uint64_t &lo, uint64_t &hi) const;
  /// Adds [addr, addr+len) to the request's LPDDR bytes, chunk by chunk.
  void addLpddr(MemoryRequest &req, uint64_t addr, uint64_t len);
  /// Reserves the channels for a fill of [addr, addr+len); returns the end.
  double fillFromLpddr(double t, uint64_t addr, uint64_t len);

  const Config &cfg_;
  AddressMap allocations_;
  int channels_ = 1;
  uint64_t granule_ = 1;
  std::vector<Server> lpddr_;
  Server sram_;
  std::vector<Server> crossbars_;
  std::vector<uint64_t> crossbarBytes_; ///< per crossbar, for the stats
  uint64_t pageShift_ = 0;
  uint64_t capacityPages_ = 0; ///< pages the cache may hold this launch
  uint64_t totalPages_ = 0;    ///< pages of the whole SRAM
  std::unordered_map<uint64_t, Page> pages_;
  std::list<uint64_t> lru_; ///< most recent first

  uint64_t lpddrBytesRead_ = 0, lpddrBytesWritten_ = 0;
  uint64_t sramBytesRead_ = 0, sramBytesWritten_ = 0;
  uint64_t sramHits_ = 0, sramMisses_ = 0, sramEvictions_ = 0, sramWriteBacks_ = 0;
  uint64_t sramScratchBytes_ = 0;
};

} // namespace mtia::sim

#endif // MTIA_SIM_MEMORY_SYSTEM_H
