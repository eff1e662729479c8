// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// A block-pointer-style row reduction: `ptrs += BC` makes the pointer tensor
// an scf.for iter_arg. Its initial value is structured and the loop only
// adds a uniform offset, so the loop carries the base address as an i64 and
// the load stays a strided DMA; the column mask `cols < C - c0` depends on
// the induction variable and is still a valid extent.
// CHECK-LABEL: func.func @row_sums(
// CHECK: scf.for %[[C0:[a-z0-9_]+]] = {{.*}} iter_args(%[[P:[a-z0-9_]+]] = %{{.*}}) -> (i64)
// CHECK:   %[[REST:.*]] = arith.subi %{{.*}}, %[[C0]] : i32
// CHECK:   %[[REST64:.*]] = arith.extsi %[[REST]] : i32 to i64
// CHECK:   %[[LO:.*]] = arith.maxsi %[[REST64]], %c0_i64
// CHECK:   arith.minsi %[[LO]], %c32_i64
// CHECK:   mtia.dma_in %[[P]] strides(%{{.*}}, %c1_i64) valid(%{{.*}}, %{{.*}}) pad {{.*}} {cb = {{[0-9]+}} : i64, elemType = f32, shape = array<i64: 8, 32>}
// CHECK:   %[[NEXT:.*]] = arith.addi %[[P]], %c128_i64 : i64
// CHECK:   scf.yield %[[NEXT]] : i64
// CHECK-NOT: mtia.gather_in
tt.func public @row_sums(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>, %R: i32, %C: i32, %stride: i32) {
  %c32_i32 = arith.constant 32 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant dense<32> : tensor<8x32xi32>
  %cst_0 = arith.constant dense<0.000000e+00> : tensor<8x32xf32>
  %rows = arith.constant 8 : i32
  %rows_1 = tt.get_program_id x : i32
  %rows_2 = arith.muli %rows_1, %rows : i32
  %rows_3 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %rows_4 = tt.splat %rows_2 : i32 -> tensor<8xi32>
  %rows_5 = arith.addi %rows_4, %rows_3 : tensor<8xi32>
  %cols = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %ptrs = tt.expand_dims %rows_5 {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %ptrs_6 = tt.splat %stride : i32 -> tensor<8x1xi32>
  %ptrs_7 = arith.muli %ptrs, %ptrs_6 : tensor<8x1xi32>
  %ptrs_8 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<8x1x!tt.ptr<f32>>
  %ptrs_9 = tt.addptr %ptrs_8, %ptrs_7 : tensor<8x1x!tt.ptr<f32>>, tensor<8x1xi32>
  %ptrs_10 = tt.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ptrs_11 = tt.broadcast %ptrs_9 : tensor<8x1x!tt.ptr<f32>> -> tensor<8x32x!tt.ptr<f32>>
  %ptrs_12 = tt.broadcast %ptrs_10 : tensor<1x32xi32> -> tensor<8x32xi32>
  %ptrs_13 = tt.addptr %ptrs_11, %ptrs_12 : tensor<8x32x!tt.ptr<f32>>, tensor<8x32xi32>
  %acc = tt.splat %R : i32 -> tensor<8x1xi32>
  %acc_14 = arith.cmpi slt, %ptrs, %acc : tensor<8x1xi32>
  %acc_15 = tt.broadcast %acc_14 : tensor<8x1xi1> -> tensor<8x32xi1>
  %acc_16:2 = scf.for %c0 = %c0_i32 to %C step %c32_i32 iter_args(%ptrs_17 = %ptrs_13, %acc_18 = %cst_0) -> (tensor<8x32x!tt.ptr<f32>>, tensor<8x32xf32>)  : i32 {
    %acc_19 = arith.subi %C, %c0 : i32
    %acc_20 = tt.splat %acc_19 : i32 -> tensor<1x32xi32>
    %acc_21 = arith.cmpi slt, %ptrs_10, %acc_20 : tensor<1x32xi32>
    %acc_22 = tt.broadcast %acc_21 : tensor<1x32xi1> -> tensor<8x32xi1>
    %acc_23 = arith.andi %acc_15, %acc_22 : tensor<8x32xi1>
    %acc_24 = tt.load %ptrs_17, %acc_23, %cst_0 : tensor<8x32x!tt.ptr<f32>>
    %acc_25 = arith.addf %acc_18, %acc_24 : tensor<8x32xf32>
    %ptrs_26 = tt.addptr %ptrs_17, %cst : tensor<8x32x!tt.ptr<f32>>, tensor<8x32xi32>
    scf.yield %ptrs_26, %acc_25 : tensor<8x32x!tt.ptr<f32>>, tensor<8x32xf32>
  }
  %0 = tt.splat %R : i32 -> tensor<8xi32>
  %1 = arith.cmpi slt, %rows_5, %0 : tensor<8xi32>
  %2 = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %3 = tt.addptr %2, %rows_5 : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  %4 = "tt.reduce"(%acc_16#1) <{axis = 1 : i32}> ({
  ^bb0(%arg5: f32, %arg6: f32):
    %5 = arith.addf %arg5, %arg6 : f32
    tt.reduce.return %5 : f32
  }) : (tensor<8x32xf32>) -> tensor<8xf32>
  tt.store %3, %4, %1 : tensor<8x!tt.ptr<f32>>
  tt.return
}

// Pointers gathered through loaded indices are not structured: the loop
// carries them as an i64 address tile instead (copied in before the loop,
// advanced by the yield, popped after it), and the load is a gather. The
// index tile is read by the address computation before the loop, so it is
// popped only after the loop that consumes the addresses. The yield's
// uniform step is one add of its byte count.
// CHECK-LABEL: func.func @carried_gather(
// CHECK: mtia.dma_in {{.*}} {cb = [[IDX:[0-9]+]] : i64, elemType = i32, shape = array<i64: 16>}
// CHECK-NOT: mtia.cb_pop {{.*}} cb = [[IDX]] : i64
// CHECK: mtia.se "Copy" {cb = [[ADDR:[0-9]+]] : i64, elemType = i64, shape = array<i64: 16>, srcs = [#mtia.view<cb = {{[0-9]+}}, elemType = i64
// CHECK: scf.for
// CHECK:   mtia.gather_in {addrCb = [[ADDR]] : i64, cb = [[V:[0-9]+]] : i64, elemType = f32
// CHECK:   mtia.se "Add" %{{.*}} : i64 {cb = [[NEXT:[0-9]+]] : i64, elemType = i64, shape = array<i64: 16>, srcs = [#mtia.view<cb = [[ADDR]], {{.*}}, #mtia.imm]}
// CHECK:   mtia.se "Copy" {cb = [[ADDR]] : i64, elemType = i64, shape = array<i64: 16>, srcs = [#mtia.view<cb = [[NEXT]]
// CHECK:   mtia.cb_pop {bytes = 128 : i64, cb = [[ADDR]] : i64}
// CHECK: }
// CHECK: mtia.cb_pop {bytes = 64 : i64, cb = [[IDX]] : i64}
tt.func public @carried_gather(%x_ptr: !tt.ptr<f32>, %idx_ptr: !tt.ptr<i32>, %out_ptr: !tt.ptr<f32>, %steps: i32) {
  %acc = arith.constant dense<0.000000e+00> : tensor<16xf32>
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant dense<1> : tensor<16xi32>
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %p = tt.splat %idx_ptr : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
  %p_0 = tt.addptr %p, %r : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
  %p_1 = tt.load %p_0 : tensor<16x!tt.ptr<i32>>
  %p_2 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %p_3 = tt.addptr %p_2, %p_1 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %acc_4:2 = scf.for %i = %c0_i32 to %steps step %c1_i32 iter_args(%p_5 = %p_3, %acc_6 = %acc) -> (tensor<16x!tt.ptr<f32>>, tensor<16xf32>)  : i32 {
    %acc_7 = tt.load %p_5 : tensor<16x!tt.ptr<f32>>
    %acc_8 = arith.addf %acc_6, %acc_7 : tensor<16xf32>
    %p_9 = tt.addptr %p_5, %cst : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    scf.yield %p_9, %acc_8 : tensor<16x!tt.ptr<f32>>, tensor<16xf32>
  }
  %0 = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %1 = tt.addptr %0, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %1, %acc_4#1 : tensor<16x!tt.ptr<f32>>
  tt.return
}

// Pointers advanced by an inner loop and then by the outer one: both loops
// carry the base as a scalar (the outer yield is the inner loop's result
// plus one element), and the load stays a DMA.
// CHECK-LABEL: func.func @nested(
// CHECK: scf.for {{.*}} iter_args(%[[OUTER:[a-z0-9_]+]] = %{{.*}}) -> (i64)
// CHECK:   %[[END:.*]] = scf.for {{.*}} iter_args(%[[INNER:[a-z0-9_]+]] = %[[OUTER]]) -> (i64)
// CHECK:     mtia.dma_in %[[INNER]] strides(%c1_i64)
// CHECK:     %[[NEXT:.*]] = arith.addi %[[INNER]], %c128_i64 : i64
// CHECK:     scf.yield %[[NEXT]] : i64
// CHECK:   %[[ROW:.*]] = arith.addi %[[END]], %c4_i64 : i64
// CHECK:   scf.yield %[[ROW]] : i64
// CHECK-NOT: mtia.gather_in
tt.func public @nested(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>, %R: i32, %C: i32) {
  %c32_i32 = arith.constant 32 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant dense<1> : tensor<32xi32>
  %cst_0 = arith.constant dense<32> : tensor<32xi32>
  %cst_1 = arith.constant dense<0.000000e+00> : tensor<32xf32>
  %c = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %ptrs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
  %ptrs_2 = tt.addptr %ptrs, %c : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
  %acc:2 = scf.for %r = %c0_i32 to %R step %c1_i32 iter_args(%ptrs_3 = %ptrs_2, %acc_4 = %cst_1) -> (tensor<32x!tt.ptr<f32>>, tensor<32xf32>)  : i32 {
    %acc_5:2 = scf.for %c0 = %c0_i32 to %C step %c32_i32 iter_args(%ptrs_7 = %ptrs_3, %acc_8 = %acc_4) -> (tensor<32x!tt.ptr<f32>>, tensor<32xf32>)  : i32 {
      %acc_9 = arith.subi %C, %c0 : i32
      %acc_10 = tt.splat %acc_9 : i32 -> tensor<32xi32>
      %acc_11 = arith.cmpi slt, %c, %acc_10 : tensor<32xi32>
      %acc_12 = tt.load %ptrs_7, %acc_11, %cst_1 : tensor<32x!tt.ptr<f32>>
      %acc_13 = arith.addf %acc_8, %acc_12 : tensor<32xf32>
      %ptrs_14 = tt.addptr %ptrs_7, %cst_0 : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
      scf.yield %ptrs_14, %acc_13 : tensor<32x!tt.ptr<f32>>, tensor<32xf32>
    }
    %ptrs_6 = tt.addptr %acc_5#0, %cst : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
    scf.yield %ptrs_6, %acc_5#1 : tensor<32x!tt.ptr<f32>>, tensor<32xf32>
  }
  %0 = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
  %1 = tt.addptr %0, %c : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
  tt.store %1, %acc#1 : tensor<32x!tt.ptr<f32>>
  tt.return
}

// An integer offset tensor carried by the loop (`offs += BLOCK`) that feeds
// only the pointer and the mask: its base is an i64 iter_arg, the load a
// DMA whose extent is `K - offs_base`.
// CHECK-LABEL: func.func @carried_offsets(
// CHECK: scf.for %{{.*}} iter_args(%[[O:[a-z0-9_]+]] = %c0_i64) -> (i64)
// CHECK:   arith.subi %{{.*}}, %[[O]] : i64
// CHECK:   mtia.dma_in
// CHECK:   arith.addi %[[O]], %c32_i64 : i64
// CHECK-NOT: mtia.gather_in
tt.func public @carried_offsets(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>, %K: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %block = arith.constant dense<32> : tensor<32xi32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32xf32>
  %offs = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %base = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
  %bound = tt.splat %K : i32 -> tensor<32xi32>
  %r:2 = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero, %o = %offs) -> (tensor<32xf32>, tensor<32xi32>) : i32 {
    %p = tt.addptr %base, %o : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
    %m = arith.cmpi slt, %o, %bound : tensor<32xi32>
    %x = tt.load %p, %m, %zero : tensor<32x!tt.ptr<f32>>
    %a = arith.addf %acc, %x : tensor<32xf32>
    %next = arith.addi %o, %block : tensor<32xi32>
    scf.yield %a, %next : tensor<32xf32>, tensor<32xi32>
  }
  %out = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
  %outp = tt.addptr %out, %offs : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
  tt.store %outp, %r#0 : tensor<32x!tt.ptr<f32>>
  tt.return
}
