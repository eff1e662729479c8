//===- kernel_library.cpp - Kernels loaded from shared objects ------------===//

#include "mtia/runtime/kernel_library.h"

#include "mtia/sim/fault.h"

#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <sys/stat.h>

namespace mtia::rt {

namespace {
[[noreturn]] void loadFault(const std::string &message) {
  throw sim::FaultError(sim::Fault{sim::fault_kind::kKernelLoad, -1, "", -1, "", message});
}
} // namespace

KernelLibrary::~KernelLibrary() {
  for (auto &entry : open_)
    dlclose(entry.second.handle);
}

Kernel KernelLibrary::get(const std::string &path, const std::string &name) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    loadFault("cannot open kernel library '" + path + "': " + std::strerror(errno));
  auto it = open_.find(path);
  if (it != open_.end() &&
      (it->second.dev != st.st_dev || it->second.ino != st.st_ino ||
       it->second.mtime.tv_sec != st.st_mtim.tv_sec ||
       it->second.mtime.tv_nsec != st.st_mtim.tv_nsec)) {
    dlclose(it->second.handle);
    open_.erase(it);
    it = open_.end();
  }
  if (it == open_.end()) {
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      loadFault("cannot load kernel library '" + path + "': " + dlerror());
    it = open_.emplace(path, Library{handle, st.st_dev, st.st_ino, st.st_mtim}).first;
  }
  Kernel k;
  k.entry = reinterpret_cast<KernelEntry>(dlsym(it->second.handle, name.c_str()));
  k.info = static_cast<const KernelInfo *>(dlsym(it->second.handle, (name + "_info").c_str()));
  if (!k.entry || !k.info)
    loadFault("kernel library '" + path + "' does not export '" + name + "' and '" + name +
              "_info'");
  return k;
}

} // namespace mtia::rt
