//===- ops.cpp - ATen kernels of the mtia device, and its host fallback ---===//
//
// The mtia device registers kernels for the operators PyTorch cannot do
// without on a backend: creating tensors, copying, resizing, and the views
// (which must share storage, so a copying fallback would be wrong); and for
// the few whose CPU kernel the fallback cannot run as a device's (a
// convolution in a dtype the chip has no mode for; nonzero_static, in an
// accelerator's layout). Any
// other eager operator without a kernel on the chip runs on the host
// through one boxed fallback: device memory is host memory, so the
// fallback runs the CPU kernel and every such run is counted, for
// `triton_mtia.device.host_fallbacks()`. The operators that run on the
// chip are registered by the Python package (triton_mtia/aten/): the
// kernel library's, and Inductor's kernel of each other operator.
//
// Also the Python module `triton_mtia._mtia_device`, in the plain C API
// (torch bundles its own pybind11, which this module need not pick).
//
//===----------------------------------------------------------------------===//

#include <Python.h>

#include "device.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/EmptyTensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/ops/_local_scalar_dense_native.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/convolution.h>
#include <ATen/ops/convolution_backward.h>
#include <ATen/ops/nonzero_static.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/resize_native.h>
#include <ATen/ops/set_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_as_complex_native.h>
#include <ATen/ops/view_as_real_native.h>
#include <ATen/ops/view_native.h>
#include <torch/library.h>

#include <vector>

namespace mtia::torch_device {

namespace {

const c10::DispatchKeySet kMTIAKeys(c10::DispatchKey::MTIA);

/// `t` as a CPU tensor over the same memory (device memory is host memory),
/// with its lazy conjugate and negative bits.
at::Tensor onHost(const at::Tensor &t) {
  if (!t.is_mtia())
    return t;
  at::Tensor host =
      at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options().device(c10::kCPU));
  if (t.is_conj())
    host = host.conj();
  if (t.is_neg())
    host = host._neg_view();
  return host;
}

std::optional<at::Tensor> onHost(const std::optional<at::Tensor> &t) {
  return t && t->defined() ? std::optional<at::Tensor>(onHost(*t)) : std::nullopt;
}

//===----------------------------------------------------------------------===//
// Creation, copies, resizing
//===----------------------------------------------------------------------===//

at::Tensor emptyMemoryFormat(c10::IntArrayRef size, std::optional<c10::ScalarType> dtype,
                             std::optional<c10::Layout>, std::optional<c10::Device>,
                             std::optional<bool>, std::optional<c10::MemoryFormat> memoryFormat) {
  return at::detail::empty_generic(size, &deviceAllocator(), kMTIAKeys,
                                   c10::dtype_or_default(dtype), memoryFormat);
}

at::Tensor emptyStrided(c10::IntArrayRef size, c10::IntArrayRef stride,
                        std::optional<c10::ScalarType> dtype, std::optional<c10::Layout>,
                        std::optional<c10::Device>, std::optional<bool>) {
  return at::detail::empty_strided_generic(size, stride, &deviceAllocator(), kMTIAKeys,
                                           c10::dtype_or_default(dtype));
}

/// Every copy with an mtia side: host to device, device to host, device to
/// device, with any dtype and strides (the CPU's copy does the work).
at::Tensor copyFrom(const at::Tensor &self, const at::Tensor &dst, bool) {
  if (self.numel() > 0)
    onHost(dst).copy_(onHost(self));
  return dst;
}

at::Tensor copyFromAndResize(const at::Tensor &self, const at::Tensor &dst) {
  at::native::resize_(dst, self.sizes(), std::nullopt);
  return copyFrom(self, dst, false);
}

at::Scalar localScalarDense(const at::Tensor &self) {
  return at::native::_local_scalar_dense_cpu(onHost(self));
}

at::Tensor &setEmpty(at::Tensor &self) {
  c10::Storage storage(c10::Storage::use_byte_size_t(), 0, &deviceAllocator(), true);
  return at::native::set_storage_cpu_(self, storage, 0, {0}, {});
}

at::Tensor &setStorage(at::Tensor &self, c10::Storage source) {
  return at::native::set_(self, std::move(source));
}

at::Tensor &setStorageOffset(at::Tensor &self, c10::Storage source, int64_t offset,
                             c10::IntArrayRef size, c10::IntArrayRef stride) {
  return at::native::set_storage_cpu_(self, std::move(source), offset, size, stride);
}

at::Tensor &setTensor(at::Tensor &self, const at::Tensor &source) {
  return at::native::set_tensor_(self, source);
}

/// fill_ and zero_ are what Inductor's benchmarker calls between timed runs;
/// a fallback round trip for each would copy the whole buffer twice.
at::Tensor &fillScalar(at::Tensor &self, const at::Scalar &value) {
  onHost(self).fill_(value);
  return self;
}

at::Tensor &zero(at::Tensor &self) {
  onHost(self).zero_();
  return self;
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// `host` (a CPU result) as a new contiguous mtia tensor. Contiguous is what
/// PyTorch predicts for a convolution on an "overrideable" backend
/// (_conv_determine_backend_memory_format), and compiled code checks it; the
/// CPU's kernels may choose channels-last.
at::Tensor toDevice(const at::Tensor &host,
                    c10::MemoryFormat format = c10::MemoryFormat::Contiguous) {
  if (!host.defined())
    return host;
  return host.contiguous(format).to(c10::Device(c10::DeviceType::MTIA, 0),
                                    /*non_blocking=*/false, /*copy=*/true);
}

/// ATen sends a convolution on a device it does not know to
/// `convolution_overrideable`, which has no CPU kernel for the boxed
/// fallback to run: these run the host's convolution over the same memory,
/// counted as fallbacks like any other.
at::Tensor convolution(const at::Tensor &input, const at::Tensor &weight,
                       const std::optional<at::Tensor> &bias, c10::IntArrayRef stride,
                       c10::IntArrayRef padding, c10::IntArrayRef dilation, bool transposed,
                       c10::IntArrayRef outputPadding, int64_t groups) {
  countHostFallback("aten::convolution_overrideable");
  return toDevice(at::convolution(onHost(input), onHost(weight), onHost(bias), stride, padding,
                                  dilation, transposed, outputPadding, groups));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor>
convolutionBackward(const at::Tensor &gradOutput, const at::Tensor &input,
                    const at::Tensor &weight, c10::IntArrayRef stride, c10::IntArrayRef padding,
                    c10::IntArrayRef dilation, bool transposed, c10::IntArrayRef outputPadding,
                    int64_t groups, std::array<bool, 3> outputMask) {
  countHostFallback("aten::convolution_backward_overrideable");
  // The bias has one element per output channel.
  std::vector<int64_t> biasSizes{gradOutput.size(1)};
  auto [gradInput, gradWeight, gradBias] = at::convolution_backward(
      onHost(gradOutput), onHost(input), onHost(weight),
      outputMask[2] ? at::OptionalIntArrayRef(biasSizes) : std::nullopt, stride, padding,
      dilation, transposed, outputPadding, groups, outputMask);
  return {toDevice(gradInput), toDevice(gradWeight), toDevice(gradBias)};
}

//===----------------------------------------------------------------------===//
// Layouts of accelerators
//===----------------------------------------------------------------------===//

/// nonzero_static on the host, in the layout of an accelerator's kernel:
/// the [size, dim] indices column-major, strides (1, size), as CUDA's
/// kernel returns them and as PyTorch's meta function says for every
/// device but the CPU, MPS and XPU. Compiled code checks results against
/// the meta function, so the CPU's row-major result would fail there.
at::Tensor nonzeroStatic(const at::Tensor &self, c10::SymInt size, int64_t fillValue) {
  countHostFallback("aten::nonzero_static");
  const int64_t rows = size.expect_int();
  at::Tensor host = at::nonzero_static(onHost(self), rows, fillValue);
  at::Tensor out = emptyStrided({rows, self.dim()}, {1, rows}, c10::kLong, std::nullopt, std::nullopt,
                                std::nullopt);
  onHost(out).copy_(host);
  return out;
}

//===----------------------------------------------------------------------===//
// The host fallback
//===----------------------------------------------------------------------===//

/// CPU kernels take only CPU generators; an mtia generator (the CPU's
/// generator on another device) lends its state to one for the call.
struct GeneratorLoans {
  std::vector<std::pair<at::Generator, at::Generator>> loans; // (mtia, host)

  explicit GeneratorLoans(torch::jit::Stack &stack, size_t numArgs) {
    for (size_t i = stack.size() - numArgs; i < stack.size(); ++i) {
      if (!stack[i].isGenerator())
        continue;
      at::Generator gen = stack[i].toGenerator();
      if (!gen.defined() || gen.device().type() != c10::DeviceType::MTIA)
        continue;
      at::Generator host = at::make_generator<at::CPUGeneratorImpl>();
      {
        std::lock_guard<std::mutex> lock(gen.mutex());
        host.set_state(gen.get_state());
      }
      stack[i] = c10::IValue(host);
      loans.emplace_back(std::move(gen), std::move(host));
    }
  }
  ~GeneratorLoans() {
    for (auto &[gen, host] : loans) {
      std::lock_guard<std::mutex> lock(gen.mutex());
      gen.set_state(host.get_state());
    }
  }
};

void hostFallback(const c10::OperatorHandle &op, torch::jit::Stack *stack) {
  const c10::FunctionSchema &schema = op.schema();
  countHostFallback(c10::toString(schema.operator_name()));
  GeneratorLoans loans(*stack, schema.arguments().size());
  at::native::cpu_fallback(op, stack);
}

} // namespace

} // namespace mtia::torch_device

TORCH_LIBRARY_IMPL(_, MTIA, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&mtia::torch_device::hostFallback>());
}

// A copy from or to a tensor with a lazy conjugate or negation goes to our
// _copy_from as it is (which resolves it on the host): the default,
// resolving it first, would clone, and so copy, and so recurse.
namespace {
void copiesFallThrough(torch::Library &m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
  m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}
} // namespace

TORCH_LIBRARY_IMPL(aten, Conjugate, m) { copiesFallThrough(m); }
TORCH_LIBRARY_IMPL(aten, Negative, m) { copiesFallThrough(m); }

TORCH_LIBRARY_IMPL(aten, MTIA, m) {
  using namespace mtia::torch_device;
  m.impl("empty.memory_format", emptyMemoryFormat);
  m.impl("empty_strided", emptyStrided);
  m.impl("_copy_from", copyFrom);
  m.impl("_copy_from_and_resize", copyFromAndResize);
  m.impl("_local_scalar_dense", localScalarDense);
  m.impl("resize_", at::native::resize_);
  m.impl("set_", setEmpty);
  m.impl("set_.source_Storage", setStorage);
  m.impl("set_.source_Storage_storage_offset", setStorageOffset);
  m.impl("set_.source_Tensor", setTensor);
  m.impl("fill_.Scalar", fillScalar);
  m.impl("zero_", zero);
  m.impl("convolution_overrideable", convolution);
  m.impl("convolution_backward_overrideable", convolutionBackward);
  m.impl("nonzero_static", nonzeroStatic);
  // Views share their base's storage.
  m.impl("as_strided", at::native::as_strided_tensorimpl);
  m.impl("view", at::native::view);
  m.impl("_reshape_alias", at::native::_reshape_alias);
  m.impl("unfold", at::native::unfold);
  m.impl("view_as_real", at::native::view_as_real);
  m.impl("view_as_complex", at::native::view_as_complex);
}

//===----------------------------------------------------------------------===//
// triton_mtia._mtia_device
//===----------------------------------------------------------------------===//

namespace {

using namespace mtia::torch_device;

PyObject *memoryStats(PyObject *, PyObject *) {
  mtia::rt::DeviceMemory::Stats s = deviceMemory().stats();
  return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K}", "capacity_bytes",
                       (unsigned long long)s.capacityBytes, "allocated_bytes",
                       (unsigned long long)s.allocatedBytes, "peak_bytes",
                       (unsigned long long)s.peakBytes, "live_blocks",
                       (unsigned long long)s.liveBlocks, "allocations",
                       (unsigned long long)s.allocations, "frees", (unsigned long long)s.frees);
}

PyObject *memoryRange(PyObject *, PyObject *) {
  return Py_BuildValue("(KK)", (unsigned long long)deviceMemory().base(),
                       (unsigned long long)deviceMemory().capacity());
}

PyObject *findAllocation(PyObject *, PyObject *arg) {
  unsigned long long address = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred())
    return nullptr;
  uintptr_t start = 0;
  uint64_t bytes = 0;
  if (!deviceMemory().findBlock(reinterpret_cast<const void *>(address), start, bytes))
    Py_RETURN_NONE;
  return Py_BuildValue("(KK)", (unsigned long long)start, (unsigned long long)bytes);
}

PyObject *hostFallbacks(PyObject *, PyObject *) {
  PyObject *dict = PyDict_New();
  for (const auto &[name, count] : hostFallbackCounts()) {
    PyObject *value = PyLong_FromUnsignedLongLong(count);
    PyDict_SetItemString(dict, name.c_str(), value);
    Py_DECREF(value);
  }
  return dict;
}

PyObject *countHostFallbackCall(PyObject *, PyObject *arg) {
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name)
    return nullptr;
  countHostFallback(name);
  Py_RETURN_NONE;
}

PyObject *resetHostFallbacks(PyObject *, PyObject *) {
  resetHostFallbackCounts();
  Py_RETURN_NONE;
}

PyObject *clock(PyObject *, PyObject *) { return PyFloat_FromDouble(simulatedSeconds()); }

PyObject *advanceClock(PyObject *, PyObject *arg) {
  double seconds = PyFloat_AsDouble(arg);
  if (seconds == -1.0 && PyErr_Occurred())
    return nullptr;
  advanceSimulatedSeconds(seconds);
  Py_RETURN_NONE;
}

PyObject *defaultGenerators(PyObject *, PyObject *) { return defaultGeneratorsTuple(); }

PyObject *setFusedAttentionCall(PyObject *, PyObject *arg) {
  int enabled = PyObject_IsTrue(arg);
  if (enabled < 0)
    return nullptr;
  setFusedAttention(enabled);
  Py_RETURN_NONE;
}

PyMethodDef methods[] = {
    {"memory_stats", memoryStats, METH_NOARGS, "device memory statistics (bytes and blocks)"},
    {"memory_range", memoryRange, METH_NOARGS, "(base host address, capacity) of device memory"},
    {"find_allocation", findAllocation, METH_O,
     "(start, bytes) of the live block of device memory holding an address, or None"},
    {"host_fallbacks", hostFallbacks, METH_NOARGS,
     "{operator: count} of eager operators run on the host since the last reset"},
    {"reset_host_fallbacks", resetHostFallbacks, METH_NOARGS, "zeroes host_fallbacks()"},
    {"count_host_fallback", countHostFallbackCall, METH_O,
     "counts one host run of an operator (its ATen name) that Python ran on the host"},
    {"clock", clock, METH_NOARGS, "simulated seconds of every launch so far"},
    {"advance_clock", advanceClock, METH_O, "adds a launch's simulated seconds to the clock"},
    {"default_generators", defaultGenerators, METH_NOARGS,
     "a tuple of the default torch.Generator of each device"},
    {"set_fused_attention", setFusedAttentionCall, METH_O,
     "whether scaled_dot_product_attention may choose the fused kernel (attention.cpp)"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef moduleDef = {PyModuleDef_HEAD_INIT, "_mtia_device",
                         "torch.device('mtia') backed by the simulated chip (see device.py)", -1,
                         methods, nullptr, nullptr, nullptr, nullptr};

} // namespace

PyMODINIT_FUNC PyInit__mtia_device() { return PyModule_Create(&moduleDef); }
