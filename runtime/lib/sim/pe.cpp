//===- pe.cpp - Units and the PE's execution side --------------------------===//

#include "mtia/sim/pe.h"

#include "mtia/sim/chip.h"
#include "mtia/sim/dpe.h"
#include "mtia/sim/elements.h"
#include "mtia/sim/fabric.h"
#include "mtia/sim/simd_engine.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace mtia::sim {

namespace {
Cycle ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
} // namespace

//===----------------------------------------------------------------------===//
// Unit
//===----------------------------------------------------------------------===//

void Unit::reset(int64_t depth) {
  // Slots are overwritten by push before they are read: resizing only when
  // the depth changes spares rewriting 64 x 6 x 16 large commands a launch.
  if (ring_.size() != size_t(depth))
    ring_.assign(size_t(depth), Command());
  head_ = count_ = started_ = 0;
  pushed_ = completed_ = 0;
  nextFree_ = lastDone_ = 0;
  wakeAt_ = kNever;
  parked_ = false;
  parkedCb_ = -1;
  busyCycles = commands = parkedCycles = memoryStallCycles = amount = 0;
  localStallCycles = localBytes = byAddress = fences = 0;
}

void Unit::push(const Command &c) {
  ring_[(head_ + count_) % ring_.size()] = c;
  ++count_;
  ++pushed_;
  if (count_ - 1 == started_)
    wake(c.ready);
}

void Unit::wake(Cycle at) {
  if (at >= wakeAt_)
    return; // an earlier attempt is already scheduled and will re-evaluate
  wakeAt_ = at;
  pe_.chip().events().schedule(at, this, kWake);
}

const Command *Unit::waiting() const {
  return started_ < count_ ? &ring_[(head_ + started_) % ring_.size()] : nullptr;
}

void Unit::onEvent(uint32_t tag) {
  Chip &chip = pe_.chip();
  const Cycle now = chip.events().now();
  if (tag == kWake) {
    if (now >= wakeAt_)
      wakeAt_ = kNever;
    tryStart();
    return;
  }
  const Command &c = ring_[head_];
  pe_.retire(c);
  head_ = (head_ + 1) % ring_.size();
  --count_;
  --started_;
  ++completed_;
  chip.noteActivity(now);
  if (kind_ == UnitKind::DmaIn || kind_ == UnitKind::DmaOut)
    pe_.onFabricCompletion(kind_);
  pe_.core().onQueueSlotFreed(kind_);
}

void Unit::tryStart() {
  Chip &chip = pe_.chip();
  const Cycle now = chip.events().now();
  while (started_ < count_) {
    const Command &c = ring_[(head_ + started_) % ring_.size()];
    const Cycle at = std::max(c.ready, nextFree_);
    if (at > now) {
      wake(at);
      return;
    }
    int32_t cb;
    bool forSpace;
    if (!pe_.mayStart(c, *this, cb, forSpace)) {
      if (!parked_)
        parkedSince_ = now;
      parked_ = true;
      parkedCb_ = cb;
      parkedForSpace_ = forSpace;
      return;
    }
    if (parked_) {
      parkedCycles += now - parkedSince_;
      parked_ = false;
    }
    if (isFence(c.kind)) {
      // Passed: it takes no time, and completes in order with the rest.
      ++fences;
      ++started_;
      lastDone_ = std::max(now, lastDone_);
      chip.events().schedule(lastDone_, this, kComplete);
      continue;
    }
    auto [freeAt, done] = pe_.execute(c);
    // Every byte the command reads from or writes to its CBs crosses the
    // local memory, whose bandwidth the PE's units share.
    uint64_t bytes = c.write.cb >= 0 ? uint64_t(c.write.len) : 0;
    for (int32_t i = 0; i < c.numReads; ++i)
      bytes += uint64_t(c.reads[i].len);
    localBytes += bytes;
    const Cycle lsEnd = pe_.localMemory().reserve(now, freeAt, bytes);
    if (lsEnd > freeAt) {
      localStallCycles += lsEnd - freeAt;
      done += lsEnd - freeAt;
      freeAt = lsEnd;
    }
    done = std::max(done, lastDone_);
    lastDone_ = done;
    busyCycles += freeAt - now;
    nextFree_ = freeAt;
    ++commands;
    if (c.kind == CmdKind::GatherIn || c.kind == CmdKind::ScatterOut)
      ++byAddress;
    ++started_;
    const CommandLabel label = c.label();
    amount += uint64_t(label.amount);
    chip.trace().command(pe_.id(), kind_, now, freeAt, label);
    chip.events().schedule(done, this, kComplete);
  }
}

void Unit::registerStats(StatGroup &g) {
  g.add("busy_cycles", busyCycles);
  g.add("commands", commands);
  g.add("parked_cycles", parkedCycles);
  g.add("memory_stall_cycles", memoryStallCycles);
  g.add("local_stall_cycles", localStallCycles);
  g.add("local_bytes", localBytes);
  g.add("amount", amount);
  if (kind_ == UnitKind::DmaIn || kind_ == UnitKind::DmaOut) {
    g.add("by_address", byAddress);
    g.add("fences", fences);
  }
}

//===----------------------------------------------------------------------===//
// PE
//===----------------------------------------------------------------------===//

Pe::Pe(Chip &chip, int32_t id, StatGroup &stats)
    : chip_(chip), id_(id), local_(size_t(chip.config().local_memory_bytes)),
      units_{{*this, UnitKind::DmaIn},
             {*this, UnitKind::DmaOut},
             {*this, UnitKind::Se},
             {*this, UnitKind::Dpe},
             {*this, UnitKind::Mlu},
             {*this, UnitKind::Vec},
             {*this, UnitKind::Re}},
      core_(*this) {
  core_.registerStats(stats.group("riscv"));
  for (Unit &u : units_)
    u.registerStats(stats.group(unitName(u.kind())));
}

void Pe::configure(const KernelInfo &info) {
  numCbs_ = info.numCbs;
  int64_t offset = 0;
  for (int32_t i = 0; i < kMaxCbs; ++i) {
    int64_t cap = i < numCbs_ ? info.cbCapacity[i] : 0;
    cbs_[i].configure(local_.data() + offset, cap);
    offset += cap;
  }
  for (Unit &u : units_)
    u.reset(chip_.config().queue_depth);
  for (auto &in : inbox_)
    in.clear(); // a tile sent and never received ends with its launch
  for (auto &in : broadcastInbox_)
    in.clear();
  localMemory_.reset(chip_.config().local_memory_bytes_per_cycle);
}

int32_t Pe::neighbour(ReDir d) const {
  const int32_t cols = int32_t(chip_.config().pe_cols), rows = int32_t(chip_.config().pe_rows);
  const int32_t r = id_ / cols, c = id_ % cols;
  switch (d) {
  case ReDir::North: return r > 0 ? id_ - cols : -1;
  case ReDir::South: return r + 1 < rows ? id_ + cols : -1;
  case ReDir::West: return c > 0 ? id_ - 1 : -1;
  case ReDir::East: return c + 1 < cols ? id_ + 1 : -1;
  }
  return -1;
}

void Pe::deliver(ReDir from, Cycle arrival, const uint8_t *data, int64_t bytes) {
  Packet p{arrival, bytes, {}};
  if (data)
    p.data.assign(data, data + bytes);
  inbox_[int(from)].push_back(std::move(p));
  // A receive parked on this link (or not yet tried) re-evaluates then.
  units_[int(UnitKind::Re)].wake(arrival);
}

void Pe::deliverBroadcast(int32_t axis, Cycle arrival, const uint8_t *data, int64_t bytes) {
  Packet p{arrival, bytes, {}};
  if (data)
    p.data.assign(data, data + bytes);
  // Broadcasts from several PEs of the line queue up in order of arrival.
  std::deque<Packet> &in = broadcastInbox_[axis];
  auto at = in.end();
  while (at != in.begin() && std::prev(at)->arrival > arrival)
    --at;
  in.insert(at, std::move(p));
  units_[int(UnitKind::DmaIn)].wake(arrival);
}

bool Pe::mayStart(const Command &c, Unit &u, int32_t &blockingCb, bool &forSpace) {
  const uint32_t bit = agentBit(u.kind());
  if (isFence(c.kind)) {
    // Parked on the other fabric unit: onFabricCompletion wakes it.
    const Unit &other = units_[int(otherFabricUnit(u.kind()))];
    blockingCb = -1;
    forSpace = false;
    return other.completed() >= c.fenceAfter;
  }
  if (c.kind == CmdKind::ReRecv || c.kind == CmdKind::NocRecv) {
    // Parked on the network, not on a CB: deliver() wakes the unit.
    const std::deque<Packet> &in =
        c.kind == CmdKind::ReRecv ? inbox_[c.axis] : broadcastInbox_[c.axis];
    const Cycle now = chip_.events().now();
    if (in.empty() || in.front().arrival > now) {
      if (!in.empty())
        u.wake(in.front().arrival);
      blockingCb = -1;
      forSpace = false;
      return false;
    }
  }
  if (c.write.cb >= 0) {
    CircularBuffer &b = cbs_[c.write.cb];
    int64_t len = c.write.len;
    // replaceFront: the front tile the command pops is room for its result
    // once it is the front (earlier pops applied), written, and read by no
    // earlier command (retire wakes the space waiters when a reader ends).
    if (c.replaces > 0 && b.rptr() == c.replacesAt && !b.hasReaderBefore(c.seq)) {
      if (!b.isPublished(c.replacesAt, c.replaces)) {
        b.dataWaiters |= bit;
        blockingCb = c.write.cb;
        forSpace = false;
        return false;
      }
      len -= c.replaces;
    }
    if (!b.hasSpace(c.write.pos, len)) {
      b.spaceWaiters |= bit;
      blockingCb = c.write.cb;
      forSpace = true;
      return false;
    }
  }
  for (int32_t i = 0; i < c.numReads; ++i) {
    const CbRange &r = c.reads[i];
    if (r.cb >= 0 && !cbs_[r.cb].isPublished(r.pos, r.len)) {
      cbs_[r.cb].dataWaiters |= bit;
      blockingCb = r.cb;
      forSpace = false;
      return false;
    }
  }
  return true;
}

uint8_t *Pe::writeTarget(const Command &c) {
  // A command that replaces the front tile may write over bytes it reads:
  // it builds its result aside and commits it once its operands are read.
  if (c.replaces > 0)
    return chip_.scratch(3);
  return cbs_[c.write.cb].writeSpan(c.write.pos, c.write.len, chip_.scratch(3));
}

const uint8_t *Pe::readSpan(const CbRange &r, int slot) {
  return cbs_[r.cb].readSpan(r.pos, r.len, chip_.scratch(slot));
}

SeInput Pe::inputOf(const Command &c, int32_t i) {
  SeInput in;
  const Operand &o = c.operands[i];
  in.operand = &o;
  const CbRange &r = c.reads[i];
  if (o.kind == Operand::Kind::Cb && r.cb >= 0 && !chip_.config().timing_only) {
    in.data = readSpan(r, Chip::operandSlot(i));
    in.first = (r.pos - r.front) / dtypeSize(o.dtype);
  }
  return in;
}

const uint8_t *Pe::denseOperand(const Command &c, int32_t i, DType t, int slot) {
  uint8_t *out = chip_.scratch(slot);
  const int64_t n = c.shape.numElements(), es = dtypeSize(t);
  const Operand &o = c.operands[i];
  if (o.kind == Operand::Kind::Imm) {
    uint8_t bytes[8];
    encodeImmediate(o, t, bytes);
    for (int64_t e = 0; e < n; ++e)
      std::memcpy(out + e * es, bytes, size_t(es));
    return out;
  }
  copyBits(inputOf(c, i), c.shape, out); // issue checked o.dtype == t
  return out;
}

std::pair<Cycle, Cycle> Pe::execute(const Command &c) {
  if (c.kind == CmdKind::NocSend || c.kind == CmdKind::NocRecv)
    return executeNoc(c);
  switch (unitOf(c.kind)) {
  case UnitKind::Se:
  case UnitKind::Vec: return executeSe(c);
  case UnitKind::Dpe: return executeDpe(c);
  case UnitKind::Mlu: return executeMlu(c);
  case UnitKind::Re: return executeRe(c);
  case UnitKind::DmaIn:
  case UnitKind::DmaOut: break;
  }
  return executeFabric(c);
}

std::pair<Cycle, Cycle> Pe::executeSe(const Command &c) {
  const Config &cfg = chip_.config();
  const Cycle now = chip_.events().now();
  const bool functional = !cfg.timing_only;
  // Lanes follow the widest element the command touches.
  int64_t widest = dtypeSize(c.dtype);
  SeInput in[kMaxLoopInputs];
  for (int32_t i = 0; i < c.numOperands; ++i) {
    in[i] = inputOf(c, i);
    if (c.operands[i].kind == Operand::Kind::Cb)
      widest = std::max<int64_t>(widest, dtypeSize(c.operands[i].dtype));
  }
  for (int32_t k = 0; k < c.numSteps; ++k)
    widest = std::max<int64_t>(widest, dtypeSize(c.steps[k].dtype));
  CircularBuffer &dst = cbs_[c.write.cb];
  uint8_t *tile = functional ? writeTarget(c) : nullptr;
  int64_t count = c.shape.numElements();
  if (functional) {
    SeScratch &scratch = chip_.seScratch();
    switch (c.kind) {
    case CmdKind::Se:
    case CmdKind::Vec:
      runElementwise(SeOp(c.op), c.dtype, c.shape, in, c.numOperands, tile, scratch);
      if (c.restricted)
        poisonOutside(c.shape, c.valid, dtypeSize(c.dtype), tile);
      break;
    case CmdKind::VecLoop:
      runVecLoop(c, in, tile);
      if (c.restricted)
        poisonOutside(c.shape, c.valid, dtypeSize(c.dtype), tile);
      break;
    case CmdKind::SeReduce:
      runReduce(ReduceOp(c.op), c.dtype, c.shape, c.axis, in[0], tile, scratch,
                c.restricted ? &c.valid : nullptr, &c.fill);
      if (c.restricted) {
        // The result's rows outside the box along the other dimensions.
        Shape out, outValid;
        for (int d = 0; d < c.shape.rank; ++d)
          if (d != c.axis) {
            out.dim[out.rank++] = c.shape.dim[d];
            outValid.dim[outValid.rank++] = c.valid.dim[d];
          }
        poisonOutside(out, outValid, dtypeSize(c.dtype), tile);
      }
      break;
    case CmdKind::SeScan:
      runScan(ReduceOp(c.op), c.dtype, c.shape, c.axis, c.reverse, in[0], tile, scratch);
      break;
    case CmdKind::SeHistogram:
      runHistogram(c.numBins, c.shape, in[0], c.maskCb >= 0 ? readSpan(c.reads[1], 1) : nullptr,
                   tile, scratch);
      break;
    case CmdKind::SeGather: {
      int64_t bad = 0;
      if (!runGather(c.dtype, c.shape, c.axis, in[0], c.srcShape, in[1], tile, scratch, bad))
        fail(fault_kind::kInvalidCommand, c, UnitKind::Se,
             "seGather index " + std::to_string(bad) + " is outside [0, " +
                 std::to_string(c.srcShape.dim[c.axis]) + ") along axis " +
                 std::to_string(c.axis));
      break;
    }
    default: // SeIota
      runIota(c.dtype, c.write.len / dtypeSize(c.dtype), c.iotaStart, tile);
      break;
    }
    dst.commitSpan(c.write.pos, c.write.len, tile);
  }
  if (c.kind == CmdKind::SeIota)
    count = c.write.len / dtypeSize(c.dtype);
  if (c.restricted)
    count = c.valid.numElements(); // an effective shape: the box only
  // SE: 32 lanes of 32-bit elements, twice as many 16-bit ones, half as
  // many 64-bit ones. Vector core: VLEN bytes per strip, each strip as
  // long as the busier of its two pipes (vecStripCycles).
  const bool isVec = unitOf(c.kind) == UnitKind::Vec;
  const uint64_t laneBytes = isVec ? uint64_t(cfg.vec_bytes_per_cycle) : uint64_t(cfg.se_lanes) * 4;
  const uint64_t lanes = std::max<uint64_t>(1, laneBytes / uint64_t(widest));
  Cycle passes = 1;
  if (c.kind == CmdKind::VecLoop) {
    passes = Cycle(vecStripCycles(c.shape, c.operands, c.numOperands, c.steps, c.numSteps));
  } else if (c.kind == CmdKind::Vec) {
    VecStep step;
    step.op = SeOp(c.op);
    passes = Cycle(vecStripCycles(c.shape, c.operands, c.numOperands, &step, 1));
  }
  const Cycle occupancy = passes * std::max<Cycle>(1, ceilDiv(uint64_t(count), lanes));
  const Cycle fill = Cycle(isVec ? cfg.vec_fill_cycles : cfg.se_fill_cycles);
  return {now + occupancy, now + fill + occupancy};
}

void Pe::runVecLoop(const Command &c, const SeInput *in, uint8_t *tile) {
  // Step k's result is a dense tile of its dtype in register file k; its
  // readers see it as a CB view with dense strides from element 0.
  Operand registers[kMaxLoopSteps];
  SeInput registerInputs[kMaxLoopSteps];
  Operand dense;
  dense.kind = Operand::Kind::Cb;
  int64_t stride = 1;
  for (int d = c.shape.rank - 1; d >= 0; stride *= c.shape.dim[d], --d)
    dense.stride[d] = stride;
  const int64_t n = c.shape.numElements();
  for (int32_t k = 0; k < c.numSteps; ++k) {
    const VecStep &step = c.steps[k];
    SeInput args[3];
    for (int32_t a = 0; a < step.numArgs; ++a)
      args[a] = step.arg[a] >= 0 ? in[step.arg[a]] : registerInputs[-1 - step.arg[a]];
    const bool last = k + 1 == c.numSteps;
    uint8_t *out = last ? tile : chip_.loopRegister(k, size_t(n * dtypeSize(step.dtype)));
    runElementwise(step.op, step.dtype, c.shape, args, step.numArgs, out, chip_.seScratch());
    registers[k] = dense;
    registers[k].dtype = step.dtype;
    registerInputs[k] = SeInput{&registers[k], out, 0};
  }
}

std::pair<Cycle, Cycle> Pe::executeDpe(const Command &c) {
  const Config &cfg = chip_.config();
  const Cycle now = chip_.events().now();
  const int64_t m = c.gemm[0], n = c.gemm[1], k = c.gemm[2];
  if (!cfg.timing_only) {
    CircularBuffer &dst = cbs_[c.write.cb];
    uint8_t *tile = writeTarget(c);
    runDpe(c.dtype, m, n, k, inputOf(c, 0), inputOf(c, 1), inputOf(c, 2), tile,
           chip_.seScratch());
    dst.commitSpan(c.write.pos, c.write.len, tile);
  }
  int64_t rate = cfg.dpe_fp16_macs_per_cycle;
  switch (dpeRate(c.operands[0].dtype)) {
  case DpeRate::Int8: rate = cfg.dpe_int8_macs_per_cycle; break;
  case DpeRate::Fp32: rate = cfg.dpe_fp32_macs_per_cycle; break;
  case DpeRate::Fp16: break;
  }
  const Cycle occupancy = std::max<Cycle>(1, ceilDiv(uint64_t(m * n * k), uint64_t(rate)));
  return {now + occupancy, now + Cycle(cfg.dpe_fill_cycles) + occupancy};
}

std::pair<Cycle, Cycle> Pe::executeMlu(const Command &c) {
  const Config &cfg = chip_.config();
  const Cycle now = chip_.events().now();
  if (!cfg.timing_only) {
    CircularBuffer &dst = cbs_[c.write.cb];
    uint8_t *tile = writeTarget(c);
    copyBits(inputOf(c, 0), c.shape, tile);
    dst.commitSpan(c.write.pos, c.write.len, tile);
  }
  const Cycle occupancy =
      std::max<Cycle>(1, ceilDiv(uint64_t(c.write.len), uint64_t(cfg.mlu_bytes_per_cycle)));
  return {now + occupancy, now + Cycle(cfg.mlu_fill_cycles) + occupancy};
}

std::pair<Cycle, Cycle> Pe::executeFabric(const Command &c) {
  const Config &cfg = chip_.config();
  const Cycle now = chip_.events().now();
  const bool functional = !cfg.timing_only;
  if (functional && cfg.check_memory_order)
    checkMemoryOrder(c);
  const UnitKind unit = unitOf(c.kind);
  MemorySystem &mem = chip_.memory();
  MemoryRequest req;
  req.start = now;
  req.crossbar = mem.crossbarOf(id_ % cfg.pe_cols);
  req.hops = mem.hopsOf(id_ % cfg.pe_cols);
  DmaOutcome out;
  switch (c.kind) {
  case CmdKind::DmaIn:
  case CmdKind::GatherIn: {
    CircularBuffer &dst = cbs_[c.write.cb];
    uint8_t pad[8];
    encodeImmediate(c.pad, c.dtype, pad);
    uint8_t *tile = functional ? writeTarget(c) : nullptr;
    if (c.kind == CmdKind::DmaIn) {
      out = dmaBoxIn(mem, req, c.addr, c.box, c.dtype, pad, tile, functional);
    } else {
      const int64_t n = c.shape.numElements();
      const uint8_t *addrs = functional ? readSpan(c.reads[0], 0) : nullptr;
      const uint8_t *mask = functional && c.maskCb >= 0 ? readSpan(c.reads[1], 1) : nullptr;
      out = dmaGather(mem, req, n, c.dtype, addrs, mask, pad, tile, functional);
    }
    if (functional && !out.outOfBounds)
      dst.commitSpan(c.write.pos, c.write.len, tile);
    break;
  }
  case CmdKind::DmaOut:
    out = dmaBoxOut(mem, req, c.addr, c.box, c.dtype,
                    functional ? readSpan(c.reads[0], 0) : nullptr, functional);
    break;
  case CmdKind::ScatterOut: {
    const int64_t n = c.shape.numElements();
    const uint8_t *tile = functional ? readSpan(c.reads[0], 0) : nullptr;
    const uint8_t *addrs = functional ? readSpan(c.reads[1], 1) : nullptr;
    const uint8_t *mask = functional && c.maskCb >= 0 ? readSpan(c.reads[2], 2) : nullptr;
    out = dmaScatter(mem, req, n, c.dtype, addrs, mask, tile, functional);
    break;
  }
  default: { // AtomicRmw, AtomicCas
    const bool cas = c.kind == CmdKind::AtomicCas;
    const int64_t n = c.shape.numElements();
    const uint8_t *addrs = nullptr, *mask = nullptr, *cmp = nullptr, *value = nullptr;
    uint8_t *old = nullptr;
    CircularBuffer *dst = c.write.cb >= 0 ? &cbs_[c.write.cb] : nullptr;
    if (functional) {
      addrs = readSpan(c.reads[0], 0);
      if (cas) {
        cmp = denseOperand(c, 1, c.dtype, 4);
        value = denseOperand(c, 2, c.dtype, 5);
      } else {
        value = denseOperand(c, 1, c.dtype, 4);
        mask = c.maskCb >= 0 ? readSpan(c.reads[2], 2) : nullptr;
      }
      if (dst)
        old = writeTarget(c);
    }
    out = dmaAtomic(mem, req, cas, RmwOp(c.op), n, c.dtype, addrs, mask, cmp, value, old,
                    functional);
    if (old && !out.outOfBounds)
      dst->commitSpan(c.write.pos, c.write.len, old);
    break;
  }
  }
  if (out.outOfBounds) {
    char msg[160];
    std::snprintf(msg, sizeof msg,
                  "%" PRIu64 " bytes at address 0x%" PRIx64
                  " lie outside every allocation registered for the launch",
                  out.badBytes, out.badAddress);
    fail(fault_kind::kOutOfBoundsDma, c, unit, msg);
  }
  const bool stores = c.kind == CmdKind::DmaOut || c.kind == CmdKind::ScatterOut;
  if ((stores && out.bytes > 0) || out.changedMemory)
    chip_.noteProgress(now);
  // Data leaves the PE at fi_bytes_per_cycle; the memory servers may be
  // slower (contention) and add their latency.
  const MemoryTiming m = mem.finish(req);
  const Cycle fi = std::max<Cycle>(1, ceilDiv(out.bytes, uint64_t(cfg.fi_bytes_per_cycle)));
  if (m.serverEnd > now + fi)
    units_[int(unit)].memoryStallCycles += m.serverEnd - (now + fi);
  return {std::max(now + fi, m.serverEnd), std::max(now + fi + m.latency, m.done)};
}

Pe::Packet Pe::takePacket(std::deque<Packet> &inbox, const Command &c, UnitKind unit,
                          const std::string &from) {
  Packet p = std::move(inbox.front());
  inbox.pop_front();
  const int64_t bytes = c.shape.numElements() * dtypeSize(c.dtype);
  if (p.bytes != bytes)
    fail(fault_kind::kInvalidCommand, c, unit,
         std::string(c.kind == CmdKind::ReRecv ? "reRecv" : "nocRecv") + " of " +
             std::to_string(bytes) + " bytes " + from + " " + std::to_string(p.bytes));
  return p;
}

std::pair<Cycle, Cycle> Pe::executeRe(const Command &c) {
  const Config &cfg = chip_.config();
  const Cycle now = chip_.events().now();
  const bool functional = !cfg.timing_only;
  const int64_t count = c.shape.numElements();
  const int64_t bytes = count * dtypeSize(c.dtype);
  const Cycle occupancy =
      std::max<Cycle>(1, ceilDiv(uint64_t(bytes), uint64_t(cfg.re_bytes_per_cycle)));
  const ReDir dir = ReDir(c.axis);
  if (c.kind == CmdKind::ReSend) {
    // The link carries the tile at re_bytes_per_cycle; the last byte lands
    // re_hop_cycles after it left.
    const uint8_t *tile = functional ? denseOperand(c, 0, c.dtype, 4) : nullptr;
    static constexpr ReDir kOpposite[] = {ReDir::South, ReDir::North, ReDir::East, ReDir::West};
    chip_.pe(neighbour(dir)).deliver(kOpposite[int(dir)], now + occupancy + Cycle(cfg.re_hop_cycles),
                                     tile, bytes);
    return {now + occupancy, now + occupancy};
  }
  Packet p = takePacket(inbox_[c.axis], c, UnitKind::Re,
                        std::string("from the ") + reDirName(dir) + " neighbour, which sent");
  if (functional) {
    CircularBuffer &dst = cbs_[c.write.cb];
    uint8_t *out = writeTarget(c);
    const uint8_t *local = denseOperand(c, 0, c.dtype, 4);
    const ReduceOp op = ReduceOp(c.op);
    dispatchDType(c.dtype, [&](auto d) {
      constexpr DType D = decltype(d)::value;
      using V = ValueOf<D>;
      const int64_t es = dtypeSize(D);
      for (int64_t i = 0; i < count; ++i) {
        const V a = loadElement<D>(local + i * es), b = loadElement<D>(p.data.data() + i * es);
        V r;
        if (op == ReduceOp::Sum)
          r = V(a + b);
        else if (op == ReduceOp::Max)
          r = a < b ? b : a;
        else
          r = b < a ? b : a;
        storeElement<D>(out + i * es, roundTo<D>(r));
      }
    });
    dst.commitSpan(c.write.pos, c.write.len, out);
  }
  return {now + occupancy, now + occupancy + Cycle(cfg.se_fill_cycles)};
}

std::pair<Cycle, Cycle> Pe::executeNoc(const Command &c) {
  const Config &cfg = chip_.config();
  const Cycle now = chip_.events().now();
  const bool functional = !cfg.timing_only;
  const int64_t bytes = c.shape.numElements() * dtypeSize(c.dtype);
  // The fabric interface moves the tile between local memory and the NoC.
  const Cycle occupancy =
      std::max<Cycle>(1, ceilDiv(uint64_t(bytes), uint64_t(cfg.fi_bytes_per_cycle)));
  const int32_t cols = int32_t(cfg.pe_cols), rows = int32_t(cfg.pe_rows);
  const int32_t row = id_ / cols, col = id_ % cols;
  if (c.kind == CmdKind::NocSend) {
    const uint8_t *tile = functional ? denseOperand(c, 0, c.dtype, 4) : nullptr;
    const int32_t length = c.axis == 1 ? cols : rows, self = c.axis == 1 ? col : row;
    for (int32_t k = 0; k < length; ++k) {
      if (k == self)
        continue;
      const int32_t to = c.axis == 1 ? row * cols + k : k * cols + col;
      const Cycle hops = Cycle(k > self ? k - self : self - k);
      chip_.pe(to).deliverBroadcast(c.axis, now + occupancy + hops * Cycle(cfg.noc_hop_cycles),
                                    tile, bytes);
    }
    return {now + occupancy, now + occupancy};
  }
  Packet p = takePacket(broadcastInbox_[c.axis], c, UnitKind::DmaIn,
                        std::string("along the PE ") + (c.axis == 1 ? "row" : "column") +
                            ", which was broadcast");
  if (functional) {
    CircularBuffer &dst = cbs_[c.write.cb];
    uint8_t *out = writeTarget(c);
    std::memcpy(out, p.data.data(), size_t(bytes));
    dst.commitSpan(c.write.pos, c.write.len, out);
  }
  return {now + occupancy, now + occupancy};
}

void Pe::retire(const Command &c) {
  const Cycle now = chip_.events().now();
  if (c.write.cb >= 0 && cbs_[c.write.cb].completeWrite(c.write.pos, c.write.len)) {
    wakeData(c.write.cb);
    // A pop may have waited for these bytes to be written.
    if (cbs_[c.write.cb].applyPops(now))
      wakeSpace(c.write.cb);
  }
  c.forEachReadCb([&](const CbRange &r) {
    CircularBuffer &b = cbs_[r.cb];
    b.completeReader(c.seq);
    // A replacing command may wait for this reader without rptr moving.
    if (b.applyPops(now) || b.spaceWaiters)
      wakeSpace(r.cb);
  });
}

void Pe::onFabricCompletion(UnitKind u) {
  Unit &other = units_[int(otherFabricUnit(u))];
  const Command *w = other.waiting();
  if (w && isFence(w->kind))
    other.wake(chip_.events().now());
}

void Pe::schedulePops(int32_t cb, Cycle at) { chip_.events().schedule(at, this, uint32_t(cb)); }

void Pe::onEvent(uint32_t tag) {
  if (cbs_[tag].applyPops(chip_.events().now()))
    wakeSpace(int32_t(tag));
}

void Pe::wakeData(int32_t cb) {
  const Cycle now = chip_.events().now();
  const uint32_t mask = cbs_[cb].dataWaiters;
  cbs_[cb].dataWaiters = 0;
  for (Unit &u : units_)
    if (mask & agentBit(u.kind()))
      u.wake(now);
  if (mask & kCoreAgent)
    core_.onDataPublished(cb);
}

void Pe::wakeSpace(int32_t cb) {
  const Cycle now = chip_.events().now();
  const uint32_t mask = cbs_[cb].spaceWaiters;
  cbs_[cb].spaceWaiters = 0;
  for (Unit &u : units_)
    if (mask & agentBit(u.kind()))
      u.wake(now);
}

bool Pe::unitsIdle() const {
  for (const Unit &u : units_)
    if (!u.idle())
      return false;
  return true;
}

bool Pe::quiescent() const {
  if (!core_.finished())
    return false;
  for (const Unit &u : units_)
    if (!u.idle())
      return false;
  for (int32_t i = 0; i < numCbs_; ++i)
    if (cbs_[i].hasPendingPops())
      return false;
  return true;
}

void Pe::describeStalls(std::vector<std::string> &lines, Fault &first) const {
  const std::string pe = "PE " + std::to_string(id_);
  auto pointers = [&](int32_t cb) {
    const CircularBuffer &b = cbs_[cb];
    return "wptr " + std::to_string(b.wptr()) + ", rptr " + std::to_string(b.rptr()) +
           ", capacity " + std::to_string(b.capacity());
  };
  for (const Unit &u : units_) {
    const Command *c = u.waiting();
    if (!c)
      continue;
    const int32_t cb = u.parkedCb();
    std::string line = pe + " " + unitName(u.kind()) + ": " + c->describe();
    if (cb < 0 && isFence(c->kind)) {
      const UnitKind other = otherFabricUnit(u.kind());
      line += std::string(" waits for ") + unitName(other) + " to complete its first " +
              std::to_string(c->fenceAfter) + " commands (" +
              std::to_string(units_[int(other)].completed()) + " done)";
    } else if (cb < 0 && c->kind == CmdKind::NocRecv) {
      line += std::string(" waits for a tile broadcast along its PE ") +
              (c->axis == 1 ? "row" : "column");
    } else if (cb < 0 && c->kind == CmdKind::ReRecv) {
      line += std::string(" waits for a tile from the ") + reDirName(ReDir(c->axis)) +
              " neighbour (PE " + std::to_string(neighbour(ReDir(c->axis))) + ")";
    } else if (cb < 0) {
      line += " never started";
    } else if (u.parkedForSpace()) {
      line += " parked on cb" + std::to_string(cb) + " for space up to byte " +
              std::to_string(c->write.pos + c->write.len) + " (" + pointers(cb) + ")";
    } else {
      int64_t end = 0;
      for (int32_t i = 0; i < c->numReads; ++i)
        if (c->reads[i].cb == cb)
          end = std::max(end, c->reads[i].pos + c->reads[i].len);
      line += " parked on cb" + std::to_string(cb) + " for data up to byte " +
              std::to_string(end) + " (" + pointers(cb) + ")";
    }
    lines.push_back(line);
    if (first.pe < 0)
      first = Fault{fault_kind::kDeadlock, id_, unitName(u.kind()), cb, c->describe(), ""};
  }
  if (!core_.finished()) {
    lines.push_back(pe + " riscv: " + core_.waitReason());
    if (first.pe < 0)
      first = Fault{fault_kind::kDeadlock, id_, "riscv", core_.waitCb(), "", ""};
  }
  for (int32_t i = 0; i < numCbs_; ++i)
    if (cbs_[i].hasPendingPops()) {
      const CircularBuffer &b = cbs_[i];
      const std::string waitsFor =
          b.rptr() + b.frontPopBytes() > b.wptr()
              ? "waits for its bytes to be written"
              : "waits for reader #" + std::to_string(b.oldestReader());
      lines.push_back(pe + " cb" + std::to_string(i) + ": pop of " +
                      std::to_string(b.frontPopBytes()) + " bytes " + waitsFor + " (" +
                      pointers(i) + ")");
    }
}

bool Pe::footprint(const Command &c, std::vector<ByteSpan> &out) {
  out.clear();
  if (c.kind == CmdKind::DmaIn || c.kind == CmdKind::DmaOut) {
    boxSpans(c.addr, c.box, c.dtype, out);
  } else {
    // Gathers, scatters and atomics: the address (and mask) tiles, where
    // core.cpp put them.
    const bool scatter = c.kind == CmdKind::ScatterOut;
    const CbRange &addrs = c.reads[scatter ? 1 : 0];
    const CbRange *mask = nullptr;
    if (c.maskCb >= 0)
      mask = &c.reads[scatter || c.kind == CmdKind::AtomicRmw ? 2 : 1];
    if (addrs.cb < 0)
      return true; // no elements
    if (!cbs_[addrs.cb].isPublished(addrs.pos, addrs.len) ||
        (mask && mask->cb >= 0 && !cbs_[mask->cb].isPublished(mask->pos, mask->len)))
      return false;
    // Scratch slots 4 and 5: free until the command itself executes.
    elementSpans(c.shape.numElements(), c.dtype, readSpan(addrs, 4),
                 mask && mask->cb >= 0 ? readSpan(*mask, 5) : nullptr, out);
  }
  mergeSpans(out);
  return true;
}

void Pe::checkMemoryOrder(const Command &c) {
  // Commands of one unit start in order, and a dma_out write lands before
  // the next one's, so only the other unit's commands can be out of order
  // with `c`; of those, the ones the same program issued before `c` and
  // that have not completed.
  const UnitKind otherKind = otherFabricUnit(unitOf(c.kind));
  std::vector<const Command *> &earlier = orderScratch_;
  earlier.clear();
  units_[int(otherKind)].forEachOutstanding([&](const Command &o) {
    if (o.seq < c.seq && o.program == c.program && accessesMemory(o.kind))
      earlier.push_back(&o);
  });
  if (earlier.empty())
    return;
  std::vector<ByteSpan> mine, theirs;
  if (!footprint(c, mine))
    return;
  for (const Command *other : earlier) {
    const Command &o = *other;
    ByteSpan at;
    if (!footprint(o, theirs) || !spansIntersect(mine, theirs, at))
      continue;
    const bool load = unitOf(c.kind) == UnitKind::DmaIn;
    char range[64];
    std::snprintf(range, sizeof range, "[0x%" PRIx64 ", 0x%" PRIx64 ")", at.lo, at.hi);
    Fault f{fault_kind::kMemoryOrder, id_, unitName(unitOf(c.kind)), c.mainCb(), c.describe(),
            std::string(load ? "reads" : "writes") + " bytes " + range + " that " +
                o.describe() + ", issued before it by the same program, " +
                (load ? "has not finished writing" : "has not finished reading") +
                ": nothing ordered the two (" +
                (load ? "a load after a store needs a loads-after-stores fence"
                      : "a store after a load needs a stores-after-loads fence") +
                "; the compiler's memory ordering is off or missed this pair)"};
    f.line = c.line;
    throw FaultError(f);
  }
}

void Pe::fail(const char *kind, const Command &c, UnitKind u, const std::string &message) const {
  throw FaultError(Fault{kind, id_, unitName(u), c.mainCb(), c.describe(), message});
}

} // namespace mtia::sim
