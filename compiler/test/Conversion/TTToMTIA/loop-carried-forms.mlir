// RUN: triton-mtia-opt %s --split-input-file --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// The forms of a pointer or offset tensor that a loop carries and advances
// (LoopCarried.cpp): whatever the step and however the mask is written, an
// affine tensor is carried as scalars and its loads stay DMAs.

// The K loop of flag-gems' bmm: the carried offsets make a positional mask
// without `other`, and the same mask clears the masked-off lanes with
// `tl.where`. The offsets are read as data (by the select) as well as for the
// mask: the loop carries their base as a scalar, the load is a DMA box, and
// their tile is computed from the scalar at the top of each iteration.
// CHECK-LABEL: func.func @carried_where(
// CHECK: scf.for {{.*}} iter_args(%[[OFFS:[a-z0-9_]+]] = %c0_i64, %[[PTRS:[a-z0-9_]+]] = %arg0) -> (i64, i64)
// CHECK:   mtia.se_iota {cb = [[IOTA:[0-9]+]] : i64, elemType = i64, length = 8 : i64, start = 0 : i64}
// CHECK:   mtia.se "Add" %[[OFFS]] : i64 {cb = [[WIDE:[0-9]+]] : i64, elemType = i64, shape = array<i64: 8>, srcs = [#mtia.view<cb = [[IOTA]]
// CHECK:   mtia.se "Copy" {cb = [[TILE:[0-9]+]] : i64, elemType = i32, shape = array<i64: 8>, srcs = [#mtia.view<cb = [[WIDE]]
// CHECK:   mtia.se "CmpLt" %arg2 : i32 {{.*}}srcs = [#mtia.view<cb = [[TILE]]
// CHECK:   %[[REST:.*]] = arith.subi %{{.*}}, %[[OFFS]] : i64
// CHECK:   mtia.dma_in %[[PTRS]] strides(%{{.*}}, %c1_i64) valid(%c8_i64, %{{.*}})
// CHECK:   mtia.se "Select"
// CHECK:   arith.addi %[[OFFS]], %c8_i64 : i64
// CHECK:   arith.addi %[[PTRS]], %c32_i64 : i64
// CHECK:   mtia.cb_pop {bytes = 32 : i64, cb = [[TILE]] : i64}
// CHECK: }
// The loop's results are not read: no tile is made for them.
// CHECK-NOT: mtia.se_iota
// CHECK-NOT: mtia.gather_in
tt.func public @carried_where(%A: !tt.ptr<f32>, %C: !tt.ptr<f32>, %K: i32) {
  %c7_i32 = arith.constant 7 : i32
  %c8_i32 = arith.constant 8 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant dense<8> : tensor<8x1xi32>
  %cst_0 = arith.constant dense<8> : tensor<8xi32>
  %cst_1 = arith.constant dense<8> : tensor<8x8xi32>
  %cst_2 = arith.constant dense<0.000000e+00> : tensor<8x8xf32>
  %offs_k = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %a_ptrs = tt.expand_dims %offs_k {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %a_ptrs_3 = tt.splat %K : i32 -> tensor<8x1xi32>
  %a_ptrs_4 = arith.muli %a_ptrs, %a_ptrs_3 : tensor<8x1xi32>
  %a_ptrs_5 = tt.splat %A : !tt.ptr<f32> -> tensor<8x1x!tt.ptr<f32>>
  %a_ptrs_6 = tt.addptr %a_ptrs_5, %a_ptrs_4 : tensor<8x1x!tt.ptr<f32>>, tensor<8x1xi32>
  %a_ptrs_7 = tt.expand_dims %offs_k {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %a_ptrs_8 = tt.broadcast %a_ptrs_6 : tensor<8x1x!tt.ptr<f32>> -> tensor<8x8x!tt.ptr<f32>>
  %a_ptrs_9 = tt.broadcast %a_ptrs_7 : tensor<1x8xi32> -> tensor<8x8xi32>
  %a_ptrs_10 = tt.addptr %a_ptrs_8, %a_ptrs_9 : tensor<8x8x!tt.ptr<f32>>, tensor<8x8xi32>
  %0 = arith.addi %K, %c7_i32 : i32
  %1 = arith.divsi %0, %c8_i32 : i32
  %a = tt.splat %K : i32 -> tensor<1x8xi32>
  %acc:3 = scf.for %k = %c0_i32 to %1 step %c1_i32 iter_args(%offs_k_11 = %offs_k, %a_ptrs_12 = %a_ptrs_10, %acc_13 = %cst_2) -> (tensor<8xi32>, tensor<8x8x!tt.ptr<f32>>, tensor<8x8xf32>)  : i32 {
    %a_14 = tt.expand_dims %offs_k_11 {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
    %a_15 = arith.cmpi slt, %a_14, %a : tensor<1x8xi32>
    %a_16 = tt.broadcast %a_15 : tensor<1x8xi1> -> tensor<8x8xi1>
    %a_17 = tt.load %a_ptrs_12, %a_16 : tensor<8x8x!tt.ptr<f32>>
    %acc_18 = arith.select %a_16, %a_17, %cst_2 : tensor<8x8xi1>, tensor<8x8xf32>
    %acc_19 = arith.addf %acc_13, %acc_18 : tensor<8x8xf32>
    %a_ptrs_20 = tt.addptr %a_ptrs_12, %cst_1 : tensor<8x8x!tt.ptr<f32>>, tensor<8x8xi32>
    %offs_k_21 = arith.addi %offs_k_11, %cst_0 : tensor<8xi32>
    scf.yield %offs_k_21, %a_ptrs_20, %acc_19 : tensor<8xi32>, tensor<8x8x!tt.ptr<f32>>, tensor<8x8xf32>
  }
  %2 = arith.muli %a_ptrs, %cst : tensor<8x1xi32>
  %3 = tt.splat %C : !tt.ptr<f32> -> tensor<8x1x!tt.ptr<f32>>
  %4 = tt.addptr %3, %2 : tensor<8x1x!tt.ptr<f32>>, tensor<8x1xi32>
  %5 = tt.broadcast %4 : tensor<8x1x!tt.ptr<f32>> -> tensor<8x8x!tt.ptr<f32>>
  %6 = tt.addptr %5, %a_ptrs_9 : tensor<8x8x!tt.ptr<f32>>, tensor<8x8xi32>
  tt.store %6, %acc#2 : tensor<8x8x!tt.ptr<f32>>
  tt.return
}

// -----

// Pointers advanced by a uniform tensor (`ptrs += tl.full(..., BLOCK)`) and
// offsets likewise: the strides stay those of the initial value; only the
// bases move.
// CHECK-LABEL: func.func @carried_uniform_tensor_step(
// CHECK: scf.for {{.*}} iter_args(%[[OFFS:[a-z0-9_]+]] = %c0_i64, %[[PTRS:[a-z0-9_]+]] = %arg0) -> (i64, i64)
// CHECK:   mtia.dma_in %[[PTRS]] strides(%c1_i64) valid(%{{.*}}) pad
// CHECK:   arith.addi %[[OFFS]], %c16_i64 : i64
// CHECK:   arith.addi %[[PTRS]], %c64_i64 : i64
// CHECK-NOT: mtia.gather_in
tt.func public @carried_uniform_tensor_step(%X: !tt.ptr<f32>, %Y: !tt.ptr<f32>, %N: i32) {
  %c15_i32 = arith.constant 15 : i32
  %c16_i32 = arith.constant 16 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant dense<16> : tensor<16xi32>
  %cst_0 = arith.constant dense<0.000000e+00> : tensor<16xf32>
  %offs = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %ptrs = tt.splat %X : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %ptrs_1 = tt.addptr %ptrs, %offs : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %0 = arith.addi %N, %c15_i32 : i32
  %1 = arith.divsi %0, %c16_i32 : i32
  %acc = tt.splat %N : i32 -> tensor<16xi32>
  %acc_2:3 = scf.for %k = %c0_i32 to %1 step %c1_i32 iter_args(%offs_3 = %offs, %ptrs_4 = %ptrs_1, %acc_5 = %cst_0) -> (tensor<16xi32>, tensor<16x!tt.ptr<f32>>, tensor<16xf32>)  : i32 {
    %acc_6 = arith.cmpi slt, %offs_3, %acc : tensor<16xi32>
    %acc_7 = tt.load %ptrs_4, %acc_6, %cst_0 : tensor<16x!tt.ptr<f32>>
    %acc_8 = arith.addf %acc_5, %acc_7 : tensor<16xf32>
    %ptrs_9 = tt.addptr %ptrs_4, %cst : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    %offs_10 = arith.addi %offs_3, %cst : tensor<16xi32>
    scf.yield %offs_10, %ptrs_9, %acc_8 : tensor<16xi32>, tensor<16x!tt.ptr<f32>>, tensor<16xf32>
  }
  %2 = tt.splat %Y : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %3 = tt.addptr %2, %offs : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %3, %acc_2#2 : tensor<16x!tt.ptr<f32>>
  tt.return
}

// -----

// Pointers advanced by an affine tensor that is not uniform (`ptrs += cols +
// 1`: element c moves by c + 1 each iteration): the stride changes from one
// iteration to the next, so the loop carries it beside the base, and the load
// is a DMA of the current stride.
// CHECK-LABEL: func.func @carried_affine_step(
// CHECK: scf.for {{.*}} iter_args(%[[BASE:[a-z0-9_]+]] = %arg0, %[[STRIDE:[a-z0-9_]+]] = %c1_i64) -> (i64, i64)
// CHECK:   mtia.dma_in %[[BASE]] strides(%[[STRIDE]]) valid(%c16_i64)
// CHECK:   %[[NB:.*]] = arith.addi %[[BASE]], %c4_i64 : i64
// CHECK:   %[[NS:.*]] = arith.addi %[[STRIDE]], %c1_i64 : i64
// CHECK:   scf.yield %[[NB]], %[[NS]] : i64, i64
// CHECK-NOT: mtia.gather_in
tt.func public @carried_affine_step(%X: !tt.ptr<f32>, %Y: !tt.ptr<f32>, %ITERS: i32) {
  %acc = arith.constant dense<0.000000e+00> : tensor<16xf32>
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant dense<1> : tensor<16xi32>
  %cols = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %ptrs = tt.splat %X : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %ptrs_0 = tt.addptr %ptrs, %cols : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %ptrs_1 = arith.addi %cols, %cst : tensor<16xi32>
  %acc_2:2 = scf.for %k = %c0_i32 to %ITERS step %c1_i32 iter_args(%ptrs_3 = %ptrs_0, %acc_4 = %acc) -> (tensor<16x!tt.ptr<f32>>, tensor<16xf32>)  : i32 {
    %acc_5 = tt.load %ptrs_3 : tensor<16x!tt.ptr<f32>>
    %acc_6 = arith.addf %acc_4, %acc_5 : tensor<16xf32>
    %ptrs_7 = tt.addptr %ptrs_3, %ptrs_1 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    scf.yield %ptrs_7, %acc_6 : tensor<16x!tt.ptr<f32>>, tensor<16xf32>
  }
  %0 = tt.splat %Y : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %1 = tt.addptr %0, %cols : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %1, %acc_2#1 : tensor<16x!tt.ptr<f32>>
  tt.return
}

// -----

// Pointers advanced by loaded offsets are not affine: the loop carries their
// addresses as a tile, and the load is a gather.
// CHECK-LABEL: func.func @carried_loaded_step(
// CHECK: scf.for
// CHECK:   mtia.gather_in {addrCb = [[ADDR:[0-9]+]] : i64
// CHECK:   mtia.se "Copy" {cb = [[ADDR]] : i64, elemType = i64
tt.func public @carried_loaded_step(%X: !tt.ptr<f32>, %S: !tt.ptr<i32>, %Y: !tt.ptr<f32>, %ITERS: i32) {
  %acc = arith.constant dense<0.000000e+00> : tensor<16xf32>
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %cols = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %ptrs = tt.splat %X : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %ptrs_0 = tt.addptr %ptrs, %cols : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %ptrs_1 = tt.splat %S : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
  %ptrs_2 = tt.addptr %ptrs_1, %cols : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
  %acc_3 = arith.cmpi slt, %c0_i32, %ITERS : i32
  %acc_4 = tt.splat %acc_3 : i1 -> tensor<16xi1>
  %ptrs_5 = tt.load %ptrs_2, %acc_4 : tensor<16x!tt.ptr<i32>>
  %acc_6:2 = scf.for %k = %c0_i32 to %ITERS step %c1_i32 iter_args(%ptrs_7 = %ptrs_0, %acc_8 = %acc) -> (tensor<16x!tt.ptr<f32>>, tensor<16xf32>)  : i32 {
    %acc_9 = tt.load %ptrs_7 : tensor<16x!tt.ptr<f32>>
    %acc_10 = arith.addf %acc_8, %acc_9 : tensor<16xf32>
    %ptrs_11 = tt.addptr %ptrs_7, %ptrs_5 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    scf.yield %ptrs_11, %acc_10 : tensor<16x!tt.ptr<f32>>, tensor<16xf32>
  }
  %0 = tt.splat %Y : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %1 = tt.addptr %0, %cols : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %1, %acc_6#1 : tensor<16x!tt.ptr<f32>>
  tt.return
}
