//===- SourceLocation.h - Kernel source lines of IR locations ---*- C++ -*-===//
//
// Triton attaches to every op the Python line it came from, wrapped in name
// locations (the variable) and call-site locations (when the op comes from a
// library function such as tl.sum). Diagnostics and the C++ emitter want the
// line in the user's kernel: the outermost caller.
//
//===----------------------------------------------------------------------===//

#ifndef TRITON_MTIA_SUPPORT_SOURCELOCATION_H
#define TRITON_MTIA_SUPPORT_SOURCELOCATION_H

#include "mlir/IR/Location.h"

#include <optional>

namespace mlir::triton_mtia {

/// The file:line:col in the kernel author's code that `loc` stands for.
inline std::optional<FileLineColLoc> getSourceLoc(Location loc) {
  if (auto flc = dyn_cast<FileLineColLoc>(loc))
    return flc;
  if (auto name = dyn_cast<NameLoc>(loc))
    return getSourceLoc(name.getChildLoc());
  if (auto call = dyn_cast<CallSiteLoc>(loc)) {
    if (auto caller = getSourceLoc(call.getCaller()))
      return caller;
    return getSourceLoc(call.getCallee());
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto found = getSourceLoc(inner))
        return found;
  return std::nullopt;
}

} // namespace mlir::triton_mtia

#endif // TRITON_MTIA_SUPPORT_SOURCELOCATION_H
