// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// tt.dot on the DPE. The inputs are read through the views of their tiles;
// a uniform accumulator (tl.dot without acc, tl.zeros) is an immediate.
// CHECK-LABEL: func.func @dot_basic(
// CHECK: mtia.dma_in {{.*}} {cb = [[A:[0-9]+]] : i64, elemType = f16, shape = array<i64: 16, 8>}
// CHECK: mtia.dma_in {{.*}} {cb = [[B:[0-9]+]] : i64, elemType = f16, shape = array<i64: 8, 32>}
// CHECK: mtia.dpe %{{.*}} : f32 {accType = f32, cb = [[D:[0-9]+]] : i64, k = 8 : i64, m = 16 : i64, n = 32 : i64, srcs = [#mtia.view<cb = [[A]], elemType = f16, offset = 0, strides = 8, 1>, #mtia.view<cb = [[B]], elemType = f16, offset = 0, strides = 32, 1>, #mtia.imm]}
// CHECK: mtia.dma_out {{.*}} {cb = [[D]] : i64, elemType = f32, shape = array<i64: 16, 32>}
tt.func public @dot_basic(%a_ptr: !tt.ptr<f16>, %b_ptr: !tt.ptr<f16>, %c_ptr: !tt.ptr<f32>) {
  %cst = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
  %cst_0 = arith.constant dense<32> : tensor<16x1xi32>
  %b = arith.constant dense<32> : tensor<8x1xi32>
  %a = arith.constant dense<8> : tensor<16x1xi32>
  %rm = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %rn = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %rk = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %a_1 = tt.expand_dims %rm {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %a_2 = arith.muli %a_1, %a : tensor<16x1xi32>
  %a_3 = tt.splat %a_ptr : !tt.ptr<f16> -> tensor<16x1x!tt.ptr<f16>>
  %a_4 = tt.addptr %a_3, %a_2 : tensor<16x1x!tt.ptr<f16>>, tensor<16x1xi32>
  %a_5 = tt.expand_dims %rk {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %a_6 = tt.broadcast %a_4 : tensor<16x1x!tt.ptr<f16>> -> tensor<16x8x!tt.ptr<f16>>
  %a_7 = tt.broadcast %a_5 : tensor<1x8xi32> -> tensor<16x8xi32>
  %a_8 = tt.addptr %a_6, %a_7 : tensor<16x8x!tt.ptr<f16>>, tensor<16x8xi32>
  %a_9 = tt.load %a_8 : tensor<16x8x!tt.ptr<f16>>
  %b_10 = tt.expand_dims %rk {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %b_11 = arith.muli %b_10, %b : tensor<8x1xi32>
  %b_12 = tt.splat %b_ptr : !tt.ptr<f16> -> tensor<8x1x!tt.ptr<f16>>
  %b_13 = tt.addptr %b_12, %b_11 : tensor<8x1x!tt.ptr<f16>>, tensor<8x1xi32>
  %b_14 = tt.expand_dims %rn {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_15 = tt.broadcast %b_13 : tensor<8x1x!tt.ptr<f16>> -> tensor<8x32x!tt.ptr<f16>>
  %b_16 = tt.broadcast %b_14 : tensor<1x32xi32> -> tensor<8x32xi32>
  %b_17 = tt.addptr %b_15, %b_16 : tensor<8x32x!tt.ptr<f16>>, tensor<8x32xi32>
  %b_18 = tt.load %b_17 : tensor<8x32x!tt.ptr<f16>>
  %0 = arith.muli %a_1, %cst_0 : tensor<16x1xi32>
  %1 = tt.splat %c_ptr : !tt.ptr<f32> -> tensor<16x1x!tt.ptr<f32>>
  %2 = tt.addptr %1, %0 : tensor<16x1x!tt.ptr<f32>>, tensor<16x1xi32>
  %3 = tt.broadcast %2 : tensor<16x1x!tt.ptr<f32>> -> tensor<16x32x!tt.ptr<f32>>
  %4 = tt.broadcast %b_14 : tensor<1x32xi32> -> tensor<16x32xi32>
  %5 = tt.addptr %3, %4 : tensor<16x32x!tt.ptr<f32>>, tensor<16x32xi32>
  %6 = tt.dot %a_9, %b_18, %cst, inputPrecision = tf32 : tensor<16x8xf16> * tensor<8x32xf16> -> tensor<16x32xf32>
  tt.store %5, %6 : tensor<16x32x!tt.ptr<f32>>
  tt.return
}

// int8 x int8 accumulates in i32 (the immediate accumulator is an i32 zero).
// CHECK-LABEL: func.func @dot_int8(
// CHECK: mtia.dpe %{{.*}} : i32 {accType = i32, {{.*}}srcs = [#mtia.view<cb = {{[0-9]+}}, elemType = i8, {{.*}}>, #mtia.view<cb = {{[0-9]+}}, elemType = i8, {{.*}}>, #mtia.imm]}
tt.func public @dot_int8(%a_ptr: !tt.ptr<i8>, %b_ptr: !tt.ptr<i8>, %c_ptr: !tt.ptr<i32>) {
  %cst = arith.constant dense<0> : tensor<16x32xi32>
  %cst_0 = arith.constant dense<32> : tensor<16x1xi32>
  %b = arith.constant dense<32> : tensor<8x1xi32>
  %a = arith.constant dense<8> : tensor<16x1xi32>
  %rm = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %rn = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %rk = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %a_1 = tt.expand_dims %rm {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %a_2 = arith.muli %a_1, %a : tensor<16x1xi32>
  %a_3 = tt.splat %a_ptr : !tt.ptr<i8> -> tensor<16x1x!tt.ptr<i8>>
  %a_4 = tt.addptr %a_3, %a_2 : tensor<16x1x!tt.ptr<i8>>, tensor<16x1xi32>
  %a_5 = tt.expand_dims %rk {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %a_6 = tt.broadcast %a_4 : tensor<16x1x!tt.ptr<i8>> -> tensor<16x8x!tt.ptr<i8>>
  %a_7 = tt.broadcast %a_5 : tensor<1x8xi32> -> tensor<16x8xi32>
  %a_8 = tt.addptr %a_6, %a_7 : tensor<16x8x!tt.ptr<i8>>, tensor<16x8xi32>
  %a_9 = tt.load %a_8 : tensor<16x8x!tt.ptr<i8>>
  %b_10 = tt.expand_dims %rk {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %b_11 = arith.muli %b_10, %b : tensor<8x1xi32>
  %b_12 = tt.splat %b_ptr : !tt.ptr<i8> -> tensor<8x1x!tt.ptr<i8>>
  %b_13 = tt.addptr %b_12, %b_11 : tensor<8x1x!tt.ptr<i8>>, tensor<8x1xi32>
  %b_14 = tt.expand_dims %rn {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_15 = tt.broadcast %b_13 : tensor<8x1x!tt.ptr<i8>> -> tensor<8x32x!tt.ptr<i8>>
  %b_16 = tt.broadcast %b_14 : tensor<1x32xi32> -> tensor<8x32xi32>
  %b_17 = tt.addptr %b_15, %b_16 : tensor<8x32x!tt.ptr<i8>>, tensor<8x32xi32>
  %b_18 = tt.load %b_17 : tensor<8x32x!tt.ptr<i8>>
  %0 = arith.muli %a_1, %cst_0 : tensor<16x1xi32>
  %1 = tt.splat %c_ptr : !tt.ptr<i32> -> tensor<16x1x!tt.ptr<i32>>
  %2 = tt.addptr %1, %0 : tensor<16x1x!tt.ptr<i32>>, tensor<16x1xi32>
  %3 = tt.broadcast %2 : tensor<16x1x!tt.ptr<i32>> -> tensor<16x32x!tt.ptr<i32>>
  %4 = tt.broadcast %b_14 : tensor<1x32xi32> -> tensor<16x32xi32>
  %5 = tt.addptr %3, %4 : tensor<16x32x!tt.ptr<i32>>, tensor<16x32xi32>
  %6 = tt.dot %a_9, %b_18, %cst, inputPrecision = tf32 : tensor<16x8xi8> * tensor<8x32xi8> -> tensor<16x32xi32>
  tt.store %5, %6 : tensor<16x32x!tt.ptr<i32>>
  tt.return
}

// f32 inputs (any inputPrecision): full f32 products on the DPE.
// CHECK-LABEL: func.func @dot_f32(
// CHECK: mtia.dpe %{{.*}} : f32 {accType = f32, {{.*}}srcs = [#mtia.view<cb = {{[0-9]+}}, elemType = f32, {{.*}}>, #mtia.view<cb = {{[0-9]+}}, elemType = f32, {{.*}}>, #mtia.imm]}
tt.func public @dot_f32(%a_ptr: !tt.ptr<f32>, %b_ptr: !tt.ptr<f32>, %c_ptr: !tt.ptr<f32>) {
  %cst = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
  %cst_0 = arith.constant dense<32> : tensor<16x1xi32>
  %b = arith.constant dense<32> : tensor<8x1xi32>
  %a = arith.constant dense<8> : tensor<16x1xi32>
  %rm = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %rn = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %rk = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %a_1 = tt.expand_dims %rm {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %a_2 = arith.muli %a_1, %a : tensor<16x1xi32>
  %a_3 = tt.splat %a_ptr : !tt.ptr<f32> -> tensor<16x1x!tt.ptr<f32>>
  %a_4 = tt.addptr %a_3, %a_2 : tensor<16x1x!tt.ptr<f32>>, tensor<16x1xi32>
  %a_5 = tt.expand_dims %rk {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %a_6 = tt.broadcast %a_4 : tensor<16x1x!tt.ptr<f32>> -> tensor<16x8x!tt.ptr<f32>>
  %a_7 = tt.broadcast %a_5 : tensor<1x8xi32> -> tensor<16x8xi32>
  %a_8 = tt.addptr %a_6, %a_7 : tensor<16x8x!tt.ptr<f32>>, tensor<16x8xi32>
  %a_9 = tt.load %a_8 : tensor<16x8x!tt.ptr<f32>>
  %b_10 = tt.expand_dims %rk {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %b_11 = arith.muli %b_10, %b : tensor<8x1xi32>
  %b_12 = tt.splat %b_ptr : !tt.ptr<f32> -> tensor<8x1x!tt.ptr<f32>>
  %b_13 = tt.addptr %b_12, %b_11 : tensor<8x1x!tt.ptr<f32>>, tensor<8x1xi32>
  %b_14 = tt.expand_dims %rn {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_15 = tt.broadcast %b_13 : tensor<8x1x!tt.ptr<f32>> -> tensor<8x32x!tt.ptr<f32>>
  %b_16 = tt.broadcast %b_14 : tensor<1x32xi32> -> tensor<8x32xi32>
  %b_17 = tt.addptr %b_15, %b_16 : tensor<8x32x!tt.ptr<f32>>, tensor<8x32xi32>
  %b_18 = tt.load %b_17 : tensor<8x32x!tt.ptr<f32>>
  %0 = arith.muli %a_1, %cst_0 : tensor<16x1xi32>
  %1 = tt.splat %c_ptr : !tt.ptr<f32> -> tensor<16x1x!tt.ptr<f32>>
  %2 = tt.addptr %1, %0 : tensor<16x1x!tt.ptr<f32>>, tensor<16x1xi32>
  %3 = tt.broadcast %2 : tensor<16x1x!tt.ptr<f32>> -> tensor<16x32x!tt.ptr<f32>>
  %4 = tt.broadcast %b_14 : tensor<1x32xi32> -> tensor<16x32xi32>
  %5 = tt.addptr %3, %4 : tensor<16x32x!tt.ptr<f32>>, tensor<16x32xi32>
  %6 = tt.dot %a_9, %b_18, %cst, inputPrecision = tf32 : tensor<16x8xf32> * tensor<8x32xf32> -> tensor<16x32xf32>
  tt.store %5, %6 : tensor<16x32x!tt.ptr<f32>>
  tt.return
}

// The two fp8 kinds may be mixed; they accumulate in f32.
// CHECK-LABEL: func.func @dot_fp8(
// CHECK: mtia.dpe %{{.*}} : f32 {accType = f32, {{.*}}srcs = [#mtia.view<cb = {{[0-9]+}}, elemType = f8E4M3FN, {{.*}}>, #mtia.view<cb = {{[0-9]+}}, elemType = f8E5M2, {{.*}}>, #mtia.imm]}
tt.func public @dot_fp8(%a_ptr: !tt.ptr<f8E4M3FN>, %b_ptr: !tt.ptr<f8E5M2>, %c_ptr: !tt.ptr<f32>) {
  %cst = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
  %cst_0 = arith.constant dense<32> : tensor<16x1xi32>
  %b = arith.constant dense<32> : tensor<8x1xi32>
  %a = arith.constant dense<8> : tensor<16x1xi32>
  %rm = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %rn = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %rk = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %a_1 = tt.expand_dims %rm {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %a_2 = arith.muli %a_1, %a : tensor<16x1xi32>
  %a_3 = tt.splat %a_ptr : !tt.ptr<f8E4M3FN> -> tensor<16x1x!tt.ptr<f8E4M3FN>>
  %a_4 = tt.addptr %a_3, %a_2 : tensor<16x1x!tt.ptr<f8E4M3FN>>, tensor<16x1xi32>
  %a_5 = tt.expand_dims %rk {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %a_6 = tt.broadcast %a_4 : tensor<16x1x!tt.ptr<f8E4M3FN>> -> tensor<16x8x!tt.ptr<f8E4M3FN>>
  %a_7 = tt.broadcast %a_5 : tensor<1x8xi32> -> tensor<16x8xi32>
  %a_8 = tt.addptr %a_6, %a_7 : tensor<16x8x!tt.ptr<f8E4M3FN>>, tensor<16x8xi32>
  %a_9 = tt.load %a_8 : tensor<16x8x!tt.ptr<f8E4M3FN>>
  %b_10 = tt.expand_dims %rk {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %b_11 = arith.muli %b_10, %b : tensor<8x1xi32>
  %b_12 = tt.splat %b_ptr : !tt.ptr<f8E5M2> -> tensor<8x1x!tt.ptr<f8E5M2>>
  %b_13 = tt.addptr %b_12, %b_11 : tensor<8x1x!tt.ptr<f8E5M2>>, tensor<8x1xi32>
  %b_14 = tt.expand_dims %rn {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_15 = tt.broadcast %b_13 : tensor<8x1x!tt.ptr<f8E5M2>> -> tensor<8x32x!tt.ptr<f8E5M2>>
  %b_16 = tt.broadcast %b_14 : tensor<1x32xi32> -> tensor<8x32xi32>
  %b_17 = tt.addptr %b_15, %b_16 : tensor<8x32x!tt.ptr<f8E5M2>>, tensor<8x32xi32>
  %b_18 = tt.load %b_17 : tensor<8x32x!tt.ptr<f8E5M2>>
  %0 = arith.muli %a_1, %cst_0 : tensor<16x1xi32>
  %1 = tt.splat %c_ptr : !tt.ptr<f32> -> tensor<16x1x!tt.ptr<f32>>
  %2 = tt.addptr %1, %0 : tensor<16x1x!tt.ptr<f32>>, tensor<16x1xi32>
  %3 = tt.broadcast %2 : tensor<16x1x!tt.ptr<f32>> -> tensor<16x32x!tt.ptr<f32>>
  %4 = tt.broadcast %b_14 : tensor<1x32xi32> -> tensor<16x32xi32>
  %5 = tt.addptr %3, %4 : tensor<16x32x!tt.ptr<f32>>, tensor<16x32xi32>
  %6 = tt.dot %a_9, %b_18, %cst, inputPrecision = tf32 : tensor<16x8xf8E4M3FN> * tensor<8x32xf8E5M2> -> tensor<16x32xf32>
  tt.store %5, %6 : tensor<16x32x!tt.ptr<f32>>
  tt.return
}


// a @ tl.trans(b): the transposed operand is the loaded [32, 8] tile read
// with swapped strides, no copy. An f16 accumulator and out_dtype=float16:
// the DPE still accumulates in f32 (the accumulator is widened by the SE
// before, the result narrowed after).
// CHECK-LABEL: func.func @dot_bt(
// CHECK: mtia.dma_in {{.*}} {cb = [[A:[0-9]+]] : i64, elemType = f16, shape = array<i64: 16, 8>}
// CHECK: mtia.dma_in {{.*}} {cb = [[B:[0-9]+]] : i64, elemType = f16, shape = array<i64: 32, 8>}
// CHECK: mtia.dma_in {{.*}} {cb = [[C:[0-9]+]] : i64, elemType = f16, shape = array<i64: 16, 32>}
// CHECK: mtia.se "Copy" {cb = [[C32:[0-9]+]] : i64, elemType = f32, shape = array<i64: 16, 32>, srcs = [#mtia.view<cb = [[C]], elemType = f16
// CHECK: mtia.dpe {accType = f32, cb = [[D32:[0-9]+]] : i64, k = 8 : i64, m = 16 : i64, n = 32 : i64, srcs = [#mtia.view<cb = [[A]], elemType = f16, offset = 0, strides = 8, 1>, #mtia.view<cb = [[B]], elemType = f16, offset = 0, strides = 1, 8>, #mtia.view<cb = [[C32]], elemType = f32, offset = 0, strides = 32, 1>]}
// CHECK: mtia.se "Copy" {cb = [[D:[0-9]+]] : i64, elemType = f16, shape = array<i64: 16, 32>, srcs = [#mtia.view<cb = [[D32]], elemType = f32
// CHECK-DAG: mtia.cb_pop {bytes = 2048 : i64, cb = [[C32]] : i64}
// CHECK-DAG: mtia.cb_pop {bytes = 2048 : i64, cb = [[D32]] : i64}
// CHECK: mtia.dma_out {{.*}} {cb = [[D]] : i64, elemType = f16, shape = array<i64: 16, 32>}
tt.func public @dot_bt(%a_ptr: !tt.ptr<f16>, %b_ptr: !tt.ptr<f16>, %c_ptr: !tt.ptr<f16>) {
  %cst = arith.constant dense<32> : tensor<16x1xi32>
  %b = arith.constant dense<8> : tensor<32x1xi32>
  %a = arith.constant dense<8> : tensor<16x1xi32>
  %rm = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %rn = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %rk = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %a_0 = tt.expand_dims %rm {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %a_1 = arith.muli %a_0, %a : tensor<16x1xi32>
  %a_2 = tt.splat %a_ptr : !tt.ptr<f16> -> tensor<16x1x!tt.ptr<f16>>
  %a_3 = tt.addptr %a_2, %a_1 : tensor<16x1x!tt.ptr<f16>>, tensor<16x1xi32>
  %a_4 = tt.expand_dims %rk {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %a_5 = tt.broadcast %a_3 : tensor<16x1x!tt.ptr<f16>> -> tensor<16x8x!tt.ptr<f16>>
  %a_6 = tt.broadcast %a_4 : tensor<1x8xi32> -> tensor<16x8xi32>
  %a_7 = tt.addptr %a_5, %a_6 : tensor<16x8x!tt.ptr<f16>>, tensor<16x8xi32>
  %a_8 = tt.load %a_7 : tensor<16x8x!tt.ptr<f16>>
  %b_9 = tt.expand_dims %rn {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %b_10 = arith.muli %b_9, %b : tensor<32x1xi32>
  %b_11 = tt.splat %b_ptr : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %b_12 = tt.addptr %b_11, %b_10 : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %b_13 = tt.broadcast %b_12 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x8x!tt.ptr<f16>>
  %b_14 = tt.broadcast %a_4 : tensor<1x8xi32> -> tensor<32x8xi32>
  %b_15 = tt.addptr %b_13, %b_14 : tensor<32x8x!tt.ptr<f16>>, tensor<32x8xi32>
  %b_16 = tt.load %b_15 : tensor<32x8x!tt.ptr<f16>>
  %c = arith.muli %a_0, %cst : tensor<16x1xi32>
  %c_17 = tt.splat %c_ptr : !tt.ptr<f16> -> tensor<16x1x!tt.ptr<f16>>
  %c_18 = tt.addptr %c_17, %c : tensor<16x1x!tt.ptr<f16>>, tensor<16x1xi32>
  %c_19 = tt.expand_dims %rn {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %c_20 = tt.broadcast %c_18 : tensor<16x1x!tt.ptr<f16>> -> tensor<16x32x!tt.ptr<f16>>
  %c_21 = tt.broadcast %c_19 : tensor<1x32xi32> -> tensor<16x32xi32>
  %c_22 = tt.addptr %c_20, %c_21 : tensor<16x32x!tt.ptr<f16>>, tensor<16x32xi32>
  %c_23 = tt.load %c_22 : tensor<16x32x!tt.ptr<f16>>
  %0 = tt.trans %b_16 {order = array<i32: 1, 0>} : tensor<32x8xf16> -> tensor<8x32xf16>
  %1 = tt.dot %a_8, %0, %c_23, inputPrecision = tf32 : tensor<16x8xf16> * tensor<8x32xf16> -> tensor<16x32xf16>
  tt.store %c_22, %1 : tensor<16x32x!tt.ptr<f16>>
  tt.return
}

// A batched (3-D) dot is one DPE command per batch, each offset into the
// operands' tiles; their results, appended in order, form the [2, 16, 16] tile.
// CHECK-LABEL: func.func @dot_batched(
// CHECK: mtia.dpe %{{.*}} : f32 {accType = f32, cb = [[D:[0-9]+]] : i64, k = 16 : i64, m = 16 : i64, n = 16 : i64, srcs = [#mtia.view<cb = [[A:[0-9]+]], elemType = f16, offset = 0, strides = 16, 1>, #mtia.view<cb = [[B:[0-9]+]], elemType = f16, offset = 0, strides = 16, 1>, #mtia.imm]}
// CHECK: mtia.dpe %{{.*}} : f32 {accType = f32, cb = [[D]] : i64, k = 16 : i64, m = 16 : i64, n = 16 : i64, srcs = [#mtia.view<cb = [[A]], elemType = f16, offset = 256, strides = 16, 1>, #mtia.view<cb = [[B]], elemType = f16, offset = 256, strides = 16, 1>, #mtia.imm]}
// CHECK: mtia.dma_out {{.*}} {cb = [[D]] : i64, elemType = f32, shape = array<i64: 2, 16, 16>}
tt.func public @dot_batched(%a_ptr: !tt.ptr<f16>, %b_ptr: !tt.ptr<f16>, %c_ptr: !tt.ptr<f32>) {
  %cst = arith.constant dense<0.000000e+00> : tensor<2x16x16xf32>
  %cst_0 = arith.constant dense<16> : tensor<1x16x1xi32>
  %cst_1 = arith.constant dense<16> : tensor<2x1x1xi32>
  %rb = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
  %rm = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %a = tt.expand_dims %rb {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
  %a_2 = tt.expand_dims %a {axis = 2 : i32} : tensor<2x1xi32> -> tensor<2x1x1xi32>
  %a_3 = arith.muli %a_2, %cst_1 : tensor<2x1x1xi32>
  %a_4 = arith.muli %a_3, %cst_1 : tensor<2x1x1xi32>
  %a_5 = tt.splat %a_ptr : !tt.ptr<f16> -> tensor<2x1x1x!tt.ptr<f16>>
  %a_6 = tt.addptr %a_5, %a_4 : tensor<2x1x1x!tt.ptr<f16>>, tensor<2x1x1xi32>
  %a_7 = tt.expand_dims %rm {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %a_8 = tt.expand_dims %a_7 {axis = 2 : i32} : tensor<1x16xi32> -> tensor<1x16x1xi32>
  %a_9 = arith.muli %a_8, %cst_0 : tensor<1x16x1xi32>
  %a_10 = tt.broadcast %a_6 : tensor<2x1x1x!tt.ptr<f16>> -> tensor<2x16x1x!tt.ptr<f16>>
  %a_11 = tt.broadcast %a_9 : tensor<1x16x1xi32> -> tensor<2x16x1xi32>
  %a_12 = tt.addptr %a_10, %a_11 : tensor<2x16x1x!tt.ptr<f16>>, tensor<2x16x1xi32>
  %a_13 = tt.expand_dims %a_7 {axis = 1 : i32} : tensor<1x16xi32> -> tensor<1x1x16xi32>
  %a_14 = tt.broadcast %a_12 : tensor<2x16x1x!tt.ptr<f16>> -> tensor<2x16x16x!tt.ptr<f16>>
  %a_15 = tt.broadcast %a_13 : tensor<1x1x16xi32> -> tensor<2x16x16xi32>
  %a_16 = tt.addptr %a_14, %a_15 : tensor<2x16x16x!tt.ptr<f16>>, tensor<2x16x16xi32>
  %a_17 = tt.load %a_16 : tensor<2x16x16x!tt.ptr<f16>>
  %b = tt.splat %b_ptr : !tt.ptr<f16> -> tensor<2x1x1x!tt.ptr<f16>>
  %b_18 = tt.addptr %b, %a_4 : tensor<2x1x1x!tt.ptr<f16>>, tensor<2x1x1xi32>
  %b_19 = tt.broadcast %b_18 : tensor<2x1x1x!tt.ptr<f16>> -> tensor<2x16x1x!tt.ptr<f16>>
  %b_20 = tt.addptr %b_19, %a_11 : tensor<2x16x1x!tt.ptr<f16>>, tensor<2x16x1xi32>
  %b_21 = tt.broadcast %b_20 : tensor<2x16x1x!tt.ptr<f16>> -> tensor<2x16x16x!tt.ptr<f16>>
  %b_22 = tt.addptr %b_21, %a_15 : tensor<2x16x16x!tt.ptr<f16>>, tensor<2x16x16xi32>
  %b_23 = tt.load %b_22 : tensor<2x16x16x!tt.ptr<f16>>
  %0 = tt.splat %c_ptr : !tt.ptr<f32> -> tensor<2x1x1x!tt.ptr<f32>>
  %1 = tt.addptr %0, %a_4 : tensor<2x1x1x!tt.ptr<f32>>, tensor<2x1x1xi32>
  %2 = tt.broadcast %1 : tensor<2x1x1x!tt.ptr<f32>> -> tensor<2x16x1x!tt.ptr<f32>>
  %3 = tt.addptr %2, %a_11 : tensor<2x16x1x!tt.ptr<f32>>, tensor<2x16x1xi32>
  %4 = tt.broadcast %3 : tensor<2x16x1x!tt.ptr<f32>> -> tensor<2x16x16x!tt.ptr<f32>>
  %5 = tt.addptr %4, %a_15 : tensor<2x16x16x!tt.ptr<f32>>, tensor<2x16x16xi32>
  %6 = tt.dot %a_17, %b_23, %cst, inputPrecision = tf32 : tensor<2x16x16xf16> * tensor<2x16x16xf16> -> tensor<2x16x16xf32>
  tt.store %5, %6 : tensor<2x16x16x!tt.ptr<f32>>
  tt.return
}

// A GPU-style matmul: `acc = tl.dot(a, b, acc)` in the K loop. The DPE reads
// the loop-carried accumulator at the front of its CB and appends the next
// one behind it (no copy by the yield); the pointer tensors are carried as
// scalar bases (see loop-pointers.mlir), so both loads stay strided DMAs
// whose K extent is the masked tail.
// CHECK-LABEL: func.func @matmul(
// CHECK: mtia.se "Copy" %{{.*}} : f32 {cb = [[ACC:[0-9]+]] : i64, elemType = f32, shape = array<i64: 32, 32>, srcs = [#mtia.imm]}
// CHECK: scf.for {{.*}} iter_args(%[[AP:.*]] = %{{.*}}, %[[BP:.*]] = %{{.*}}) -> (i64, i64)
// CHECK:   mtia.dma_in %[[AP]] strides({{.*}}) valid({{.*}}, %[[KV:.*]]) pad {{.*}} {cb = [[A:[0-9]+]] : i64, elemType = f16, shape = array<i64: 32, 16>}
// CHECK:   mtia.dma_in %[[BP]] strides({{.*}}) valid(%[[KV]], {{.*}}) pad {{.*}} {cb = [[B:[0-9]+]] : i64, elemType = f16, shape = array<i64: 16, 32>}
// CHECK:   mtia.dpe {accType = f32, cb = [[ACC]] : i64, k = 16 : i64, m = 32 : i64, n = 32 : i64, srcs = [#mtia.view<cb = [[A]], {{.*}}>, #mtia.view<cb = [[B]], {{.*}}>, #mtia.view<cb = [[ACC]], elemType = f32, offset = 0, strides = 32, 1>]}
// CHECK:   mtia.cb_pop {bytes = 4096 : i64, cb = [[ACC]] : i64}
// CHECK-NOT: mtia.se
// CHECK:   scf.yield
// CHECK: mtia.se "Copy" {cb = {{[0-9]+}} : i64, elemType = f16, shape = array<i64: 32, 32>, srcs = [#mtia.view<cb = [[ACC]]
tt.func public @matmul(%a_ptr: !tt.ptr<f16>, %b_ptr: !tt.ptr<f16>, %c_ptr: !tt.ptr<f16>, %M: i32, %N: i32, %K: i32, %sam: i32, %sak: i32, %sbk: i32, %sbn: i32, %scm: i32, %scn: i32) {
  %c15_i32 = arith.constant 15 : i32
  %acc = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %c31_i32 = arith.constant 31 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<16x32xf16>
  %cst_0 = arith.constant dense<0.000000e+00> : tensor<32x16xf16>
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %c16_i32 = arith.constant 16 : i32
  %c32_i32 = arith.constant 32 : i32
  %c4_i32 = arith.constant 4 : i32
  %pid = tt.get_program_id x : i32
  %npm = arith.addi %M, %c31_i32 : i32
  %npm_1 = arith.divsi %npm, %c32_i32 : i32
  %npn = arith.addi %N, %c31_i32 : i32
  %npn_2 = arith.divsi %npn, %c32_i32 : i32
  %width = arith.muli %npn_2, %c4_i32 : i32
  %gid = arith.divsi %pid, %width : i32
  %first = arith.muli %gid, %c4_i32 : i32
  %gsz = arith.subi %npm_1, %first : i32
  %gsz_3 = arith.minsi %gsz, %c4_i32 : i32
  %pm = arith.remsi %pid, %width : i32
  %pm_4 = arith.remsi %pm, %gsz_3 : i32
  %pm_5 = arith.addi %first, %pm_4 : i32
  %pn = arith.divsi %pm, %gsz_3 : i32
  %rm = arith.muli %pm_5, %c32_i32 : i32
  %rm_6 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %rm_7 = tt.splat %rm : i32 -> tensor<32xi32>
  %rm_8 = arith.addi %rm_7, %rm_6 : tensor<32xi32>
  %rn = arith.muli %pn, %c32_i32 : i32
  %rn_9 = tt.splat %rn : i32 -> tensor<32xi32>
  %rn_10 = arith.addi %rn_9, %rm_6 : tensor<32xi32>
  %rk = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %a_ptrs = tt.expand_dims %rm_8 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %a_ptrs_11 = tt.splat %sam : i32 -> tensor<32x1xi32>
  %a_ptrs_12 = arith.muli %a_ptrs, %a_ptrs_11 : tensor<32x1xi32>
  %a_ptrs_13 = tt.splat %a_ptr : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %a_ptrs_14 = tt.addptr %a_ptrs_13, %a_ptrs_12 : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %a_ptrs_15 = tt.expand_dims %rk {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %a_ptrs_16 = tt.splat %sak : i32 -> tensor<1x16xi32>
  %a_ptrs_17 = arith.muli %a_ptrs_15, %a_ptrs_16 : tensor<1x16xi32>
  %a_ptrs_18 = tt.broadcast %a_ptrs_14 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x16x!tt.ptr<f16>>
  %a_ptrs_19 = tt.broadcast %a_ptrs_17 : tensor<1x16xi32> -> tensor<32x16xi32>
  %a_ptrs_20 = tt.addptr %a_ptrs_18, %a_ptrs_19 : tensor<32x16x!tt.ptr<f16>>, tensor<32x16xi32>
  %b_ptrs = tt.expand_dims %rk {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %b_ptrs_21 = tt.splat %sbk : i32 -> tensor<16x1xi32>
  %b_ptrs_22 = arith.muli %b_ptrs, %b_ptrs_21 : tensor<16x1xi32>
  %b_ptrs_23 = tt.splat %b_ptr : !tt.ptr<f16> -> tensor<16x1x!tt.ptr<f16>>
  %b_ptrs_24 = tt.addptr %b_ptrs_23, %b_ptrs_22 : tensor<16x1x!tt.ptr<f16>>, tensor<16x1xi32>
  %b_ptrs_25 = tt.expand_dims %rn_10 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_ptrs_26 = tt.splat %sbn : i32 -> tensor<1x32xi32>
  %b_ptrs_27 = arith.muli %b_ptrs_25, %b_ptrs_26 : tensor<1x32xi32>
  %b_ptrs_28 = tt.broadcast %b_ptrs_24 : tensor<16x1x!tt.ptr<f16>> -> tensor<16x32x!tt.ptr<f16>>
  %b_ptrs_29 = tt.broadcast %b_ptrs_27 : tensor<1x32xi32> -> tensor<16x32xi32>
  %b_ptrs_30 = tt.addptr %b_ptrs_28, %b_ptrs_29 : tensor<16x32x!tt.ptr<f16>>, tensor<16x32xi32>
  %0 = arith.addi %K, %c15_i32 : i32
  %1 = arith.divsi %0, %c16_i32 : i32
  %a = tt.splat %M : i32 -> tensor<32x1xi32>
  %a_31 = arith.cmpi slt, %a_ptrs, %a : tensor<32x1xi32>
  %a_32 = tt.broadcast %a_31 : tensor<32x1xi1> -> tensor<32x16xi1>
  %b = tt.splat %N : i32 -> tensor<1x32xi32>
  %b_33 = arith.cmpi slt, %b_ptrs_25, %b : tensor<1x32xi32>
  %b_34 = tt.broadcast %b_33 : tensor<1x32xi1> -> tensor<16x32xi1>
  %a_ptrs_35 = arith.muli %sak, %c16_i32 : i32
  %a_ptrs_36 = tt.splat %a_ptrs_35 : i32 -> tensor<32x16xi32>
  %b_ptrs_37 = arith.muli %sbk, %c16_i32 : i32
  %b_ptrs_38 = tt.splat %b_ptrs_37 : i32 -> tensor<16x32xi32>
  %acc_39:3 = scf.for %k = %c0_i32 to %1 step %c1_i32 iter_args(%a_ptrs_48 = %a_ptrs_20, %b_ptrs_49 = %b_ptrs_30, %acc_50 = %acc) -> (tensor<32x16x!tt.ptr<f16>>, tensor<16x32x!tt.ptr<f16>>, tensor<32x32xf32>)  : i32 {
    %a_51 = arith.muli %k, %c16_i32 : i32
    %a_52 = arith.subi %K, %a_51 : i32
    %a_53 = tt.splat %a_52 : i32 -> tensor<1x16xi32>
    %a_54 = arith.cmpi slt, %a_ptrs_15, %a_53 : tensor<1x16xi32>
    %a_55 = tt.broadcast %a_54 : tensor<1x16xi1> -> tensor<32x16xi1>
    %a_56 = arith.andi %a_32, %a_55 : tensor<32x16xi1>
    %a_57 = tt.load %a_ptrs_48, %a_56, %cst_0 : tensor<32x16x!tt.ptr<f16>>
    %b_58 = tt.splat %a_52 : i32 -> tensor<16x1xi32>
    %b_59 = arith.cmpi slt, %b_ptrs, %b_58 : tensor<16x1xi32>
    %b_60 = tt.broadcast %b_59 : tensor<16x1xi1> -> tensor<16x32xi1>
    %b_61 = arith.andi %b_60, %b_34 : tensor<16x32xi1>
    %b_62 = tt.load %b_ptrs_49, %b_61, %cst : tensor<16x32x!tt.ptr<f16>>
    %acc_63 = tt.dot %a_57, %b_62, %acc_50, inputPrecision = tf32 : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
    %a_ptrs_64 = tt.addptr %a_ptrs_48, %a_ptrs_36 : tensor<32x16x!tt.ptr<f16>>, tensor<32x16xi32>
    %b_ptrs_65 = tt.addptr %b_ptrs_49, %b_ptrs_38 : tensor<16x32x!tt.ptr<f16>>, tensor<16x32xi32>
    scf.yield %a_ptrs_64, %b_ptrs_65, %acc_63 : tensor<32x16x!tt.ptr<f16>>, tensor<16x32x!tt.ptr<f16>>, tensor<32x32xf32>
  }
  %c = arith.truncf %acc_39#2 : tensor<32x32xf32> to tensor<32x32xf16>
  %c_ptrs = tt.splat %scm : i32 -> tensor<32x1xi32>
  %c_ptrs_40 = arith.muli %a_ptrs, %c_ptrs : tensor<32x1xi32>
  %c_ptrs_41 = tt.splat %c_ptr : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %c_ptrs_42 = tt.addptr %c_ptrs_41, %c_ptrs_40 : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %c_ptrs_43 = tt.splat %scn : i32 -> tensor<1x32xi32>
  %c_ptrs_44 = arith.muli %b_ptrs_25, %c_ptrs_43 : tensor<1x32xi32>
  %c_ptrs_45 = tt.broadcast %c_ptrs_42 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %c_ptrs_46 = tt.broadcast %c_ptrs_44 : tensor<1x32xi32> -> tensor<32x32xi32>
  %c_ptrs_47 = tt.addptr %c_ptrs_45, %c_ptrs_46 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %2 = tt.splat %M : i32 -> tensor<32x1xi32>
  %3 = arith.cmpi slt, %a_ptrs, %2 : tensor<32x1xi32>
  %4 = tt.splat %N : i32 -> tensor<1x32xi32>
  %5 = arith.cmpi slt, %b_ptrs_25, %4 : tensor<1x32xi32>
  %6 = tt.broadcast %3 : tensor<32x1xi1> -> tensor<32x32xi1>
  %7 = tt.broadcast %5 : tensor<1x32xi1> -> tensor<32x32xi1>
  %8 = arith.andi %6, %7 : tensor<32x32xi1>
  tt.store %c_ptrs_47, %c, %8 : tensor<32x32x!tt.ptr<f16>>
  tt.return
}
