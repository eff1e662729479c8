//===- command.cpp - Command names ----------------------------------------===//

#include "mtia/sim/command.h"

#include "mtia/sim/simd_engine.h"

namespace mtia::sim {

const char *unitName(UnitKind u) {
  switch (u) {
  case UnitKind::DmaIn: return "dma_in";
  case UnitKind::DmaOut: return "dma_out";
  case UnitKind::Se: return "se";
  case UnitKind::Dpe: return "dpe";
  case UnitKind::Mlu: return "mlu";
  case UnitKind::Vec: return "vec";
  case UnitKind::Re: return "re";
  }
  return "?";
}

const char *reDirName(ReDir d) {
  switch (d) {
  case ReDir::North: return "north";
  case ReDir::South: return "south";
  case ReDir::West: return "west";
  case ReDir::East: return "east";
  }
  return "?";
}

UnitKind unitOf(CmdKind k) {
  switch (k) {
  case CmdKind::DmaIn:
  case CmdKind::GatherIn:
  case CmdKind::FenceIn: return UnitKind::DmaIn;
  case CmdKind::DmaOut:
  case CmdKind::ScatterOut:
  case CmdKind::AtomicRmw:
  case CmdKind::AtomicCas:
  case CmdKind::FenceOut: return UnitKind::DmaOut;
  case CmdKind::Se:
  case CmdKind::SeReduce:
  case CmdKind::SeIota:
  case CmdKind::SeScan:
  case CmdKind::SeHistogram:
  case CmdKind::SeGather: return UnitKind::Se;
  case CmdKind::Dpe: return UnitKind::Dpe;
  case CmdKind::MluCopy: return UnitKind::Mlu;
  case CmdKind::Vec:
  case CmdKind::VecLoop: return UnitKind::Vec;
  case CmdKind::ReSend:
  case CmdKind::ReRecv: return UnitKind::Re;
  case CmdKind::NocSend: return UnitKind::DmaOut;
  case CmdKind::NocRecv: return UnitKind::DmaIn;
  }
  return UnitKind::Se;
}

bool accessesMemory(CmdKind k) {
  const UnitKind u = unitOf(k);
  return (u == UnitKind::DmaIn || u == UnitKind::DmaOut) && !isFence(k) &&
         k != CmdKind::NocSend && k != CmdKind::NocRecv;
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
  case CmdKind::Vec:
    return std::string("vec.") + seOpName(SeOp(l.op)) + cb + std::to_string(l.amount) + "el";
  case CmdKind::SeReduce:
    return std::string("seReduce.") + reduceOpName(ReduceOp(l.op)) + cb +
           std::to_string(l.amount) + "el";
  case CmdKind::SeIota: return "seIota" + cb + std::to_string(l.amount) + "el";
  case CmdKind::Dpe: return "dpe" + cb + std::to_string(l.amount) + "mac";
  case CmdKind::MluCopy: return "mluCopy" + cb + std::to_string(l.amount) + "B";
  case CmdKind::SeScan:
    return std::string("seScan.") + reduceOpName(ReduceOp(l.op)) + cb +
           std::to_string(l.amount) + "el";
  case CmdKind::SeHistogram: return "seHistogram" + cb + std::to_string(l.amount) + "el";
  case CmdKind::SeGather: return "seGather" + cb + std::to_string(l.amount) + "el";
  case CmdKind::AtomicRmw: return "atomicRmw" + cb + std::to_string(l.amount) + "el";
  case CmdKind::AtomicCas: return "atomicCas" + cb + std::to_string(l.amount) + "el";
  case CmdKind::ReSend: return "reSend" + cb + std::to_string(l.amount) + "B";
  case CmdKind::ReRecv:
    return std::string("reRecv.") + reduceOpName(ReduceOp(l.op)) + cb +
           std::to_string(l.amount) + "B";
  case CmdKind::VecLoop:
    return "vecLoop[" + std::to_string(l.op) + " steps]" + cb + std::to_string(l.amount) + "el";
  case CmdKind::NocSend:
    return std::string("nocBroadcast.") + (l.op ? "row" : "column") + cb + std::to_string(l.amount) + "B";
  case CmdKind::NocRecv:
    return std::string("nocRecv.") + (l.op ? "row" : "column") + cb + std::to_string(l.amount) + "B";
  case CmdKind::FenceIn: return "fence loads after stores";
  case CmdKind::FenceOut: return "fence stores after loads";
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
  case CmdKind::Se:
  case CmdKind::Vec:
  case CmdKind::VecLoop:
  case CmdKind::SeReduce: l.amount = (restricted ? valid : shape).numElements(); break;
  case CmdKind::SeIota: l.amount = write.len / dtypeSize(dtype); break;
  case CmdKind::Dpe: l.amount = gemm[0] * gemm[1] * gemm[2]; break;
  case CmdKind::MluCopy: l.amount = write.len; break;
  case CmdKind::SeScan:
  case CmdKind::SeHistogram:
  case CmdKind::SeGather:
  case CmdKind::AtomicRmw:
  case CmdKind::AtomicCas: l.amount = shape.numElements(); break;
  case CmdKind::ReSend:
  case CmdKind::ReRecv:
  case CmdKind::NocSend:
  case CmdKind::NocRecv: l.amount = shape.numElements() * dtypeSize(dtype); break;
  case CmdKind::FenceIn:
  case CmdKind::FenceOut: break;
  }
  return l;
}

std::string Command::describe() const {
  std::string text = "#" + std::to_string(seq) + " " + formatLabel(label());
  if (line > 0)
    text += " (line " + std::to_string(line) + ")";
  return text;
}

} // namespace mtia::sim
