//===- core.cpp - The RISC-V core: kernel fiber and command issue ---------===//
//
// The kernel's native code runs on a fiber per PE. Device calls land here via
// the DeviceOps table, are checked, get their CB ranges from the issue
// cursors, and are queued on a unit. A fault raised while issuing ends the
// fiber (it is never resumed, so no exception crosses kernel frames).
//
//===----------------------------------------------------------------------===//

#include "mtia/sim/chip.h"
#include "mtia/sim/dpe.h"
#include "mtia/sim/elements.h"
#include "mtia/sim/fabric.h"
#include "mtia/sim/pe.h"
#include "mtia/sim/simd_engine.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

namespace mtia::sim {

namespace {

Core &coreOf(Ctx *c) { return *static_cast<Core *>(c->impl); }

/// Runs `fn` on the core of `c`. A fault is copied out of the handler before
/// the fiber stops, so no exception is left in flight on an abandoned stack.
template <class Fn> auto guarded(Ctx *c, Fn &&fn) {
  Core &core = coreOf(c);
  std::optional<Fault> fault;
  try {
    return fn(core);
  } catch (const FaultError &e) {
    fault = e.fault();
  }
  core.abort(*fault);
}

const DeviceOps kDeviceOps = {
    [](Ctx *c, int32_t cb, DType t, uint64_t addr, const Box *box, const Operand *pad) {
      guarded(c, [&](Core &k) { k.dmaIn(cb, t, addr, box, pad); });
    },
    [](Ctx *c, int32_t cb, DType t, uint64_t addr, const Box *box) {
      guarded(c, [&](Core &k) { k.dmaOut(cb, t, addr, box); });
    },
    [](Ctx *c, int32_t cb, DType t, const Shape *s, int32_t addrCb, int32_t maskCb,
       const Operand *pad) {
      guarded(c, [&](Core &k) { k.gatherIn(cb, t, s, addrCb, maskCb, pad); });
    },
    [](Ctx *c, int32_t cb, DType t, const Shape *s, int32_t addrCb, int32_t maskCb) {
      guarded(c, [&](Core &k) { k.scatterOut(cb, t, s, addrCb, maskCb); });
    },
    [](Ctx *c, SeOp op, int32_t dst, DType t, const Shape *s, const Operand *ops,
       int32_t n) { guarded(c, [&](Core &k) { k.se(op, dst, t, s, ops, n); }); },
    [](Ctx *c, ReduceOp op, int32_t dst, DType t, const Shape *in, int32_t axis,
       const Operand *src) {
      guarded(c, [&](Core &k) { k.seReduce(op, dst, t, in, axis, src); });
    },
    [](Ctx *c, int32_t dst, DType t, int64_t length, int64_t start) {
      guarded(c, [&](Core &k) { k.seIota(dst, t, length, start); });
    },
    [](Ctx *c, int32_t cb, int64_t bytes) {
      guarded(c, [&](Core &k) { k.cbPop(cb, bytes); });
    },
    [](Ctx *c, int32_t cb, DType t, int64_t index) {
      return guarded(c, [&](Core &k) { return k.readScalar<int64_t>(cb, t, index); });
    },
    [](Ctx *c, int32_t cb, DType t, int64_t index) {
      return guarded(c, [&](Core &k) { return k.readScalar<double>(cb, t, index); });
    },
    [](Ctx *c, int64_t n) { guarded(c, [&](Core &k) { k.scalarCycles(n); }); },
    // ABI 2.
    [](Ctx *c, int32_t dst, DType acc, int64_t m, int64_t n, int64_t k, const Operand *a,
       const Operand *b, const Operand *accIn) {
      guarded(c, [&](Core &core) { core.dpe(dst, acc, m, n, k, a, b, accIn); });
    },
    [](Ctx *c, int32_t dst, DType t, const Shape *s, const Operand *src) {
      guarded(c, [&](Core &k) { k.mluCopy(dst, t, s, src); });
    },
    [](Ctx *c, ReduceOp op, int32_t dst, DType t, const Shape *s, int32_t axis, bool reverse,
       const Operand *src) {
      guarded(c, [&](Core &k) { k.seScan(op, dst, t, s, axis, reverse, src); });
    },
    [](Ctx *c, int32_t dst, int64_t bins, const Shape *in, const Operand *src, int32_t maskCb) {
      guarded(c, [&](Core &k) { k.seHistogram(dst, bins, in, src, maskCb); });
    },
    [](Ctx *c, int32_t dst, DType t, const Shape *out, int32_t axis, const Operand *src,
       const Shape *srcShape, const Operand *index) {
      guarded(c, [&](Core &k) { k.seGather(dst, t, out, axis, src, srcShape, index); });
    },
    [](Ctx *c, int32_t dst, RmwOp op, DType t, const Shape *s, int32_t addrCb,
       const Operand *value, int32_t maskCb) {
      guarded(c, [&](Core &k) { k.atomicRmw(dst, op, t, s, addrCb, value, maskCb); });
    },
    [](Ctx *c, int32_t dst, DType t, const Shape *s, int32_t addrCb, const Operand *cmp,
       const Operand *value) {
      guarded(c, [&](Core &k) { k.atomicCas(dst, t, s, addrCb, cmp, value); });
    },
    [](Ctx *c, const char *prefix, int32_t cb, DType t, const Shape *s, bool hex,
       bool isSigned) {
      guarded(c, [&](Core &k) { k.printTile(prefix, cb, t, s, hex, isSigned); });
    },
    [](Ctx *c, int32_t cb, const Shape *s, const char *message, const char *file,
       int32_t line) {
      guarded(c, [&](Core &k) { k.assertTile(cb, s, message, file, line); });
    },
    [](Ctx *c) { guarded(c, [&](Core &k) { k.barrier(); }); },
    [](Ctx *c, int32_t core) { guarded(c, [&](Core &k) { k.onCore(core); }); },
    [](Ctx *c, SeOp op, int32_t dst, DType t, const Shape *s, const Operand *ops, int32_t n) {
      guarded(c, [&](Core &k) { k.vec(op, dst, t, s, ops, n); });
    },
    [](Ctx *c, ReDir to, DType t, const Shape *s, const Operand *src) {
      guarded(c, [&](Core &k) { k.reSend(to, t, s, src); });
    },
    [](Ctx *c, ReduceOp op, int32_t dst, DType t, const Shape *s, const Operand *local,
       ReDir from) { guarded(c, [&](Core &k) { k.reRecv(op, dst, t, s, local, from); }); },
    // ABI 5.
    [](Ctx *c, Fence kind) { guarded(c, [&](Core &k) { k.fence(kind); }); },
    [](Ctx *c, uint64_t a, uint64_t b) {
      return guarded(c, [&](Core &k) { return int32_t(k.mayAlias(a, b)); });
    },
    // ABI 6.
    [](Ctx *c, int32_t cb) { guarded(c, [&](Core &k) { k.replaceFront(cb); }); },
    // ABI 7.
    [](Ctx *c, const Shape *valid, const Operand *fill) {
      guarded(c, [&](Core &k) { k.validBox(valid, fill); });
    },
    // ABI 8.
    [](Ctx *c, int32_t dst, const Shape *s, const Operand *inputs, int32_t numInputs,
       const VecStep *steps, int32_t numSteps) {
      guarded(c, [&](Core &k) { k.vecLoop(dst, s, inputs, numInputs, steps, numSteps); });
    },
    // ABI 10.
    [](Ctx *c, int32_t axis, DType t, const Shape *s, const Operand *src) {
      guarded(c, [&](Core &k) { k.nocBroadcast(axis, t, s, src); });
    },
    [](Ctx *c, int32_t axis, int32_t dst, DType t, const Shape *s) {
      guarded(c, [&](Core &k) { k.nocRecv(axis, dst, t, s); });
    },
};

/// The multi-index of element `i` of `s`, as "(i, j)".
std::string indexText(const Shape &s, int64_t i) {
  int64_t idx[kMaxRank] = {};
  for (int d = s.rank - 1; d >= 0; --d) {
    idx[d] = i % s.dim[d];
    i /= s.dim[d];
  }
  std::string out = "(";
  for (int d = 0; d < s.rank; ++d) {
    // Pad to the width of the largest index of the dimension, as Triton's
    // GPU backends do, so the lines of one print line up.
    std::string v = std::to_string(idx[d]);
    const size_t width = std::to_string(std::max<int64_t>(s.dim[d] - 1, 0)).size();
    out += (d ? ", " : "") + std::string(width > v.size() ? width - v.size() : 0, ' ') + v;
  }
  return out + ")";
}

/// One element as printTile shows it (see device.h).
std::string valueText(const uint8_t *p, DType t, bool hex, bool isSigned) {
  char buf[64];
  const int es = dtypeSize(t);
  uint64_t bits = 0;
  std::memcpy(&bits, p, size_t(es));
  if (hex) {
    std::snprintf(buf, sizeof buf, "0x%0*llx", 2 * es, static_cast<unsigned long long>(bits));
  } else if (dtypeIsFloat(t)) {
    double v = 0;
    dispatchDType(t, [&](auto d) { v = double(loadElement<decltype(d)::value>(p)); });
    std::snprintf(buf, sizeof buf, "%f", v);
  } else if (isSigned && t != DType::I1) {
    const int shift = 64 - 8 * es;
    const long long v = static_cast<long long>(bits << shift) >> shift;
    std::snprintf(buf, sizeof buf, "%lld", v);
  } else {
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(bits));
  }
  return buf;
}

int64_t boxElements(const Box &b) {
  int64_t n = 1;
  for (int d = 0; d < b.rank; ++d)
    n *= b.shape[d];
  return n;
}

} // namespace

//===----------------------------------------------------------------------===//
// Fiber
//===----------------------------------------------------------------------===//

Core::~Core() = default;

void Core::begin(const KernelRun &run, const ProgramMap &map, int64_t pe, Cycle start) {
  run_ = run;
  map_ = map;
  mapPe_ = pe;
  count_ = map.count(pe);
  time_ = otherTime_ = start;
  activeCore_ = 0;
  core1BusyCycles = core1Commands = 0;
  nextSeq_ = 0;
  finished_ = !active();
  resumeScheduled_ = false;
  waitUnit_ = waitCb_ = -1;
  issueCycles = scalarCyclesCharged = readCycles = 0;
  blockedQueueCycles = blockedReadCycles = blockedBarrierCycles = 0;
  waitBarrier_ = false;
  commandsIssued = programsRun = busyCycles = 0;
  if (!active())
    return;

  Chip &chip = pe_.chip();
  fiber_.prepare(size_t(chip.config().fiber_stack_bytes), &Core::fiberMain, this);

  ctx_.ops = &kDeviceOps;
  ctx_.impl = this;
  for (int i = 0; i < 3; ++i)
    ctx_.numPrograms[i] = run.grid[i];
  const int32_t cols = int32_t(chip.config().pe_cols);
  ctx_.peId[0] = int32_t(pe / cols);
  ctx_.peId[1] = int32_t(pe % cols);
  ctx_.peGrid[0] = int32_t(chip.config().pe_rows);
  ctx_.peGrid[1] = cols;
  resumeScheduled_ = true;
  chip.events().schedule(start, this, 0);
}

void Core::fiberMain(void *core) { static_cast<Core *>(core)->runPrograms(); }

void Core::runPrograms() {
  Chip &chip = pe_.chip();
  const int64_t gx = run_.grid[0], gy = run_.grid[1];
  for (int64_t i = 0; i < count_; ++i) {
    const int64_t pid = map_.pid(mapPe_, i);
    ctx_.programId[0] = int32_t(pid % gx);
    ctx_.programId[1] = int32_t(pid / gx % gy);
    ctx_.programId[2] = int32_t(pid / (gx * gy));
    ctx_.line = 0;
    replaceCb_ = -1; // a fault may have left one behind
    validPending_ = false;
    if (activeCore_ != 0)
      onCore(0); // every program starts on the scalar core
    Cycle start = time_;
    run_.entry(&ctx_, run_.args);
    if (replaceCb_ >= 0)
      guarded(&ctx_, [&](Core &k) {
        issuing_ = "replaceFront";
        k.fail(fault_kind::kInvalidCommand, replaceCb_,
               "replaceFront(cb" + std::to_string(replaceCb_) +
                   ") at the end of a program: no command followed to write cb" +
                   std::to_string(replaceCb_));
      });
    if (validPending_)
      guarded(&ctx_, [&](Core &k) {
        issuing_ = "validBox";
        k.fail(fault_kind::kInvalidCommand, -1,
               "validBox at the end of a program: no se, vec or seReduce followed");
      });
    ++programsRun;
    chip.noteProgress(time_);
    chip.trace().program(pe_.id(), start, time_, pid);
  }
  if (activeCore_ == 1) // the last program ended on core 1
    chip.trace().core1(pe_.id(), core1Since_, time_);
  finished_ = true;
  chip.noteActivity(finishTime());
  // A finished fiber is never resumed; the next launch makes a fresh one.
  fiber_.yield();
  std::abort();
}

void Core::onEvent(uint32_t) {
  resumeScheduled_ = false;
  const Cycle now = pe_.chip().events().now();
  time_ = std::max(time_, now);
  otherTime_ = std::max(otherTime_, now);
  fiber_.resume();
}

void Core::suspend() { fiber_.yield(); }

void Core::resumeSoon() {
  if (resumeScheduled_)
    return;
  resumeScheduled_ = true;
  EventQueue &q = pe_.chip().events();
  q.schedule(std::max(time_, q.now()), this, 0);
}

void Core::abort(const Fault &f) {
  pe_.chip().recordFault(f);
  fiber_.yield();
  std::abort(); // an aborted fiber is never resumed
}

void Core::onQueueSlotFreed(UnitKind u) {
  if (waitUnit_ == int32_t(u) || (waitBarrier_ && pe_.unitsIdle()))
    resumeSoon();
}

void Core::onDataPublished(int32_t cb) {
  if (waitCb_ != cb)
    return;
  CircularBuffer &b = pe_.cb(cb);
  if (b.wptr() >= waitEnd_)
    resumeSoon();
  else
    b.dataWaiters |= kCoreAgent;
}

std::string Core::waitReason() const {
  if (finished_)
    return "";
  if (waitUnit_ >= 0)
    return std::string("blocked on the full command queue of ") + unitName(UnitKind(waitUnit_));
  if (waitBarrier_)
    return "blocked in a barrier until every unit is idle";
  if (waitCb_ >= 0) {
    CircularBuffer &b = pe_.cb(waitCb_);
    return "blocked reading cb" + std::to_string(waitCb_) + " up to byte " +
           std::to_string(waitEnd_) + " (wptr " + std::to_string(b.wptr()) + ", rptr " +
           std::to_string(b.rptr()) + ")";
  }
  return "running";
}

void Core::registerStats(StatGroup &g) {
  g.add("busy_cycles", busyCycles);
  g.add("issue_cycles", issueCycles);
  g.add("scalar_cycles", scalarCyclesCharged);
  g.add("read_cycles", readCycles);
  g.add("blocked_queue_cycles", blockedQueueCycles);
  g.add("blocked_read_cycles", blockedReadCycles);
  g.add("blocked_barrier_cycles", blockedBarrierCycles);
  g.add("commands", commandsIssued);
  g.add("programs", programsRun);
  g.add("core1_busy_cycles", core1BusyCycles);
  g.add("core1_commands", core1Commands);
}

//===----------------------------------------------------------------------===//
// Issue
//===----------------------------------------------------------------------===//

void Core::fail(const char *kind, int32_t cb, const std::string &message) const {
  throw FaultError(Fault{kind, pe_.id(), "riscv", cb,
                         "#" + std::to_string(nextSeq_) + " " + issuing_, message});
}

void Core::charge(int64_t cycles, uint64_t &counter) {
  time_ += Cycle(cycles);
  counter += uint64_t(cycles);
  busyCycles += uint64_t(cycles);
  if (activeCore_ == 1)
    core1BusyCycles += uint64_t(cycles);
  // A loop of scalar code and commands that never blocks never yields to
  // the event loop: the watchdog looks at this clock too.
  pe_.chip().watch(time_, pe_.id());
}

void Core::checkCb(int32_t cb) const {
  if (cb < 0 || cb >= pe_.numCbs() || pe_.cb(cb).capacity() == 0)
    fail(fault_kind::kCbMisuse, cb,
         std::string(issuing_) + " uses cb" + std::to_string(cb) +
             ", which the kernel did not give a capacity (numCbs = " +
             std::to_string(pe_.numCbs()) + ")");
}

void Core::checkDType(DType t) const {
  if (!isValidDType(t))
    fail(fault_kind::kInvalidCommand, -1,
         std::string(issuing_) + " with invalid dtype " + std::to_string(int(t)));
}

void Core::checkShape(const Shape &s) const {
  bool ok = s.rank >= 0 && s.rank <= kMaxRank;
  for (int d = 0; ok && d < s.rank; ++d)
    ok = s.dim[d] >= 0;
  if (!ok)
    fail(fault_kind::kInvalidCommand, -1,
         std::string(issuing_) + " with an invalid shape (rank " + std::to_string(s.rank) + ")");
}

CbRange Core::produce(int32_t cb, int64_t len) {
  CircularBuffer &b = pe_.cb(cb);
  if (len > b.capacity())
    fail(fault_kind::kCbMisuse, cb,
         std::string(issuing_) + " produces a tile of " + std::to_string(len) +
             " bytes, larger than cb" + std::to_string(cb) + " (" +
             std::to_string(b.capacity()) + " bytes)");
  if (replaceCb_ >= 0 && cb != replaceCb_)
    checkNoReplacePending();
  if (replaceCb_ >= 0 && b.issueWrite - b.issueRead < len)
    fail(fault_kind::kCbMisuse, cb,
         std::string(issuing_) + " replaces the front " + std::to_string(len) + " bytes of cb" +
             std::to_string(cb) + ", which holds only " +
             std::to_string(b.issueWrite - b.issueRead) + " pushed and unpopped bytes");
  CbRange r{cb, b.issueWrite, len, b.issueWrite};
  b.issueWrite += len;
  return r;
}

CbRange Core::consume(int32_t cb, int64_t offsetBytes, int64_t len) {
  CircularBuffer &b = pe_.cb(cb);
  if (offsetBytes < 0 || offsetBytes + len > b.capacity())
    fail(fault_kind::kCbMisuse, cb,
         std::string(issuing_) + " reads bytes [" + std::to_string(offsetBytes) + ", " +
             std::to_string(offsetBytes + len) + ") from the front of cb" +
             std::to_string(cb) + ", outside its " + std::to_string(b.capacity()) + " bytes");
  return CbRange{cb, b.issueRead + offsetBytes, len, b.issueRead};
}

void Core::submit(Command &c) {
  // validBox binds to this command; checked before it takes any resource.
  if (validPending_) {
    validPending_ = false;
    if (c.kind != CmdKind::Se && c.kind != CmdKind::Vec && c.kind != CmdKind::VecLoop &&
        c.kind != CmdKind::SeReduce)
      fail(fault_kind::kInvalidCommand, c.write.cb,
           std::string("validBox must be followed by an se, vec, vecLoop or seReduce, not by ") +
               issuing_);
    if (valid_.rank != c.shape.rank)
      fail(fault_kind::kInvalidCommand, c.write.cb,
           std::string(issuing_) + " of rank " + std::to_string(c.shape.rank) +
               " after a validBox of rank " + std::to_string(valid_.rank));
    c.restricted = true;
    c.valid = c.shape;
    for (int d = 0; d < c.shape.rank; ++d)
      c.valid.dim[d] = std::clamp<int64_t>(valid_.dim[d], 0, c.shape.dim[d]);
    c.fill = validFill_;
  }
  if (replaceCb_ >= 0 && c.write.cb != replaceCb_)
    checkNoReplacePending();
  charge(pe_.chip().config().issue_cycles, issueCycles);
  Unit &u = pe_.unit(unitOf(c.kind));
  if (u.full()) {
    Cycle since = time_;
    waitUnit_ = int32_t(u.kind());
    while (u.full())
      suspend();
    waitUnit_ = -1;
    blockedQueueCycles += time_ - since;
    pe_.chip().trace().stall(pe_.id(), since, time_, int32_t(u.kind()), -1, activeCore_);
  }
  c.seq = nextSeq_++;
  c.ready = time_;
  c.program = uint32_t(programsRun);
  c.line = ctx_.line;
  c.forEachReadCb([&](const CbRange &r) { pe_.cb(r.cb).addReader(c.seq); });
  if (replaceCb_ >= 0) {
    // The pop that follows the command in program order, issued with it.
    CircularBuffer &b = pe_.cb(replaceCb_);
    c.replaces = c.write.len;
    c.replacesAt = b.issueRead;
    b.issueRead += c.replaces;
    b.addPop(nextSeq_++, c.replaces, time_);
    pe_.schedulePops(replaceCb_, time_);
    replaceCb_ = -1;
  }
  u.push(c);
  ++commandsIssued;
  core1Commands += activeCore_ == 1;
}

void Core::dmaIn(int32_t cb, DType t, uint64_t addr, const Box *box, const Operand *pad) {
  issuing_ = "dmaIn";
  checkCb(cb);
  checkDType(t);
  if (const char *why = checkBox(*box))
    fail(fault_kind::kInvalidCommand, cb, why);
  if (pad->kind != Operand::Kind::Imm || !isValidDType(pad->dtype))
    fail(fault_kind::kInvalidCommand, cb, "dmaIn pad must be an immediate");
  Command c;
  c.kind = CmdKind::DmaIn;
  c.dtype = t;
  c.addr = addr;
  c.box = *box;
  c.pad = *pad;
  c.write = produce(cb, boxElements(*box) * dtypeSize(t));
  submit(c);
}

void Core::dmaOut(int32_t cb, DType t, uint64_t addr, const Box *box) {
  issuing_ = "dmaOut";
  checkCb(cb);
  checkDType(t);
  if (const char *why = checkBox(*box))
    fail(fault_kind::kInvalidCommand, cb, why);
  Command c;
  c.kind = CmdKind::DmaOut;
  c.dtype = t;
  c.addr = addr;
  c.box = *box;
  c.reads[0] = consume(cb, 0, boxElements(*box) * dtypeSize(t));
  c.numReads = 1;
  submit(c);
}

void Core::gatherIn(int32_t cb, DType t, const Shape *s, int32_t addrCb, int32_t maskCb,
                    const Operand *pad) {
  issuing_ = "gatherIn";
  checkCb(cb);
  checkCb(addrCb);
  if (maskCb >= 0)
    checkCb(maskCb);
  checkDType(t);
  checkShape(*s);
  if (pad->kind != Operand::Kind::Imm || !isValidDType(pad->dtype))
    fail(fault_kind::kInvalidCommand, cb, "gatherIn pad must be an immediate");
  const int64_t n = s->numElements();
  Command c;
  c.kind = CmdKind::GatherIn;
  c.dtype = t;
  c.shape = *s;
  c.pad = *pad;
  c.addrCb = addrCb;
  c.maskCb = maskCb;
  c.reads[0] = consume(addrCb, 0, n * 8);
  if (maskCb >= 0)
    c.reads[1] = consume(maskCb, 0, n);
  c.numReads = 2;
  c.write = produce(cb, n * dtypeSize(t));
  submit(c);
}

void Core::scatterOut(int32_t cb, DType t, const Shape *s, int32_t addrCb, int32_t maskCb) {
  issuing_ = "scatterOut";
  checkCb(cb);
  checkCb(addrCb);
  if (maskCb >= 0)
    checkCb(maskCb);
  checkDType(t);
  checkShape(*s);
  const int64_t n = s->numElements();
  Command c;
  c.kind = CmdKind::ScatterOut;
  c.dtype = t;
  c.shape = *s;
  c.addrCb = addrCb;
  c.maskCb = maskCb;
  c.reads[0] = consume(cb, 0, n * dtypeSize(t));
  c.reads[1] = consume(addrCb, 0, n * 8);
  if (maskCb >= 0)
    c.reads[2] = consume(maskCb, 0, n);
  c.numReads = 3;
  submit(c);
}

/// Resolves a CB operand's view to the bytes it reads.
CbRange Core::operandRange(const Operand &o, const Shape &shape) {
  checkCb(o.cb);
  int64_t lo, hi;
  operandExtent(o, shape, lo, hi);
  if (lo < 0)
    fail(fault_kind::kCbMisuse, o.cb,
         std::string(issuing_) + " operand reads element " + std::to_string(lo) +
             ", before the front of cb" + std::to_string(o.cb));
  const int64_t es = dtypeSize(o.dtype);
  return consume(o.cb, lo * es, (hi - lo + 1) * es);
}

void Core::se(SeOp op, int32_t dst, DType t, const Shape *s, const Operand *ops, int32_t n) {
  issuing_ = "se";
  elementwise(CmdKind::Se, op, dst, t, s, ops, n);
}

void Core::vec(SeOp op, int32_t dst, DType t, const Shape *s, const Operand *ops, int32_t n) {
  issuing_ = "vec";
  elementwise(CmdKind::Vec, op, dst, t, s, ops, n);
}

void Core::vecLoop(int32_t dst, const Shape *s, const Operand *inputs, int32_t numInputs,
                   const VecStep *steps, int32_t numSteps) {
  issuing_ = "vecLoop";
  checkCb(dst);
  checkShape(*s);
  if (numInputs < 1 || numInputs > kMaxLoopInputs || numSteps < 1 || numSteps > kMaxLoopSteps)
    fail(fault_kind::kInvalidCommand, dst,
         "vecLoop takes 1 to " + std::to_string(kMaxLoopInputs) + " inputs and 1 to " +
             std::to_string(kMaxLoopSteps) + " steps, not " + std::to_string(numInputs) +
             " and " + std::to_string(numSteps));
  // Each step as the vec it stands for: a register argument is a CB tile
  // of the type its step rounded to.
  for (int32_t k = 0; k < numSteps; ++k) {
    const VecStep &step = steps[k];
    const std::string where = "vecLoop step " + std::to_string(k) + ": ";
    if (step.numArgs != seOpArity(step.op))
      fail(fault_kind::kInvalidCommand, dst,
           where + "takes " + std::to_string(seOpArity(step.op)) + " arguments, not " +
               std::to_string(step.numArgs));
    Operand args[3];
    for (int32_t a = 0; a < step.numArgs; ++a) {
      const int32_t ref = step.arg[a];
      if (ref >= numInputs || -1 - ref >= k)
        fail(fault_kind::kInvalidCommand, dst,
             where + "argument " + std::to_string(a) + " names " +
                 (ref >= 0 ? "input " + std::to_string(ref) + " of " + std::to_string(numInputs)
                           : "step " + std::to_string(-1 - ref) + ", not an earlier step"));
      if (ref >= 0) {
        args[a] = inputs[ref];
      } else {
        args[a].kind = Operand::Kind::Cb;
        args[a].dtype = steps[-1 - ref].dtype;
      }
    }
    std::string why = checkElementwise(step.op, step.dtype, args, step.numArgs);
    if (!why.empty())
      fail(fault_kind::kInvalidCommand, dst, where + why);
  }
  Command c;
  c.kind = CmdKind::VecLoop;
  c.dtype = steps[numSteps - 1].dtype;
  c.op = uint16_t(numSteps);
  c.shape = *s;
  takeOperands(c, inputs, numInputs);
  std::copy(steps, steps + numSteps, c.steps);
  c.numSteps = numSteps;
  c.write = produce(dst, s->numElements() * dtypeSize(c.dtype));
  submit(c);
}

void Core::checkNeighbour(ReDir dir) const {
  if (uint8_t(dir) > uint8_t(ReDir::East))
    fail(fault_kind::kInvalidCommand, -1,
         std::string(issuing_) + ": unknown direction " + std::to_string(int(dir)));
  if (pe_.neighbour(dir) < 0)
    fail(fault_kind::kInvalidCommand, -1,
         std::string(issuing_) + ": PE " + std::to_string(pe_.id()) + " has no " +
             reDirName(dir) + " neighbour in the " +
             std::to_string(pe_.chip().config().pe_rows) + "x" +
             std::to_string(pe_.chip().config().pe_cols) + " grid");
}

void Core::reSend(ReDir to, DType t, const Shape *s, const Operand *src) {
  issuing_ = "reSend";
  checkDType(t);
  checkShape(*s);
  checkNeighbour(to);
  submitSend(CmdKind::ReSend, int32_t(to), t, s, src);
}

void Core::submitSend(CmdKind kind, int32_t axis, DType t, const Shape *s, const Operand *src) {
  if (src->kind != Operand::Kind::Cb || src->dtype != t)
    fail(fault_kind::kInvalidCommand, src->cb,
         std::string(issuing_) + " sends a CB tile of its dtype");
  Command c;
  c.kind = kind;
  c.dtype = t;
  c.shape = *s;
  c.axis = axis;
  c.op = uint16_t(axis);
  c.operands[0] = *src;
  c.numOperands = 1;
  c.reads[0] = operandRange(*src, *s);
  c.numReads = 1;
  submit(c);
}

void Core::reRecv(ReduceOp op, int32_t dst, DType t, const Shape *s, const Operand *local,
                  ReDir from) {
  issuing_ = "reRecv";
  checkCb(dst);
  checkDType(t);
  checkShape(*s);
  checkNeighbour(from);
  if (op != ReduceOp::Sum && op != ReduceOp::Max && op != ReduceOp::Min)
    fail(fault_kind::kInvalidCommand, dst, "reRecv accumulates by Sum, Max or Min");
  if (local->dtype != t)
    fail(fault_kind::kInvalidCommand, dst, "reRecv: the local operand must be of the tile's dtype");
  Command c;
  c.kind = CmdKind::ReRecv;
  c.dtype = t;
  c.shape = *s;
  c.op = uint16_t(op);
  c.axis = int32_t(from);
  c.operands[0] = *local;
  c.numOperands = 1;
  c.reads[0] = optionalRange(*local, *s);
  c.numReads = 1;
  c.write = produce(dst, s->numElements() * dtypeSize(t));
  submit(c);
}

void Core::nocBroadcast(int32_t axis, DType t, const Shape *s, const Operand *src) {
  issuing_ = "nocBroadcast";
  checkDType(t);
  checkShape(*s);
  if (axis != 0 && axis != 1)
    fail(fault_kind::kInvalidCommand, -1,
         "nocBroadcast: axis " + std::to_string(axis) + " (0: along the PE column, 1: the PE row)");
  submitSend(CmdKind::NocSend, axis, t, s, src);
}

void Core::nocRecv(int32_t axis, int32_t dst, DType t, const Shape *s) {
  issuing_ = "nocRecv";
  checkCb(dst);
  checkDType(t);
  checkShape(*s);
  if (axis != 0 && axis != 1)
    fail(fault_kind::kInvalidCommand, dst,
         "nocRecv: axis " + std::to_string(axis) + " (0: along the PE column, 1: the PE row)");
  Command c;
  c.kind = CmdKind::NocRecv;
  c.dtype = t;
  c.shape = *s;
  c.axis = axis;
  c.op = uint16_t(axis);
  c.write = produce(dst, s->numElements() * dtypeSize(t));
  submit(c);
}

void Core::onCore(int32_t core) {
  issuing_ = "onCore";
  checkNoReplacePending();
  if (core != 0 && core != 1)
    fail(fault_kind::kInvalidCommand, -1,
         "onCore(" + std::to_string(core) + "): a PE has RISC-V cores 0 and 1");
  if (core == activeCore_)
    return;
  if (activeCore_ == 1)
    pe_.chip().trace().core1(pe_.id(), core1Since_, time_);
  std::swap(time_, otherTime_);
  activeCore_ = core;
  if (core == 1)
    core1Since_ = time_;
}

void Core::elementwise(CmdKind kind, SeOp op, int32_t dst, DType t, const Shape *s,
                       const Operand *ops, int32_t n) {
  checkCb(dst);
  checkShape(*s);
  if (n < 1 || n > 3)
    fail(fault_kind::kInvalidCommand, dst, std::string(issuing_) + " takes 1 to 3 operands");
  std::string why = checkElementwise(op, t, ops, n);
  if (why.empty() && kind == CmdKind::Se && seOpIsVectorOnly(op))
    why = std::string(seOpName(op)) + " has no SE lookup table; it runs on the vector core (vec)";
  if (!why.empty())
    fail(fault_kind::kInvalidCommand, dst, why);
  Command c;
  c.kind = kind;
  c.dtype = t;
  c.op = uint16_t(op);
  c.shape = *s;
  takeOperands(c, ops, n);
  c.write = produce(dst, s->numElements() * dtypeSize(t));
  submit(c);
}

/// The checks and fields shared by the SE commands that work along one axis
/// of a tile (reductions and scans); `nonEmptyAxis` asks for at least one
/// element along it.
Command Core::axisCommand(CmdKind kind, ReduceOp op, int32_t dst, DType t, const Shape *s,
                          int32_t axis, const Operand *src, bool nonEmptyAxis) {
  checkCb(dst);
  checkShape(*s);
  if (s->rank < 1 || axis < 0 || axis >= s->rank || (nonEmptyAxis && s->dim[axis] < 1))
    fail(fault_kind::kInvalidCommand, dst,
         std::string(issuing_) + " axis " + std::to_string(axis) + " is not a " +
             (nonEmptyAxis ? "non-empty " : "") + "dimension of its rank-" +
             std::to_string(s->rank) + " input");
  std::string why = checkReduce(op, t);
  if (why.empty() && !isValidDType(src->dtype))
    why = std::string(issuing_) + " source has an invalid dtype";
  if (!why.empty())
    fail(fault_kind::kInvalidCommand, dst, why);
  Command c;
  c.kind = kind;
  c.dtype = t;
  c.op = uint16_t(op);
  c.shape = *s;
  c.axis = axis;
  c.operands[0] = *src;
  c.numOperands = c.numReads = 1;
  c.reads[0] = optionalRange(*src, *s);
  return c;
}

void Core::seReduce(ReduceOp op, int32_t dst, DType t, const Shape *in, int32_t axis,
                    const Operand *src) {
  issuing_ = "seReduce";
  Command c = axisCommand(CmdKind::SeReduce, op, dst, t, in, axis, src, /*nonEmptyAxis=*/true);
  c.write = produce(dst, in->numElements() / in->dim[axis] * dtypeSize(t));
  submit(c);
}

void Core::seIota(int32_t dst, DType t, int64_t length, int64_t start) {
  issuing_ = "seIota";
  checkCb(dst);
  checkDType(t);
  if (length < 0)
    fail(fault_kind::kInvalidCommand, dst, "seIota with a negative length");
  Command c;
  c.kind = CmdKind::SeIota;
  c.dtype = t;
  c.iotaStart = start;
  c.write = produce(dst, length * dtypeSize(t));
  submit(c);
}

void Core::cbPop(int32_t cb, int64_t bytes) {
  issuing_ = "cbPop";
  checkCb(cb);
  checkNoReplacePending();
  charge(pe_.chip().config().issue_cycles, issueCycles);
  CircularBuffer &b = pe_.cb(cb);
  if (bytes < 0 || b.issueRead + bytes > b.issueWrite)
    fail(fault_kind::kCbMisuse, cb,
         "cbPop of " + std::to_string(bytes) + " bytes from cb" + std::to_string(cb) +
             ", which holds only " + std::to_string(b.issueWrite - b.issueRead) +
             " pushed and unpopped bytes");
  b.issueRead += bytes;
  b.addPop(nextSeq_++, bytes, time_);
  pe_.schedulePops(cb, time_);
  ++commandsIssued;
}

template <class T> T Core::readScalar(int32_t cb, DType t, int64_t index) {
  issuing_ = "readScalar";
  checkNoReplacePending();
  checkCb(cb);
  checkDType(t);
  charge(pe_.chip().config().core_read_cycles, readCycles);
  CircularBuffer &b = pe_.cb(cb);
  const int64_t es = dtypeSize(t);
  const int64_t pos = b.issueRead + index * es, end = pos + es;
  if (index < 0 || end > b.issueWrite || end > b.issueRead + b.capacity())
    fail(fault_kind::kCbMisuse, cb,
         "read of element " + std::to_string(index) + " of cb" + std::to_string(cb) +
             ", beyond the " + std::to_string(b.issueWrite - b.issueRead) +
             " bytes pushed and not popped");
  waitPublished(cb, pos, es);
  uint8_t wrapped[8];
  const uint8_t *p = b.readSpan(pos, es, wrapped);
  return dispatchDType(t, [&](auto d) { return convertValue<T>(loadElement<decltype(d)::value>(p)); });
}

void Core::waitPublished(int32_t cb, int64_t pos, int64_t len) {
  CircularBuffer &b = pe_.cb(cb);
  if (b.isPublished(pos, len))
    return;
  Cycle since = time_;
  waitCb_ = cb;
  waitEnd_ = pos + len;
  b.dataWaiters |= kCoreAgent;
  while (!b.isPublished(pos, len))
    suspend();
  waitCb_ = -1;
  blockedReadCycles += time_ - since;
  pe_.chip().trace().stall(pe_.id(), since, time_, -1, cb, activeCore_);
}

const uint8_t *Core::frontTile(int32_t cb, int64_t len, std::vector<uint8_t> &copy) {
  CircularBuffer &b = pe_.cb(cb);
  if (len > b.issueWrite - b.issueRead)
    fail(fault_kind::kCbMisuse, cb,
         std::string(issuing_) + " reads " + std::to_string(len) + " bytes of cb" +
             std::to_string(cb) + ", which holds only " +
             std::to_string(b.issueWrite - b.issueRead) + " pushed and unpopped bytes");
  waitPublished(cb, b.issueRead, len);
  copy.resize(size_t(len));
  const uint8_t *p = b.readSpan(b.issueRead, len, copy.data());
  return p;
}

std::string Core::pidText() const {
  return "pid (" + std::to_string(ctx_.programId[0]) + ", " + std::to_string(ctx_.programId[1]) +
         ", " + std::to_string(ctx_.programId[2]) + ")";
}

void Core::printTile(const char *prefix, int32_t cb, DType t, const Shape *s, bool hex,
                     bool isSigned) {
  issuing_ = "printTile";
  checkNoReplacePending();
  checkCb(cb);
  checkDType(t);
  checkShape(*s);
  charge(pe_.chip().config().issue_cycles, issueCycles);
  const int64_t n = s->numElements(), es = dtypeSize(t);
  std::vector<uint8_t> copy;
  const uint8_t *p = frontTile(cb, n * es, copy);
  const std::string head = pidText() + " idx ";
  const std::string pre = prefix ? prefix : "";
  std::string text;
  for (int64_t i = 0; i < n; ++i)
    text += head + indexText(*s, i) + pre + valueText(p + i * es, t, hex, isSigned) + "\n";
  pe_.chip().print(text);
}

void Core::assertTile(int32_t cb, const Shape *s, const char *message, const char *file,
                      int32_t line) {
  issuing_ = "assertTile";
  checkNoReplacePending();
  checkCb(cb);
  checkShape(*s);
  charge(pe_.chip().config().issue_cycles, issueCycles);
  const int64_t n = s->numElements();
  std::vector<uint8_t> copy;
  const uint8_t *p = frontTile(cb, n, copy);
  if (pe_.chip().config().timing_only)
    return; // the condition is garbage without the math
  for (int64_t i = 0; i < n; ++i) {
    if (p[i])
      continue;
    Fault f{fault_kind::kAssert, pe_.id(), "riscv", cb,
            "#" + std::to_string(nextSeq_) + " assertTile cb" + std::to_string(cb) + " " +
                pidText() + " idx " + indexText(*s, i),
            message ? message : ""};
    f.file = file ? file : "";
    f.line = line;
    throw FaultError(f);
  }
}

void Core::fence(Fence kind) {
  issuing_ = "fence";
  checkNoReplacePending();
  const int bits = int(kind);
  if (bits < 1 || bits > 3)
    fail(fault_kind::kInvalidCommand, -1, "fence with invalid kind " + std::to_string(bits));
  for (const auto &[bit, cmd] : {std::pair{1, CmdKind::FenceIn}, std::pair{2, CmdKind::FenceOut}}) {
    if (!(bits & bit))
      continue;
    const Unit &other = pe_.unit(otherFabricUnit(unitOf(cmd)));
    if (other.completed() == other.pushed()) {
      // Nothing of the other unit in flight: nothing to wait for.
      charge(pe_.chip().config().issue_cycles, issueCycles);
      continue;
    }
    Command c;
    c.kind = cmd;
    c.fenceAfter = other.pushed();
    submit(c);
  }
}

void Core::replaceFront(int32_t cb) {
  issuing_ = "replaceFront";
  checkCb(cb);
  checkNoReplacePending();
  replaceCb_ = cb;
}

void Core::validBox(const Shape *valid, const Operand *fill) {
  issuing_ = "validBox"; // binds to the next command, like a pending replaceFront
  if (validPending_)
    fail(fault_kind::kInvalidCommand, -1, "validBox followed by another validBox");
  if (valid->rank < 0 || valid->rank > kMaxRank)
    fail(fault_kind::kInvalidCommand, -1, "validBox of rank " + std::to_string(valid->rank));
  if (fill->kind != Operand::Kind::Imm)
    fail(fault_kind::kInvalidCommand, -1, "validBox fill must be an immediate");
  valid_ = *valid;
  validFill_ = *fill;
  validPending_ = true;
}

void Core::checkNoReplacePending() const {
  if (replaceCb_ >= 0)
    fail(fault_kind::kInvalidCommand, replaceCb_,
         std::string("replaceFront(cb") + std::to_string(replaceCb_) +
             ") must be followed by the command that writes cb" + std::to_string(replaceCb_) +
             ", not by " + issuing_);
}

bool Core::mayAlias(uint64_t a, uint64_t b) {
  issuing_ = "mayAlias";
  // Free here: the launcher knows which arguments share an allocation, and
  // a program tests one bit of what it hands over, an instruction that
  // mtia-scalar-cost charges with the rest of the scalar code.
  return pe_.chip().memory().allocations().mayAlias(a, b);
}

void Core::barrier() {
  issuing_ = "barrier";
  checkNoReplacePending();
  charge(pe_.chip().config().issue_cycles, issueCycles);
  if (pe_.unitsIdle())
    return;
  Cycle since = time_;
  waitBarrier_ = true;
  while (!pe_.unitsIdle())
    suspend();
  waitBarrier_ = false;
  blockedBarrierCycles += time_ - since;
  pe_.chip().trace().stall(pe_.id(), since, time_, -1, -1, activeCore_);
}

CbRange Core::optionalRange(const Operand &o, const Shape &shape) {
  if (o.kind != Operand::Kind::Cb || shape.numElements() == 0)
    return CbRange{};
  return operandRange(o, shape);
}

void Core::takeOperands(Command &c, const Operand *ops, int32_t n) {
  c.numOperands = c.numReads = n;
  for (int32_t i = 0; i < n; ++i) {
    c.operands[i] = ops[i];
    c.reads[i] = optionalRange(ops[i], c.shape);
  }
}

void Core::dpe(int32_t dst, DType accType, int64_t m, int64_t n, int64_t k, const Operand *a,
               const Operand *b, const Operand *acc) {
  issuing_ = "dpe";
  checkCb(dst);
  if (m < 0 || n < 0 || k < 0)
    fail(fault_kind::kInvalidCommand, dst, "dpe with a negative m, n or k");
  std::string why = checkDpe(accType, *a, *b, *acc);
  if (!why.empty())
    fail(fault_kind::kInvalidCommand, dst, why);
  Command c;
  c.kind = CmdKind::Dpe;
  c.dtype = accType;
  c.gemm[0] = m;
  c.gemm[1] = n;
  c.gemm[2] = k;
  c.operands[0] = *a;
  c.operands[1] = *b;
  c.operands[2] = *acc;
  c.numOperands = c.numReads = 3;
  c.reads[0] = optionalRange(*a, shape2(m, k));
  c.reads[1] = optionalRange(*b, shape2(k, n));
  c.reads[2] = optionalRange(*acc, shape2(m, n));
  c.write = produce(dst, m * n * dtypeSize(accType));
  submit(c);
}

void Core::mluCopy(int32_t dst, DType t, const Shape *s, const Operand *src) {
  issuing_ = "mluCopy";
  checkCb(dst);
  checkDType(t);
  checkShape(*s);
  if (src->kind != Operand::Kind::Cb || !isValidDType(src->dtype) ||
      dtypeSize(src->dtype) != dtypeSize(t))
    fail(fault_kind::kInvalidCommand, dst,
         "mluCopy moves bits: its source must be a CB view of an element the size of the "
         "output's");
  Command c;
  c.kind = CmdKind::MluCopy;
  c.dtype = t;
  c.shape = *s;
  c.operands[0] = *src;
  c.numOperands = c.numReads = 1;
  c.reads[0] = optionalRange(*src, *s);
  c.write = produce(dst, s->numElements() * dtypeSize(t));
  submit(c);
}

void Core::seScan(ReduceOp op, int32_t dst, DType t, const Shape *s, int32_t axis, bool reverse,
                  const Operand *src) {
  issuing_ = "seScan";
  Command c = axisCommand(CmdKind::SeScan, op, dst, t, s, axis, src, /*nonEmptyAxis=*/false);
  c.reverse = reverse;
  c.write = produce(dst, s->numElements() * dtypeSize(t));
  submit(c);
}

void Core::seHistogram(int32_t dst, int64_t numBins, const Shape *in, const Operand *src,
                       int32_t maskCb) {
  issuing_ = "seHistogram";
  checkCb(dst);
  checkShape(*in);
  if (maskCb >= 0)
    checkCb(maskCb);
  if (numBins < 0)
    fail(fault_kind::kInvalidCommand, dst, "seHistogram with a negative number of bins");
  if (!isValidDType(src->dtype) || dtypeIsFloat(src->dtype))
    fail(fault_kind::kInvalidCommand, dst, "seHistogram counts integer values");
  const int64_t n = in->numElements();
  Command c;
  c.kind = CmdKind::SeHistogram;
  c.dtype = DType::I32;
  c.shape = *in;
  c.numBins = numBins;
  c.maskCb = maskCb;
  c.operands[0] = *src;
  c.numOperands = 1;
  c.numReads = 2;
  c.reads[0] = optionalRange(*src, *in);
  if (maskCb >= 0 && n > 0)
    c.reads[1] = consume(maskCb, 0, n);
  c.write = produce(dst, numBins * 4);
  submit(c);
}

void Core::seGather(int32_t dst, DType t, const Shape *out, int32_t axis, const Operand *src,
                    const Shape *srcShape, const Operand *index) {
  issuing_ = "seGather";
  checkCb(dst);
  checkDType(t);
  checkShape(*out);
  checkShape(*srcShape);
  bool ok = out->rank == srcShape->rank && axis >= 0 && axis < out->rank &&
            src->kind == Operand::Kind::Cb && isValidDType(src->dtype) &&
            isValidDType(index->dtype) && !dtypeIsFloat(index->dtype);
  for (int d = 0; ok && d < out->rank; ++d)
    ok = d == axis || out->dim[d] <= srcShape->dim[d];
  if (!ok)
    fail(fault_kind::kInvalidCommand, dst,
         "seGather needs a CB source and an integer index of the source's rank, a valid axis, "
         "and other dimensions no larger than the source's");
  Command c;
  c.kind = CmdKind::SeGather;
  c.dtype = t;
  c.shape = *out;
  c.srcShape = *srcShape;
  c.axis = axis;
  c.operands[0] = *src;
  c.operands[1] = *index;
  c.numOperands = c.numReads = 2;
  if (out->numElements() > 0) {
    c.reads[0] = optionalRange(*src, *srcShape);
    c.reads[1] = optionalRange(*index, *out);
  }
  c.write = produce(dst, out->numElements() * dtypeSize(t));
  submit(c);
}

void Core::atomicRmw(int32_t dst, RmwOp op, DType t, const Shape *s, int32_t addrCb,
                     const Operand *value, int32_t maskCb) {
  issuing_ = "atomicRmw";
  if (dst >= 0)
    checkCb(dst);
  checkCb(addrCb);
  if (maskCb >= 0)
    checkCb(maskCb);
  checkShape(*s);
  std::string why = checkAtomic(op, t, false);
  if (why.empty() && value->kind == Operand::Kind::Cb && value->dtype != t)
    why = "atomicRmw value view must have the command's dtype";
  if (!why.empty())
    fail(fault_kind::kInvalidCommand, dst, why);
  const int64_t n = s->numElements();
  Command c;
  c.kind = CmdKind::AtomicRmw;
  c.dtype = t;
  c.op = uint16_t(op);
  c.shape = *s;
  c.addrCb = addrCb;
  c.maskCb = maskCb;
  c.operands[1] = *value;
  c.numReads = 3;
  if (n > 0) {
    c.reads[0] = consume(addrCb, 0, n * 8);
    c.reads[1] = optionalRange(*value, *s);
    if (maskCb >= 0)
      c.reads[2] = consume(maskCb, 0, n);
  }
  if (dst >= 0)
    c.write = produce(dst, n * dtypeSize(t));
  submit(c);
}

void Core::atomicCas(int32_t dst, DType t, const Shape *s, int32_t addrCb, const Operand *cmp,
                     const Operand *value) {
  issuing_ = "atomicCas";
  if (dst >= 0)
    checkCb(dst);
  checkCb(addrCb);
  checkShape(*s);
  std::string why = checkAtomic(RmwOp::Xchg, t, true);
  if (why.empty() && ((cmp->kind == Operand::Kind::Cb && cmp->dtype != t) ||
                      (value->kind == Operand::Kind::Cb && value->dtype != t)))
    why = "atomicCas cmp and value views must have the command's dtype";
  if (!why.empty())
    fail(fault_kind::kInvalidCommand, dst, why);
  const int64_t n = s->numElements();
  Command c;
  c.kind = CmdKind::AtomicCas;
  c.dtype = t;
  c.shape = *s;
  c.addrCb = addrCb;
  c.operands[1] = *cmp;
  c.operands[2] = *value;
  c.numReads = 3;
  if (n > 0) {
    c.reads[0] = consume(addrCb, 0, n * 8);
    c.reads[1] = optionalRange(*cmp, *s);
    c.reads[2] = optionalRange(*value, *s);
  }
  if (dst >= 0)
    c.write = produce(dst, n * dtypeSize(t));
  submit(c);
}

void Core::scalarCycles(int64_t n) {
  if (n > 0)
    charge(n, scalarCyclesCharged);
}

} // namespace mtia::sim
