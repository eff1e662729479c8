// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func.func @casts(
// CHECK: mtia.se "Copy" {{.*}}elemType = f8E4M3FN
// CHECK: mtia.se "Copy" {{.*}}elemType = f32
// CHECK: mtia.se "CopyToU" {{.*}}elemType = i32
// CHECK: mtia.se "CopyU" {{.*}}elemType = f32
// CHECK: mtia.se "Bitcast" {{.*}}elemType = i32
// CHECK: mtia.se "CopyU" {{.*}}elemType = i64
// CHECK: mtia.se "MulHiU" {{.*}}elemType = i32
tt.func public @casts(%x: !tt.ptr<f32>, %y: !tt.ptr<i32>) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xp = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xpp = tt.addptr %xp, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %v = tt.load %xpp : tensor<64x!tt.ptr<f32>>
  %a = tt.fp_to_fp %v, rounding = rtne : tensor<64xf32> -> tensor<64xf8E4M3FN>
  %a2 = tt.fp_to_fp %a : tensor<64xf8E4M3FN> -> tensor<64xf32>
  %c = arith.fptoui %a2 : tensor<64xf32> to tensor<64xi32>
  %c2 = arith.uitofp %c : tensor<64xi32> to tensor<64xf32>
  %d = tt.bitcast %c2 : tensor<64xf32> -> tensor<64xi32>
  %e = arith.extui %d : tensor<64xi32> to tensor<64xi64>
  %f = arith.trunci %e : tensor<64xi64> to tensor<64xi32>
  %g = tt.mulhiui %f, %r : tensor<64xi32>
  %yp = tt.splat %y : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
  %ypp = tt.addptr %yp, %r : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
  tt.store %ypp, %g : tensor<64x!tt.ptr<i32>>
  tt.return
}

// Scalar mulhiui (Philox key schedule) is core arithmetic in 64 bits.
// CHECK-LABEL: func.func @scalar_mulhi(
// CHECK: arith.extui %{{.*}} : i32 to i64
// CHECK: arith.muli
// CHECK: arith.shrui
// CHECK: arith.trunci
tt.func public @scalar_mulhi(%y: !tt.ptr<i32>, %s: i32) {
  %k = arith.constant -845247145 : i32
  %h = tt.mulhiui %k, %s : i32
  tt.store %y, %h : !tt.ptr<i32>
  tt.return
}

// Pointers used as data: tt.ptr_to_int of a pointer tensor is an i64 tile.
// CHECK-LABEL: func.func @ptr_as_int(
// CHECK: mtia.se "Add" {{.*}}elemType = i64
// CHECK: mtia.dma_out {{.*}}elemType = i64
tt.func public @ptr_as_int(%x: !tt.ptr<f32>, %y: !tt.ptr<i64>) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xp = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xpp = tt.addptr %xp, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %i = tt.ptr_to_int %xpp : tensor<64x!tt.ptr<f32>> -> tensor<64xi64>
  %yp = tt.splat %y : !tt.ptr<i64> -> tensor<64x!tt.ptr<i64>>
  %ypp = tt.addptr %yp, %r : tensor<64x!tt.ptr<i64>>, tensor<64xi32>
  tt.store %ypp, %i : tensor<64x!tt.ptr<i64>>
  tt.return
}

// float16 <-> bfloat16 on a scalar (tt.fp_to_fp, kept intact by Triton):
// exactly to f32, then rounded to the other 16-bit format.
// CHECK-LABEL: func.func @half_to_bfloat_scalar(
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %[[W]] : f32 to bf16
tt.func public @half_to_bfloat_scalar(%x_ptr: !tt.ptr<f16>, %out_ptr: !tt.ptr<bf16>) {
  %x = tt.load %x_ptr : !tt.ptr<f16>
  %y = tt.fp_to_fp %x, rounding = rtne : f16 -> bf16
  tt.store %out_ptr, %y : !tt.ptr<bf16>
  tt.return
}
