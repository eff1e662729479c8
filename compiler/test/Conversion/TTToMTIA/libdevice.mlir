// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// Vector-core library functions: a tile runs on the vector core; a scalar
// with no core math is a one-element tile of immediates, read back.
// CHECK-LABEL: func.func @special(
// CHECK: mtia.se "BesselJ0" {{.*}}shape = array<i64: 64>{{.*}}unit = "vec"
// CHECK: mtia.se "Erfinv" %{{.*}} : f32 {cb = [[C:[0-9]+]] : i64, elemType = f32, shape = array<i64>, srcs = [#mtia.imm], unit = "vec"}
// CHECK-NEXT: mtia.read {cb = [[C]] : i64, index = 0 : i64} : f32
tt.func public @special(%x_ptr: !tt.ptr<f32>, %s: f32) {
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %x = tt.load %xp : tensor<64x!tt.ptr<f32>>
  %j = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__mtia_j0"} : (tensor<64xf32>) -> tensor<64xf32>
  %e = tt.extern_elementwise %s {libname = "", libpath = "", pure = true, symbol = "__mtia_erfinv"} : (f32) -> f32
  %es = tt.splat %e : f32 -> tensor<64xf32>
  %r = arith.addf %j, %es : tensor<64xf32>
  tt.store %xp, %r : tensor<64x!tt.ptr<f32>>
  tt.return
}

// The SE's rounding opcodes: rint and trunc of a tile are one SE command
// each; on a scalar they are the core's own rounding.
// CHECK-LABEL: func.func @rounding(
// CHECK: mtia.se "Rint" {{.*}}shape = array<i64: 64>
// CHECK: mtia.se "Trunc" {{.*}}shape = array<i64: 64>
// CHECK: math.roundeven %{{.*}} : f32
// CHECK: math.trunc %{{.*}} : f32
tt.func public @rounding(%x_ptr: !tt.ptr<f32>, %s: f32) {
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %x = tt.load %xp : tensor<64x!tt.ptr<f32>>
  %r = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__mtia_rint"} : (tensor<64xf32>) -> tensor<64xf32>
  %t = tt.extern_elementwise %r {libname = "", libpath = "", pure = true, symbol = "__mtia_trunc"} : (tensor<64xf32>) -> tensor<64xf32>
  %sr = tt.extern_elementwise %s {libname = "", libpath = "", pure = true, symbol = "__mtia_rint"} : (f32) -> f32
  %st = tt.extern_elementwise %sr {libname = "", libpath = "", pure = true, symbol = "__mtia_trunc"} : (f32) -> f32
  %ss = tt.splat %st : f32 -> tensor<64xf32>
  %sum = arith.addf %t, %ss : tensor<64xf32>
  tt.store %xp, %sum : tensor<64x!tt.ptr<f32>>
  tt.return
}
