// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// argmax: a two-operand combine region runs elementwise on the SE over the
// two halves of the axis (the right half is a view at an offset), 6 levels.
// A temporary of the region is popped right after its last reader, so the
// region holds only the CBs of the values live at once.
// CHECK-LABEL: func.func @argmax(
// CHECK: mtia.se "CmpEq" {cb = [[TIE:[0-9]+]] : i64, elemType = i1, shape = array<i64: 32>, srcs = [#mtia.view<cb = [[V:[0-9]+]], elemType = f32, offset = 0, strides = 1>, #mtia.view<cb = [[V]], elemType = f32, offset = 32, strides = 1>]}
// CHECK-NEXT: mtia.se "CmpLt" {cb = [[LT:[0-9]+]]
// CHECK-NEXT: mtia.se "And"
// CHECK-NEXT: mtia.cb_pop {bytes = 32 : i64, cb = [[TIE]] : i64}
// CHECK-NEXT: mtia.cb_pop {bytes = 32 : i64, cb = [[LT]] : i64}
// CHECK-NEXT: mtia.se "CmpGt"
// CHECK: mtia.se "Select" {{.*}}shape = array<i64: 32>
// CHECK: mtia.se "Select" {cb = [[I1:[0-9]+]] : i64, elemType = i32, shape = array<i64: 1>
// CHECK: mtia.read {cb = [[I1]] : i64, index = 0 : i64} : i32
tt.func public @argmax(%x: !tt.ptr<f32>, %out: !tt.ptr<i32>) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xp = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xpp = tt.addptr %xp, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %v = tt.load %xpp : tensor<64x!tt.ptr<f32>>
  %res:2 = "tt.reduce"(%v, %r) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %tie = arith.cmpf oeq, %a, %b : f32
    %lt = arith.cmpi slt, %ai, %bi : i32
    %tie2 = arith.andi %tie, %lt : i1
    %gt = arith.cmpf ogt, %a, %b : f32
    %take = arith.ori %gt, %tie2 : i1
    %v2 = arith.select %take, %a, %b : f32
    %i2 = arith.select %take, %ai, %bi : i32
    tt.reduce.return %v2, %i2 : f32, i32
  }) : (tensor<64xf32>, tensor<64xi32>) -> (f32, i32)
  tt.store %out, %res#1 : !tt.ptr<i32>
  tt.return
}

// cumsum: one add is one se_scan.
// CHECK-LABEL: func.func @cumsum(
// CHECK: mtia.se_scan "Sum" {axis = 0 : i64, cb = {{[0-9]+}} : i64, elemType = f32, reverse = false, shape = array<i64: 64>
tt.func public @cumsum(%x: !tt.ptr<f32>) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xp = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xpp = tt.addptr %xp, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %v = tt.load %xpp : tensor<64x!tt.ptr<f32>>
  %s = "tt.scan"(%v) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tt.scan.return %c : f32
  }) : (tensor<64xf32>) -> tensor<64xf32>
  tt.store %xpp, %s : tensor<64x!tt.ptr<f32>>
  tt.return
}

// A combine the SE has no scan for (a*b+b) along axis 1 of [4, 8]: the axis
// is moved outermost, then Hillis-Steele steps d = 1, 2, 4 each append the
// unchanged rows and the combined rows to one CB.
// CHECK-LABEL: func.func @general_scan(
// CHECK: mtia.se "Copy" {cb = [[T:[0-9]+]] : i64, elemType = f32, shape = array<i64: 8, 4>, srcs = [#mtia.view<cb = {{[0-9]+}}, elemType = f32, offset = 0, strides = 1, 8>]}
// CHECK: mtia.se "Mul" {{.*}}shape = array<i64: 7, 4>, srcs = [#mtia.view<cb = [[T]], elemType = f32, offset = 0, strides = 4, 1>, #mtia.view<cb = [[T]], elemType = f32, offset = 4, strides = 4, 1>]
// CHECK: mtia.se "Copy" {cb = [[N:[0-9]+]] : i64, elemType = f32, shape = array<i64: 1, 4>
// CHECK: mtia.se "Copy" {cb = [[N]] : i64, elemType = f32, shape = array<i64: 7, 4>
// CHECK: shape = array<i64: 6, 4>
// CHECK: shape = array<i64: 4, 4>
// CHECK: mtia.se "Copy" {{.*}}shape = array<i64: 4, 8>, srcs = [#mtia.view<cb = {{[0-9]+}}, elemType = f32, offset = 0, strides = 1, 4>]
tt.func public @general_scan(%x: !tt.ptr<f32>) {
  %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %xp = tt.splat %x : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
  %xpp = tt.addptr %xp, %r : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
  %v = tt.load %xpp : tensor<32x!tt.ptr<f32>>
  %v2 = tt.reshape %v : tensor<32xf32> -> tensor<4x8xf32>
  %s = "tt.scan"(%v2) <{axis = 1 : i32, reverse = false}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.mulf %a, %b : f32
    %d = arith.addf %c, %b : f32
    tt.scan.return %d : f32
  }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s1 = tt.reshape %s : tensor<4x8xf32> -> tensor<32xf32>
  tt.store %xpp, %s1 : tensor<32x!tt.ptr<f32>>
  tt.return
}

// CHECK-LABEL: func.func @hist_gather(
// CHECK: mtia.se_histogram {cb = {{[0-9]+}} : i64, maskCb = -1 : i64, numBins = 16 : i64, shape = array<i64: 64>
// CHECK: mtia.se_gather {axis = 0 : i64, {{.*}}shape = array<i64: 64>, src = #mtia.view<{{.*}}>, srcShape = array<i64: 64>}
tt.func public @hist_gather(%x: !tt.ptr<i32>, %h: !tt.ptr<i32>) {
  %c63 = arith.constant dense<63> : tensor<64xi32>
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xp = tt.splat %x : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
  %xpp = tt.addptr %xp, %r : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
  %v = tt.load %xpp : tensor<64x!tt.ptr<i32>>
  %hist = tt.histogram %v : tensor<64xi32> -> tensor<16xi32>
  %r16 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %hp = tt.splat %h : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
  %hpp = tt.addptr %hp, %r16 : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
  tt.store %hpp, %hist : tensor<16x!tt.ptr<i32>>
  %idx = arith.subi %c63, %r : tensor<64xi32>
  %g = tt.gather %v[%idx] {axis = 0 : i32} : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  tt.store %xpp, %g : tensor<64x!tt.ptr<i32>>
  tt.return
}

// A combine op the SE has no lookup table for (logcumsumexp's log1p) runs
// on the vector core, like the same op outside a combine region.
// CHECK-LABEL: func.func @logaddexp_scan(
// CHECK: mtia.se "Log1p" {{.*}}unit = "vec"
tt.func public @logaddexp_scan(%x: !tt.ptr<f32>) {
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %xp = tt.splat %x : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %xpp = tt.addptr %xp, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %v = tt.load %xpp : tensor<16x!tt.ptr<f32>>
  %s = "tt.scan"(%v) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    %d = arith.subf %a, %b : f32
    %ad = math.absf %d : f32
    %n = arith.negf %ad : f32
    %e = math.exp %n : f32
    %l = tt.extern_elementwise %e {libname = "", libpath = "", pure = true, symbol = "__mtia_log1p"} : (f32) -> f32
    %o = arith.addf %m, %l : f32
    tt.scan.return %o : f32
  }) : (tensor<16xf32>) -> tensor<16xf32>
  tt.store %xpp, %s : tensor<16x!tt.ptr<f32>>
  tt.return
}
