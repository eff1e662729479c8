// The ttir Triton 3.9 printed for four GPU-style kernels (vector add, a
// grid-stride softmax, a layernorm with column loops, a 2-D masked row
// reduction) compiles to C++ unchanged.
// RUN: triton-mtia-compile %S/../Inputs/add_kernel.ttir -o - | FileCheck %s --check-prefix=ADD
// RUN: triton-mtia-compile %S/../Inputs/softmax_kernel.ttir -o - | FileCheck %s --check-prefix=SOFTMAX
// RUN: triton-mtia-compile %S/../Inputs/layernorm_kernel.ttir -o - | FileCheck %s --check-prefix=LAYERNORM
// RUN: triton-mtia-compile %S/../Inputs/twod.ttir -o - | FileCheck %s --check-prefix=TWOD

// ADD: extern "C" void mtia_kernel_add_kernel(Ctx *ctx, const Arg *args) {
// ADD-COUNT-2: dmaIn(ctx,
// ADD: se(ctx, SeOp::Add,
// ADD: dmaOut(ctx,

// SOFTMAX: for (int32_t
// SOFTMAX: dmaIn(ctx, {{.*}}immFloat(DType::F32, float(-__builtin_inf())));
// SOFTMAX: seReduce(ctx, ReduceOp::Max,
// SOFTMAX: se(ctx, SeOp::Exp,
// SOFTMAX: seReduce(ctx, ReduceOp::Sum,
// SOFTMAX: se(ctx, SeOp::Div,
// SOFTMAX: dmaOut(ctx,

// The mean and the variance are reduced on the SE and read by the core.
// LAYERNORM: for (int32_t
// LAYERNORM: const float mean = {{.*}}readFloat(ctx,
// LAYERNORM: for (int32_t
// LAYERNORM: const float var = {{.*}}readFloat(ctx,
// LAYERNORM: std::sqrt(
// LAYERNORM: for (int32_t

// TWOD: dmaIn(ctx, /*cb=*/{{[0-9]+}}, DType::F32, {{.*}}, Box{2, {16, 32},
// TWOD: seReduce(ctx, ReduceOp::Sum, {{.*}}, /*axis=*/1,
// TWOD: seReduce(ctx, ReduceOp::Max, {{.*}}, /*axis=*/1,
// TWOD-NOT: gatherIn
