//===- simulator.cpp - Launching kernels on the simulated chip ------------===//

#include "mtia/runtime/simulator.h"

namespace mtia::rt {

namespace {
[[noreturn]] void launchFault(const char *kind, const std::string &message) {
  throw sim::FaultError(sim::Fault{kind, -1, "", -1, "", message});
}
} // namespace

Simulator::Simulator(const sim::Config &cfg) : chip_(cfg) {}

sim::LaunchSummary Simulator::launch(const std::string &soPath, const std::string &name,
                                     std::array<int64_t, 3> grid, std::vector<Arg> args,
                                     std::vector<sim::Region> regions,
                                     const std::string &tracePath, sim::PidMapping mapping) {
  Kernel k = library_.get(soPath, name);
  return launch(k.entry, *k.info, grid, std::move(args), std::move(regions), tracePath, mapping);
}

sim::LaunchSummary Simulator::launch(KernelEntry entry, const KernelInfo &info,
                                     std::array<int64_t, 3> grid, std::vector<Arg> args,
                                     std::vector<sim::Region> regions,
                                     const std::string &tracePath, sim::PidMapping mapping) {
  const std::string name = info.name ? info.name : "?";
  if (info.abiVersion != kDeviceAbiVersion)
    launchFault(sim::fault_kind::kKernelLoad,
                "kernel " + name + " was built against device ABI " +
                    std::to_string(info.abiVersion) + "; this runtime implements " +
                    std::to_string(kDeviceAbiVersion));
  if (info.numArgs != int32_t(args.size()))
    launchFault(sim::fault_kind::kInvalidLaunch,
                "kernel " + name + " takes " + std::to_string(info.numArgs) +
                    " arguments, the launch passes " + std::to_string(args.size()));
  sim::LaunchSpec spec;
  spec.entry = entry;
  spec.info = &info;
  spec.grid = grid;
  spec.args = std::move(args);
  spec.regions = std::move(regions);
  spec.tracePath = tracePath;
  spec.mapping = mapping;
  return chip_.run(spec);
}

} // namespace mtia::rt
