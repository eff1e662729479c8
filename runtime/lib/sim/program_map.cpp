//===- program_map.cpp - Which PE runs which program ----------------------===//

#include "mtia/sim/program_map.h"

#include <algorithm>

namespace mtia::sim {

const char *pidMappingName(PidMapping m) {
  switch (m) {
  case PidMapping::Linear: return "linear";
  case PidMapping::RoundRobin: return "round_robin";
  case PidMapping::Zigzag: return "zigzag";
  case PidMapping::User: return "user";
  }
  return "?";
}

bool parsePidMapping(const std::string &name, PidMapping &out) {
  for (PidMapping m :
       {PidMapping::Linear, PidMapping::RoundRobin, PidMapping::Zigzag, PidMapping::User})
    if (name == pidMappingName(m)) {
      out = m;
      return true;
    }
  return false;
}

int64_t ProgramMap::count(int64_t pe) const {
  if (mode_ == PidMapping::Linear)
    return std::max<int64_t>(0, std::min(programs_, (pe + 1) * block_) - pe * block_);
  // Full rounds give every PE one program; the last, partial round reaches
  // the first PEs going forward and the last PEs going backward.
  const int64_t rounds = programs_ / pes_, rest = programs_ % pes_;
  const bool backward = mode_ == PidMapping::Zigzag && rounds % 2 == 1;
  return rounds + ((backward ? pes_ - 1 - pe : pe) < rest);
}

int64_t ProgramMap::pid(int64_t pe, int64_t i) const {
  switch (mode_) {
  case PidMapping::Linear: return pe * block_ + i;
  case PidMapping::RoundRobin:
  case PidMapping::User: return i * pes_ + pe; // User: one program per PE, i == 0
  case PidMapping::Zigzag: return i * pes_ + (i % 2 ? pes_ - 1 - pe : pe);
  }
  return -1;
}

int64_t ProgramMap::pesUsed() const {
  if (mode_ == PidMapping::Linear)
    return (programs_ + block_ - 1) / block_;
  return std::min(programs_, pes_);
}

} // namespace mtia::sim
