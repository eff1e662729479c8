// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s
// RUN: triton-mtia-compile %s -o - --no-dual-issue | FileCheck %s --check-prefix=CPP

// The language extension's communication between PEs (mtl.re_reduce,
// mtl.broadcast).

// mtl.re_reduce arrives as a call of a reserved symbol (op and axis in its
// name) on the values and two scalar flags, not pure. It becomes a chain
// link over the reduction network: the first PE sends its own tile, every
// PE appends its partial (a copy of its tile on the first, the arriving
// partial plus its tile on the others), and the middle PEs forward it.
// CHECK-LABEL: func.func @column_sum(
// CHECK-SAME: %[[FIRST:[a-z0-9_]+]]: i1, %[[LAST:[a-z0-9_]+]]: i1
// CHECK: mtia.dma_in {{.*}}cb = 0 : i64
// CHECK: %[[FORWARDS:.*]] = arith.xori %[[LAST]], %true
// CHECK: %[[FIRST_SENDS:.*]] = arith.andi %[[FIRST]], %[[FORWARDS]]
// CHECK: %[[NOT_FIRST:.*]] = arith.xori %[[FIRST]], %true
// CHECK: %[[MIDDLE_SENDS:.*]] = arith.andi %[[NOT_FIRST]], %[[FORWARDS]]
// CHECK: mtia.re_send "south" enable(%[[FIRST_SENDS]]) {{{.*}}shape = array<i64: 2048>, src = #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>}
// CHECK: mtia.re_recv "Sum" "south" first(%[[FIRST]]) {cb = 1 : i64, {{.*}}shape = array<i64: 2048>, src = #mtia.view<cb = 0,
// CHECK: mtia.re_send "south" enable(%[[MIDDLE_SENDS]]) {{{.*}}src = #mtia.view<cb = 1,
// CHECK: mtia.dma_out {{.*}}cb = 1 : i64
// CHECK-NOT: __mtia_re_reduce
// CPP-LABEL: column_sum(
// CPP: reSend(ctx, ReDir::South, DType::F32, Shape{1, {2048}}, view(0, DType::F32, 1));
// CPP: if ({{.*}})
// CPP-NEXT: mluCopy(ctx, /*dst=*/1, DType::F32, Shape{1, {2048}}, view(0, DType::F32, 1));
// CPP-NEXT: else
// CPP-NEXT: reRecv(ctx, ReduceOp::Sum, /*dst=*/1, DType::F32, Shape{1, {2048}}, view(0, DType::F32, 1), ReDir::North);
// CPP: reSend(ctx, ReDir::South, DType::F32, Shape{1, {2048}}, view(1, DType::F32, 1));
tt.func public @column_sum(%in: !tt.ptr<f32>, %out: !tt.ptr<f32>, %first: i1, %last: i1) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %c = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rs = arith.muli %r2, %c32 : tensor<64x1xi32>
  %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %rb = tt.broadcast %rs : tensor<64x1xi32> -> tensor<64x32xi32>
  %cb = tt.broadcast %c2 : tensor<1x32xi32> -> tensor<64x32xi32>
  %offs = arith.addi %rb, %cb : tensor<64x32xi32>
  %ip = tt.splat %in : !tt.ptr<f32> -> tensor<64x32x!tt.ptr<f32>>
  %ips = tt.addptr %ip, %offs : tensor<64x32x!tt.ptr<f32>>, tensor<64x32xi32>
  %v = tt.load %ips : tensor<64x32x!tt.ptr<f32>>
  %sum = tt.extern_elementwise %v, %first, %last {libname = "", libpath = "", pure = false, symbol = "__mtia_re_reduce_add_0"} : (tensor<64x32xf32>, i1, i1) -> tensor<64x32xf32>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<64x32x!tt.ptr<f32>>
  %ops = tt.addptr %op, %offs : tensor<64x32x!tt.ptr<f32>>, tensor<64x32xi32>
  tt.store %ops, %sum : tensor<64x32x!tt.ptr<f32>>
  tt.return
}

// A PE whose result is not used still takes part in the chain: the call is
// not pure, so it is not erased. Axis 1 flows west to east.
// CHECK-LABEL: func.func @row_max_unused(
// CHECK: mtia.re_send "east"
// CHECK: mtia.re_recv "Max" "east"
// CHECK: mtia.re_send "east"
// CPP-LABEL: row_max_unused(
// CPP: reSend(ctx, ReDir::East, DType::I32
// CPP: reRecv(ctx, ReduceOp::Max, {{.*}}, ReDir::West);
tt.func public @row_max_unused(%in: !tt.ptr<i32>, %first: i1, %last: i1) {
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %ip = tt.splat %in : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
  %ips = tt.addptr %ip, %r : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
  %v = tt.load %ips : tensor<16x!tt.ptr<i32>>
  %max = tt.extern_elementwise %v, %first, %last {libname = "", libpath = "", pure = false, symbol = "__mtia_re_reduce_max_1"} : (tensor<16xi32>, i1, i1) -> tensor<16xi32>
  tt.return
}

// mtl.broadcast: the source sends its tile along its PE row (axis 1) over
// the NoC; every PE appends the result, a copy of its own tile on the
// source, the tile that arrives on the others.
// CHECK-LABEL: func.func @row_broadcast(
// CHECK-SAME: %[[SOURCE:[a-z0-9_]+]]: i1
// CHECK: mtia.noc_broadcast 1 enable(%[[SOURCE]]) {elemType = f16, shape = array<i64: 512>, src = #mtia.view<cb = 0,
// CHECK: mtia.noc_recv 1 source(%[[SOURCE]]) {cb = 1 : i64, elemType = f16, shape = array<i64: 512>, src = #mtia.view<cb = 0,
// CHECK-NOT: __mtia_broadcast
// CPP-LABEL: row_broadcast(
// CPP: nocBroadcast(ctx, /*axis=*/1, DType::F16, Shape{1, {512}}, view(0, DType::F16, 1));
// CPP: if ({{.*}})
// CPP-NEXT: mluCopy(ctx, /*dst=*/1, DType::F16, Shape{1, {512}}, view(0, DType::F16, 1));
// CPP-NEXT: else
// CPP-NEXT: nocRecv(ctx, /*axis=*/1, /*dst=*/1, DType::F16, Shape{1, {512}});
tt.func public @row_broadcast(%in: !tt.ptr<f16>, %out: !tt.ptr<f16>, %source: i1) {
  %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
  %ip = tt.splat %in : !tt.ptr<f16> -> tensor<512x!tt.ptr<f16>>
  %ips = tt.addptr %ip, %r : tensor<512x!tt.ptr<f16>>, tensor<512xi32>
  %v = tt.load %ips : tensor<512x!tt.ptr<f16>>
  %got = tt.extern_elementwise %v, %source {libname = "", libpath = "", pure = false, symbol = "__mtia_broadcast_1"} : (tensor<512xf16>, i1) -> tensor<512xf16>
  %op = tt.splat %out : !tt.ptr<f16> -> tensor<512x!tt.ptr<f16>>
  %ops = tt.addptr %op, %r : tensor<512x!tt.ptr<f16>>, tensor<512xi32>
  tt.store %ops, %got : tensor<512x!tt.ptr<f16>>
  tt.return
}
