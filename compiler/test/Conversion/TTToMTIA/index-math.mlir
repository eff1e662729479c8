// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// Inductor's flattened index math: x0 = i % 16, x1 = (i // 16) % 8,
// x2 = i // 128 over a block of 1024 that starts at pid * 1024. The load's
// address x1 + 8 * x0 + 128 * x2 is affine in the digits [8, 8, 16] of the
// block, so it is one 3-D DMA with element strides (128, 1, 8); the mask
// i < 8192 bounds the outer digit. The only division left is the block
// start's, one scalar on the core; nothing runs on the SIMD engine.
// CHECK-LABEL: func.func @permute(
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : i64
// CHECK-NOT: arith.remsi
// CHECK: mtia.dma_in %{{.*}} strides(%[[C128]], %[[C1]], %[[C8]]) valid(%{{.*}}, %[[C8]], %[[C16]]) {{.*}}shape = array<i64: 8, 8, 16>}
// CHECK-NOT: mtia.se
// CHECK: mtia.dma_out %{{.*}} strides(%[[C1]]) valid(%{{.*}}) {{.*}}shape = array<i64: 1024>}
tt.func public @permute(%in: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
  %c1024 = arith.constant 1024 : i32
  %c16 = arith.constant dense<16> : tensor<1024xi32>
  %c8 = arith.constant dense<8> : tensor<1024xi32>
  %c128 = arith.constant dense<128> : tensor<1024xi32>
  %numel = arith.constant dense<8192> : tensor<1024xi32>
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c1024 : i32
  %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %splat = tt.splat %start : i32 -> tensor<1024xi32>
  %i = arith.addi %splat, %range : tensor<1024xi32>
  %mask = arith.cmpi slt, %i, %numel : tensor<1024xi32>
  %x0 = arith.remsi %i, %c16 : tensor<1024xi32>
  %q = arith.divsi %i, %c16 : tensor<1024xi32>
  %x1 = arith.remsi %q, %c8 : tensor<1024xi32>
  %x2 = arith.divsi %i, %c128 : tensor<1024xi32>
  %t0 = arith.muli %x0, %c8 : tensor<1024xi32>
  %t1 = arith.addi %x1, %t0 : tensor<1024xi32>
  %t2 = arith.muli %x2, %c128 : tensor<1024xi32>
  %off = arith.addi %t1, %t2 : tensor<1024xi32>
  %ins = tt.splat %in : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %inp = tt.addptr %ins, %off : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %v = tt.load %inp, %mask : tensor<1024x!tt.ptr<f32>>
  %outs = tt.splat %out : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %outp = tt.addptr %outs, %i : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  tt.store %outp, %v, %mask : tensor<1024x!tt.ptr<f32>>
  tt.return
}

// A block of 8 inside rows of 24 (8 divides 24): x // 24 is uniform over
// the block and x % 24 is the base's remainder plus the range, so the 2-D
// load is one DMA whose base divides the block's start on the core. The
// [8, 32] block strides 24 along its inner dimension and 1 along its outer
// one: the DMA moves it in memory order, 32 runs of 8 contiguous elements,
// and the reduction reads the tile through the transposed view.
// CHECK-LABEL: func.func @inside_row(
// CHECK-DAG: arith.divsi %{{.*}}, %c24_i64
// CHECK-DAG: arith.remsi %{{.*}}, %c24_i64
// CHECK: mtia.dma_in %{{.*}} strides(%c24_i64, %c1_i64) valid(%c32_i64, %c8_i64) {{.*}}shape = array<i64: 32, 8>}
// CHECK-NEXT: mtia.se_reduce "Sum" {axis = 1 {{.*}}shape = array<i64: 8, 32>, src = #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1, 8>}
// CHECK-NOT: mtia.gather_in
tt.func public @inside_row(%in: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
  %c8 = arith.constant 8 : i32
  %c24 = arith.constant dense<24> : tensor<8x1xi32>
  %c768 = arith.constant dense<768> : tensor<8x1xi32>
  %c24r = arith.constant dense<24> : tensor<1x32xi32>
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c8 : i32
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %re = tt.expand_dims %r {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %s = tt.splat %start : i32 -> tensor<8x1xi32>
  %x = arith.addi %s, %re : tensor<8x1xi32>
  %x0 = arith.remsi %x, %c24 : tensor<8x1xi32>
  %x1 = arith.divsi %x, %c24 : tensor<8x1xi32>
  %rr = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %rre = tt.expand_dims %rr {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %rs = arith.muli %rre, %c24r : tensor<1x32xi32>
  %x1s = arith.muli %x1, %c768 : tensor<8x1xi32>
  %a = arith.addi %x0, %x1s : tensor<8x1xi32>
  %ab = tt.broadcast %a : tensor<8x1xi32> -> tensor<8x32xi32>
  %rb = tt.broadcast %rs : tensor<1x32xi32> -> tensor<8x32xi32>
  %off = arith.addi %ab, %rb : tensor<8x32xi32>
  %ins = tt.splat %in : !tt.ptr<f32> -> tensor<8x32x!tt.ptr<f32>>
  %inp = tt.addptr %ins, %off : tensor<8x32x!tt.ptr<f32>>, tensor<8x32xi32>
  %v = tt.load %inp : tensor<8x32x!tt.ptr<f32>>
  %sum = "tt.reduce"(%v) <{axis = 1 : i32}> ({
  ^bb0(%l: f32, %rgt: f32):
    %add = arith.addf %l, %rgt : f32
    tt.reduce.return %add : f32
  }) : (tensor<8x32xf32>) -> tensor<8xf32>
  %outs = tt.splat %out : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %idx = tt.splat %start : i32 -> tensor<8xi32>
  %o = arith.addi %idx, %r : tensor<8xi32>
  %outp = tt.addptr %outs, %o : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  tt.store %outp, %sum : tensor<8x!tt.ptr<f32>>
  tt.return
}

// Rows of 3 do not split a block of 64 into whole digits, and a base from a
// kernel argument may be negative: both stay gathers (correct, slower).
// CHECK-LABEL: func.func @not_digits(
// CHECK-COUNT-2: mtia.gather_in
tt.func public @not_digits(%in: !tt.ptr<f32>, %out: !tt.ptr<f32>, %base: i32) {
  %c3 = arith.constant dense<3> : tensor<64xi32>
  %c16 = arith.constant dense<16> : tensor<64xi32>
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %x = arith.remsi %r, %c3 : tensor<64xi32>
  %ins = tt.splat %in : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %inp = tt.addptr %ins, %x : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %v = tt.load %inp : tensor<64x!tt.ptr<f32>>
  %bs = tt.splat %base : i32 -> tensor<64xi32>
  %y0 = arith.addi %bs, %r : tensor<64xi32>
  %y = arith.remsi %y0, %c16 : tensor<64xi32>
  %inq = tt.addptr %ins, %y : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %w = tt.load %inq : tensor<64x!tt.ptr<f32>>
  %s = arith.addf %v, %w : tensor<64xf32>
  %outs = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %outp = tt.addptr %outs, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  tt.store %outp, %s : tensor<64x!tt.ptr<f32>>
  tt.return
}
