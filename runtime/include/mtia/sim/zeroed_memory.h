//===- zeroed_memory.h - Large zero-filled buffers, lazily backed -*- C++ -*-===//
//
// The chip holds a local memory per PE (64 x 384 KB on the MTIA-2i preset)
// and scratch buffers as large as one. A std::vector would write every byte
// at construction; a timing-only launch never touches most of them, and
// creating a Simulator would cost more host time than simulating a GEMM.
// Anonymous mappings are zero-filled by the OS one page at a time, on first
// touch, so an untouched byte costs nothing.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_ZEROED_MEMORY_H
#define MTIA_SIM_ZEROED_MEMORY_H

#include <cstddef>
#include <cstdint>
#include <new>
#include <sys/mman.h>
#include <utility>

namespace mtia::sim {

class ZeroedMemory {
public:
  ZeroedMemory() = default;
  explicit ZeroedMemory(size_t bytes) { resize(bytes); }
  ~ZeroedMemory() { release(); }
  ZeroedMemory(ZeroedMemory &&o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  ZeroedMemory &operator=(ZeroedMemory &&o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }

  /// Replaces the contents by `bytes` zero bytes. Throws std::bad_alloc.
  void resize(size_t bytes) {
    release();
    if (bytes == 0)
      return;
    void *m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
      throw std::bad_alloc();
    data_ = static_cast<uint8_t *>(m);
    size_ = bytes;
  }
  uint8_t *data() { return data_; }
  const uint8_t *data() const { return data_; }
  size_t size() const { return size_; }

private:
  void release() {
    if (data_)
      munmap(data_, size_);
    data_ = nullptr;
    size_ = 0;
  }
  uint8_t *data_ = nullptr;
  size_t size_ = 0;
};

} // namespace mtia::sim

#endif // MTIA_SIM_ZEROED_MEMORY_H
