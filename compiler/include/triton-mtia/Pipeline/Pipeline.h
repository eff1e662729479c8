//===- Pipeline.h - The compiler's pass pipeline, from options --*- C++ -*-===//
//
// The passes that take a kernel from ttir to the mtia level, in one place:
// triton-mtia-compile builds each of its attempts with it, and
// triton-mtia-opt runs it as the named pipeline `mtia-pipeline` (lit tests
// of the whole lowering, and a user's look at it). The lowering from the
// mtia level to the LLVM dialect is its own named pipeline,
// `mtia-to-llvm-pipeline` (Target/LLVMIR's buildLLVMLoweringPipeline).
//
//===----------------------------------------------------------------------===//

#ifndef TRITON_MTIA_PIPELINE_PIPELINE_H
#define TRITON_MTIA_PIPELINE_PIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::triton_mtia {

/// What shapes the pipeline: the optimizations (each on by default, as
/// triton-mtia-compile's --no-<name> flags and Python's settings switch them
/// off), the chip it plans for (the simulator's parameters), and what a
/// retry changes (rematerialization, the optimizations an attempt drops).
struct MTIAPipelineOptions : public PassPipelineOptions<MTIAPipelineOptions> {
  // Lowering (convert-tt-to-mtia).
  Option<bool> dmaReport{*this, "dma-report", llvm::cl::desc("remark on every access that is not a DMA box"),
                         llvm::cl::init(false)};
  Option<bool> poisonMaskedLoads{*this, "poison-masked-loads",
                                 llvm::cl::desc("fill masked-off lanes of loads without `other` with NaN"),
                                 llvm::cl::init(false)};
  Option<bool> indexMath{*this, "index-math", llvm::cl::desc("recover `//` and `%` index math as N-D DMAs"),
                         llvm::cl::init(true)};
  Option<std::string> libdeviceUnit{*this, "libdevice-unit",
                                    llvm::cl::desc("where libdevice calls run: auto, se or vec"),
                                    llvm::cl::init("auto")};
  Option<unsigned> rematerialize{*this, "rematerialize",
                                 llvm::cl::desc("recompute tiles instead of holding them (0: none, 1: loads, "
                                                "2 and 3: computed tiles too)"),
                                 llvm::cl::init(0)};
  // Optimizations.
  Option<bool> loopSplitting{*this, "loop-splitting", llvm::cl::desc("tt-split-masked-loops"),
                             llvm::cl::init(true)};
  Option<bool> effectiveShapes{*this, "effective-shapes", llvm::cl::desc("mtia-effective-shapes"),
                               llvm::cl::init(true)};
  Option<bool> commandPipelining{*this, "command-pipelining", llvm::cl::desc("mtia-pipeline-commands"),
                                 llvm::cl::init(true)};
  Option<bool> loadsEarly{*this, "loads-early", llvm::cl::desc("mtia-issue-loads-early"), llvm::cl::init(true)};
  Option<bool> memoryOrder{*this, "memory-order", llvm::cl::desc("mtia-order-memory"), llvm::cl::init(true)};
  Option<bool> vectorCoreSharing{*this, "vector-core-sharing", llvm::cl::desc("mtia-share-vector-core"),
                                 llvm::cl::init(true)};
  Option<bool> elementwiseSplitting{*this, "elementwise-splitting",
                                    llvm::cl::desc("mtia-share-vector-core split"), llvm::cl::init(true)};
  Option<bool> vectorLoopFusion{*this, "vector-loop-fusion", llvm::cl::desc("mtia-fuse-vector-loops"),
                                llvm::cl::init(true)};
  Option<bool> cbStacking{*this, "cb-stacking", llvm::cl::desc("mtia-assign-cbs stacking"),
                          llvm::cl::init(true)};
  Option<int64_t> numStages{*this, "num-stages", llvm::cl::desc("mtia-assign-cbs num-stages"),
                            llvm::cl::init(3)};
  Option<bool> dualIssue{*this, "dual-issue", llvm::cl::desc("mtia-dual-issue"), llvm::cl::init(true)};
  Option<bool> scalarCost{*this, "scalar-cost", llvm::cl::desc("mtia-scalar-cost"), llvm::cl::init(true)};
  // The chip (the simulator's parameters of the same names; mtia2i's by default).
  Option<int64_t> numCbs{*this, "num-cbs", llvm::cl::desc("physical CBs per PE (max_cbs)"), llvm::cl::init(15)};
  Option<int64_t> localMemoryBytes{*this, "local-memory-bytes",
                                   llvm::cl::desc("bytes of PE local memory (local_memory_bytes)"),
                                   llvm::cl::init(393216)};
  Option<int64_t> seLanes{*this, "se-lanes", llvm::cl::desc("SE lanes for 32-bit elements"), llvm::cl::init(32)};
  Option<int64_t> seFillCycles{*this, "se-fill-cycles", llvm::cl::desc("SE fill per command"),
                               llvm::cl::init(8)};
  Option<int64_t> vecBytesPerCycle{*this, "vec-bytes-per-cycle", llvm::cl::desc("vector core bytes per cycle"),
                                   llvm::cl::init(64)};
  Option<int64_t> vecFillCycles{*this, "vec-fill-cycles", llvm::cl::desc("vector core fill per command"),
                                llvm::cl::init(4)};
};

/// Adds the passes from ttir to the mtia level (CBs assigned, costed) to
/// `pm`, a module pass manager.
void buildMTIAPipeline(OpPassManager &pm, const MTIAPipelineOptions &options);

/// Registers `mtia-pipeline` and `mtia-to-llvm-pipeline` (for -opt tools).
void registerMTIAPipelines();

} // namespace mlir::triton_mtia

#endif // TRITON_MTIA_PIPELINE_PIPELINE_H
