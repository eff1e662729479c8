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
