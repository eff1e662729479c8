// RUN: triton-mtia-compile %s -o - | FileCheck %s

// A box with a lower bound prints its begin as the fifth member of Box; the
// box without one prints as before (Box::begin defaults to 0).
// CHECK: dmaIn(ctx, /*cb=*/0, DType::F32, {{.*}}, Box{1, {64}, {int64_t(1)}, {int64_t(64)}, {int64_t(1)}}, immFloat(DType::F32, {{.*}}));
// CHECK: dmaOut(ctx, /*cb=*/0, DType::F32, {{.*}}, Box{1, {64}, {int64_t(1)}, {int64_t(64)}});
#loc = loc("kernel.py":1:1)
module {
  tt.func public @shift(%x_ptr: !tt.ptr<f32> loc("x_ptr"(#loc)), %out_ptr: !tt.ptr<f32> loc("out_ptr"(#loc))) {
    %ones = arith.constant dense<1> : tensor<64xi32>
    %zeros = arith.constant dense<0.000000e+00> : tensor<64xf32>
    %offs = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %m = arith.cmpi sge, %offs, %ones : tensor<64xi32>
    %prev = arith.subi %offs, %ones : tensor<64xi32>
    %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %prev : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %x = tt.load %xp, %m, %zeros : tensor<64x!tt.ptr<f32>>
    %os = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %op = tt.addptr %os, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    tt.store %op, %x : tensor<64x!tt.ptr<f32>>
    tt.return
  } loc(#loc)
} loc(#loc)
