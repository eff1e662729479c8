//===- command.h - A command in flight between core and unit ----*- C++ -*-===//
//
// What the core hands to a unit: the call's arguments, plus the CB ranges the
// command writes and reads, resolved at issue time against the issue cursors
// (program order). Commands are plain data stored in each unit's fixed ring,
// so issuing one allocates nothing.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_COMMAND_H
#define MTIA_SIM_COMMAND_H

#include "mtia/device.h"
#include "mtia/sim/event_queue.h"

#include <cstdint>
#include <string>

namespace mtia::sim {

/// The units of a PE that execute commands, in stats/trace order. Atomics
/// run on dma_out, so they are ordered after the stores issued before them
/// (the release of a spin lock follows the data it protects).
enum class UnitKind : uint8_t { DmaIn, DmaOut, Se, Dpe, Mlu, Vec, Re };
constexpr int kNumUnits = 7;
/// "dma_in", "dma_out", "se", "dpe", "mlu", "vec", "re".
const char *unitName(UnitKind u);

enum class CmdKind : uint8_t {
  DmaIn, DmaOut, GatherIn, ScatterOut, Se, SeReduce, SeIota,
  Dpe, MluCopy, SeScan, SeHistogram, SeGather, AtomicRmw, AtomicCas, Vec,
  ReSend, ReRecv, ///< reduction engine; `axis` holds the ReDir
  /// Memory order (device.h `fence`): on dma_in, waits for dma_out's
  /// commands issued before it to complete; on dma_out, for dma_in's.
  FenceIn, FenceOut,
  VecLoop, ///< a fused loop of `steps` on the vector core
  /// NoC broadcast along a PE row or column (`axis` 1 or 0): the sending
  /// side on dma_out, the receiving side on dma_in. No memory access.
  NocSend, NocRecv,
};
/// Whether `k` reads or writes memory (the fabric commands but fences and
/// NoC broadcasts).
bool accessesMemory(CmdKind k);
constexpr bool isFence(CmdKind k) { return k == CmdKind::FenceIn || k == CmdKind::FenceOut; }
/// The other fabric unit: dma_in <-> dma_out (what a fence on `u` waits for).
constexpr UnitKind otherFabricUnit(UnitKind u) {
  return u == UnitKind::DmaIn ? UnitKind::DmaOut : UnitKind::DmaIn;
}
UnitKind unitOf(CmdKind k);
/// "north", "south", "west", "east".
const char *reDirName(ReDir d);

/// Bytes [pos, pos+len) of CB `cb`. For reads, `front` is the position the
/// command's element indices count from (the issue read cursor).
struct CbRange {
  int32_t cb = -1;
  int64_t pos = 0;
  int64_t len = 0;
  int64_t front = 0;
};

/// How trace events and fault messages name a command: "dmaIn cb0 4096B",
/// "se.Add cb2 1024el".
struct CommandLabel {
  CmdKind kind = CmdKind::DmaIn;
  int32_t cb = -1;
  uint16_t op = 0;
  int64_t amount = 0; ///< bytes for DMA and MLU commands, elements for SE
                      ///< ones, MACs for the DPE
};
std::string formatLabel(const CommandLabel &l);

struct Command {
  CmdKind kind = CmdKind::DmaIn;
  DType dtype = DType::F32;
  uint64_t seq = 0;  ///< issue order on the PE (pops included)
  Cycle ready = 0;   ///< core time at issue
  uint32_t program = 0; ///< which of the PE's programs issued it (0, 1, ...)
  int32_t line = 0;     ///< the kernel's source line (Ctx::line; 0: unknown)
  CbRange write;     ///< the produced tile (cb < 0: none)
  /// SE operands in order (a vecLoop's inputs); DMA: data, addresses,
  /// mask; dpe: a, b, acc; seGather: src, index; seHistogram: src, mask;
  /// atomics: addresses, value / cmp, mask / value.
  CbRange reads[kMaxLoopInputs];
  int32_t numReads = 0;

  // Arguments, as passed to the DeviceOps call.
  uint64_t addr = 0;
  Box box;
  Shape shape;
  Operand operands[kMaxLoopInputs];
  int32_t numOperands = 0;
  VecStep steps[kMaxLoopSteps]; ///< vecLoop
  int32_t numSteps = 0;
  Operand pad;
  uint16_t op = 0;      ///< SeOp or ReduceOp
  int32_t axis = 0;
  int64_t iotaStart = 0;
  int32_t addrCb = -1;  ///< gather/scatter/atomic address tile
  int32_t maskCb = -1;  ///< gather/scatter/atomic/histogram mask (-1: none)
  int64_t gemm[3] = {0, 0, 0}; ///< dpe: m, n, k
  Shape srcShape;       ///< seGather: the source's shape
  int64_t numBins = 0;  ///< seHistogram
  bool reverse = false; ///< seScan
  uint64_t fenceAfter = 0; ///< fences: the other unit's commands to complete
  /// device.h replaceFront: the bytes of the write CB's front tile, at
  /// `replacesAt`, that the command pops as it reads them (0: none). It may
  /// write over them once every earlier reader is done.
  int64_t replaces = 0;
  int64_t replacesAt = 0;
  /// device.h validBox: the command works on the box [0, valid) of `shape`
  /// only; a reduction reads the lanes outside it as `fill`.
  bool restricted = false;
  Shape valid;
  Operand fill;

  /// Calls f(range) once per distinct CB the command reads.
  template <class F> void forEachReadCb(F &&f) const {
    for (int32_t i = 0; i < numReads; ++i) {
      bool seen = reads[i].cb < 0;
      for (int32_t j = 0; j < i && !seen; ++j)
        seen = reads[j].cb == reads[i].cb;
      if (!seen)
        f(reads[i]);
    }
  }

  /// The CB a fault or trace names first: the written one, else the first read.
  int32_t mainCb() const { return write.cb >= 0 ? write.cb : reads[0].cb; }
  /// Bytes for DMA commands (the dense tile), elements for SE commands.
  CommandLabel label() const;
  /// "#12 dmaIn cb0 4096B".
  std::string describe() const;
};

} // namespace mtia::sim

#endif // MTIA_SIM_COMMAND_H
