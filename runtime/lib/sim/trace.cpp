//===- trace.cpp - Chrome/Perfetto trace of a launch ----------------------===//

#include "mtia/sim/trace.h"

#include <cstdio>
#include <memory>
#include <set>
#include <stdexcept>

namespace mtia::sim {

namespace {
/// Thread ids: the core first, then the units in UnitKind order, then core 1.
constexpr int32_t kCoreTid = 0;
constexpr int32_t kCore1Tid = kNumUnits + 1;
const char *tidName(int32_t tid) {
  if (tid == kCoreTid)
    return "riscv";
  if (tid == kCore1Tid)
    return "riscv core 1";
  return unitName(UnitKind(tid - 1));
}

/// Escapes nothing: every name we write is plain ASCII without quotes.
void writeEvent(FILE *f, bool &first, const std::string &name, int32_t pe, int32_t tid,
                double ts, double dur) {
  std::fprintf(f, "%s\n{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,"
                  "\"ts\":%.4f,\"dur\":%.4f}",
               first ? "" : ",", name.c_str(), pe, tid, ts, dur);
  first = false;
}
} // namespace

void TraceRecorder::begin(bool enabled, uint64_t maxEvents) {
  enabled_ = enabled;
  max_ = maxEvents;
  dropped_ = 0;
  records_.clear();
}

void TraceRecorder::add(const Record &r) {
  if (records_.size() >= max_) {
    ++dropped_;
    return;
  }
  records_.push_back(r);
}

void TraceRecorder::command(int32_t pe, UnitKind unit, Cycle start, Cycle end,
                            const CommandLabel &l) {
  if (enabled_)
    add(Record{Kind::Command, pe, 1 + int32_t(unit), start, end, l});
}

void TraceRecorder::program(int32_t pe, Cycle start, Cycle end, int64_t pid) {
  if (!enabled_)
    return;
  CommandLabel l;
  l.amount = pid;
  add(Record{Kind::Program, pe, kCoreTid, start, end, l});
}

void TraceRecorder::stall(int32_t pe, Cycle start, Cycle end, int32_t unit, int32_t cb,
                          int32_t core) {
  if (!enabled_ || end <= start)
    return;
  CommandLabel l;
  l.cb = cb;
  l.op = uint16_t(unit < 0 ? 0xffff : unit);
  add(Record{Kind::Stall, pe, core == 1 ? kCore1Tid : kCoreTid, start, end, l});
}

void TraceRecorder::core1(int32_t pe, Cycle start, Cycle end) {
  if (enabled_ && end > start)
    add(Record{Kind::Core1, pe, kCore1Tid, start, end, CommandLabel{}});
}

void TraceRecorder::write(const std::string &path, double clockGhz, int32_t cols) const {
  std::unique_ptr<FILE, int (*)(FILE *)> file(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!file)
    throw std::runtime_error("cannot write trace file '" + path + "'");
  FILE *f = file.get();
  const double usPerCycle = 1.0 / (clockGhz * 1000.0);
  std::fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock_ghz\":%g,"
                  "\"events\":%zu,\"dropped_events\":%llu,\"truncated\":%s},"
                  "\"traceEvents\":[",
               clockGhz, records_.size(), static_cast<unsigned long long>(dropped_),
               dropped_ ? "true" : "false");
  bool first = true;
  std::set<int32_t> pes;
  for (const Record &r : records_)
    pes.insert(r.pe);
  for (int32_t pe : pes) {
    std::fprintf(f, "%s\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,"
                    "\"args\":{\"name\":\"PE %d (row %d, col %d)\"}}",
                 first ? "" : ",", pe, pe, pe / cols, pe % cols);
    first = false;
    for (int32_t tid = 0; tid <= kCore1Tid; ++tid)
      std::fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                      "\"args\":{\"name\":\"%s\"}}",
                   pe, tid, tidName(tid));
  }
  for (const Record &r : records_) {
    std::string name;
    switch (r.kind) {
    case Kind::Command: name = formatLabel(r.label); break;
    case Kind::Program: name = "program " + std::to_string(r.label.amount); break;
    case Kind::Core1: name = "issue on core 1"; break;
    case Kind::Stall:
      name = r.label.op == 0xffff ? "stall read cb" + std::to_string(r.label.cb)
                                  : std::string("stall queue ") +
                                        unitName(UnitKind(r.label.op));
      break;
    }
    writeEvent(f, first, name, r.pe, r.tid, double(r.start) * usPerCycle,
               double(r.end - r.start) * usPerCycle);
  }
  std::fprintf(f, "\n]}\n");
  if (std::ferror(f))
    throw std::runtime_error("error writing trace file '" + path + "'");
}

} // namespace mtia::sim
