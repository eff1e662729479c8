//===- kernel_library.h - Kernels loaded from shared objects ----*- C++ -*-===//
//
// A compiled kernel is a shared object exporting `NAME` (the KernelEntry) and
// `NAME_info` (its KernelInfo). Libraries are opened once per path with
// RTLD_NOW | RTLD_LOCAL and kept open until the library object dies; a file
// replaced on disk (another inode or mtime) is opened afresh.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_RUNTIME_KERNEL_LIBRARY_H
#define MTIA_RUNTIME_KERNEL_LIBRARY_H

#include "mtia/device.h"

#include <ctime>
#include <string>
#include <unordered_map>
#include <sys/types.h>

namespace mtia::rt {

struct Kernel {
  KernelEntry entry = nullptr;
  const KernelInfo *info = nullptr;
};

class KernelLibrary {
public:
  KernelLibrary() = default;
  KernelLibrary(const KernelLibrary &) = delete;
  KernelLibrary &operator=(const KernelLibrary &) = delete;
  ~KernelLibrary();

  /// Kernel `name` of the shared object at `path`. Throws sim::FaultError
  /// of kind "kernel load" naming the path and symbol when it cannot.
  Kernel get(const std::string &path, const std::string &name);

private:
  struct Library {
    void *handle = nullptr;
    dev_t dev = 0;
    ino_t ino = 0;
    timespec mtime{};
  };
  std::unordered_map<std::string, Library> open_;
};

} // namespace mtia::rt

#endif // MTIA_RUNTIME_KERNEL_LIBRARY_H
