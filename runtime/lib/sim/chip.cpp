//===- chip.cpp - The simulated chip and one launch on it -----------------===//

#include "mtia/sim/chip.h"

#include "mtia/sim/pe.h"

#include <cstdio>
#include <limits>

namespace mtia::sim {

namespace {
[[noreturn]] void launchFault(const char *kind, const std::string &message) {
  throw FaultError(Fault{kind, -1, "", -1, "", message});
}
} // namespace

Chip::Chip(const Config &cfg) : cfg_(cfg) {
  cfg_.validate();
  stats_.add("cycles", cycles_);
  stats_.add("programs", programs_);
  stats_.add("pes_used", pesUsed_);
  stats_.add("events", eventsFired_);
  StatGroup &units = stats_.group("units");
  StatGroup &core = units.group("riscv");
  core.add("busy_cycles", coreBusy_);
  core.add("issue_cycles", coreIssue_);
  core.add("scalar_cycles", coreScalar_);
  core.add("read_cycles", coreRead_);
  core.add("blocked_queue_cycles", coreBlockedQueue_);
  core.add("blocked_read_cycles", coreBlockedRead_);
  core.add("blocked_barrier_cycles", coreBlockedBarrier_);
  core.add("commands", coreCommands_);
  core.add("core1_busy_cycles", coreCore1Busy_);
  core.add("core1_commands", coreCore1Commands_);
  for (int u = 0; u < kNumUnits; ++u) {
    StatGroup &g = units.group(unitName(UnitKind(u)));
    g.add("busy_cycles", unitBusy_[u]);
    g.add("commands", unitCommands_[u]);
    g.add("parked_cycles", unitParked_[u]);
    g.add("memory_stall_cycles", unitMemoryStall_[u]);
    g.add("local_stall_cycles", unitLocalStall_[u]);
    g.add("local_bytes", unitLocalBytes_[u]);
    g.add("amount", unitAmount_[u]);
    if (UnitKind(u) == UnitKind::DmaIn || UnitKind(u) == UnitKind::DmaOut) {
      g.add("by_address", unitByAddress_[u]);
      g.add("fences", unitFences_[u]);
    }
  }
  memory_ = std::make_unique<MemorySystem>(cfg_, stats_.group("memory"));
  for (auto &s : scratch_)
    s.resize(size_t(cfg_.local_memory_bytes));
  StatGroup &perPe = stats_.group("pe");
  for (int32_t id = 0; id < int32_t(cfg_.numPes()); ++id)
    pes_.push_back(std::make_unique<Pe>(*this, id, perPe.group(std::to_string(id))));
}

Chip::~Chip() = default;

void Chip::print(const std::string &text) const {
  if (printSink_) {
    printSink_(text);
    return;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

void Chip::validate(const LaunchSpec &spec) const {
  if (!spec.entry || !spec.info)
    launchFault(fault_kind::kInvalidLaunch, "no kernel entry point");
  const KernelInfo &info = *spec.info;
  const std::string name = info.name ? info.name : "?";
  for (int64_t g : spec.grid)
    if (g < 1 || g > INT32_MAX)
      launchFault(fault_kind::kInvalidLaunch, "kernel " + name + ": grid dimensions must be in [1, 2^31)");
  const int64_t programs = spec.grid[0] * spec.grid[1] * spec.grid[2];
  if (spec.mapping == PidMapping::User && programs != int64_t(cfg_.numPes()))
    launchFault(fault_kind::kInvalidLaunch,
                "kernel " + name + ": pid_mapping \"user\" runs one program per PE, so the grid must have " +
                    std::to_string(cfg_.numPes()) + " programs (" + std::to_string(cfg_.pe_rows) + "x" +
                    std::to_string(cfg_.pe_cols) + " PEs), not " + std::to_string(programs));
  if (info.numCbs < 0 || info.numCbs > cfg_.max_cbs)
    launchFault(fault_kind::kInvalidLaunch, "kernel " + name + " declares " +
                                                std::to_string(info.numCbs) + " CBs; a PE has " +
                                                std::to_string(cfg_.max_cbs));
  int64_t total = 0;
  std::string layout;
  for (int32_t i = 0; i < info.numCbs; ++i) {
    if (info.cbCapacity[i] < 0)
      launchFault(fault_kind::kInvalidLaunch,
                  "kernel " + name + ": cb" + std::to_string(i) + " has a negative capacity");
    total += info.cbCapacity[i];
    layout += (i ? ", cb" : "cb") + std::to_string(i) + " " + std::to_string(info.cbCapacity[i]);
  }
  if (total > cfg_.local_memory_bytes)
    launchFault(fault_kind::kLocalMemoryOverflow,
                "kernel " + name + " needs " + std::to_string(total) + " bytes of CBs (" +
                    layout + ") but local memory holds " +
                    std::to_string(cfg_.local_memory_bytes) + " bytes");
}

LaunchSummary Chip::run(const LaunchSpec &spec) {
  validate(spec);
  events_.reset();
  memory_->beginLaunch(spec.regions);
  trace_.begin(!spec.tracePath.empty(), uint64_t(cfg_.trace_max_events));
  pendingFault_.reset();

  const int64_t programs = spec.grid[0] * spec.grid[1] * spec.grid[2];
  const int64_t numPes = int64_t(pes_.size());
  const ProgramMap map(spec.mapping, programs, numPes);
  const int32_t pesUsed = int32_t(map.pesUsed());
  KernelRun run;
  run.entry = spec.entry;
  run.args = spec.args.data();
  for (int i = 0; i < 3; ++i)
    run.grid[i] = int32_t(spec.grid[i]);
  const Cycle start = Cycle(cfg_.launch_overhead_cycles);
  lastActivity_ = start;
  constexpr Cycle kNever = std::numeric_limits<Cycle>::max();
  lastProgress_ = start;
  idleLimit_ = cfg_.watchdog_cycles > 0 ? Cycle(cfg_.watchdog_cycles) : kNever;
  launchLimit_ = cfg_.max_launch_cycles > 0 ? Cycle(cfg_.max_launch_cycles) : kNever;
  lastInterruptPoll_ = std::chrono::steady_clock::now();
  for (int64_t k = 0; k < numPes; ++k) {
    Pe &pe = *pes_[size_t(k)];
    pe.configure(*spec.info);
    pe.core().begin(run, map, k, start);
  }

  try {
    while (!pendingFault_ && events_.step())
      watch(events_.now());
  } catch (const FaultError &e) {
    pendingFault_ = e.fault();
  }
  if (!pendingFault_) {
    for (const auto &pe : pes_)
      if (!pe->quiescent()) {
        try {
          throwDeadlock();
        } catch (const FaultError &e) {
          pendingFault_ = e.fault();
        }
        break;
      }
  }
  LaunchSummary summary = summarize(spec, pesUsed, programs);
  if (trace_.enabled())
    trace_.write(spec.tracePath, cfg_.clock_ghz, int32_t(cfg_.pe_cols));
  if (pendingFault_)
    throw FaultError(*pendingFault_);
  return summary;
}

void Chip::throwDeadlock() const {
  std::vector<std::string> lines;
  Fault first;
  for (const auto &pe : pes_)
    pe->describeStalls(lines, first);
  std::string msg = "nothing can make progress at cycle " + std::to_string(events_.now()) +
                    "; waiting:";
  const size_t kShown = 16;
  for (size_t i = 0; i < lines.size() && i < kShown; ++i)
    msg += "\n  " + lines[i];
  if (lines.size() > kShown)
    msg += "\n  ... and " + std::to_string(lines.size() - kShown) + " more";
  first.kind = fault_kind::kDeadlock;
  first.message = msg;
  throw FaultError(first);
}

void Chip::watchSlow(Cycle t, int32_t pe) {
  if (t > lastProgress_ && t - lastProgress_ > idleLimit_)
    throwHang(t, pe, "no progress for " + std::to_string(t - lastProgress_) +
                     " cycles (no store, no atomic that changed memory, no program "
                     "finished since cycle " + std::to_string(lastProgress_) +
                     "; simulator parameter watchdog_cycles = " +
                     std::to_string(cfg_.watchdog_cycles) + ")");
  if (t > launchLimit_)
    throwHang(t, pe, "the launch ran past max_launch_cycles = " +
                     std::to_string(cfg_.max_launch_cycles));
  if (!interruptCheck_)
    return;
  // Asking the host may take its lock (Python's GIL): a few times a second.
  const auto wall = std::chrono::steady_clock::now();
  if (wall - lastInterruptPoll_ < std::chrono::milliseconds(100))
    return;
  lastInterruptPoll_ = wall;
  if (interruptCheck_())
    throw FaultError(Fault{fault_kind::kInterrupted, -1, "", -1, "",
                           "the host stopped the launch at cycle " + std::to_string(t)});
}

void Chip::throwHang(Cycle t, int32_t spinning, const std::string &why) const {
  // Where each core is: the source line it last issued from, and what it
  // waits for. The core whose clock tripped the watchdog (else the first
  // one still running) names the fault.
  Fault f{fault_kind::kHang, spinning, "riscv", -1, "", ""};
  std::string where;
  int shown = 0;
  for (const auto &pe : pes_) {
    const Core &c = pe->core();
    if (!c.active() || c.finished())
      continue;
    if (f.pe < 0)
      f.pe = pe->id();
    if (shown++ < 8) {
      std::string wait = c.waitReason();
      where += "\n  PE " + std::to_string(pe->id()) + " core at line " +
               std::to_string(c.line()) + ": " + (wait.empty() ? "running" : wait);
    }
  }
  if (shown > 8)
    where += "\n  ... and " + std::to_string(shown - 8) + " more";
  if (f.pe >= 0 && pes_[size_t(f.pe)]->core().line() > 0)
    f.line = pes_[size_t(f.pe)]->core().line();
  f.message = "stopped at cycle " + std::to_string(t) + ": " + why + "; cores:" + where;
  throw FaultError(f);
}

LaunchSummary Chip::summarize(const LaunchSpec &spec, int32_t pesUsed, int64_t programs) {
  cycles_ = std::max(lastActivity_, events_.now());
  programs_ = uint64_t(programs);
  pesUsed_ = uint64_t(pesUsed);
  eventsFired_ = events_.eventsFired();
  coreBusy_ = coreIssue_ = coreScalar_ = coreRead_ = 0;
  coreBlockedQueue_ = coreBlockedRead_ = coreBlockedBarrier_ = coreCommands_ = 0;
  coreCore1Busy_ = coreCore1Commands_ = 0;
  for (int u = 0; u < kNumUnits; ++u)
    unitBusy_[u] = unitCommands_[u] = unitParked_[u] = unitMemoryStall_[u] = unitAmount_[u] =
        unitLocalStall_[u] = unitLocalBytes_[u] = unitByAddress_[u] = unitFences_[u] = 0;
  for (const auto &pe : pes_) {
    const Core &c = pe->core();
    coreBusy_ += c.busyCycles;
    coreIssue_ += c.issueCycles;
    coreScalar_ += c.scalarCyclesCharged;
    coreRead_ += c.readCycles;
    coreBlockedQueue_ += c.blockedQueueCycles;
    coreBlockedRead_ += c.blockedReadCycles;
    coreBlockedBarrier_ += c.blockedBarrierCycles;
    coreCommands_ += c.commandsIssued;
    coreCore1Busy_ += c.core1BusyCycles;
    coreCore1Commands_ += c.core1Commands;
    for (int u = 0; u < kNumUnits; ++u) {
      const Unit &unit = pe->unit(UnitKind(u));
      unitBusy_[u] += unit.busyCycles;
      unitCommands_[u] += unit.commands;
      unitParked_[u] += unit.parkedCycles;
      unitMemoryStall_[u] += unit.memoryStallCycles;
      unitLocalStall_[u] += unit.localStallCycles;
      unitLocalBytes_[u] += unit.localBytes;
      unitAmount_[u] += unit.amount;
      unitByAddress_[u] += unit.byAddress;
      unitFences_[u] += unit.fences;
    }
  }
  LaunchSummary s;
  s.cycles = cycles_;
  s.seconds = double(cycles_) / (cfg_.clock_ghz * 1e9);
  s.busy[0] = coreBusy_;
  for (int u = 0; u < kNumUnits; ++u)
    s.busy[size_t(1 + u)] = unitBusy_[u];
  s.pesUsed = pesUsed;
  s.programs = programs;
  s.stats = stats_.snapshot();
  s.tracePath = spec.tracePath;
  return s;
}

} // namespace mtia::sim
