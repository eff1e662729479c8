//===- pe.h - A processing element: core, units, CBs ------------*- C++ -*-===//
//
// A PE holds its local memory with the circular buffers laid out in it, the
// RISC-V core that runs the kernel, and the units that execute commands.
//
// Core contract. The kernel runs natively in a fiber (one stack per PE) and
// runs ahead of simulated time with its own clock: every command costs
// issue_cycles, scalarCycles() adds cycles, and a command enters its unit's
// queue with ready time = the core's clock. The core suspends only when
//  (a) the unit's queue is full: it resumes when a slot frees, at
//      max(core clock, that cycle);
//  (b) readInt/readFloat, printTile or assertTile needs bytes not yet
//      published: it resumes when they are, at max(core clock, that cycle);
//  (c) barrier: it resumes when every unit of the PE is idle.
// The programs mapped to a PE run one after another in the same fiber, so a
// program's commands queue up behind the previous program's.
//
// Unit contract. A unit takes commands in order. The next command starts at
// the first cycle >= its ready time and >= the end of the previous command's
// occupancy at which its CB conditions hold (see circular_buffer.h);
// otherwise it parks on the blocking CB and is woken when that CB's pointer
// moves (never polled). It executes functionally when it starts and
// completes, in order, at the time its timing model gives; completion
// publishes what it wrote, retires its reads and frees its queue slot.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_PE_H
#define MTIA_SIM_PE_H

#include "mtia/device.h"
#include "mtia/sim/circular_buffer.h"
#include "mtia/sim/command.h"
#include "mtia/sim/fabric.h"
#include "mtia/sim/fault.h"
#include "mtia/sim/fiber.h"
#include "mtia/sim/local_memory.h"
#include "mtia/sim/program_map.h"
#include "mtia/sim/simd_engine.h"
#include "mtia/sim/stats.h"
#include "mtia/sim/zeroed_memory.h"

#include <deque>
#include <string>
#include <vector>

namespace mtia::sim {

class Chip;
class Pe;

/// Waiter bits in CircularBuffer masks: one per unit, then the core.
constexpr uint32_t agentBit(UnitKind u) { return 1u << unsigned(u); }
constexpr uint32_t kCoreAgent = 1u << kNumUnits;

/// What the kernel of a launch is, as every core sees it.
struct KernelRun {
  KernelEntry entry = nullptr;
  const Arg *args = nullptr;
  int32_t grid[3] = {1, 1, 1};
};

class Unit final : public EventTarget {
public:
  Unit(Pe &pe, UnitKind kind) : pe_(pe), kind_(kind) {}

  /// Empties the queue and gives it `depth` entries.
  void reset(int64_t depth);
  UnitKind kind() const { return kind_; }
  bool full() const { return count_ == ring_.size(); }
  bool idle() const { return count_ == 0; }

  /// Appends a command (the core checked `full()`).
  void push(const Command &c);
  /// Asks for a start attempt at cycle `at` (>= now).
  void wake(Cycle at);
  void onEvent(uint32_t tag) override;

  /// The oldest command that has not started, if any.
  const Command *waiting() const;
  /// Calls f(command) for each command queued and not completed, oldest
  /// first (started ones included).
  template <class F> void forEachOutstanding(F &&f) const {
    for (size_t i = 0; i < count_; ++i)
      f(ring_[(head_ + i) % ring_.size()]);
  }
  /// Commands pushed since the launch began / completed since then; a
  /// unit completes in push order, so the first `completed()` are done.
  uint64_t pushed() const { return pushed_; }
  uint64_t completed() const { return completed_; }
  /// The CB the waiting command is parked on (-1: not parked) and why.
  int32_t parkedCb() const { return parked_ ? parkedCb_ : -1; }
  bool parkedForSpace() const { return parkedForSpace_; }

  void registerStats(StatGroup &g);
  uint64_t busyCycles = 0;
  uint64_t commands = 0;
  uint64_t parkedCycles = 0;
  /// Fabric units: cycles a DMA held its unit waiting for the memory
  /// servers (contention, a slower level) beyond its own transfer at
  /// fi_bytes_per_cycle; part of busyCycles.
  uint64_t memoryStallCycles = 0;
  /// Cycles a command held its unit beyond its own time because the PE's
  /// local-memory bandwidth was taken by other units; part of busyCycles.
  uint64_t localStallCycles = 0;
  /// Bytes the started commands read from and wrote to the CBs.
  uint64_t localBytes = 0;
  /// The work of the started commands, as their trace labels count it:
  /// bytes (dma_in, dma_out, mlu, re), elements (se, vec), MACs (dpe). The
  /// roofline divides it by time.
  uint64_t amount = 0;
  /// Fabric units: gathers and scatters, the accesses by per-element
  /// address that the compiler could not make strided DMAs (the DMA report
  /// says why); part of `commands`.
  uint64_t byAddress = 0;
  /// Fabric units: memory-order fences taken (not in `commands`).
  uint64_t fences = 0;

private:
  enum Tag : uint32_t { kWake, kComplete };
  void tryStart();

  Pe &pe_;
  UnitKind kind_;
  std::vector<Command> ring_;
  size_t head_ = 0, count_ = 0, started_ = 0;
  uint64_t pushed_ = 0, completed_ = 0;
  Cycle nextFree_ = 0;   ///< end of the previous command's occupancy
  Cycle lastDone_ = 0;   ///< completions are in order
  Cycle wakeAt_ = kNever;
  Cycle parkedSince_ = 0;
  bool parked_ = false;
  int32_t parkedCb_ = -1;
  bool parkedForSpace_ = false;
};

class Core final : public EventTarget {
public:
  explicit Core(Pe &pe) : pe_(pe) {}
  ~Core();
  Core(const Core &) = delete;
  Core &operator=(const Core &) = delete;

  /// Prepares the fiber to run the programs `map` deals to PE `pe`, from
  /// cycle `start`; inactive (nothing to run) when it deals none.
  void begin(const KernelRun &run, const ProgramMap &map, int64_t pe, Cycle start);
  bool active() const { return count_ > 0; }
  bool finished() const { return finished_; }
  /// The core clock when its last program returned.
  Cycle finishTime() const { return std::max(time_, otherTime_); }

  /// Resumes the fiber (the only event the core receives).
  void onEvent(uint32_t tag) override;
  /// Called by the PE when a queue slot of `u` frees / bytes of `cb` publish.
  void onQueueSlotFreed(UnitKind u);
  void onDataPublished(int32_t cb);
  /// What a suspended core waits for, for deadlock reports ("" if running).
  std::string waitReason() const;
  int32_t waitCb() const { return waitCb_; }
  /// The kernel source line the generated code last stored in ctx->line.
  int32_t line() const { return ctx_.line; }

  // The device API (device.h), running on the fiber's stack.
  void dmaIn(int32_t cb, DType t, uint64_t addr, const Box *box, const Operand *pad);
  void dmaOut(int32_t cb, DType t, uint64_t addr, const Box *box);
  void gatherIn(int32_t cb, DType t, const Shape *s, int32_t addrCb, int32_t maskCb,
                const Operand *pad);
  void scatterOut(int32_t cb, DType t, const Shape *s, int32_t addrCb, int32_t maskCb);
  void se(SeOp op, int32_t dst, DType t, const Shape *s, const Operand *ops, int32_t n);
  void seReduce(ReduceOp op, int32_t dst, DType t, const Shape *in, int32_t axis,
                const Operand *src);
  void seIota(int32_t dst, DType t, int64_t length, int64_t start);
  void cbPop(int32_t cb, int64_t bytes);
  void dpe(int32_t dst, DType accType, int64_t m, int64_t n, int64_t k, const Operand *a,
           const Operand *b, const Operand *acc);
  void mluCopy(int32_t dst, DType t, const Shape *s, const Operand *src);
  void seScan(ReduceOp op, int32_t dst, DType t, const Shape *s, int32_t axis, bool reverse,
              const Operand *src);
  void seHistogram(int32_t dst, int64_t numBins, const Shape *in, const Operand *src,
                   int32_t maskCb);
  void seGather(int32_t dst, DType t, const Shape *out, int32_t axis, const Operand *src,
                const Shape *srcShape, const Operand *index);
  void atomicRmw(int32_t dst, RmwOp op, DType t, const Shape *s, int32_t addrCb,
                 const Operand *value, int32_t maskCb);
  void atomicCas(int32_t dst, DType t, const Shape *s, int32_t addrCb, const Operand *cmp,
                 const Operand *value);
  void printTile(const char *prefix, int32_t cb, DType t, const Shape *s, bool hex,
                 bool isSigned);
  void assertTile(int32_t cb, const Shape *s, const char *message, const char *file,
                  int32_t line);
  void barrier();
  void onCore(int32_t core);
  void vec(SeOp op, int32_t dst, DType t, const Shape *s, const Operand *ops, int32_t n);
  void vecLoop(int32_t dst, const Shape *s, const Operand *inputs, int32_t numInputs,
               const VecStep *steps, int32_t numSteps);
  void reSend(ReDir to, DType t, const Shape *s, const Operand *src);
  void nocBroadcast(int32_t axis, DType t, const Shape *s, const Operand *src);
  void nocRecv(int32_t axis, int32_t dst, DType t, const Shape *s);
  /// A command that sends the CB tile `src` over a network (reSend,
  /// nocBroadcast), `axis` its direction or PE axis.
  void submitSend(CmdKind kind, int32_t axis, DType t, const Shape *s, const Operand *src);
  void reRecv(ReduceOp op, int32_t dst, DType t, const Shape *s, const Operand *local,
              ReDir from);
  void fence(Fence kind);
  bool mayAlias(uint64_t a, uint64_t b);
  void replaceFront(int32_t cb);
  void validBox(const Shape *valid, const Operand *fill);
  /// Element `index` of the front of `cb`, as read into a register.
  template <class T> T readScalar(int32_t cb, DType t, int64_t index);
  void scalarCycles(int64_t n);

  /// Ends the fiber after a fault in kernel context; never returns.
  [[noreturn]] void abort(const Fault &f);

  void registerStats(StatGroup &g);
  uint64_t issueCycles = 0;
  uint64_t scalarCyclesCharged = 0;
  uint64_t readCycles = 0;
  uint64_t blockedQueueCycles = 0;
  uint64_t blockedReadCycles = 0;
  uint64_t blockedBarrierCycles = 0;
  uint64_t commandsIssued = 0;
  uint64_t programsRun = 0;
  uint64_t busyCycles = 0; ///< issue + scalar + read cycles, both cores
  uint64_t core1BusyCycles = 0; ///< the part charged to core 1
  uint64_t core1Commands = 0;

private:
  static void fiberMain(void *core);
  void runPrograms();
  /// Suspends the fiber until an event resumes it.
  void suspend();
  /// Resumes the fiber at max(core clock, now), once.
  void resumeSoon();
  void charge(int64_t cycles, uint64_t &counter);

  /// Validation at issue; each throws FaultError.
  void checkCb(int32_t cb) const;
  void checkDType(DType t) const;
  void checkShape(const Shape &s) const;
  /// The PE has a neighbour in direction `d`.
  void checkNeighbour(ReDir d) const;
  /// Reserves the next `len` bytes of `cb` for a produced tile.
  CbRange produce(int32_t cb, int64_t len);
  /// Faults when a replaceFront waits for its command and `issuing_` is
  /// something else.
  void checkNoReplacePending() const;
  /// The range at element `offset` of the front of `cb`, `len` bytes.
  CbRange consume(int32_t cb, int64_t offsetBytes, int64_t len);
  /// The bytes a CB operand's view reads over `shape`.
  CbRange operandRange(const Operand &o, const Shape &shape);
  /// Queues `c` on its unit (waiting for a slot) and registers its reads.
  void submit(Command &c);
  /// se and vec: one elementwise command on unit kind `kind`.
  void elementwise(CmdKind kind, SeOp op, int32_t dst, DType t, const Shape *s,
                   const Operand *ops, int32_t n);
  /// Suspends until [pos, pos+len) of `cb` is published; charges the wait.
  void waitPublished(int32_t cb, int64_t pos, int64_t len);
  /// The front `len` bytes of `cb` once published (copied if they wrap).
  const uint8_t *frontTile(int32_t cb, int64_t len, std::vector<uint8_t> &copy);
  /// "pid (x, y, z)".
  std::string pidText() const;
  /// A CB-or-immediate operand of a command over `shape`: its range, or an
  /// empty one for immediates and empty shapes.
  CbRange optionalRange(const Operand &o, const Shape &shape);
  /// An elementwise command's (or vecLoop's) `n` operands, and the ranges
  /// they read over its shape (`c.shape` set first).
  void takeOperands(Command &c, const Operand *ops, int32_t n);
  Command axisCommand(CmdKind kind, ReduceOp op, int32_t dst, DType t, const Shape *s,
                      int32_t axis, const Operand *src, bool nonEmptyAxis);
  [[noreturn]] void fail(const char *kind, int32_t cb, const std::string &message) const;

  Pe &pe_;
  Fiber fiber_;

  KernelRun run_;
  Ctx ctx_{};
  ProgramMap map_{PidMapping::Linear, 0, 1};
  int64_t mapPe_ = 0, count_ = 0; ///< this PE's index in map_, its programs
  /// Two RISC-V cores issue for the kernel (device.h onCore): `time_` is
  /// the clock of the one issuing now, `otherTime_` the other's. The kernel's
  /// native code is one instruction stream, so when the fiber resumes both
  /// clocks move up to the resume cycle.
  Cycle time_ = 0;
  Cycle otherTime_ = 0;
  Cycle core1Since_ = 0; ///< when core 1 last took over, for its trace track
  int32_t activeCore_ = 0;
  uint64_t nextSeq_ = 0;
  bool finished_ = false;
  bool resumeScheduled_ = false;
  /// What a suspended core waits for.
  int32_t waitUnit_ = -1;
  int32_t waitCb_ = -1;
  int64_t waitEnd_ = 0; ///< bytes of waitCb_ must be published up to here
  bool waitBarrier_ = false;
  const char *issuing_ = ""; ///< the device call being issued, for faults
  /// replaceFront: the CB the next command must write (-1: none pending).
  int32_t replaceCb_ = -1;
  /// validBox: the box the next command works on (pending while set).
  bool validPending_ = false;
  Shape valid_;
  Operand validFill_;
};

class Pe final : public EventTarget {
public:
  Pe(Chip &chip, int32_t id, StatGroup &stats);

  int32_t id() const { return id_; }
  Chip &chip() const { return chip_; }
  Core &core() { return core_; }
  Unit &unit(UnitKind k) { return units_[int(k)]; }
  int32_t numCbs() const { return numCbs_; }
  CircularBuffer &cb(int32_t i) { return cbs_[i]; }
  LocalMemoryBandwidth &localMemory() { return localMemory_; }

  /// Lays the CBs of `info` out consecutively in local memory and empties
  /// the units. Throws FaultError "local-memory overflow".
  void configure(const KernelInfo &info);

  /// Whether `c` may start now; if not, parks `u` on the blocking CB and
  /// returns the CB and whether it lacks space (else data).
  bool mayStart(const Command &c, Unit &u, int32_t &blockingCb, bool &forSpace);
  /// Executes `c` functionally at the current cycle. Returns the cycle its
  /// unit can start the next command, and the cycle `c` completes.
  std::pair<Cycle, Cycle> execute(const Command &c);
  /// Completion of `c`: publishes its write and retires its reads.
  void retire(const Command &c);
  /// A command of fabric unit `u` completed: a fence on the other one may
  /// now pass.
  void onFabricCompletion(UnitKind u);
  /// Schedules pop processing of `cb` at cycle `at`.
  void schedulePops(int32_t cb, Cycle at);
  /// Pop processing of CB `tag`.
  void onEvent(uint32_t tag) override;

  /// The id of the neighbour in direction `d`, or -1 at the grid's edge.
  int32_t neighbour(ReDir d) const;
  /// A tile arriving over the reduction network from direction `from`.
  void deliver(ReDir from, Cycle arrival, const uint8_t *data, int64_t bytes);
  /// A tile arriving by a NoC broadcast along `axis` (0 column, 1 row).
  void deliverBroadcast(int32_t axis, Cycle arrival, const uint8_t *data, int64_t bytes);

  /// True when nothing is left to do: core done, units idle, no pops.
  bool quiescent() const;
  /// True when every unit's queue is empty.
  bool unitsIdle() const;
  /// Appends one line per stalled agent; fills `first` from the first one.
  void describeStalls(std::vector<std::string> &lines, Fault &first) const;

  /// Throws the FaultError of a command executing on unit `u`.
  [[noreturn]] void fail(const char *kind, const Command &c, UnitKind u,
                         const std::string &message) const;

private:
  /// Execution per unit family; each returns {free at, done at}.
  std::pair<Cycle, Cycle> executeSe(const Command &c);
  /// The steps of a vecLoop, each on the whole tile, into `tile`.
  void runVecLoop(const Command &c, const SeInput *in, uint8_t *tile);
  std::pair<Cycle, Cycle> executeDpe(const Command &c);
  std::pair<Cycle, Cycle> executeMlu(const Command &c);
  std::pair<Cycle, Cycle> executeFabric(const Command &c);
  std::pair<Cycle, Cycle> executeRe(const Command &c);
  std::pair<Cycle, Cycle> executeNoc(const Command &c);
  /// The memory-order sanitizer (config check_memory_order): faults when
  /// `c`, starting now, touches bytes that a command issued before it by
  /// the same program on the other fabric unit has not finished with.
  void checkMemoryOrder(const Command &c);
  /// The bytes of memory `c` touches, sorted and merged; false when they
  /// are not known yet (per-element addresses not yet published).
  bool footprint(const Command &c, std::vector<ByteSpan> &out);
  /// Operand `i` of `c` as the SE sees it; CB data through scratch `i`.
  SeInput inputOf(const Command &c, int32_t i);
  /// Operand `i` of `c` as a dense tile of `t` over c.shape (an immediate
  /// broadcast, a view copied), in scratch slot `slot`.
  const uint8_t *denseOperand(const Command &c, int32_t i, DType t, int slot);
  void wakeData(int32_t cb);
  void wakeSpace(int32_t cb);
  /// Local-memory span for reading range `r` (a copy in scratch `slot` when
  /// it wraps).
  const uint8_t *readSpan(const CbRange &r, int slot);
  /// Where `c` builds its result tile before commitSpan: the buffer itself
  /// when the tile does not wrap, else scratch (always for replaceFront).
  uint8_t *writeTarget(const Command &c);

  Chip &chip_;
  int32_t id_;
  ZeroedMemory local_;
  LocalMemoryBandwidth localMemory_;
  CircularBuffer cbs_[kMaxCbs];
  int32_t numCbs_ = 0;
  Unit units_[kNumUnits];
  Core core_;
  /// The reduction network's input from each neighbour: tiles in arrival
  /// order (data empty in timing-only mode).
  struct Packet {
    Cycle arrival;
    int64_t bytes;
    std::vector<uint8_t> data;
  };
  std::deque<Packet> inbox_[4];
  /// Tiles broadcast to this PE along its column (0) and its row (1), in
  /// arrival order.
  std::deque<Packet> broadcastInbox_[2];
  /// The oldest tile of `inbox`, which the receive `c` on `unit` takes; a
  /// tile of another size than `c`'s is an invalid-command fault ("<cmd> of
  /// N bytes <from> M").
  Packet takePacket(std::deque<Packet> &inbox, const Command &c, UnitKind unit,
                    const std::string &from);
  /// checkMemoryOrder's list of earlier commands, kept to reuse its storage.
  std::vector<const Command *> orderScratch_;
};

} // namespace mtia::sim

#endif // MTIA_SIM_PE_H
