// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// Vector add: both loads and the store are recovered as 1-D DMAs whose valid
// extent is clamp(n - pid*1024, 0, 1024); the add runs on the SIMD engine.
// CHECK-LABEL: func.func @add(
// CHECK-SAME: %[[X:.*]]: i64 {mtia.pointer}, %[[Y:.*]]: i64 {mtia.pointer}, %[[OUT:.*]]: i64 {mtia.pointer}, %[[N:.*]]: i32)
// CHECK: %[[PID:.*]] = mtia.program_id 0
// CHECK: %[[VALID:.*]] = arith.minsi
// CHECK: mtia.dma_in %{{.*}} strides(%{{.*}}) valid(%[[VALID]]) {cb = [[XCB:[0-9]+]] : i64, elemType = f32, shape = array<i64: 1024>}
// CHECK: mtia.dma_in %{{.*}} strides(%{{.*}}) valid(%[[VALID]]) {cb = [[YCB:[0-9]+]] : i64, elemType = f32, shape = array<i64: 1024>}
// CHECK: mtia.se "Add" {cb = [[SUM:[0-9]+]] : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = [[XCB]], elemType = f32, offset = 0, strides = 1>, #mtia.view<cb = [[YCB]], elemType = f32, offset = 0, strides = 1>]}
// CHECK-DAG: mtia.cb_pop {bytes = 4096 : i64, cb = [[XCB]] : i64}
// CHECK-DAG: mtia.cb_pop {bytes = 4096 : i64, cb = [[YCB]] : i64}
// CHECK: mtia.dma_out %{{.*}} strides(%{{.*}}) valid(%[[VALID]]) {cb = [[SUM]] : i64, elemType = f32, shape = array<i64: 1024>}
// CHECK: mtia.cb_pop {bytes = 4096 : i64, cb = [[SUM]] : i64}
// CHECK-NOT: mtia.gather_in
tt.func public @add(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>, %n: i32) {
  %c1024 = arith.constant 1024 : i32
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c1024 : i32
  %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %splat = tt.splat %start : i32 -> tensor<1024xi32>
  %offs = arith.addi %splat, %range : tensor<1024xi32>
  %ns = tt.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %x = tt.load %xp, %mask : tensor<1024x!tt.ptr<f32>>
  %ys = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %y = tt.load %yp, %mask : tensor<1024x!tt.ptr<f32>>
  %os = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %op = tt.addptr %os, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %sum = arith.addf %x, %y : tensor<1024xf32>
  tt.store %op, %sum, %mask : tensor<1024x!tt.ptr<f32>>
  tt.return
}

// A 2-D block: rows strided by %stride, both dimensions masked, padded with
// `other`; the row reduction reads the tile through a view.
// CHECK-LABEL: func.func @rows(
// CHECK-SAME: %[[X:.*]]: i64 {mtia.pointer}, %[[Y:.*]]: i64 {mtia.pointer}, %[[M:.*]]: i32, %[[N:.*]]: i32, %[[S:.*]]: i32)
// CHECK: %[[S64:.*]] = arith.extsi %[[S]] : i32 to i64
// CHECK: mtia.dma_in %{{.*}} strides(%[[S64]], %{{.*}}) valid(%{{.*}}, %{{.*}}) pad %{{.*}} : f32 {cb = [[T:[0-9]+]] : i64, elemType = f32, shape = array<i64: 16, 32>}
// CHECK: mtia.se_reduce "Max" {axis = 1 : i64, cb = {{[0-9]+}} : i64, elemType = f32, shape = array<i64: 16, 32>, src = #mtia.view<cb = [[T]], elemType = f32, offset = 0, strides = 32, 1>}
tt.func public @rows(%X: !tt.ptr<f32>, %Y: !tt.ptr<f32>, %M: i32, %N: i32, %sxm: i32) {
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
  %c16 = arith.constant 16 : i32
  %pid = tt.get_program_id x : i32
  %r0 = arith.muli %pid, %c16 : i32
  %rr = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %rs = tt.splat %r0 : i32 -> tensor<16xi32>
  %rm = arith.addi %rs, %rr : tensor<16xi32>
  %rn = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %e = tt.expand_dims %rm {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %ss = tt.splat %sxm : i32 -> tensor<16x1xi32>
  %rowoff = arith.muli %e, %ss : tensor<16x1xi32>
  %xs = tt.splat %X : !tt.ptr<f32> -> tensor<16x1x!tt.ptr<f32>>
  %xr = tt.addptr %xs, %rowoff : tensor<16x1x!tt.ptr<f32>>, tensor<16x1xi32>
  %en = tt.expand_dims %rn {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %xb = tt.broadcast %xr : tensor<16x1x!tt.ptr<f32>> -> tensor<16x32x!tt.ptr<f32>>
  %nb = tt.broadcast %en : tensor<1x32xi32> -> tensor<16x32xi32>
  %p = tt.addptr %xb, %nb : tensor<16x32x!tt.ptr<f32>>, tensor<16x32xi32>
  %ms = tt.splat %M : i32 -> tensor<16x1xi32>
  %m1 = arith.cmpi slt, %e, %ms : tensor<16x1xi32>
  %nsp = tt.splat %N : i32 -> tensor<1x32xi32>
  %m2 = arith.cmpi slt, %en, %nsp : tensor<1x32xi32>
  %m1b = tt.broadcast %m1 : tensor<16x1xi1> -> tensor<16x32xi1>
  %m2b = tt.broadcast %m2 : tensor<1x32xi1> -> tensor<16x32xi1>
  %m = arith.andi %m1b, %m2b : tensor<16x32xi1>
  %x = tt.load %p, %m, %zero : tensor<16x32x!tt.ptr<f32>>
  %mx = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.maxnumf %a, %b : f32
    tt.reduce.return %c : f32
  }) : (tensor<16x32xf32>) -> tensor<16xf32>
  %ys = tt.splat %Y : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %rm : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %ym = tt.splat %M : i32 -> tensor<16xi32>
  %ymask = arith.cmpi slt, %rm, %ym : tensor<16xi32>
  tt.store %yp, %mx, %ymask : tensor<16x!tt.ptr<f32>>
  tt.return
}

// libdevice calls (our module emits `__mtia_<name>`) run on the SIMD engine;
// on scalars they are core math.
// CHECK-LABEL: func.func @libdevice(
// CHECK: mtia.se "Tanh" {cb = {{[0-9]+}} : i64, elemType = f32, shape = array<i64: 64>
// CHECK: math.erf %{{.*}} : f32
tt.func public @libdevice(%p: !tt.ptr<f32>, %f: f32) {
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %pp = tt.addptr %ps, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %x = tt.load %pp : tensor<64x!tt.ptr<f32>>
  %t = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__mtia_tanh"} : (tensor<64xf32>) -> tensor<64xf32>
  %e = tt.extern_elementwise %f {libname = "", libpath = "", pure = true, symbol = "__mtia_erf"} : (f32) -> f32
  %es = tt.splat %e : f32 -> tensor<64xf32>
  %y = arith.addf %t, %es : tensor<64xf32>
  tt.store %pp, %y : tensor<64x!tt.ptr<f32>>
  tt.return
}

// Math the SE has no lookup table for is placed on the RISC-V vector core;
// on scalars it is core math.
// CHECK-LABEL: func.func @vector_core(
// CHECK: mtia.se "Log1p" {cb = {{[0-9]+}} : i64, elemType = f32, shape = array<i64: 64>, srcs = [{{.*}}], unit = "vec"}
// CHECK: math.atan %{{.*}} : f32
tt.func public @vector_core(%p: !tt.ptr<f32>, %f: f32) {
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %pp = tt.addptr %ps, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %x = tt.load %pp : tensor<64x!tt.ptr<f32>>
  %t = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__mtia_log1p"} : (tensor<64xf32>) -> tensor<64xf32>
  %e = tt.extern_elementwise %f {libname = "", libpath = "", pure = true, symbol = "__mtia_atan"} : (f32) -> f32
  %es = tt.splat %e : f32 -> tensor<64xf32>
  %y = arith.addf %t, %es : tensor<64xf32>
  tt.store %pp, %y : tensor<64x!tt.ptr<f32>>
  tt.return
}

// A masked scalar load: the mask is the one-element DMA's extent, and
// `other` its padding.
// CHECK-LABEL: func.func @masked_scalar(
// CHECK: %[[M:.*]] = arith.cmpi slt
// CHECK: %[[V:.*]] = arith.extui %[[M]] : i1 to i64
// CHECK: mtia.dma_in %{{.*}} strides(%{{.*}}) valid(%[[V]]) pad %{{.*}} : f32 {cb = [[C:[0-9]+]] : i64, elemType = f32, shape = array<i64: 1>}
// CHECK-NEXT: mtia.read {cb = [[C]] : i64, index = 0 : i64} : f32
tt.func public @masked_scalar(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>, %n: i32) {
  %pid = tt.get_program_id x : i32
  %m = arith.cmpi slt, %pid, %n : i32
  %p = tt.addptr %x_ptr, %pid : !tt.ptr<f32>, i32
  %c = arith.constant -1.0 : f32
  %v = tt.load %p, %m, %c : !tt.ptr<f32>
  %o = tt.addptr %out_ptr, %pid : !tt.ptr<f32>, i32
  tt.store %o, %v : !tt.ptr<f32>
  tt.return
}

// A masked scalar store the same way: a one-element tile whose DMA's extent
// is the mask, so a masked-out store touches no memory.
// CHECK-LABEL: func.func @masked_scalar_store(
// CHECK: %[[M:.*]] = arith.cmpi slt
// CHECK: %[[V:.*]] = arith.extui %[[M]] : i1 to i64
// CHECK: mtia.se "Copy" %{{.*}} : f32 {cb = [[C:[0-9]+]] : i64, elemType = f32, shape = array<i64: 1>
// CHECK: mtia.dma_out %{{.*}} strides(%{{.*}}) valid(%[[V]]) {cb = [[C]] : i64, elemType = f32, shape = array<i64: 1>}
tt.func public @masked_scalar_store(%out_ptr: !tt.ptr<f32>, %n: i32, %x: f32) {
  %pid = tt.get_program_id x : i32
  %m = arith.cmpi slt, %pid, %n : i32
  %o = tt.addptr %out_ptr, %pid : !tt.ptr<f32>, i32
  tt.store %o, %x, %m : !tt.ptr<f32>
  tt.return
}

// A [64, 8] block stored through pointers that stride 64 along its inner
// dimension (a transposed store): the DMA moves the box in memory order,
// 8 runs of 64 contiguous elements, from a copy of the value in that
// order made by the layout unit.
// CHECK-LABEL: func.func @store_transposed(
// CHECK: mtia.se "Exp" {cb = [[E:[0-9]+]] : i64
// CHECK: mtia.mlu_copy {cb = [[T:[0-9]+]] : i64, elemType = f32, shape = array<i64: 8, 64>, src = #mtia.view<cb = [[E]], elemType = f32, offset = 0, strides = 1, 8>}
// CHECK-NEXT: mtia.dma_out %{{.*}} strides(%c64_i64, %c1_i64) valid(%c8_i64, %c64_i64) {cb = [[T]] : i64, elemType = f32, shape = array<i64: 8, 64>}
tt.func public @store_transposed(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>) {
  %c64 = arith.constant dense<64> : tensor<1x8xi32>
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %c = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %rr = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cc = tt.expand_dims %c {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %c8 = arith.constant dense<8> : tensor<64x1xi32>
  %rows = arith.muli %rr, %c8 : tensor<64x1xi32>
  %rb = tt.broadcast %rows : tensor<64x1xi32> -> tensor<64x8xi32>
  %cb = tt.broadcast %cc : tensor<1x8xi32> -> tensor<64x8xi32>
  %in = arith.addi %rb, %cb : tensor<64x8xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<64x8x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %in : tensor<64x8x!tt.ptr<f32>>, tensor<64x8xi32>
  %v = tt.load %xp : tensor<64x8x!tt.ptr<f32>>
  %e = math.exp %v : tensor<64x8xf32>
  %ct = arith.muli %cc, %c64 : tensor<1x8xi32>
  %ctb = tt.broadcast %ct : tensor<1x8xi32> -> tensor<64x8xi32>
  %rrb = tt.broadcast %rr : tensor<64x1xi32> -> tensor<64x8xi32>
  %out = arith.addi %rrb, %ctb : tensor<64x8xi32>
  %ys = tt.splat %y : !tt.ptr<f32> -> tensor<64x8x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %out : tensor<64x8x!tt.ptr<f32>>, tensor<64x8xi32>
  tt.store %yp, %e : tensor<64x8x!tt.ptr<f32>>
  tt.return
}
