// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s
// RUN: triton-mtia-compile %s -o - | FileCheck %s --check-prefix=CPP
// RUN: triton-mtia-compile %s -o - --libdevice-unit=vec | FileCheck %s --check-prefix=VEC
// RUN: triton-mtia-compile %s -o - --libdevice-unit=se | FileCheck %s --check-prefix=SE

// mtl.unit_hint and mtl.core_hint are identities on a tensor that mark the
// command which computed it: its unit, pinned (mtia-share-vector-core
// leaves it there), or the core that issues it (mtia-dual-issue follows).
// CHECK-LABEL: func.func @hinted(
// CHECK: mtia.se "Exp" {{{.*}}mtia.pinned{{.*}}unit = "vec"}
// CHECK: mtia.se "Mul" {{.*}}mtia.core_hint = 0 : i64
// CHECK-NOT: __mtia_
// CPP-LABEL: hinted(
// CPP: vec(ctx, SeOp::Exp,
// CPP: onCore(ctx, 0);
// CPP-NEXT: vec(ctx, SeOp::Mul,
tt.func public @hinted(%in: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
  %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %ip = tt.splat %in : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %ips = tt.addptr %ip, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %x = tt.load %ips : tensor<1024x!tt.ptr<f32>>
  %e = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__mtia_exp"} : (tensor<1024xf32>) -> tensor<1024xf32>
  %ev = tt.extern_elementwise %e {libname = "", libpath = "", pure = false, symbol = "__mtia_unit_hint_vec"} : (tensor<1024xf32>) -> tensor<1024xf32>
  %two = arith.constant dense<2.0> : tensor<1024xf32>
  %y = arith.mulf %ev, %two : tensor<1024xf32>
  %ys = tt.extern_elementwise %y {libname = "", libpath = "", pure = false, symbol = "__mtia_core_hint_0"} : (tensor<1024xf32>) -> tensor<1024xf32>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %ops = tt.addptr %op, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  tt.store %ops, %ys : tensor<1024x!tt.ptr<f32>>
  tt.return
}

// The libdevice placement directive (the compile option libdevice-unit):
// every libdevice call on the vector core (one fused loop, here), or on the
// SE where it has a table (erfc has none: it stays on the vector core).
// CPP-LABEL: libdevice(
// CPP: se(ctx, SeOp::Exp,
// VEC-LABEL: libdevice(
// VEC: {SeOp::Exp, DType::F32
// VEC-NEXT: {SeOp::Erfc, DType::F32
// VEC: vecLoop(
// SE-LABEL: libdevice(
// SE: se(ctx, SeOp::Exp,
// SE: vec(ctx, SeOp::Erfc,
tt.func public @libdevice(%in: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
  %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %ip = tt.splat %in : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %ips = tt.addptr %ip, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %x = tt.load %ips : tensor<1024x!tt.ptr<f32>>
  %e = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__mtia_exp"} : (tensor<1024xf32>) -> tensor<1024xf32>
  %f = tt.extern_elementwise %e {libname = "", libpath = "", pure = true, symbol = "__mtia_erfc"} : (tensor<1024xf32>) -> tensor<1024xf32>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %ops = tt.addptr %op, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  tt.store %ops, %f : tensor<1024x!tt.ptr<f32>>
  tt.return
}
