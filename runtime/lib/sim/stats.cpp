//===- stats.cpp - Statistics tree ----------------------------------------===//

#include "mtia/sim/stats.h"

namespace mtia::sim {

const StatNode *StatNode::find(const std::string &path) const {
  const StatNode *node = this;
  size_t begin = 0;
  while (node && begin <= path.size()) {
    size_t end = path.find('.', begin);
    std::string part = path.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    const StatNode *next = nullptr;
    for (const StatNode &c : node->children)
      if (c.name == part)
        next = &c;
    node = next;
    if (end == std::string::npos)
      return node;
    begin = end + 1;
  }
  return nullptr;
}

void StatGroup::add(const std::string &name, const uint64_t &counter) {
  counters_.emplace_back(name, &counter);
}

StatGroup &StatGroup::group(const std::string &name) {
  for (auto &g : groups_)
    if (g->name_ == name)
      return *g;
  groups_.push_back(std::make_unique<StatGroup>(name));
  return *groups_.back();
}

StatNode StatGroup::snapshot() const {
  StatNode node;
  node.name = name_;
  node.isGroup = true;
  node.children.reserve(counters_.size() + groups_.size());
  for (const auto &[name, counter] : counters_)
    node.children.push_back(StatNode{name, *counter, false, {}});
  for (const auto &g : groups_)
    node.children.push_back(g->snapshot());
  return node;
}

} // namespace mtia::sim
