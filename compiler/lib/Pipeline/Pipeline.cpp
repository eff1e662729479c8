//===- Pipeline.cpp - The compiler's pass pipeline, from options ----------===//
//
// The order is the paper's Figure 4: ingest rewrites on tt, the lowering to
// commands on virtual CBs, then the mtia optimizations, and last the
// passes that fix resources (CB assignment) and cost (dual issue, the
// scalar code's cycles), which must see the final commands.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Pipeline/Pipeline.h"

#include "triton-mtia/Conversion/Passes.h"
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h"
#include "triton-mtia/Dialect/TT/Transforms/Passes.h"
#include "triton-mtia/Target/LLVMIR/MTIAToLLVMIR.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <algorithm>

using namespace mlir;

void triton_mtia::buildMTIAPipeline(OpPassManager &pm, const MTIAPipelineOptions &options) {
  ConvertTTToMTIAOptions lowering;
  lowering.dmaReport = options.dmaReport;
  lowering.poisonMaskedLoads = options.poisonMaskedLoads;
  lowering.indexMath = options.indexMath;
  lowering.libdeviceUnit = options.libdeviceUnit;
  pm.addPass(tt::createTTI1ArithToLogic());
  pm.addPass(tt::createTTDecomposeCat());
  pm.addPass(tt::createTTDecomposeDotScaled());
  if (options.loopSplitting)
    pm.addPass(tt::createTTSplitMaskedLoops());
  pm.addPass(tt::createTTInlineCalls());
  pm.addPass(tt::createTTStructurizeReturns());
  if (options.rematerialize > 0) {
    tt::TTRematerializeOptions rematerialize;
    rematerialize.strength = options.rematerialize;
    pm.addPass(tt::createTTRematerialize(rematerialize));
  }
  pm.addPass(createConvertTTToMTIA(lowering));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(mtia::createMTIALegalizeRank());
  if (options.effectiveShapes)
    pm.addNestedPass<func::FuncOp>(mtia::createMTIAEffectiveShapes());
  if (options.commandPipelining)
    pm.addNestedPass<func::FuncOp>(mtia::createMTIAPipelineCommands());
  if (options.loadsEarly)
    pm.addNestedPass<func::FuncOp>(mtia::createMTIAIssueLoadsEarly());
  if (options.memoryOrder)
    pm.addNestedPass<func::FuncOp>(mtia::createMTIAOrderMemory());
  if (options.vectorCoreSharing) {
    mtia::MTIAShareVectorCoreOptions sharing;
    sharing.split = options.elementwiseSplitting;
    sharing.fuse = options.vectorLoopFusion;
    sharing.seLanes = options.seLanes;
    sharing.seFillCycles = options.seFillCycles;
    sharing.vecBytesPerCycle = options.vecBytesPerCycle;
    sharing.vecFillCycles = options.vecFillCycles;
    pm.addNestedPass<func::FuncOp>(mtia::createMTIAShareVectorCore(sharing));
  }
  if (options.vectorLoopFusion)
    pm.addNestedPass<func::FuncOp>(mtia::createMTIAFuseVectorLoops());
  pm.addNestedPass<func::FuncOp>(mtia::createMTIAReplaceFront());
  mtia::MTIAAssignCBsOptions cbs;
  cbs.numStages = std::max<int64_t>(options.numStages, 1);
  cbs.stacking = options.cbStacking;
  cbs.numCbs = options.numCbs;
  cbs.localMemoryBytes = options.localMemoryBytes;
  pm.addNestedPass<func::FuncOp>(mtia::createMTIAAssignCBs(cbs));
  if (options.dualIssue)
    pm.addNestedPass<func::FuncOp>(mtia::createMTIADualIssue());
  if (options.scalarCost)
    pm.addNestedPass<func::FuncOp>(mtia::createMTIAScalarCost());
}

void triton_mtia::registerMTIAPipelines() {
  PassPipelineRegistration<MTIAPipelineOptions>(
      "mtia-pipeline", "ttir to the mtia level: triton-mtia-compile's lowering and optimizations",
      buildMTIAPipeline);
  PassPipelineRegistration<>("mtia-to-llvm-pipeline",
                             "the mtia level to the LLVM dialect (the LLVM IR code generation path)",
                             buildLLVMLoweringPipeline);
}
