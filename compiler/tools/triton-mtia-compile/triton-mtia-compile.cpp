//===- triton-mtia-compile.cpp - ttir text to kernel C++ ------------------===//
//
// The compiler the Python backend runs: reads the ttir Triton printed, lowers
// it to MTIA commands and writes the kernel as C++ or, with --emit-llvm, as
// LLVM IR (the paper's two code generation paths).
//
//   triton-mtia-compile kernel.ttir -o kernel.cpp [--emit-mlir] [--no-scalar-cost]
//   triton-mtia-compile kernel.ttir -o kernel.ll --emit-llvm
//   triton-mtia-compile --serve      (many kernels, one process; see serve())
//
// Errors are printed as `FILE:LINE:COL: error: MESSAGE`, where FILE:LINE is
// the Triton kernel's Python source when the IR carries it, followed by the
// source line itself.
//
// A compile always ends: every retry is bounded, and a compile that runs
// past --time-limit stops with an error that names the kernel and the stage
// it was in (Watchdog below).
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Conversion/Passes.h"
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h"
#include "triton-mtia/Dialect/MTIA/Transforms/ResourceShortage.h"
#include "triton-mtia/Dialect/TT/Transforms/Passes.h"
#include "triton-mtia/InitAllDialects.h"
#include "triton-mtia/Pipeline/Pipeline.h"
#include "triton-mtia/Support/SourceLocation.h"
#include "triton-mtia/Target/Cpp/MTIAToCpp.h"
#include "triton-mtia/Target/LLVMIR/MTIAToLLVMIR.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include "llvm/ADT/StringSet.h"

#include "mtia/device.h" // kMaxCbs

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fcntl.h>
#include <iostream>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.ttir>"),
                                      cl::Required);
static cl::opt<std::string> outputFile("o", cl::desc("output C++ file"),
                                       cl::value_desc("file"), cl::init("-"));
static cl::opt<bool> emitMlir("emit-mlir",
                              cl::desc("print the mtia-level IR instead of C++"));
static cl::opt<bool> emitLlvm(
    "emit-llvm",
    cl::desc("write the kernel as LLVM IR instead of C++ (the LLVM IR path; link "
             "the object of mtia/llvm_support.h into its shared object)"));
static cl::opt<std::string> llvmIrOut(
    "llvm-ir-out", cl::value_desc("file"),
    cl::desc("also write the kernel as LLVM IR to this file, from the same lowering "
             "(the Python backend's asm['llir'] on the C++ path)"));
static cl::opt<int64_t> stackLimit(
    "stack-limit", cl::init(0),
    cl::desc("with --emit-llvm: bytes of stack frame beyond which clang warns "
             "(-Wframe-larger-than, which clang applies to C++ only); 0: none"));
static cl::opt<bool> dmaReport(
    "dma-report",
    cl::desc("print a remark for every load or store that is not a DMA, and why"));
static cl::opt<bool> poisonMaskedLoads(
    "poison-masked-loads",
    cl::desc("masked-out lanes of loads without `other` become NaN / the most "
             "negative integer instead of zero (a check mode)"));

static cl::opt<unsigned> timeLimit(
    "time-limit", cl::init(300),
    cl::desc("seconds a compile may take; past them it stops with an error that "
             "names the kernel and the stage (0: no limit)"));

static cl::opt<bool> stallForTesting(
    "stall-for-testing", cl::Hidden,
    cl::desc("never finish (in stage 'stall-for-testing'): the test of --time-limit"));

static cl::opt<int64_t> numStages(
    "num-stages", cl::init(3),
    cl::desc("tiles a CB filled inside a loop holds, Triton's num_stages "
             "(mtia-assign-cbs; 1 turns pipelining off)"));
static cl::opt<bool> noCbStacking(
    "no-cb-stacking",
    cl::desc("never stack tiles in one CB (mtia-assign-cbs); kernels with more live "
             "tiles than CBs are rematerialized instead"));
static cl::opt<bool> noIndexMath(
    "no-index-math",
    cl::desc("leave `//` and `%` in addresses to gathers and scatters instead of "
             "splitting the block into the digits of an N-D DMA "
             "(convert-tt-to-mtia index-math=false)"));
static cl::opt<std::string> libdeviceUnit(
    "libdevice-unit", cl::init("auto"),
    cl::desc("where libdevice calls run: auto, se or vec "
             "(convert-tt-to-mtia libdevice-unit)"));
static cl::opt<bool> noVectorCoreSharing(
    "no-vector-core-sharing",
    cl::desc("keep every elementwise command on the SIMD engine (skip "
             "mtia-share-vector-core)"));
static cl::opt<bool> noElementwiseSplitting(
    "no-elementwise-splitting",
    cl::desc("never split an elementwise command between the SIMD engine and the "
             "vector core (mtia-share-vector-core split=false)"));
static cl::opt<bool> noVectorLoopFusion(
    "no-vector-loop-fusion",
    cl::desc("run each vector-core command as a loop of its own, its result through "
             "local memory (skip mtia-fuse-vector-loops)"));
static cl::opt<bool> noEffectiveShapes(
    "no-effective-shapes",
    cl::desc("let SE commands work on whole tiles even where a mask bounds the valid "
             "part (skip mtia-effective-shapes)"));
static cl::opt<bool> noCommandPipelining(
    "no-command-pipelining",
    cl::desc("issue each loop iteration's commands in program order (skip "
             "mtia-pipeline-commands)"));
static cl::opt<bool> noLoopSplitting(
    "no-loop-splitting",
    cl::desc("keep loops whose masks are all true on a prefix of their iterations "
             "whole (skip tt-split-masked-loops)"));
static cl::opt<bool> noDualIssue(
    "no-dual-issue",
    cl::desc("issue every command from the PE's scalar core (skip mtia-dual-issue)"));
static cl::opt<bool> noMemoryOrder(
    "no-memory-order",
    cl::desc("no fences between a program's loads and stores (skip "
             "mtia-order-memory): only to see the simulator's memory-order "
             "sanitizer catch what they prevent; programs that read their own "
             "writes then fault or give stale results"));
static cl::opt<bool> serveMode(
    "serve", cl::desc("compile kernel after kernel as requests on standard input "
                      "say (the Python backend's compile server; see serve())"));
// The chip the kernel is planned for: the simulator's parameters of the
// same names (the Python backend passes the configured simulator's, see
// runtime.COMPILER_PARAMETERS). The defaults are the mtia2i preset's.
static cl::OptionCategory chipCategory("The chip (the simulator's parameters)");
static cl::opt<int64_t> numCbs("num-cbs", cl::init(15), cl::cat(chipCategory),
                               cl::desc("physical CBs per PE (max_cbs)"));
static cl::opt<int64_t> localMemoryBytes("local-memory-bytes", cl::init(393216),
                                         cl::cat(chipCategory),
                                         cl::desc("bytes of PE local memory (local_memory_bytes)"));
static cl::opt<int64_t> seLanes("se-lanes", cl::init(32), cl::cat(chipCategory),
                                cl::desc("SE lanes for 32-bit elements (se_lanes)"));
static cl::opt<int64_t> seFillCycles("se-fill-cycles", cl::init(8), cl::cat(chipCategory),
                                     cl::desc("SE pipeline fill per command (se_fill_cycles)"));
static cl::opt<int64_t> vecBytesPerCycle("vec-bytes-per-cycle", cl::init(64),
                                         cl::cat(chipCategory),
                                         cl::desc("vector core bytes per cycle (vec_bytes_per_cycle)"));
static cl::opt<int64_t> vecFillCycles("vec-fill-cycles", cl::init(4), cl::cat(chipCategory),
                                      cl::desc("vector core fill per command (vec_fill_cycles)"));

/// Why the compiler cannot plan for the chip the options describe, naming
/// the parameter; "" when it can.
static std::string unplannableChip() {
  auto named = [](const cl::opt<int64_t> &option, StringRef why) {
    return ("cannot compile for this chip: --" + option.ArgStr + "=" +
            Twine(option.getValue()) + " " + why)
        .str();
  };
  if (numCbs < 1 || numCbs > ::mtia::kMaxCbs)
    return named(numCbs, "(max_cbs) is outside 1 to " + std::to_string(::mtia::kMaxCbs) +
                             ", the CBs the device ABI describes");
  if (localMemoryBytes < 1024)
    return named(localMemoryBytes, "(local_memory_bytes) is less than 1 KiB, which holds no tile");
  for (const cl::opt<int64_t> *rate : {&seLanes, &vecBytesPerCycle})
    if (*rate < 1)
      return named(*rate, "is no throughput");
  for (const cl::opt<int64_t> *fill : {&seFillCycles, &vecFillCycles})
    if (*fill < 0)
      return named(*fill, "is a negative time");
  return "";
}

static cl::opt<bool> fromMtia(
    "from-mtia",
    cl::desc("the input is a module at the mtia level (CBs assigned, as --emit-mlir prints "
             "it): emit it as it is, running no pass (the emitters' lit tests)"));
static cl::opt<std::string> resourceReport(
    "resource-report", cl::init(""),
    cl::desc("when the kernel does not fit a PE, write what it is short of to this file as "
             "JSON {\"resource\", \"required\", \"limit\"} (the Python backend's OutOfResources)"));

/// Writes --resource-report for a compile that failed for `shortage`.
static void writeResourceReport(const std::optional<triton_mtia::mtia::ResourceShortage> &shortage) {
  if (resourceReport.empty() || !shortage)
    return;
  std::error_code error;
  llvm::raw_fd_ostream os(resourceReport, error);
  if (error)
    return;
  llvm::json::Object report{{"resource", triton_mtia::mtia::resourceName(shortage->resource)},
                            {"required", shortage->required},
                            {"limit", shortage->limit}};
  os << llvm::json::Value(std::move(report)) << "\n";
}

static cl::opt<bool> noScalarCost(
    "no-scalar-cost",
    cl::desc("do not charge the core for the kernel's scalar code "
             "(skip mtia-scalar-cost: no scalarCycles calls)"));

/// Line `lineNo` (1-based) of `file`, or "".
static std::string sourceLine(StringRef file, unsigned lineNo) {
  auto buf = llvm::MemoryBuffer::getFile(file);
  if (!buf)
    return "";
  SmallVector<StringRef> lines;
  (*buf)->getBuffer().split(lines, '\n');
  return lineNo >= 1 && lineNo <= lines.size() ? lines[lineNo - 1].trim().str() : "";
}

static void printDiagnostic(llvm::raw_ostream &os, StringRef severity,
                            std::optional<FileLineColLoc> loc, StringRef message) {
  if (loc)
    os << loc->getFilename().getValue() << ":" << loc->getLine() << ":" << loc->getColumn()
       << ": ";
  os << severity << ": " << message << "\n";
  if (loc) {
    std::string text = sourceLine(loc->getFilename().getValue(), loc->getLine());
    if (!text.empty())
      os << "    " << text << "\n";
  }
}

/// When the parser rejects the ttir (an op our tt dialect does not define),
/// its location is a line of the ttir text. Triton's text names the kernel
/// source line through `loc(#locN)` aliases; follow them to report the op
/// against the Python source instead.
static bool reportParseErrorAtSource(StringRef ttir, unsigned ttirLine,
                                     StringRef message) {
  SmallVector<StringRef> lines;
  ttir.split(lines, '\n');
  if (ttirLine == 0 || ttirLine > lines.size())
    return false;
  StringRef text = lines[ttirLine - 1];
  // Alias table: #locN = loc("file":L:C) or loc("name"(#locM)) or callsite.
  llvm::StringMap<std::string> aliases;
  llvm::Regex aliasRe("^(#loc[0-9]*) = loc\\((.*)\\)$");
  for (StringRef l : lines) {
    SmallVector<StringRef> m;
    if (aliasRe.match(l.trim(), &m))
      aliases[m[1]] = m[2].str();
  }
  llvm::Regex fileRe("\"([^\"]+)\":([0-9]+):([0-9]+)");
  llvm::Regex refRe("(#loc[0-9]*)");
  std::string current = text.str();
  for (int depth = 0; depth < 16; ++depth) {
    SmallVector<StringRef> m;
    if (fileRe.match(current, &m)) {
      unsigned line = 0, col = 0;
      m[2].getAsInteger(10, line);
      m[3].getAsInteger(10, col);
      llvm::errs() << m[1] << ":" << line << ":" << col << ": error: " << message
                   << "\n";
      std::string src = sourceLine(m[1], line);
      if (!src.empty())
        llvm::errs() << "    " << src << "\n";
      return true;
    }
    if (!refRe.match(current, &m) || !aliases.count(m[1]))
      return false;
    current = aliases[m[1]];
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Watchdog
//===----------------------------------------------------------------------===//
//
// A compiler that loops forever takes its caller down with it: a test suite
// or an autotuning sweep waits, and its memory may grow without end. Every
// retry loop of the tool is bounded; the watchdog is what still ends a
// compile when some pass is not. A thread waits for the time limit; if the
// compile has not finished by then it prints which kernel was in which stage
// and ends the process (in the compile server, after answering the request,
// so the client reads an ordinary failed compile and starts a new server).

namespace {
/// What the compile is doing, for the watchdog's message: the kernel and
/// the stage (a pass, with the retry it belongs to). Written by the
/// compiling thread, read by the watchdog; the strings are interned and
/// never freed, so a pointer read at any time stays valid.
std::atomic<const char *> currentKernel{""};
std::atomic<const char *> currentStage{"start"};

const char *intern(StringRef text) {
  static llvm::StringSet<> strings;
  return strings.insert(text).first->getKeyData();
}

class Watchdog {
public:
  /// `answer`: write the compile server's answer before exiting.
  Watchdog(unsigned seconds, bool answer) {
    if (seconds == 0)
      return;
    thread = std::thread([this, seconds, answer] {
      std::unique_lock<std::mutex> lock(mutex);
      if (wake.wait_for(lock, std::chrono::seconds(seconds), [this] { return done; }))
        return;
      std::string message = "error: kernel '" + std::string(currentKernel.load()) +
                            "': the compiler ran past its time limit of " + std::to_string(seconds) +
                            " s (--time-limit) in stage '" + currentStage.load() +
                            "'; this is a compiler bug: please report it with this kernel's ttir\n";
      ssize_t ignored = ::write(2, message.data(), message.size());
      if (answer) {
        static const char status[] = "{\"status\": 3}\n";
        ignored = ::write(1, status, sizeof status - 1);
      }
      (void)ignored;
      ::_exit(3);
    });
  }
  ~Watchdog() {
    if (!thread.joinable())
      return;
    {
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
    }
    wake.notify_all();
    thread.join();
  }

private:
  std::thread thread;
  std::mutex mutex;
  std::condition_variable wake;
  bool done = false;
};

/// Names the running pass as the stage, with the attempt it belongs to.
struct StageInstrumentation : public PassInstrumentation {
  explicit StageInstrumentation(std::string attempt) : attempt(std::move(attempt)) {}
  void runBeforePass(Pass *pass, Operation *) override {
    currentStage = intern((pass->getArgument() + attempt).str());
  }
  std::string attempt;
};
} // namespace

/// Block parts tried at most when the tiles do not fit local memory (the
/// block in 2, 4, ... parts): tt-split-blocks stops applying long before.
static constexpr int64_t kMaxBlockParts = 1 << 12;

/// Compiles `inputFile` as the parsed options say; the process's exit
/// status.
static int compileKernel() {
  if (std::string why = unplannableChip(); !why.empty()) {
    llvm::errs() << "error: " << why << "\n";
    return 1;
  }
  DialectRegistry registry;
  triton_mtia::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);

  auto input = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!input) {
    llvm::errs() << "error: cannot read " << inputFile << "\n";
    return 1;
  }
  std::string ttirText = (*input)->getBuffer().str();

  // Diagnostics point at the kernel's Python source; a parse error points at
  // the ttir text and is mapped back to the source through its loc aliases.
  bool parsing = true;
  // Diagnostics are collected and printed once the outcome is known: a first
  // lowering that runs out of CBs is retried, and its errors are not the
  // kernel's.
  std::string diagnostics;
  bool buffering = true, outOfCbs = false, outOfMemory = false;
  // What mtia-assign-cbs found the last attempt short of (a typed result,
  // ResourceShortage.h), and the first attempt's, which an error reports.
  std::optional<triton_mtia::mtia::ResourceShortage> shortage, asWrittenShortage;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    StringRef severity = diag.getSeverity() == DiagnosticSeverity::Error ? "error"
                         : diag.getSeverity() == DiagnosticSeverity::Warning
                             ? "warning"
                         : diag.getSeverity() == DiagnosticSeverity::Remark
                             ? "remark"
                             : "note";
    std::string message = diag.str();
    if (parsing) {
      if (auto flc = triton_mtia::getSourceLoc(diag.getLocation())) {
        StringRef opName;
        llvm::Regex opRe("'([a-z_]+\\.[a-z_.]+)'");
        SmallVector<StringRef> m;
        std::string msg = message;
        if (opRe.match(msg, &m))
          message = ("operation '" + m[1] +
                     "' is not supported by the MTIA backend yet (" + msg + ")")
                        .str();
        if (reportParseErrorAtSource(ttirText, flc->getLine(), message))
          return success();
      }
    }
    llvm::raw_string_ostream buffer(diagnostics);
    llvm::raw_ostream &os = buffering ? static_cast<llvm::raw_ostream &>(buffer) : llvm::errs();
    printDiagnostic(os, severity, triton_mtia::getSourceLoc(diag.getLocation()), message);
    for (Diagnostic &note : diag.getNotes())
      printDiagnostic(os, "note", triton_mtia::getSourceLoc(note.getLocation()), note.str());
    return success();
  });

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(ttirText, inputFile),
                               llvm::SMLoc());
  currentKernel = intern(llvm::sys::path::filename(inputFile));
  currentStage = "parse";
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module) {
    llvm::errs() << diagnostics;
    return 1;
  }
  parsing = false;
  module->walk([&](Operation *op) {
    if (auto name = op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName())) {
      currentKernel = intern(name.getValue());
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (stallForTesting) {
    currentStage = "stall-for-testing";
    for (;;)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  }

  auto lower = [&](ModuleOp m, unsigned rematerialize, bool pipelineCommands, bool splitLoops,
                   bool loadsEarly, int64_t parts) {
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    std::string attempt;
    if (rematerialize || parts > 1 || !pipelineCommands || !splitLoops || !loadsEarly)
      attempt = " (retry: rematerialize level " + std::to_string(rematerialize) + ", block in " +
                std::to_string(parts) + " parts" + (pipelineCommands ? "" : ", commands in order") +
                (splitLoops ? "" : ", loops whole") + (loadsEarly ? "" : ", loads in place") + ")";
    pm.addInstrumentation(std::make_unique<StageInstrumentation>(attempt));
    triton_mtia::MTIAPipelineOptions options;
    options.dmaReport = dmaReport;
    options.poisonMaskedLoads = poisonMaskedLoads;
    options.rematerialize = rematerialize;
    options.indexMath = !noIndexMath;
    options.libdeviceUnit = libdeviceUnit;
    options.loopSplitting = splitLoops;
    options.effectiveShapes = !noEffectiveShapes;
    options.commandPipelining = pipelineCommands;
    options.loadsEarly = loadsEarly;
    options.memoryOrder = !noMemoryOrder;
    options.vectorCoreSharing = !noVectorCoreSharing;
    options.elementwiseSplitting = !noElementwiseSplitting;
    options.vectorLoopFusion = !noVectorLoopFusion;
    options.cbStacking = !noCbStacking;
    options.numStages = numStages;
    options.dualIssue = !noDualIssue;
    options.scalarCost = !noScalarCost;
    options.numCbs = numCbs;
    options.localMemoryBytes = localMemoryBytes;
    options.seLanes = seLanes;
    options.seFillCycles = seFillCycles;
    options.vecBytesPerCycle = vecBytesPerCycle;
    options.vecFillCycles = vecFillCycles;
    triton_mtia::buildMTIAPipeline(pm, options);
    return pm.run(m);
  };
  // Too many tiles live at once (beyond what mtia-assign-cbs can stack):
  // recompute instead of holding them (tt-rematerialize), loads first,
  // then computed tiles too. Tiles too large for local memory: the block in
  // 2, 4, 8, ... parts, when the kernel is elementwise (SplitBlocks.cpp). If
  // nothing fits, the kernel as written is what the error describes.
  OwningOpRef<ModuleOp> lowered;
  std::string asWritten;
  for (int64_t parts = 1; !fromMtia; parts *= 2) {
    OwningOpRef<ModuleOp> source = module->clone();
    if (parts > kMaxBlockParts) {
      llvm::errs() << asWritten;
      writeResourceReport(asWrittenShortage);
      return 1;
    }
    if (parts > 1) {
      currentStage = "tt-split-blocks";
      PassManager pm(&context);
      triton_mtia::tt::TTSplitBlocksOptions split;
      split.factor = parts;
      pm.addPass(triton_mtia::tt::createTTSplitBlocks(split));
      bool applied = false;
      if (succeeded(pm.run(*source)))
        source->walk([&](Operation *op) { applied |= op->hasAttr("mtia.split_factor"); });
      if (!applied) {
        llvm::errs() << asWritten;
        writeResourceReport(asWrittenShortage);
        return 1;
      }
    }
    bool finer = false;
    for (unsigned level = 0;; ++level) {
      // Loads issued early go with command pipelining (its switch).
      auto attempt = [&](bool pipelineCommands, bool splitLoops, bool loadsEarly) {
        diagnostics.clear();
        lowered = source->clone();
        (void)triton_mtia::mtia::takeResourceShortage();
        bool done = succeeded(lower(*lowered, level, pipelineCommands, splitLoops, loadsEarly, parts));
        shortage = triton_mtia::mtia::takeResourceShortage();
        using triton_mtia::mtia::Resource;
        outOfCbs = !done && shortage && shortage->resource == Resource::CircularBuffers;
        outOfMemory = !done && shortage && shortage->resource == Resource::LocalMemory;
        return done;
      };
      const bool early = !noCommandPipelining;
      if (attempt(!noCommandPipelining, !noLoopSplitting, early))
        break;
      // What an optimization added can be what does not fit: the tiles a
      // split loop hands to its second part, those stage 0 of a pipelined
      // loop holds for the next iteration, or the tiles of loads issued
      // early. The same lowering without the split first, then with the
      // loops in program order, then with every load where it was written.
      auto changed = [&](StringRef attr) {
        bool found = false;
        lowered->walk([&](func::FuncOp f) { found |= f->hasAttr(attr); });
        return found;
      };
      bool split = (*lowered)->hasAttr(triton_mtia::tt::kSplitLoopsAttr);
      if (split && (outOfCbs || outOfMemory) && attempt(!noCommandPipelining, false, early))
        break;
      if (changed(triton_mtia::mtia::kPipelinedLoopsAttr) && (outOfCbs || outOfMemory) &&
          attempt(false, false, early))
        break;
      if (changed(triton_mtia::mtia::kEarlyLoadsAttr) && (outOfCbs || outOfMemory) &&
          attempt(false, false, false))
        break;
      if (parts == 1 && level == 0) {
        asWritten = diagnostics;
        asWrittenShortage = shortage;
      }
      if (outOfMemory) {
        finer = true;
        break;
      }
      if (!outOfCbs || level == 3) {
        llvm::errs() << (outOfCbs ? asWritten : diagnostics);
        writeResourceReport(outOfCbs ? asWrittenShortage : shortage);
        return 1;
      }
    }
    if (!finer)
      break;
  }
  llvm::errs() << diagnostics; // remarks of the successful lowering
  buffering = false;
  if (!fromMtia)
    module = std::move(lowered);

  std::string error;
  auto output = openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  currentStage = emitMlir ? "print" : emitLlvm ? "emit LLVM IR" : "emit C++";
  if (emitMlir)
    module->print(output->os());
  else if (emitLlvm) {
    if (failed(triton_mtia::translateToLLVMIR(*module, output->os(), stackLimit)))
      return 1;
  } else if (failed(triton_mtia::translateToCpp(*module, output->os())))
    return 1;
  if (!llvmIrOut.empty() && !emitMlir && !emitLlvm) {
    // After the C++: the LLVM IR lowering rewrites the module in place.
    currentStage = "emit LLVM IR";
    auto llvmIr = openOutputFile(llvmIrOut, &error);
    if (!llvmIr) {
      llvm::errs() << "error: " << error << "\n";
      return 1;
    }
    if (failed(triton_mtia::translateToLLVMIR(*module, llvmIr->os(), stackLimit)))
      return 1;
    llvmIr->keep();
  }
  output->keep();
  return 0;
}

/// The compile server (--serve): one process compiles kernel after kernel, so
/// that a kernel pays for its compile and not for the process's start
/// (loading and relocating libMLIR and libLLVM is about 55 of the 65 ms a
/// small kernel takes one-shot).
///
/// Protocol, one line each way per kernel: the client writes a JSON object
/// {"args": [ARG, ...], "log": PATH}, ARGs being the command line of a
/// one-shot run without the program's name; the server compiles with
/// standard error redirected to the file PATH (diagnostics, remarks and a
/// crash's stack trace land there, as they would on a one-shot run's
/// stderr) and answers {"status": N}, N the one-shot exit status. Options
/// are reset to their defaults before each request's are parsed, so a
/// request sees exactly its own flags. Standard output is the protocol's,
/// so `-o -` is refused. The server exits at the end of its input; a crash
/// ends it (the client sees the pipe close and starts another).
static int serve() {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty())
      continue;
    std::vector<std::string> args;
    std::string logPath;
    llvm::Expected<llvm::json::Value> request = llvm::json::parse(line);
    if (request)
      if (const llvm::json::Object *object = request->getAsObject()) {
        if (std::optional<StringRef> log = object->getString("log"))
          logPath = log->str();
        if (const llvm::json::Array *array = object->getArray("args"))
          for (const llvm::json::Value &arg : *array)
            if (std::optional<StringRef> text = arg.getAsString())
              args.push_back(text->str());
      }
    if (!request)
      llvm::consumeError(request.takeError());

    int status = 2;
    int log = logPath.empty() ? -1 : ::open(logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log >= 0) {
      llvm::errs().flush();
      int savedStderr = ::dup(2);
      ::dup2(log, 2);
      ::close(log);
      cl::ResetAllOptionOccurrences();
      std::vector<const char *> argv = {"triton-mtia-compile"};
      for (const std::string &arg : args)
        argv.push_back(arg.c_str());
      if (!cl::ParseCommandLineOptions(argv.size(), argv.data(), "", &llvm::errs()))
        status = 1;
      else if (outputFile == "-" || inputFile == "-") {
        llvm::errs() << "error: the compile server reads and writes files, not "
                        "standard input and output\n";
        status = 1;
      } else {
        status = compileKernel();
      }
      llvm::errs().flush();
      ::dup2(savedStderr, 2);
      ::close(savedStderr);
    }
    std::cout << "{\"status\": " << status << "}" << std::endl;
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // MLIR's pass-manager flags: --mlir-print-ir-after-all (the IR between
  // stages), --mlir-print-ir-before/after=<pass>, --mlir-pass-statistics.
  registerPassManagerCLOptions();
  registerAsmPrinterCLOptions();
  if (argc == 2 && (StringRef(argv[1]) == "--serve" || StringRef(argv[1]) == "-serve"))
    return serve();
  cl::ParseCommandLineOptions(argc, argv, "triton-mtia: ttir -> kernel C++\n");
  if (serveMode) {
    llvm::errs() << "error: --serve takes no other arguments\n";
    return 1;
  }
  Watchdog watchdog(timeLimit, /*answer=*/false);
  return compileKernel();
}
