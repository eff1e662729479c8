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

// tl.where between pointer tensors used as data (upstream
// test_where[*int32]): the select is an i64 address tile, and storing its
// tt.ptr_to_int stores the addresses. It used to crash (elementBytes of
// !tt.ptr).
// CHECK-LABEL: func.func @select_ptr_tensor(
// CHECK: mtia.se "Select" {{.*}}elemType = i64{{.*}}elemType = i1{{.*}}elemType = i64{{.*}}elemType = i64
// CHECK: mtia.dma_out {{.*}}elemType = i64
tt.func public @select_ptr_tensor(%c: !tt.ptr<i8>, %a: !tt.ptr<i64>, %o: !tt.ptr<i64>) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %zero = arith.constant dense<0> : tensor<64xi8>
  %cp = tt.splat %c : !tt.ptr<i8> -> tensor<64x!tt.ptr<i8>>
  %cpp = tt.addptr %cp, %r : tensor<64x!tt.ptr<i8>>, tensor<64xi32>
  %cv = tt.load %cpp : tensor<64x!tt.ptr<i8>>
  %cond = arith.cmpi ne, %cv, %zero : tensor<64xi8>
  %ap = tt.splat %a : !tt.ptr<i64> -> tensor<64x!tt.ptr<i64>>
  %app = tt.addptr %ap, %r : tensor<64x!tt.ptr<i64>>, tensor<64xi32>
  %av = tt.load %app : tensor<64x!tt.ptr<i64>>
  %x = tt.int_to_ptr %av : tensor<64xi64> -> tensor<64x!tt.ptr<i32>>
  %r64 = arith.extsi %r : tensor<64xi32> to tensor<64xi64>
  %y = tt.int_to_ptr %r64 : tensor<64xi64> -> tensor<64x!tt.ptr<i32>>
  %s = arith.select %cond, %x, %y : tensor<64xi1>, tensor<64x!tt.ptr<i32>>
  %i = tt.ptr_to_int %s : tensor<64x!tt.ptr<i32>> -> tensor<64xi64>
  %op = tt.splat %o : !tt.ptr<i64> -> tensor<64x!tt.ptr<i64>>
  %opp = tt.addptr %op, %r : tensor<64x!tt.ptr<i64>>, tensor<64xi32>
  tt.store %opp, %i : tensor<64x!tt.ptr<i64>>
  tt.return
}

// The same with uniform operands: one core select of the i64 addresses
// (it was a select of !tt.ptr values, which tt.ptr_to_int rejected).
// CHECK-LABEL: func.func @select_splat_ptrs(
// CHECK: %[[S:.*]] = arith.select %{{.*}}, %arg1, %arg2 : i64
// CHECK: mtia.se "Copy" %[[S]] : i64 {{.*}}elemType = i64
tt.func public @select_splat_ptrs(%c: !tt.ptr<i8>, %a: !tt.ptr<i32>, %b: !tt.ptr<i32>, %o: !tt.ptr<i64>) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %cv = tt.load %c : !tt.ptr<i8>
  %z = arith.constant 0 : i8
  %cb = arith.cmpi ne, %cv, %z : i8
  %cs = tt.splat %cb : i1 -> tensor<64xi1>
  %as = tt.splat %a : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
  %bs = tt.splat %b : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
  %s = arith.select %cs, %as, %bs : tensor<64xi1>, tensor<64x!tt.ptr<i32>>
  %i = tt.ptr_to_int %s : tensor<64x!tt.ptr<i32>> -> tensor<64xi64>
  %op = tt.splat %o : !tt.ptr<i64> -> tensor<64x!tt.ptr<i64>>
  %opp = tt.addptr %op, %r : tensor<64x!tt.ptr<i64>>, tensor<64xi32>
  tt.store %opp, %i : tensor<64x!tt.ptr<i64>>
  tt.return
}
