//===- stats.h - Statistics registered by reference -------------*- C++ -*-===//
//
// In the style of ramulator2: a component owns its counters as plain
// integers and registers them, by reference, under a name in a group of the
// tree. Nothing is copied while the simulation runs; `snapshot()` reads every
// counter once at the end into a tree the caller may keep.
//
// Contract: a registered counter must outlive the group it is registered in.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_STATS_H
#define MTIA_SIM_STATS_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mtia::sim {

/// A read-only copy of a stats tree: a counter (no children) or a group.
struct StatNode {
  std::string name;
  uint64_t value = 0;
  bool isGroup = false;
  std::vector<StatNode> children;

  /// The node at a dotted path below this one ("units.se.busy_cycles"), or
  /// nullptr.
  const StatNode *find(const std::string &path) const;
};

class StatGroup {
public:
  explicit StatGroup(std::string name) : name_(std::move(name)) {}
  StatGroup(const StatGroup &) = delete;
  StatGroup &operator=(const StatGroup &) = delete;

  /// Registers `counter` as `name` in this group.
  void add(const std::string &name, const uint64_t &counter);
  /// The child group `name`, created on first use.
  StatGroup &group(const std::string &name);

  StatNode snapshot() const;

private:
  std::string name_;
  std::vector<std::pair<std::string, const uint64_t *>> counters_;
  std::vector<std::unique_ptr<StatGroup>> groups_;
};

} // namespace mtia::sim

#endif // MTIA_SIM_STATS_H
