//===- command.cpp - Command names ----------------------------------------===//

#include "mtia/sim/command.h"

#include "mtia/sim/simd_engine.h"

namespace mtia::sim {

const char *unitName(UnitKind u) {
  switch (u) {
  case UnitKind::DmaIn: return "dma_in";
  case UnitKind::DmaOut: return "dma_out";
  case UnitKind::Se: return "se";
  }
  return "?";
}

UnitKind unitOf(CmdKind k) {
  switch (k) {
  case CmdKind::DmaIn:
  case CmdKind::GatherIn: return UnitKind::DmaIn;
  case CmdKind::DmaOut:
  case CmdKind::ScatterOut: return UnitKind::DmaOut;
  default: return UnitKind::Se;
  }
}

std::string formatLabel(const CommandLabel &l) {
  std::string cb = " cb" + std::to_string(l.cb) + " ";
  switch (l.kind) {
  case CmdKind::DmaIn: return "dmaIn" + cb + std::to_string(l.amount) + "B";
  case CmdKind::DmaOut: return "dmaOut" + cb + std::to_string(l.amount) + "B";
  case CmdKind::GatherIn: return "gatherIn" + cb + std::to_string(l.amount) + "B";
  case CmdKind::ScatterOut: return "scatterOut" + cb + std::to_string(l.amount) + "B";
  case CmdKind::Se:
    return std::string("se.") + seOpName(SeOp(l.op)) + cb + std::to_string(l.amount) + "el";
  case CmdKind::SeReduce:
    return std::string("seReduce.") + reduceOpName(ReduceOp(l.op)) + cb +
           std::to_string(l.amount) + "el";
  case CmdKind::SeIota: return "seIota" + cb + std::to_string(l.amount) + "el";
  }
  return "?";
}

CommandLabel Command::label() const {
  CommandLabel l;
  l.kind = kind;
  l.cb = mainCb();
  l.op = op;
  switch (kind) {
  case CmdKind::DmaIn:
  case CmdKind::GatherIn: l.amount = write.len; break;
  case CmdKind::DmaOut:
  case CmdKind::ScatterOut: l.amount = reads[0].len; break;
  case CmdKind::Se: l.amount = shape.numElements(); break;
  case CmdKind::SeReduce: l.amount = shape.numElements(); break;
  case CmdKind::SeIota: l.amount = write.len / dtypeSize(dtype); break;
  }
  return l;
}

std::string Command::describe() const {
  return "#" + std::to_string(seq) + " " + formatLabel(label());
}

} // namespace mtia::sim
