// RUN: triton-mtia-compile %s -o - --no-dual-issue | FileCheck %s
// RUN: triton-mtia-compile %s -o - --no-dual-issue --no-effective-shapes | FileCheck %s --check-prefix=OFF

// mtia-effective-shapes: the C++ gives each restricted command its box
// (device.h validBox) right before it, as the clamped mask bound the loads
// use; a reduction also gets its fill, the loads' `other`.
// CHECK: dmaIn(ctx, /*cb=*/0, DType::F32, {{.*}}, Box{1, {1024}, {int64_t(1)}, {[[N:.*]]}}, immFloat
// CHECK: validBox(ctx, Shape{1, {[[N]]}});
// CHECK-NEXT: {{se|vec}}(ctx, SeOp::Mul
// CHECK: validBox(ctx, Shape{1, {[[N]]}}, immFloat(DType::F32, float(0.000000000e+00)));
// CHECK-NEXT: seReduce(ctx, ReduceOp::Sum
// CHECK: validBox(ctx, Shape{1, {[[N]]}});
// CHECK-NEXT: {{se|vec}}(ctx, SeOp::Mul
// CHECK: dmaOut(
// OFF-NOT: validBox
module {
  tt.func public @sum_scaled(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %s_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<1024xf32>
    %cols = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %bound = tt.splat %n : i32 -> tensor<1024xi32>
    %mask = arith.cmpi slt, %cols, %bound : tensor<1024xi32>
    %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %cols : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %x = tt.load %xp, %mask, %cst : tensor<1024x!tt.ptr<f32>>
    %sq = arith.mulf %x, %x : tensor<1024xf32>
    %sum = "tt.reduce"(%sq) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      tt.reduce.return %r : f32
    }) : (tensor<1024xf32>) -> f32
    tt.store %s_ptr, %sum : !tt.ptr<f32>
    %sums = tt.splat %sum : f32 -> tensor<1024xf32>
    %y = arith.mulf %x, %sums : tensor<1024xf32>
    %ys = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %yp = tt.addptr %ys, %cols : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    tt.store %yp, %y, %mask : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
}
