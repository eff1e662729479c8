// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// An embedding-style lookup: the offsets come from memory, so the load cannot
// be a strided DMA. The addresses are computed on the SIMD engine (widen,
// scale by the element size, add the base) and the load becomes a gather.
// CHECK-LABEL: func.func @lookup(
// CHECK-SAME: %[[T:.*]]: i64 {mtia.pointer}, %[[I:.*]]: i64 {mtia.pointer}, %[[O:.*]]: i64 {mtia.pointer})
// CHECK: mtia.dma_in %[[I]] {{.*}} {cb = [[IDX:[0-9]+]] : i64, elemType = i32, shape = array<i64: 64>}
// CHECK: mtia.se "Copy" {cb = [[WIDE:[0-9]+]] : i64, elemType = i64, {{.*}} srcs = [#mtia.view<cb = [[IDX]], elemType = i32
// CHECK: mtia.se "Mul" %{{.*}} : i64 {cb = [[BYTES:[0-9]+]] : i64, elemType = i64
// CHECK: mtia.se "Add" %[[T]] : i64 {cb = [[ADDR:[0-9]+]] : i64, elemType = i64, {{.*}} srcs = [#mtia.imm, #mtia.view<cb = [[BYTES]]
// The gather records the table as the base of its addresses (for
// mtia-order-memory's alias analysis).
// CHECK: mtia.gather_in base %[[T]] {addrCb = [[ADDR]] : i64, cb = [[VALS:[0-9]+]] : i64, elemType = f32, maskCb = -1 : i64, shape = array<i64: 64>}
// CHECK-DAG: mtia.cb_pop {bytes = 512 : i64, cb = [[ADDR]] : i64}
// CHECK: mtia.dma_out %[[O]] {{.*}} {cb = [[VALS]] : i64, elemType = f32
tt.func public @lookup(%table: !tt.ptr<f32>, %idx: !tt.ptr<i32>, %out: !tt.ptr<f32>) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %ip = tt.splat %idx : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
  %ipp = tt.addptr %ip, %r : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
  %i = tt.load %ipp : tensor<64x!tt.ptr<i32>>
  %tp = tt.splat %table : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %tpp = tt.addptr %tp, %i : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %v = tt.load %tpp : tensor<64x!tt.ptr<f32>>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %opp = tt.addptr %op, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  tt.store %opp, %v : tensor<64x!tt.ptr<f32>>
  tt.return
}

// Rows gathered by loaded indices, as a kernel author writes them
// (`table + idx[:, None] * 64 + d[None, :]`, the pointer moved by the row
// offsets first) and as Inductor does (`table + (d + 64 * idx)`, one offset
// of two broadcasts): each broadcast operand is widened and scaled at its
// own shape, [8, 1] or [1, 64], and the [8, 64] addresses are one add.
// CHECK-LABEL: func.func @rows_as_written(
// CHECK: mtia.se "Add" %{{.*}} : i64 {cb = [[ROWS:[0-9]+]] : i64, elemType = i64, shape = array<i64: 8, 1>
// CHECK: mtia.se "Copy" {cb = [[W:[0-9]+]] : i64, elemType = i64, shape = array<i64: 1, 64>
// CHECK-NEXT: mtia.se "Mul" %{{.*}} : i64 {cb = [[COLS:[0-9]+]] : i64, elemType = i64, shape = array<i64: 1, 64>, srcs = [#mtia.view<cb = [[W]]
// CHECK-NEXT: mtia.se "Add" {cb = [[ADDR:[0-9]+]] : i64, elemType = i64, shape = array<i64: 8, 64>, srcs = [#mtia.view<cb = [[ROWS]], elemType = i64, offset = 0, strides = 1, 0>, #mtia.view<cb = [[COLS]], elemType = i64, offset = 0, strides = 0, 1>]}
// CHECK: mtia.gather_in {{.*}}addrCb = [[ADDR]] : i64{{.*}}shape = array<i64: 8, 64>
tt.func public @rows_as_written(%table: !tt.ptr<f32>, %idx: !tt.ptr<i32>, %out: !tt.ptr<f32>) {
  %c64 = arith.constant dense<64> : tensor<8x1xi32>
  %r8 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %ip = tt.splat %idx : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
  %ipp = tt.addptr %ip, %r8 : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
  %i = tt.load %ipp : tensor<8x!tt.ptr<i32>>
  %ie = tt.expand_dims %i {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %rowoff = arith.muli %ie, %c64 : tensor<8x1xi32>
  %tp = tt.splat %table : !tt.ptr<f32> -> tensor<8x1x!tt.ptr<f32>>
  %rowp = tt.addptr %tp, %rowoff : tensor<8x1x!tt.ptr<f32>>, tensor<8x1xi32>
  %rowb = tt.broadcast %rowp : tensor<8x1x!tt.ptr<f32>> -> tensor<8x64x!tt.ptr<f32>>
  %d = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %de = tt.expand_dims %d {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %db = tt.broadcast %de : tensor<1x64xi32> -> tensor<8x64xi32>
  %p = tt.addptr %rowb, %db : tensor<8x64x!tt.ptr<f32>>, tensor<8x64xi32>
  %v = tt.load %p : tensor<8x64x!tt.ptr<f32>>
  %r8e = tt.expand_dims %r8 {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %oo = arith.muli %r8e, %c64 : tensor<8x1xi32>
  %oob = tt.broadcast %oo : tensor<8x1xi32> -> tensor<8x64xi32>
  %ooff = arith.addi %oob, %db : tensor<8x64xi32>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<8x64x!tt.ptr<f32>>
  %opp = tt.addptr %op, %ooff : tensor<8x64x!tt.ptr<f32>>, tensor<8x64xi32>
  tt.store %opp, %v : tensor<8x64x!tt.ptr<f32>>
  tt.return
}

// CHECK-LABEL: func.func @rows_as_inductor_writes(
// CHECK: mtia.se "Mul" %{{.*}} : i64 {cb = [[COLS:[0-9]+]] : i64, elemType = i64, shape = array<i64: 1, 64>
// CHECK: mtia.se "Mul" %{{.*}} : i64 {cb = [[ROWS:[0-9]+]] : i64, elemType = i64, shape = array<i64: 8, 1>
// CHECK-NEXT: mtia.se "Add" %{{.*}} : i64 {cb = [[BASED:[0-9]+]] : i64, elemType = i64, shape = array<i64: 8, 1>, srcs = [#mtia.imm, #mtia.view<cb = [[ROWS]]
// CHECK-NEXT: mtia.se "Add" {cb = [[ADDR:[0-9]+]] : i64, elemType = i64, shape = array<i64: 8, 64>, srcs = [#mtia.view<cb = [[COLS]], elemType = i64, offset = 0, strides = 0, 1>, #mtia.view<cb = [[BASED]], elemType = i64, offset = 0, strides = 1, 0>]}
// CHECK: mtia.gather_in {{.*}}addrCb = [[ADDR]] : i64{{.*}}shape = array<i64: 8, 64>
tt.func public @rows_as_inductor_writes(%table: !tt.ptr<f32>, %idx: !tt.ptr<i32>, %out: !tt.ptr<f32>) {
  %c64 = arith.constant dense<64> : tensor<8x1xi32>
  %r8 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %ip = tt.splat %idx : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
  %ipp = tt.addptr %ip, %r8 : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
  %i = tt.load %ipp : tensor<8x!tt.ptr<i32>>
  %ie = tt.expand_dims %i {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %rowoff = arith.muli %ie, %c64 : tensor<8x1xi32>
  %rowb = tt.broadcast %rowoff : tensor<8x1xi32> -> tensor<8x64xi32>
  %d = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %de = tt.expand_dims %d {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %db = tt.broadcast %de : tensor<1x64xi32> -> tensor<8x64xi32>
  %off = arith.addi %db, %rowb : tensor<8x64xi32>
  %tp = tt.splat %table : !tt.ptr<f32> -> tensor<8x64x!tt.ptr<f32>>
  %p = tt.addptr %tp, %off : tensor<8x64x!tt.ptr<f32>>, tensor<8x64xi32>
  %v = tt.load %p : tensor<8x64x!tt.ptr<f32>>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<8x64x!tt.ptr<f32>>
  %opp = tt.addptr %op, %off : tensor<8x64x!tt.ptr<f32>>, tensor<8x64xi32>
  tt.store %opp, %v : tensor<8x64x!tt.ptr<f32>>
  tt.return
}
