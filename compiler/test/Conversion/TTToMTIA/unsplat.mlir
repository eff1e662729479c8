// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// `tl.split` of a 2-element tensor into two scalars (upstream's
// test_split_to_scalar) and `x.item()`: tt.unsplat reads the one element of
// each half, a view at its offset in the loaded tile, into a core register.
// CHECK-LABEL: func.func @split_to_scalars(
// CHECK: mtia.dma_in %arg0 {{.*}} {cb = [[X:[0-9]+]] : i64, elemType = f32, shape = array<i64: 2>}
// CHECK-DAG: %[[LO:.*]] = mtia.read {cb = [[X]] : i64, index = 0 : i64} : f32
// CHECK-DAG: %[[HI:.*]] = mtia.read {cb = [[X]] : i64, index = 1 : i64} : f32
// CHECK: %[[SUM:.*]] = arith.addf %[[LO]], %[[HI]] : f32
// CHECK: mtia.se "Copy" %[[SUM]] : f32
tt.func public @split_to_scalars(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
  %r = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
  %p = tt.splat %x : !tt.ptr<f32> -> tensor<2x!tt.ptr<f32>>
  %q = tt.addptr %p, %r : tensor<2x!tt.ptr<f32>>, tensor<2xi32>
  %v = tt.load %q : tensor<2x!tt.ptr<f32>>
  %e = tt.expand_dims %v {axis = 0 : i32} : tensor<2xf32> -> tensor<1x2xf32>
  %lo, %hi = tt.split %e : tensor<1x2xf32> -> tensor<1xf32>
  %a = tt.unsplat %lo : tensor<1xf32>
  %b = tt.unsplat %hi : tensor<1xf32>
  %s = arith.addf %a, %b : f32
  tt.store %out, %s : !tt.ptr<f32>
  tt.return
}

// A uniform tensor needs no read: its scalar is the value.
// CHECK-LABEL: func.func @unsplat_of_splat(
// CHECK-NOT: mtia.read
// CHECK: mtia.se "Copy" %arg1 : i32
tt.func public @unsplat_of_splat(%out: !tt.ptr<i32>, %v: i32) {
  %t = tt.splat %v : i32 -> tensor<1x1xi32>
  %s = tt.unsplat %t : tensor<1x1xi32>
  tt.store %out, %s : !tt.ptr<i32>
  tt.return
}
