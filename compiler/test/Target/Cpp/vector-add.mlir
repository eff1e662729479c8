// RUN: triton-mtia-compile %s -o - --no-dual-issue | FileCheck %s

// CHECK: #include "mtia/kernel_prelude.h"
// CHECK: extern "C" const KernelInfo mtia_kernel_add_info = {
// CHECK-NEXT: kDeviceAbiVersion, "add", /*numArgs=*/4, /*numCbs=*/3,
// CHECK-NEXT: /*cbCapacity=*/{8192, 8192, 8192}};
// CHECK: extern "C" void mtia_kernel_add(Ctx *ctx, const Arg *args) {
// CHECK-NEXT: const int64_t x_ptr = static_cast<int64_t>(args[0].i);
// CHECK: const int32_t n = static_cast<int32_t>(args[3].i);
// The scalar code: pid * 1024 and the offset * 4 (shifts), two extsi, three
// address adds, the bound's subi, maxsi, minsi; two alias tests, their OR
// and the branch around the store's fence (mtia-order-memory).
// CHECK-NEXT: scalarCycles(ctx, 14);
// CHECK-DAG: const bool [[YOUT:v_[0-9]+]] = mayAlias(ctx, y_ptr, out_ptr);
// CHECK-DAG: const bool [[XOUT:v_[0-9]+]] = mayAlias(ctx, x_ptr, out_ptr);
// The store may overwrite what the loads read only if out is x or y: the
// condition is computed once, at the entry.
// CHECK: const bool [[EITHER:v_[0-9]+]] = static_cast<bool>(([[XOUT]] | [[YOUT]]));
// CHECK: const int32_t pid = programId(ctx, 0);
// CHECK: dmaIn(ctx, /*cb=*/0, DType::F32, {{.*}}, Box{1, {1024}, {int64_t(1)}, {[[VALID:.*]]}}, immInt(DType::F32, 0));
// CHECK: dmaIn(ctx, /*cb=*/1, DType::F32, {{.*}}, Box{1, {1024}, {int64_t(1)}, {[[VALID]]}}, immInt(DType::F32, 0));
// CHECK: se(ctx, SeOp::Add, /*dst=*/2, DType::F32, Shape{1, {1024}}, view(0, DType::F32, 1), view(1, DType::F32, 1));
// CHECK: cbPop(ctx, /*cb=*/0, 4096);
// CHECK: cbPop(ctx, /*cb=*/1, 4096);
// CHECK: ctx->line = {{[0-9]+}};
// CHECK-NEXT: if ([[EITHER]]) fence(ctx, Fence::StoresAfterLoads);
// CHECK-NEXT: dmaOut(ctx, /*cb=*/2, DType::F32, {{.*}}, Box{1, {1024}, {int64_t(1)}, {[[VALID]]}});
// CHECK: cbPop(ctx, /*cb=*/2, 4096);
// CHECK-NEXT: return;
#loc = loc("kernel.py":6:1)
module {
  tt.func public @add(%x_ptr: !tt.ptr<f32> loc("x_ptr"(#loc)), %y_ptr: !tt.ptr<f32> loc("y_ptr"(#loc)), %out_ptr: !tt.ptr<f32> loc("out_ptr"(#loc)), %n: i32 loc("n"(#loc))) {
    %c1024 = arith.constant 1024 : i32
    %pid = tt.get_program_id x : i32 loc(#loc2)
    %start = arith.muli %pid, %c1024 : i32
    %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %splat = tt.splat %start : i32 -> tensor<1024xi32>
    %offs = arith.addi %splat, %range : tensor<1024xi32>
    %ns = tt.splat %n : i32 -> tensor<1024xi32>
    %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
    %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %x = tt.load %xp, %mask : tensor<1024x!tt.ptr<f32>>
    %ys = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %yp = tt.addptr %ys, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %y = tt.load %yp, %mask : tensor<1024x!tt.ptr<f32>>
    %os = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %op = tt.addptr %os, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %sum = arith.addf %x, %y : tensor<1024xf32>
    tt.store %op, %sum, %mask : tensor<1024x!tt.ptr<f32>>
    tt.return
  } loc(#loc)
} loc(#loc)
#loc1 = loc("kernel.py":7:11)
#loc2 = loc("pid"(#loc1))
