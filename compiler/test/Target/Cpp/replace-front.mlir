// RUN: triton-mtia-compile %s -o - | FileCheck %s

// The loop's accumulator update is marked by mtia-replace-front: it prints
// as replaceFront(ctx, cb) right before the command, and the pop of the old
// accumulator that followed it is gone.
// CHECK: for (int32_t
// CHECK: replaceFront(ctx, /*cb=*/[[ACC:[0-9]+]]);
// CHECK-NEXT: se(ctx, SeOp::Add, /*dst=*/[[ACC]], DType::F32, Shape{1, {256}}, view([[ACC]], DType::F32, 1)
// CHECK-NOT: cbPop(ctx, /*cb=*/[[ACC]],
// CHECK: }
tt.func public @row_sum(%X: !tt.ptr<f32>, %Y: !tt.ptr<f32>, %N: i32) {
  %c256 = arith.constant 256 : i32
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<256xf32>
  %acc = scf.for %off = %c0 to %N step %c256 iter_args(%a = %zero) -> (tensor<256xf32>) : i32 {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %s = tt.splat %off : i32 -> tensor<256xi32>
    %cols = arith.addi %s, %r : tensor<256xi32>
    %n = tt.splat %N : i32 -> tensor<256xi32>
    %m = arith.cmpi slt, %cols, %n : tensor<256xi32>
    %xp = tt.splat %X : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %p = tt.addptr %xp, %cols : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x = tt.load %p, %m, %zero : tensor<256x!tt.ptr<f32>>
    %next = arith.addf %a, %x : tensor<256xf32>
    scf.yield %next : tensor<256xf32>
  }
  %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %yp = tt.splat %Y : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %q = tt.addptr %yp, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
  tt.store %q, %acc : tensor<256x!tt.ptr<f32>>
  tt.return
}
