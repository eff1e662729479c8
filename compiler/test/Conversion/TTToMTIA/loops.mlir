// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// A loop-carried accumulator lives in one CB: initialised before the loop,
// read at the front each iteration, the next value appended behind it and
// the old one popped. The add is the yielded value's only producer, so it
// appends straight to the carried CB and the yield copies nothing. The
// reduction's scalar result is read by the core, because scalar code
// divides it.
// CHECK-LABEL: func.func @row_mean(
// CHECK: mtia.se "Copy" %{{.*}} : f32 {cb = [[ACC:[0-9]+]] : i64, elemType = f32, shape = array<i64: 256>, srcs = [#mtia.imm]}
// CHECK: scf.for
// CHECK:   mtia.dma_in {{.*}} {cb = [[A:[0-9]+]] : i64, elemType = f32, shape = array<i64: 256>}
// CHECK:   mtia.se "Add" {cb = [[ACC]] : i64, {{.*}} srcs = [#mtia.view<cb = [[ACC]], {{.*}}>, #mtia.view<cb = [[A]], {{.*}}>]}
// CHECK:   mtia.cb_pop {bytes = 1024 : i64, cb = [[ACC]] : i64}
// CHECK-NOT: mtia.se "Copy"
// CHECK: }
// CHECK: mtia.se_reduce "Sum" {axis = 0 : i64, cb = [[S:[0-9]+]] : i64, {{.*}} src = #mtia.view<cb = [[ACC]]
// CHECK: %[[SUM:.*]] = mtia.read {cb = [[S]] : i64, index = 0 : i64} : f32
// CHECK: arith.divf %[[SUM]]
tt.func public @row_mean(%X: !tt.ptr<f32>, %Y: !tt.ptr<f32>, %N: i32) {
  %c256 = arith.constant 256 : i32
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<256xf32>
  %acc = scf.for %off = %c0 to %N step %c256 iter_args(%a = %zero) -> (tensor<256xf32>) : i32 {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %s = tt.splat %off : i32 -> tensor<256xi32>
    %cols = arith.addi %s, %r : tensor<256xi32>
    %n = tt.splat %N : i32 -> tensor<256xi32>
    %m = arith.cmpi slt, %cols, %n : tensor<256xi32>
    %xp = tt.splat %X : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %p = tt.addptr %xp, %cols : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x = tt.load %p, %m, %zero : tensor<256x!tt.ptr<f32>>
    %next = arith.addf %a, %x : tensor<256xf32>
    scf.yield %next : tensor<256xf32>
  }
  %sum = "tt.reduce"(%acc) <{axis = 0 : i32}> ({
  ^bb0(%l: f32, %r: f32):
    %c = arith.addf %l, %r : f32
    tt.reduce.return %c : f32
  }) : (tensor<256xf32>) -> f32
  %nf = arith.sitofp %N : i32 to f32
  %mean = arith.divf %sum, %nf : f32
  tt.store %Y, %mean : !tt.ptr<f32>
  tt.return
}

// A tile that the loop only advances by a scalar, then stores, is data
// (a carried offset tensor would have been a scalar base): it lives in a CB.
// CHECK-LABEL: func.func @uniform_accumulator(
// CHECK: scf.for
// CHECK-NEXT: mtia.se "Add" %{{.*}} : i8 {cb = [[ACC:[0-9]+]] : i64, elemType = i8, shape = array<i64: 16>
// CHECK: mtia.dma_out %{{.*}} strides(%{{.*}}) valid(%{{.*}}) {cb = [[ACC]] : i64
tt.func public @uniform_accumulator(%x: !tt.ptr<i8>, %out: !tt.ptr<i8>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0> : tensor<16xi8>
  %s = tt.load %x : !tt.ptr<i8>
  %acc = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (tensor<16xi8>) : i32 {
    %ss = tt.splat %s : i8 -> tensor<16xi8>
    %b = arith.addi %a, %ss : tensor<16xi8>
    scf.yield %b : tensor<16xi8>
  }
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %os = tt.splat %out : !tt.ptr<i8> -> tensor<16x!tt.ptr<i8>>
  %p = tt.addptr %os, %r : tensor<16x!tt.ptr<i8>>, tensor<16xi32>
  tt.store %p, %acc : tensor<16x!tt.ptr<i8>>
  tt.return
}

// A while loop that carries a tensor keeps it in one CB, as scf.for does: the
// condition reads the front, the body appends the next tile and pops the
// current one; the loop carries only the scalar counter.
// CHECK-LABEL: func.func @while_accumulates(
// CHECK: mtia.se "Copy" %{{.*}} : f32 {cb = [[ACC:[0-9]+]] : i64
// CHECK: scf.while (%{{.*}} = %{{.*}}) : (i32) -> i32 {
// CHECK: } do {
// CHECK: mtia.se "Add" {cb = [[ACC]] : i64, {{.*}} srcs = [#mtia.view<cb = [[ACC]],
// CHECK-NEXT: mtia.cb_pop {bytes = 64 : i64, cb = [[ACC]] : i64}
// CHECK: mtia.dma_out %{{.*}} {cb = [[ACC]] : i64
tt.func public @while_accumulates(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16xf32>
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %x = tt.load %xp : tensor<16x!tt.ptr<f32>>
  %res:2 = scf.while (%i = %c0, %acc = %zero) : (i32, tensor<16xf32>) -> (i32, tensor<16xf32>) {
    %go = arith.cmpi slt, %i, %n : i32
    scf.condition(%go) %i, %acc : i32, tensor<16xf32>
  } do {
  ^bb0(%j: i32, %a: tensor<16xf32>):
    %s = arith.addf %a, %x : tensor<16xf32>
    %k = arith.addi %j, %c1 : i32
    scf.yield %k, %s : i32, tensor<16xf32>
  }
  %os = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %op = tt.addptr %os, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %op, %res#1 : tensor<16x!tt.ptr<f32>>
  tt.return
}
