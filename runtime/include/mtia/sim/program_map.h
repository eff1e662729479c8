//===- program_map.h - Which PE runs which program ---------------*- C++ -*-===//
//
// A grid may have any number of programs; the chip has a fixed grid of PEs.
// A launch deals the programs to the PEs by one of the mappings of the
// paper's section 4.3.1, chosen per kernel (the `pid_mapping` compile
// option); each PE runs its programs one after another.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_PROGRAM_MAP_H
#define MTIA_SIM_PROGRAM_MAP_H

#include <cstdint>
#include <string>

namespace mtia::sim {

/// How the programs of a grid are dealt to the PEs ([P 4.3.1]). With n
/// programs (numbered x fastest) and P PEs:
///  - Linear: PE k runs the contiguous block [k*B, (k+1)*B), B = ceil(n/P),
///    so neighbouring programs share a PE (and its warm data);
///  - RoundRobin: PE k runs k, k+P, k+2P, ...: every PE busy while n >= P;
///  - Zigzag: round r deals P programs, forward (PE k gets r*P + k) on even
///    rounds and backward (r*P + P-1-k) on odd ones, so when work grows with
///    the program id (a causal attention's rows) each PE gets a mix;
///  - User: exactly one program per PE, program k on PE k (row-major), for
///    kernels that map their work to PEs themselves (`mtl.get_pe_id`); a
///    grid of another size is an invalid launch (Chip::validate).
enum class PidMapping : uint8_t { Linear, RoundRobin, Zigzag, User };
/// "linear", "round_robin", "zigzag", "user".
const char *pidMappingName(PidMapping m);
/// The mapping named `name` (as pidMappingName spells it); false if none.
bool parsePidMapping(const std::string &name, PidMapping &out);

/// The programs of one launch as PE `pe` runs them, in order.
class ProgramMap {
public:
  ProgramMap(PidMapping mode, int64_t programs, int64_t pes)
      : mode_(mode), programs_(programs), pes_(pes), block_((programs + pes - 1) / pes) {}
  /// How many programs PE `pe` runs.
  int64_t count(int64_t pe) const;
  /// The id of the `i`-th of them (0 <= i < count(pe)).
  int64_t pid(int64_t pe, int64_t i) const;
  /// PEs that run at least one program.
  int64_t pesUsed() const;

private:
  PidMapping mode_;
  int64_t programs_, pes_, block_;
};

} // namespace mtia::sim

#endif // MTIA_SIM_PROGRAM_MAP_H
