//===- device.h - torch.device("mtia") backed by the simulated chip -*- C++ -*-===//
//
// What the two halves of the PyTorch extension `_mtia_device` share:
// device.cpp registers the device with PyTorch (MTIA hooks, device guard,
// allocator, generator); ops.cpp registers its ATen kernels, the host
// fallback for every other operator, and the Python module.
//
// The extension knows nothing of the simulator: kernels reach the chip
// through Triton and the `_mtia_sim` extension, which read device memory
// at its host address. What this side keeps is the device's state: its
// memory, the simulated clock that events read, and the count of eager
// operators that ran on the host instead of the chip.
//
//===----------------------------------------------------------------------===//

#ifndef TRITON_MTIA_TORCH_DEVICE_H
#define TRITON_MTIA_TORCH_DEVICE_H

#include "mtia/runtime/device_memory.h"

#include <c10/core/Allocator.h>

#include <cstdint>
#include <map>
#include <string>

typedef struct _object PyObject;

namespace mtia::torch_device {

/// The simulated chip has one device.
constexpr int kDeviceCount = 1;

/// The device memory of device 0, reserved on first use.
rt::DeviceMemory &deviceMemory();
/// The allocator registered for c10::DeviceType::MTIA.
c10::Allocator &deviceAllocator();

/// The device's clock: simulated time of every launch so far, in seconds.
/// The Python runtime advances it after each launch; events read it, so
/// `torch.mtia.Event.elapsed_time` (and Inductor's autotuning, which uses
/// it) measures simulated time.
double simulatedSeconds();
void advanceSimulatedSeconds(double seconds);

/// Eager operators that ran on the host through the fallback, by name
/// ("aten::add.Tensor"), since the last reset.
std::map<std::string, uint64_t> hostFallbackCounts();
void countHostFallback(const std::string &op);
void resetHostFallbackCounts();

/// Whether scaled_dot_product_attention on `mtia` may choose the fused
/// attention kernel (SDPBackend::overrideable): set by the Python package
/// once it has registered `_scaled_dot_product_fused_attention_overrideable`
/// and its backward (triton_mtia/aten/attention.py). Off, every call takes
/// PyTorch's math path (matmuls and a softmax, each an operator of its own).
void setFusedAttention(bool enabled);

/// `torch.mtia.default_generators` for the Python side (a new reference to
/// a tuple of torch.Generator).
PyObject *defaultGeneratorsTuple();

} // namespace mtia::torch_device

#endif // TRITON_MTIA_TORCH_DEVICE_H
