// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func.func @print_assert(
// CHECK: mtia.print " x: " {cb = {{[0-9]+}} : i64, elemType = f32, hex = false, isSigned = false, shape = array<i64: 64>}
// CHECK: mtia.se "Copy" %{{.*}} : i32 {cb = [[P:[0-9]+]] : i64, elemType = i32, shape = array<i64>
// CHECK: mtia.print " pid: " {cb = [[P]] : i64, elemType = i32, hex = false, isSigned = true, shape = array<i64>}
// CHECK: mtia.se "CmpGt" %{{.*}} : f32 {cb = [[A:[0-9]+]] : i64, elemType = i1
// CHECK: mtia.assert "x must be positive" {cb = [[A]] : i64, file = "kernel.py", line = 9 : i64, shape = array<i64: 64>}
tt.func public @print_assert(%x: !tt.ptr<f32>) {
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xp = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xpp = tt.addptr %xp, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %v = tt.load %xpp : tensor<64x!tt.ptr<f32>>
  %pid = tt.get_program_id x : i32
  tt.print " x: " {hex = false, isSigned = array<i32: 0>} : %v : tensor<64xf32>
  tt.print " pid: " {hex = false, isSigned = array<i32: 1>} : %pid : i32
  %ok = arith.cmpf ogt, %v, %zero : tensor<64xf32>
  tt.assert %ok, "x must be positive" : tensor<64xi1> loc("kernel.py":9:5)
  tt.return
}
