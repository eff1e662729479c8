//===- ResourceShortage.cpp - What a kernel is short of on a PE -----------===//

#include "triton-mtia/Dialect/MTIA/Transforms/ResourceShortage.h"

#include <mutex>

namespace mlir::triton_mtia::mtia {

namespace {
std::mutex shortageMutex;
std::optional<ResourceShortage> recorded;
} // namespace

llvm::StringRef resourceName(Resource resource) {
  switch (resource) {
  case Resource::CircularBuffers:
    return "circular buffers";
  case Resource::LocalMemory:
    return "local memory";
  }
  return "";
}

void recordResourceShortage(ResourceShortage shortage) {
  std::lock_guard<std::mutex> lock(shortageMutex);
  if (!recorded)
    recorded = shortage;
}

std::optional<ResourceShortage> takeResourceShortage() {
  std::lock_guard<std::mutex> lock(shortageMutex);
  std::optional<ResourceShortage> taken = recorded;
  recorded.reset();
  return taken;
}

} // namespace mlir::triton_mtia::mtia
