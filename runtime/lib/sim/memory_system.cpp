//===- memory_system.cpp - Allocations, SRAM and LPDDR timing -------------===//

#include "mtia/sim/memory_system.h"

#include <algorithm>
#include <cmath>

#include "mtia/sim/fault.h"

namespace mtia::sim {

bool AddressMap::inSram(uint64_t addr) const {
  auto it = std::upper_bound(sram_.begin(), sram_.end(), addr,
                             [](uint64_t a, const Region &r) { return a < r.addr; });
  if (it == sram_.begin())
    return false;
  --it;
  return addr < it->addr + it->bytes;
}

bool AddressMap::inSram(uint64_t lo, uint64_t hi) const {
  auto it = std::upper_bound(sram_.begin(), sram_.end(), lo,
                             [](uint64_t a, const Region &r) { return a < r.addr; });
  if (it == sram_.begin())
    return false;
  --it;
  return hi >= lo && hi <= it->addr + it->bytes;
}

uint64_t AddressMap::sramBytes(uint64_t regionBytes) const {
  uint64_t total = 0;
  for (const Region &r : sram_)
    total += (r.bytes + regionBytes - 1) / regionBytes * regionBytes;
  return total;
}

void AddressMap::assign(std::vector<Region> regions) {
  std::sort(regions.begin(), regions.end(),
            [](const Region &a, const Region &b) { return a.addr < b.addr; });
  merged_.clear();
  sram_.clear();
  given_ = regions;
  for (const Region &r : regions)
    if (r.sram && r.bytes)
      sram_.push_back(r);
  for (const Region &r : regions) {
    if (r.bytes == 0)
      continue;
    if (!merged_.empty() && r.addr <= merged_.back().addr + merged_.back().bytes) {
      Region &m = merged_.back();
      m.bytes = std::max(m.addr + m.bytes, r.addr + r.bytes) - m.addr;
    } else {
      merged_.push_back(r);
    }
  }
}

bool AddressMap::mayAlias(uint64_t a, uint64_t b) const {
  bool aFound = false, bFound = false;
  for (const Region &r : given_) {
    const bool hasA = a >= r.addr && a - r.addr < r.bytes;
    const bool hasB = b >= r.addr && b - r.addr < r.bytes;
    if (hasA && hasB)
      return true;
    aFound |= hasA;
    bFound |= hasB;
  }
  return !aFound || !bFound;
}

bool AddressMap::contains(uint64_t lo, uint64_t hi) const {
  auto it = std::upper_bound(merged_.begin(), merged_.end(), lo,
                             [](uint64_t a, const Region &r) { return a < r.addr; });
  if (it == merged_.begin())
    return false;
  --it;
  return hi >= lo && hi <= it->addr + it->bytes;
}

double MemorySystem::Server::reserve(double t, double bytes) {
  freeAt = std::max(t, freeAt) + bytes / bytesPerCycle;
  return freeAt;
}

MemorySystem::MemorySystem(const Config &cfg, StatGroup &stats) : cfg_(cfg) {
  channels_ = int(cfg.lpddr_channels);
  granule_ = uint64_t(cfg.memory_access_bytes);
  lpddr_.resize(size_t(channels_));
  for (Server &ch : lpddr_)
    ch.bytesPerCycle = cfg.lpddrBytesPerCycle() / double(channels_);
  sram_.bytesPerCycle = cfg.sramBytesPerCycle();
  // A grid narrower than the crossbar count has one band per column.
  crossbars_.resize(size_t(std::min(cfg.noc_crossbars, cfg.pe_cols)));
  crossbarBytes_.assign(crossbars_.size(), 0);
  for (Server &x : crossbars_)
    x.bytesPerCycle = cfg.noc_crossbar_gbps / cfg.clock_ghz;
  while ((uint64_t(1) << pageShift_) < uint64_t(cfg.sram_page_bytes))
    ++pageShift_;
  totalPages_ = capacityPages_ = uint64_t(cfg.sram_bytes) >> pageShift_;
  StatGroup &lpddr = stats.group("lpddr");
  lpddr.add("bytes_read", lpddrBytesRead_);
  lpddr.add("bytes_written", lpddrBytesWritten_);
  StatGroup &sram = stats.group("sram");
  sram.add("bytes_read", sramBytesRead_);
  sram.add("bytes_written", sramBytesWritten_);
  sram.add("hits", sramHits_);
  sram.add("misses", sramMisses_);
  sram.add("evictions", sramEvictions_);
  sram.add("write_backs", sramWriteBacks_);
  sram.add("scratch_bytes", sramScratchBytes_);
  StatGroup &noc = stats.group("noc");
  for (size_t i = 0; i < crossbarBytes_.size(); ++i)
    noc.group("crossbar" + std::to_string(i)).add("bytes", crossbarBytes_[i]);
}

void MemorySystem::beginLaunch(std::vector<Region> regions) {
  allocations_.assign(std::move(regions));
  sramScratchBytes_ = allocations_.sramBytes(uint64_t(cfg_.sram_region_bytes));
  if (sramScratchBytes_ > uint64_t(cfg_.sram_bytes))
    throw FaultError(Fault(fault_kind::kInvalidLaunch, -1, "", -1, "",
                           "the allocations placed in SRAM need " +
                               std::to_string(sramScratchBytes_) + " bytes in regions of " +
                               std::to_string(cfg_.sram_region_bytes) + "; the SRAM has " +
                               std::to_string(cfg_.sram_bytes)));
  capacityPages_ = totalPages_ - (sramScratchBytes_ >> pageShift_);
  for (Server &ch : lpddr_)
    ch.freeAt = 0;
  sram_.freeAt = 0;
  for (Server &x : crossbars_)
    x.freeAt = 0;
  std::fill(crossbarBytes_.begin(), crossbarBytes_.end(), 0);
  while (pages_.size() > capacityPages_) { // scratch took cache space
    pages_.erase(lru_.back());
    lru_.pop_back();
  }
  if (cfg_.keep_sram_warm) {
    for (auto &entry : pages_)
      entry.second.readyAt = 0;
  } else {
    pages_.clear();
    lru_.clear();
  }
  lpddrBytesRead_ = lpddrBytesWritten_ = 0;
  sramBytesRead_ = sramBytesWritten_ = 0;
  sramHits_ = sramMisses_ = sramEvictions_ = sramWriteBacks_ = 0;
}

MemorySystem::Page *MemorySystem::lookup(uint64_t page) {
  auto it = pages_.find(page);
  if (it == pages_.end())
    return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  return &it->second;
}

MemorySystem::Page &MemorySystem::install(uint64_t page, double readyAt, double now) {
  if (pages_.size() >= capacityPages_) {
    const uint64_t victim = lru_.back();
    auto it = pages_.find(victim);
    if (it->second.dirty) {
      const uint64_t bytes =
          it->second.partial ? it->second.written : uint64_t(1) << pageShift_;
      writeBack(now, victim << pageShift_, bytes);
      ++sramWriteBacks_;
    }
    pages_.erase(it);
    lru_.pop_back();
    ++sramEvictions_;
  }
  lru_.push_front(page);
  return pages_.emplace(page, Page{lru_.begin(), readyAt}).first->second;
}

void MemorySystem::writeBack(double t, uint64_t addr, uint64_t len) {
  const uint64_t chunk = uint64_t(cfg_.lpddr_interleave_bytes);
  for (uint64_t a = addr, stop = addr + len; a < stop;) {
    const uint64_t piece = std::min(stop, (a / chunk + 1) * chunk) - a;
    lpddr_[size_t(channelOf(a))].reserve(t, double(piece));
    a += piece;
  }
  lpddrBytesWritten_ += len;
}

void MemorySystem::addLpddr(MemoryRequest &req, uint64_t addr, uint64_t len) {
  const uint64_t chunk = uint64_t(cfg_.lpddr_interleave_bytes);
  for (uint64_t a = addr, end = addr + len; a < end;) {
    const uint64_t piece = std::min(end, (a / chunk + 1) * chunk) - a;
    req.lpddrBytes[channelOf(a)] += double(piece);
    a += piece;
  }
}

double MemorySystem::fillFromLpddr(double t, uint64_t addr, uint64_t len) {
  const uint64_t chunk = uint64_t(cfg_.lpddr_interleave_bytes);
  double end = t;
  for (uint64_t a = addr, stop = addr + len; a < stop;) {
    const uint64_t piece = std::min(stop, (a / chunk + 1) * chunk) - a;
    end = std::max(end, lpddr_[size_t(channelOf(a))].reserve(t, double(piece)));
    a += piece;
  }
  return end;
}

bool MemorySystem::toGranules(uint64_t &addr, uint64_t &len, uint64_t &lo, uint64_t &hi) const {
  if (len == 0)
    return false;
  const uint64_t first = addr & ~(granule_ - 1), end = inGranules(addr + len);
  // Merged with the previous access when it starts inside what that covered.
  const uint64_t from = first >= lo && first < hi ? hi : first;
  lo = first;
  hi = std::max(end, from);
  if (from >= end)
    return false;
  addr = from;
  len = end - from;
  return true;
}

void MemorySystem::read(MemoryRequest &req, uint64_t addr, uint64_t len) {
  // Where the bytes live decides the level, before widening (a granule may
  // begin before its allocation).
  const bool scratch = allocations_.inSram(addr);
  if (!toGranules(addr, len, req.readLo, req.readHi))
    return;
  req.nocBytes += double(len);
  if (scratch) {
    req.sramReadBytes += double(len);
    sramBytesRead_ += len;
    return;
  }
  if (capacityPages_ == 0) {
    addLpddr(req, addr, len);
    lpddrBytesRead_ += len;
    return;
  }
  const uint64_t pageBytes = uint64_t(1) << pageShift_;
  for (uint64_t a = addr, end = addr + len; a < end;) {
    uint64_t page = a >> pageShift_;
    uint64_t piece = std::min(end, (page + 1) << pageShift_) - a;
    Page *p = lookup(page);
    if (p && p->partial) {
      // Allocated by writes: the bytes not written come from LPDDR first.
      ++sramMisses_;
      p->readyAt = fillFromLpddr(double(req.start), page << pageShift_, pageBytes);
      p->partial = false;
      lpddrBytesRead_ += pageBytes;
      req.sramWriteBytes += double(pageBytes);
      sramBytesWritten_ += pageBytes;
      req.fillEnd = std::max(req.fillEnd, p->readyAt);
    } else if (p) {
      ++sramHits_;
      req.sramReadBytes += double(piece);
      sramBytesRead_ += piece;
      req.pageReady = std::max(req.pageReady, p->readyAt);
    } else {
      ++sramMisses_;
      double filled = fillFromLpddr(double(req.start), page << pageShift_, pageBytes);
      lpddrBytesRead_ += pageBytes;
      // The fill is written into the SRAM: it takes SRAM bandwidth too.
      req.sramWriteBytes += double(pageBytes);
      sramBytesWritten_ += pageBytes;
      install(page, filled, double(req.start));
      req.fillEnd = std::max(req.fillEnd, filled);
    }
    a += piece;
  }
}

void MemorySystem::write(MemoryRequest &req, uint64_t addr, uint64_t len) {
  const bool scratch = allocations_.inSram(addr);
  if (!toGranules(addr, len, req.writeLo, req.writeHi))
    return;
  req.nocBytes += double(len);
  if (scratch) {
    req.sramWriteBytes += double(len);
    sramBytesWritten_ += len;
    return;
  }
  if (cfg_.sram_write_back && capacityPages_ > 0) {
    // Write-allocate without a fill: the SRAM takes the bytes, LPDDR sees
    // them when the page is evicted.
    const uint64_t pageBytes = uint64_t(1) << pageShift_;
    req.sramWriteBytes += double(len);
    sramBytesWritten_ += len;
    for (uint64_t a = addr, end = addr + len; a < end;) {
      const uint64_t page = a >> pageShift_;
      const uint64_t piece = std::min(end, (page + 1) << pageShift_) - a;
      Page *p = lookup(page);
      if (!p) {
        p = &install(page, double(req.start), double(req.start));
        p->partial = true;
      }
      p->dirty = true;
      if (p->partial) {
        p->written = std::min(pageBytes, p->written + piece);
        p->partial = p->written < pageBytes;
      }
      a += piece;
    }
    return;
  }
  addLpddr(req, addr, len);
  lpddrBytesWritten_ += len;
  if (capacityPages_ == 0)
    return;
  for (uint64_t a = addr, end = addr + len; a < end;) {
    uint64_t page = a >> pageShift_;
    uint64_t piece = std::min(end, (page + 1) << pageShift_) - a;
    if (pages_.count(page)) {
      req.sramWriteBytes += double(piece);
      sramBytesWritten_ += piece;
    }
    a += piece;
  }
}

bool MemorySystem::readScratch(MemoryRequest &req, uint64_t lo, uint64_t hi, uint64_t bytes) {
  if (!allocations_.inSram(lo, hi))
    return false;
  req.nocBytes += double(bytes);
  req.sramReadBytes += double(bytes);
  sramBytesRead_ += bytes;
  return true;
}

bool MemorySystem::writeScratch(MemoryRequest &req, uint64_t lo, uint64_t hi, uint64_t bytes) {
  if (!allocations_.inSram(lo, hi))
    return false;
  req.nocBytes += double(bytes);
  req.sramWriteBytes += double(bytes);
  sramBytesWritten_ += bytes;
  return true;
}

// Accesses without an address spread evenly over the channels.
void MemorySystem::readUncached(MemoryRequest &req, uint64_t len) {
  req.nocBytes += double(len);
  for (int c = 0; c < channels_; ++c)
    req.lpddrBytes[c] += double(len) / channels_;
  lpddrBytesRead_ += len;
}

void MemorySystem::writeUncached(MemoryRequest &req, uint64_t len) {
  req.nocBytes += double(len);
  for (int c = 0; c < channels_; ++c)
    req.lpddrBytes[c] += double(len) / channels_;
  lpddrBytesWritten_ += len;
}

MemoryTiming MemorySystem::finish(MemoryRequest &req) {
  const double start = double(req.start);
  double serverEnd = start, done = start;
  Cycle latency = 0;
  // The request travels to the crossbar and the data (or the write's
  // acknowledgement) back, through the routers of the PEs in between.
  const int64_t noc = 2 * req.hops * cfg_.noc_hop_cycles;
  auto level = [&](double end, double ready, int64_t lat) {
    lat += noc;
    serverEnd = std::max(serverEnd, end);
    done = std::max(done, std::max(end, ready) + double(lat));
    latency = std::max(latency, Cycle(lat));
  };
  if (req.sramReadBytes + req.sramWriteBytes > 0)
    level(sram_.reserve(start, req.sramReadBytes + req.sramWriteBytes),
          req.pageReady, cfg_.sram_latency_cycles);
  if (req.fillEnd > 0)
    level(req.fillEnd, 0, cfg_.lpddr_latency_cycles);
  if (req.nocBytes > 0) { // no latency of its own: part of the levels'
    level(crossbars_[size_t(req.crossbar)].reserve(start, req.nocBytes), 0, 0);
    crossbarBytes_[size_t(req.crossbar)] += uint64_t(req.nocBytes);
  }
  for (int c = 0; c < channels_; ++c)
    if (req.lpddrBytes[c] > 0)
      level(lpddr_[size_t(c)].reserve(start, req.lpddrBytes[c]), 0, cfg_.lpddr_latency_cycles);
  return MemoryTiming{Cycle(std::ceil(serverEnd)), Cycle(std::ceil(done)), latency};
}

} // namespace mtia::sim
