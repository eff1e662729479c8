//===- ResourceShortage.h - What a kernel is short of on a PE --*- C++ -*-===//
//
// mtia-assign-cbs fails a kernel that needs more circular buffers or more
// local memory than a PE has. Its driver answers that by retrying
// (rematerializing tiles, splitting the block: triton-mtia-compile), and
// the Python backend by raising Triton's OutOfResources, so that autotuning
// drops the config. Both read the shortage recorded here, a typed result,
// rather than the wording of the pass's error message.
//
//===----------------------------------------------------------------------===//

#ifndef TRITON_MTIA_DIALECT_MTIA_TRANSFORMS_RESOURCESHORTAGE_H
#define TRITON_MTIA_DIALECT_MTIA_TRANSFORMS_RESOURCESHORTAGE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir::triton_mtia::mtia {

enum class Resource { CircularBuffers, LocalMemory };

struct ResourceShortage {
  Resource resource;
  /// What the kernel needs, and what a PE has (CBs, or bytes).
  int64_t required;
  int64_t limit;
};

/// The name Python's OutOfResources gives the resource.
llvm::StringRef resourceName(Resource resource);

/// Records that a pass failed a kernel for want of a resource (the first one
/// since the last take is kept). Thread-safe: function passes may run in
/// parallel.
void recordResourceShortage(ResourceShortage shortage);

/// The shortage recorded since the last take, if any, and forgets it.
std::optional<ResourceShortage> takeResourceShortage();

} // namespace mlir::triton_mtia::mtia

#endif // TRITON_MTIA_DIALECT_MTIA_TRANSFORMS_RESOURCESHORTAGE_H
