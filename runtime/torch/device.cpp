//===- device.cpp - The mtia device's registration with PyTorch -----------===//
//
// PyTorch's CPU wheel carries the MTIA device type, its dispatch keys, the
// `torch.mtia` Python module and Inductor's MTIA path, but nothing behind
// them: a public registry for the hooks (`at::MTIAHooksRegistry`), one for
// the device guard and one for the allocator. This file fills all three,
// plus the generator, so that `torch.mtia.is_available()` is true once the
// extension is loaded.
//
// The simulated chip runs one launch at a time and returns when it is done,
// so there is one device, streams are labels (every stream is always
// complete), synchronizing does nothing and an event is a reading of the
// simulated clock.
//
//===----------------------------------------------------------------------===//

#include <Python.h>

#include "device.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/detail/MTIAHooksInterface.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>
#include <torch/csrc/Generator.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace mtia::torch_device {

namespace {

using c10::Device;
using c10::DeviceIndex;
using c10::DeviceType;
using c10::Stream;

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// LPDDR capacity of the chip (BRIEF: 128 GB of LPDDR5); the host commits
/// only what tensors touch. TRITON_MTIA_DEVICE_MEMORY_GIB overrides it.
uint64_t deviceMemoryBytes() {
  uint64_t gib = 128;
  if (const char *env = std::getenv("TRITON_MTIA_DEVICE_MEMORY_GIB"))
    if (long long v = std::atoll(env); v > 0)
      gib = uint64_t(v);
  return gib << 30;
}

void releaseBlock(void *ptr) { deviceMemory().release(ptr); }

struct Allocator final : c10::Allocator {
  c10::DataPtr allocate(size_t bytes) override {
    void *ptr = deviceMemory().allocate(bytes);
    if (bytes > 0 && !ptr) {
      rt::DeviceMemory::Stats s = deviceMemory().stats();
      TORCH_CHECK_WITH(OutOfMemoryError, false, "MTIA out of memory: tried to allocate ", bytes,
                       " bytes; the device has ", s.capacityBytes, " bytes of which ",
                       s.allocatedBytes, " are allocated (set TRITON_MTIA_DEVICE_MEMORY_GIB for more)");
    }
    return {ptr, ptr, &releaseBlock, Device(DeviceType::MTIA, 0)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &releaseBlock; }
  void copy_data(void *dst, const void *src, size_t bytes) const override {
    std::memcpy(dst, src, bytes);
  }
};

Allocator allocatorInstance;
REGISTER_ALLOCATOR(c10::DeviceType::MTIA, &allocatorInstance);

void checkDevice(DeviceIndex index) {
  TORCH_CHECK(index >= -1 && index < kDeviceCount, "mtia:", int(index),
              " does not exist: the simulated chip is one device (mtia:0)");
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

/// Stream ids handed out by getNewStream; 0 is the default stream.
std::atomic<c10::StreamId> nextStreamId{1};
thread_local c10::StreamId currentStreamId = 0;

Stream streamOf(c10::StreamId id) {
  return Stream::unpack3(id, 0, DeviceType::MTIA);
}

std::atomic<double> clockSeconds{0.0};

/// An event is where the simulated clock stood when it was recorded.
struct Event {
  double seconds = 0.0;
};

//===----------------------------------------------------------------------===//
// Device guard
//===----------------------------------------------------------------------===//

struct GuardImpl final : c10::impl::DeviceGuardImplInterface {
  DeviceType type() const override { return DeviceType::MTIA; }
  Device exchangeDevice(Device d) const override {
    checkDevice(d.index());
    return Device(DeviceType::MTIA, 0);
  }
  Device getDevice() const override { return Device(DeviceType::MTIA, 0); }
  void setDevice(Device d) const override { checkDevice(d.index()); }
  void uncheckedSetDevice(Device) const noexcept override {}
  Stream getStream(Device) const override { return streamOf(currentStreamId); }
  Stream getDefaultStream(Device) const override { return streamOf(0); }
  Stream getStreamFromGlobalPool(Device, bool) const override { return streamOf(0); }
  Stream getNewStream(Device, int) const override { return streamOf(nextStreamId++); }
  Stream exchangeStream(Stream s) const override {
    Stream old = streamOf(currentStreamId);
    currentStreamId = s.id();
    return old;
  }
  DeviceIndex deviceCount() const noexcept override { return kDeviceCount; }
  void record(void **event, const Stream &, DeviceIndex, c10::EventFlag) const override {
    if (!*event)
      *event = new Event;
    static_cast<Event *>(*event)->seconds = clockSeconds.load();
  }
  void block(void *, const Stream &) const override {}
  bool queryEvent(void *) const override { return true; }
  void destroyEvent(void *event, DeviceIndex) const noexcept override {
    delete static_cast<Event *>(event);
  }
  bool queryStream(const Stream &) const override { return true; }
  void synchronizeStream(const Stream &) const override {}
  void synchronizeEvent(void *) const override {}
  void synchronizeDevice(DeviceIndex) const override {}
  double elapsedTime(void *start, void *end, DeviceIndex) const override {
    TORCH_CHECK(start && end, "elapsed_time: both events must have been recorded");
    return (static_cast<Event *>(end)->seconds - static_cast<Event *>(start)->seconds) * 1e3;
  }
};

C10_REGISTER_GUARD_IMPL(MTIA, GuardImpl);

//===----------------------------------------------------------------------===//
// Generator
//===----------------------------------------------------------------------===//

/// The CPU's generator, on the mtia device: random operators run on the
/// host (see ops.cpp), whose kernels accept any CPUGeneratorImpl.
struct Generator final : at::CPUGeneratorImpl {
  explicit Generator(DeviceIndex index) {
    device_ = Device(DeviceType::MTIA, index);
    key_set_ = c10::DispatchKeySet(c10::DispatchKey::MTIA);
  }
};

const at::Generator &defaultGenerator(DeviceIndex index) {
  checkDevice(index);
  static at::Generator gen = at::make_generator<Generator>(DeviceIndex(0));
  return gen;
}

//===----------------------------------------------------------------------===//
// Hooks
//===----------------------------------------------------------------------===//

/// Calls `triton_mtia.device.<name>(index)` (the Python half answers what
/// Python objects describe); a new reference, or nullptr with the Python
/// error turned into a C++ one.
PyObject *callPython(const char *name, DeviceIndex index) {
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *result = nullptr;
  if (PyObject *mod = PyImport_ImportModule("triton_mtia.device")) {
    result = PyObject_CallMethod(mod, name, "i", int(index));
    Py_DECREF(mod);
  }
  std::string error;
  if (!result) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *text = value ? PyObject_Str(value) : nullptr;
    error = text && PyUnicode_Check(text) ? PyUnicode_AsUTF8(text) : "unknown error";
    Py_XDECREF(text);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
  }
  PyGILState_Release(gil);
  TORCH_CHECK(result, "triton_mtia.device.", name, " failed: ", error);
  return result;
}

struct Hooks final : at::MTIAHooksInterface {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return true; }
  bool hasMTIA() const override { return true; }
  c10::DeviceIndex deviceCount() const override { return kDeviceCount; }
  c10::DeviceIndex getDeviceCount() const override { return kDeviceCount; }
  bool hasPrimaryContext(DeviceIndex) const override { return true; }
  void deviceSynchronize(DeviceIndex) const override {}
  std::string showConfig() const override {
    return "  - MTIA: the simulated MTIA-2i of triton-mtia (one device, launches synchronous)\n";
  }
  void setCurrentDevice(DeviceIndex d) const override { checkDevice(d); }
  DeviceIndex getCurrentDevice() const override { return 0; }
  DeviceIndex exchangeDevice(DeviceIndex d) const override {
    checkDevice(d);
    return 0;
  }
  DeviceIndex maybeExchangeDevice(DeviceIndex d) const override { return exchangeDevice(d); }
  c10::Stream getCurrentStream(DeviceIndex) const override { return streamOf(currentStreamId); }
  int64_t getCurrentRawStream(DeviceIndex) const override { return currentStreamId; }
  c10::Stream getDefaultStream(DeviceIndex) const override { return streamOf(0); }
  void setCurrentStream(const c10::Stream &s) const override {
    TORCH_CHECK(s.device_type() == DeviceType::MTIA, "set_stream: ", s, " is not an mtia stream");
    currentStreamId = s.id();
  }
  bool isPinnedPtr(const void *) const override { return false; }
  // Host memory is as good as pinned memory to the simulated chip.
  c10::Allocator *getPinnedMemoryAllocator() const override { return c10::GetAllocator(c10::DeviceType::CPU); }
  c10::Device getDeviceFromPtr(void *ptr) const override {
    TORCH_CHECK(deviceMemory().contains(ptr), "pointer ", ptr, " is not in mtia device memory");
    return Device(DeviceType::MTIA, 0);
  }
  PyObject *memoryStats(DeviceIndex d) const override { return callPython("_memory_stats", d); }
  PyObject *getDeviceCapability(DeviceIndex d) const override {
    return callPython("_device_capability", d);
  }
  PyObject *getDeviceProperties(DeviceIndex d) const override {
    return callPython("_device_properties", d);
  }
  // Nothing is cached: freed blocks are free at once.
  void emptyCache() const override {}
  void resetPeakMemoryStats(DeviceIndex d) const override {
    checkDevice(d);
    deviceMemory().resetPeak();
  }
  const at::Generator &getDefaultGenerator(DeviceIndex d) const override {
    return defaultGenerator(d);
  }
  at::Generator getNewGenerator(DeviceIndex d) const override {
    checkDevice(d);
    return at::make_generator<Generator>(DeviceIndex(0));
  }
};

} // namespace

rt::DeviceMemory &deviceMemory() {
  static rt::DeviceMemory memory(deviceMemoryBytes());
  return memory;
}

c10::Allocator &deviceAllocator() { return allocatorInstance; }

double simulatedSeconds() { return clockSeconds.load(); }

void advanceSimulatedSeconds(double seconds) {
  double now = clockSeconds.load();
  while (!clockSeconds.compare_exchange_weak(now, now + seconds)) {
  }
}

namespace {
std::mutex fallbackMutex;
std::map<std::string, uint64_t> fallbackCounts;
} // namespace

std::map<std::string, uint64_t> hostFallbackCounts() {
  std::lock_guard<std::mutex> lock(fallbackMutex);
  return fallbackCounts;
}

void countHostFallback(const std::string &op) {
  std::lock_guard<std::mutex> lock(fallbackMutex);
  ++fallbackCounts[op];
}

void resetHostFallbackCounts() {
  std::lock_guard<std::mutex> lock(fallbackMutex);
  fallbackCounts.clear();
}

PyObject *defaultGeneratorsTuple() {
  PyObject *tuple = PyTuple_New(kDeviceCount);
  for (int i = 0; i < kDeviceCount; ++i) {
    PyObject *gen = THPGenerator_initDefaultGenerator(defaultGenerator(DeviceIndex(i)));
    if (!gen) {
      Py_DECREF(tuple);
      return nullptr;
    }
    PyTuple_SET_ITEM(tuple, i, gen);
  }
  return tuple;
}

} // namespace mtia::torch_device

// PyTorch creates the hooks by the registry name "MTIAHooks"; the macro
// REGISTER_MTIA_HOOKS would take it from the class name.
namespace at {
C10_REGISTER_CLASS(MTIAHooksRegistry, MTIAHooks, mtia::torch_device::Hooks)
} // namespace at
