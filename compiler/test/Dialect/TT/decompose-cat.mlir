// RUN: triton-mtia-opt %s --tt-decompose-cat | FileCheck %s

// tl.cat(a, b, can_reorder=True) in the order of a concatenation: join to
// [.., 2], the new dimension to the front, reshape to [2 * d0, ..].
// CHECK-LABEL: tt.func @cat_1d
// CHECK: %[[J:.*]] = tt.join %arg0, %arg1 : tensor<8xf32> -> tensor<8x2xf32>
// CHECK: %[[T:.*]] = tt.trans %[[J]] {order = array<i32: 1, 0>} : tensor<8x2xf32> -> tensor<2x8xf32>
// CHECK: %[[R:.*]] = tt.reshape %[[T]] : tensor<2x8xf32> -> tensor<16xf32>
// CHECK: tt.return %[[R]]
tt.func @cat_1d(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<16xf32> {
  %c = tt.cat %a, %b : tensor<8xf32> -> tensor<16xf32>
  tt.return %c : tensor<16xf32>
}

// CHECK-LABEL: tt.func @cat_2d
// CHECK: tt.join {{.*}} : tensor<4x8xi32> -> tensor<4x8x2xi32>
// CHECK: tt.trans {{.*}} {order = array<i32: 2, 0, 1>} : tensor<4x8x2xi32> -> tensor<2x4x8xi32>
// CHECK: tt.reshape {{.*}} : tensor<2x4x8xi32> -> tensor<8x8xi32>
tt.func @cat_2d(%a: tensor<4x8xi32>, %b: tensor<4x8xi32>) -> tensor<8x8xi32> {
  %c = tt.cat %a, %b : tensor<4x8xi32> -> tensor<8x8xi32>
  tt.return %c : tensor<8x8xi32>
}
