// RUN: triton-mtia-opt %s --tt-split-blocks="factor=4" --split-input-file | FileCheck %s

// An elementwise kernel over a block of 1024: its tensor ops move into a loop
// over 4 parts of 256, the index range offset by the part; scalar code stays
// in front.
// CHECK-LABEL: tt.func @add
// CHECK-SAME: mtia.split_factor = 4 : i32
// CHECK: %[[PID:.*]] = tt.get_program_id x : i32
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK:   %[[I:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK:   %[[BASE:.*]] = arith.muli %[[I]], %{{.*}} : i32
// CHECK:   %[[R:.*]] = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
// CHECK:   %[[S:.*]] = tt.splat %[[BASE]] : i32 -> tensor<256xi32>
// CHECK:   arith.addi %[[R]], %[[S]] : tensor<256xi32>
// CHECK:   tt.load {{.*}} : tensor<256x!tt.ptr<f32>>
// CHECK:   arith.constant dense<2.000000e+00> : tensor<256xf32>
// CHECK:   tt.store {{.*}} : tensor<256x!tt.ptr<f32>>
// CHECK: tt.return
tt.func @add(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
  %pid = tt.get_program_id x : i32
  %c1024 = arith.constant 1024 : i32
  %start = arith.muli %pid, %c1024 : i32
  %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %s = tt.splat %start : i32 -> tensor<1024xi32>
  %offs = arith.addi %s, %r : tensor<1024xi32>
  %ns = tt.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xp = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %xa = tt.addptr %xp, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %v = tt.load %xa, %m : tensor<1024x!tt.ptr<f32>>
  %two = arith.constant dense<2.0> : tensor<1024xf32>
  %y = arith.mulf %v, %two : tensor<1024xf32>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %oa = tt.addptr %op, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  tt.store %oa, %y, %m : tensor<1024x!tt.ptr<f32>>
  tt.return
}

// -----

// A reduction relates the block's elements: the kernel stays as it is.
// CHECK-LABEL: tt.func @sum
// CHECK-NOT: mtia.split_factor
// CHECK-NOT: scf.for
// CHECK: tt.make_range {end = 1024 : i32, start = 0 : i32}
tt.func @sum(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
  %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %xp = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %xa = tt.addptr %xp, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %v = tt.load %xa : tensor<1024x!tt.ptr<f32>>
  %s = "tt.reduce"(%v) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tt.reduce.return %t : f32
  }) : (tensor<1024xf32>) -> f32
  tt.store %out, %s : !tt.ptr<f32>
  tt.return
}
