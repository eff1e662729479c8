//===- attention.cpp - scaled_dot_product_attention's choice on mtia ------===//
//
// `F.scaled_dot_product_attention` is one composite operator: on every
// device it asks the device's `_fused_sdp_choice_stub` which backend to
// take, and without an answer it takes the math path (a matmul, a softmax,
// a matmul: each an operator, the scores in memory). A backend's answer
// `overrideable` sends the call to
// `_scaled_dot_product_fused_attention_overrideable` instead, an operator
// with a backward of its own (derivatives.yaml), which the backend
// implements: PyTorch's extension point for an accelerator's fused
// attention, and the one the real MTIA backend takes. The Python package
// implements both operators with the kernel library's fused attention
// (triton_mtia/aten/attention.py); this file answers the choice, in eager
// mode and while Dynamo traces (on fake tensors: metadata only), so that
// Inductor keeps the fused operator as an extern kernel.
//
// The answer is `overrideable` where the fused kernel computes what the
// math path computes: dense 3-D or 4-D q, k, v of one float dtype, heads
// of at most kMaxHeadDim, key heads dividing query heads (grouped-query
// attention, asked for), any additive or boolean mask, causal or not, any
// dropout. Otherwise, or when the user switched the overrideable backend
// off (`torch.nn.attention.sdpa_kernel`), the math path.
//
//===----------------------------------------------------------------------===//

#include "device.h"

#include <ATen/Context.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/transformers/attention.h>
#include <torch/library.h>

#include <atomic>

namespace mtia::torch_device {

namespace {

std::atomic<bool> fusedAttention{false};

/// The widest head the fused kernel keeps on a PE (q, k and v blocks and
/// the output accumulator of BLOCK_M x head in local memory).
constexpr int64_t kMaxHeadDim = 256;

/// sdp::SDPBackend's values (ATen/native/transformers/sdp_utils_cpp.h,
/// which is not among the installed headers).
constexpr int64_t kError = -1;
constexpr int64_t kMath = 0;
constexpr int64_t kOverrideable = 4;

bool isFloat(const at::Tensor &t) {
  at::ScalarType type = t.scalar_type();
  return type == at::kFloat || type == at::kHalf || type == at::kBFloat16;
}

bool symbolic(const at::Tensor &t) {
  return t.unsafeGetTensorImpl()->has_symbolic_sizes_strides();
}

/// Whether the fused kernel computes this call as the math path does.
bool fusedKernelTakes(const at::Tensor &q, const at::Tensor &k, const at::Tensor &v,
                      const std::optional<at::Tensor> &mask, bool enableGqa) {
  for (const at::Tensor *t : {&q, &k, &v})
    if (!t->defined() || t->is_nested() || symbolic(*t) || !isFloat(*t) ||
        t->scalar_type() != q.scalar_type() || t->dim() != q.dim())
      return false;
  if (q.dim() != 3 && q.dim() != 4)
    return false;
  if (mask && mask->defined() && (mask->is_nested() || symbolic(*mask) || mask->dim() > 4 ||
                                  (mask->scalar_type() != at::kBool && !isFloat(*mask))))
    return false;
  if (q.dim() == 4 && (k.size(0) != q.size(0) || v.size(0) != q.size(0)))
    return false;
  int64_t heads = q.size(-3), keyHeads = k.size(-3);
  if (v.size(-3) != keyHeads || keyHeads == 0 || heads % keyHeads != 0 ||
      (heads != keyHeads && !enableGqa))
    return false;
  if (q.size(-2) == 0 || k.size(-2) == 0 || k.size(-2) != v.size(-2))
    return false;
  return q.size(-1) == k.size(-1) && q.size(-1) <= kMaxHeadDim && v.size(-1) <= kMaxHeadDim;
}

int64_t fusedSdpChoice(const at::Tensor &q, const at::Tensor &k, const at::Tensor &v,
                       const std::optional<at::Tensor> &mask, double dropoutP, bool isCausal,
                       std::optional<double> scale, bool enableGqa) {
  const at::Context &context = at::globalContext();
  if (fusedAttention.load() && context.userEnabledOverrideableSDP() &&
      fusedKernelTakes(q, k, v, mask, enableGqa))
    return kOverrideable;
  return context.userEnabledMathSDP() ? kMath : kError;
}

} // namespace

void setFusedAttention(bool enabled) { fusedAttention.store(enabled); }

} // namespace mtia::torch_device

namespace at::native {
REGISTER_MTIA_DISPATCH(_fused_sdp_choice_stub, &mtia::torch_device::fusedSdpChoice);
} // namespace at::native

// `torch._fused_sdp_choice(q, k, v)` on mtia tensors: the same answer.
TORCH_LIBRARY_IMPL(aten, MTIA, m) {
  m.impl("_fused_sdp_choice", &mtia::torch_device::fusedSdpChoice);
}
