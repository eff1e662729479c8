//===- simulator.h - Launching kernels on the simulated chip ----*- C++ -*-===//
//
// The runtime's front door: one simulated chip plus the kernels loaded for
// it. A launch checks the kernel against the contract (ABI version, argument
// count), runs it on the chip and returns its statistics. Faults come back as
// sim::FaultError; the simulator stays usable afterwards.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_RUNTIME_SIMULATOR_H
#define MTIA_RUNTIME_SIMULATOR_H

#include "mtia/runtime/kernel_library.h"
#include "mtia/sim/chip.h"

#include <array>
#include <string>
#include <vector>

namespace mtia::rt {

class Simulator {
public:
  /// Throws std::invalid_argument for a config that cannot describe a chip.
  explicit Simulator(const sim::Config &cfg);

  const sim::Config &config() const { return chip_.config(); }

  /// Where device prints (printTile) go; stdout by default.
  void setPrintSink(sim::PrintSink sink) { chip_.setPrintSink(std::move(sink)); }
  /// Asked a few times a second during a launch whether to stop it (an
  /// `interrupted` fault); none by default.
  void setInterruptCheck(sim::InterruptCheck check) {
    chip_.setInterruptCheck(std::move(check));
  }

  /// Launches kernel `name` of the shared object `soPath`, its programs
  /// dealt to the PEs by `mapping`.
  sim::LaunchSummary launch(const std::string &soPath, const std::string &name,
                            std::array<int64_t, 3> grid, std::vector<Arg> args,
                            std::vector<sim::Region> regions, const std::string &tracePath = "",
                            sim::PidMapping mapping = sim::PidMapping::Linear);

  /// Launches a kernel linked into the caller (tests, hand-written kernels).
  sim::LaunchSummary launch(KernelEntry entry, const KernelInfo &info,
                            std::array<int64_t, 3> grid, std::vector<Arg> args,
                            std::vector<sim::Region> regions, const std::string &tracePath = "",
                            sim::PidMapping mapping = sim::PidMapping::Linear);

private:
  sim::Chip chip_;
  KernelLibrary library_;
};

} // namespace mtia::rt

#endif // MTIA_RUNTIME_SIMULATOR_H
