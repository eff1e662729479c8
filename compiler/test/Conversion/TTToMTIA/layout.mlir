// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// tt.join copies both halves, one after the other, into one CB on the MLU;
// the [64, 2] result is the view with strides (1, 64). The store needs a
// dense tile: one more MLU copy. tt.split is two views of the loaded tile,
// the second offset by one element: the subtraction reads them directly.
// CHECK-LABEL: func.func @join_split(
// CHECK: mtia.dma_in {{.*}} {cb = [[X:[0-9]+]] : i64, elemType = f32, shape = array<i64: 64>}
// CHECK: mtia.dma_in {{.*}} {cb = [[Y:[0-9]+]] : i64, elemType = f32, shape = array<i64: 64>}
// CHECK: mtia.mlu_copy {cb = [[J:[0-9]+]] : i64, elemType = f32, shape = array<i64: 64>, src = #mtia.view<cb = [[X]], elemType = f32, offset = 0, strides = 1>}
// CHECK: mtia.mlu_copy {cb = [[J]] : i64, elemType = f32, shape = array<i64: 64>, src = #mtia.view<cb = [[Y]], elemType = f32, offset = 0, strides = 1>}
// CHECK: mtia.mlu_copy {cb = [[Z:[0-9]+]] : i64, elemType = f32, shape = array<i64: 64, 2>, src = #mtia.view<cb = [[J]], elemType = f32, offset = 0, strides = 1, 64>}
// CHECK: mtia.dma_out {{.*}} {cb = [[Z]] : i64, elemType = f32, shape = array<i64: 64, 2>}
// CHECK: mtia.dma_in {{.*}} {cb = [[P:[0-9]+]] : i64, elemType = f32, shape = array<i64: 64, 2>}
// CHECK: mtia.se "Sub" {cb = {{[0-9]+}} : i64, elemType = f32, shape = array<i64: 64>, srcs = [#mtia.view<cb = [[P]], elemType = f32, offset = 1, strides = 2>, #mtia.view<cb = [[P]], elemType = f32, offset = 0, strides = 2>]}
// CHECK: mtia.cb_pop {bytes = 512 : i64, cb = [[P]] : i64}
tt.func public @join_split(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>) {
  %cst = arith.constant dense<2> : tensor<64x1xi32>
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %x_0 = tt.addptr %x, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %x_1 = tt.load %x_0 : tensor<64x!tt.ptr<f32>>
  %y = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %y_2 = tt.addptr %y, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %y_3 = tt.load %y_2 : tensor<64x!tt.ptr<f32>>
  %z = tt.join %x_1, %y_3 : tensor<64xf32> -> tensor<64x2xf32>
  %0 = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %1 = arith.muli %0, %cst : tensor<64x1xi32>
  %2 = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>>
  %3 = tt.addptr %2, %1 : tensor<64x1x!tt.ptr<f32>>, tensor<64x1xi32>
  %4 = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
  %5 = tt.expand_dims %4 {axis = 0 : i32} : tensor<2xi32> -> tensor<1x2xi32>
  %6 = tt.broadcast %3 : tensor<64x1x!tt.ptr<f32>> -> tensor<64x2x!tt.ptr<f32>>
  %7 = tt.broadcast %5 : tensor<1x2xi32> -> tensor<64x2xi32>
  %8 = tt.addptr %6, %7 : tensor<64x2x!tt.ptr<f32>>, tensor<64x2xi32>
  tt.store %8, %z : tensor<64x2x!tt.ptr<f32>>
  %p = tt.load %8 : tensor<64x2x!tt.ptr<f32>>
  %outLHS, %outRHS = tt.split %p : tensor<64x2xf32> -> tensor<64xf32>
  %9 = arith.subf %outRHS, %outLHS : tensor<64xf32>
  tt.store %x_0, %9 : tensor<64x!tt.ptr<f32>>
  tt.return
}

// tt.trans is a view with swapped strides; storing it needs a dense tile
// (MLU). tt.reshape of that non-dense view is made dense by the MLU too; the
// loaded tile is popped only after both of its readers through views.
// CHECK-LABEL: func.func @trans_reshape(
// CHECK: mtia.dma_in {{.*}} {cb = [[X:[0-9]+]] : i64, elemType = f32, shape = array<i64: 8, 16>}
// CHECK: mtia.mlu_copy {cb = [[T:[0-9]+]] : i64, elemType = f32, shape = array<i64: 16, 8>, src = #mtia.view<cb = [[X]], elemType = f32, offset = 0, strides = 1, 16>}
// CHECK: mtia.dma_out {{.*}} {cb = [[T]] : i64, elemType = f32, shape = array<i64: 16, 8>}
// CHECK: mtia.mlu_copy {cb = [[R:[0-9]+]] : i64, elemType = f32, shape = array<i64: 16, 8>, src = #mtia.view<cb = [[X]], elemType = f32, offset = 0, strides = 1, 16>}
// CHECK: mtia.dma_out {{.*}} {cb = [[R]] : i64, elemType = f32, shape = array<i64: 128>}
// CHECK: mtia.cb_pop {bytes = 512 : i64, cb = [[X]] : i64}
tt.func public @trans_reshape(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>, %t_ptr: !tt.ptr<f32>) {
  %cst = arith.constant dense<8> : tensor<16x1xi32>
  %x = arith.constant dense<16> : tensor<8x1xi32>
  %rm = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %rn = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %x_0 = tt.expand_dims %rm {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %x_1 = arith.muli %x_0, %x : tensor<8x1xi32>
  %x_2 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<8x1x!tt.ptr<f32>>
  %x_3 = tt.addptr %x_2, %x_1 : tensor<8x1x!tt.ptr<f32>>, tensor<8x1xi32>
  %x_4 = tt.expand_dims %rn {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %x_5 = tt.broadcast %x_3 : tensor<8x1x!tt.ptr<f32>> -> tensor<8x16x!tt.ptr<f32>>
  %x_6 = tt.broadcast %x_4 : tensor<1x16xi32> -> tensor<8x16xi32>
  %x_7 = tt.addptr %x_5, %x_6 : tensor<8x16x!tt.ptr<f32>>, tensor<8x16xi32>
  %x_8 = tt.load %x_7 : tensor<8x16x!tt.ptr<f32>>
  %t = tt.trans %x_8 {order = array<i32: 1, 0>} : tensor<8x16xf32> -> tensor<16x8xf32>
  %0 = tt.expand_dims %rn {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %1 = arith.muli %0, %cst : tensor<16x1xi32>
  %2 = tt.splat %t_ptr : !tt.ptr<f32> -> tensor<16x1x!tt.ptr<f32>>
  %3 = tt.addptr %2, %1 : tensor<16x1x!tt.ptr<f32>>, tensor<16x1xi32>
  %4 = tt.expand_dims %rm {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %5 = tt.broadcast %3 : tensor<16x1x!tt.ptr<f32>> -> tensor<16x8x!tt.ptr<f32>>
  %6 = tt.broadcast %4 : tensor<1x8xi32> -> tensor<16x8xi32>
  %7 = tt.addptr %5, %6 : tensor<16x8x!tt.ptr<f32>>, tensor<16x8xi32>
  tt.store %7, %t : tensor<16x8x!tt.ptr<f32>>
  %r = tt.reshape %t : tensor<16x8xf32> -> tensor<128xf32>
  %8 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %9 = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %10 = tt.addptr %9, %8 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %10, %r : tensor<128x!tt.ptr<f32>>
  tt.return
}
