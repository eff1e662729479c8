// RUN: triton-mtia-opt %s | triton-mtia-opt | FileCheck %s
// Round trip of the ops in the custom form Triton 3.9 prints.

// CHECK-LABEL: tt.func public @memory
tt.func public @memory(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %i: !tt.ptr<i32>, %n: i32) attributes {noinline = false} {
  // CHECK: tt.get_program_id x : i32
  %pid = tt.get_program_id x : i32
  // CHECK: tt.get_num_programs y : i32
  %np = tt.get_num_programs y : i32
  // CHECK: tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  // CHECK: tt.splat %{{.*}} : i32 -> tensor<64xi32>
  %s = tt.splat %n : i32 -> tensor<64xi32>
  %m = arith.cmpi slt, %r, %s : tensor<64xi32>
  %p = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  // CHECK: tt.addptr %{{.*}}, %{{.*}} : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %q = tt.addptr %p, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %cst = arith.constant dense<1.0> : tensor<64xf32>
  // CHECK: tt.load %{{.*}}, %{{.*}}, %{{.*}} {cachePolicy = #tt.cache_policy<cache_modifier = cg, eviction_policy = evict_last>, isVolatile = true} : tensor<64x!tt.ptr<f32>>
  %v = tt.load %q, %m, %cst {cachePolicy = #tt.cache_policy<cache_modifier = cg, eviction_policy = evict_last>, isVolatile = true} : tensor<64x!tt.ptr<f32>>
  // CHECK: tt.load %{{.*}} : tensor<64x!tt.ptr<f32>>
  %w = tt.load %q : tensor<64x!tt.ptr<f32>>
  // CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x!tt.ptr<f32>>
  tt.store %q, %v, %m : tensor<64x!tt.ptr<f32>>
  // CHECK: tt.atomic_rmw fadd, acq_rel, gpu, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<64x!tt.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> tensor<64xf32>
  %a = tt.atomic_rmw fadd, acq_rel, gpu, %q, %w, %m : (tensor<64x!tt.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> tensor<64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // CHECK: tt.atomic_cas acq_rel, gpu, %{{.*}}, %{{.*}}, %{{.*}} : (!tt.ptr<i32>, i32, i32) -> i32
  %cas = tt.atomic_cas acq_rel, gpu, %i, %c0, %c1 : (!tt.ptr<i32>, i32, i32) -> i32
  // CHECK: tt.return
  tt.return
}

// CHECK-LABEL: tt.func public @compute
tt.func public @compute(%x: tensor<64xf32>, %y: tensor<64xi32>, %f: f32) {
  // CHECK: tt.expand_dims %{{.*}} {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %e = tt.expand_dims %x {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  // CHECK: tt.broadcast %{{.*}} : tensor<64x1xf32> -> tensor<64x4xf32>
  %b = tt.broadcast %e : tensor<64x1xf32> -> tensor<64x4xf32>
  // CHECK: tt.reshape %{{.*}} : tensor<64xf32> -> tensor<32x2xf32>
  %z = tt.reshape %x : tensor<64xf32> -> tensor<32x2xf32>
  // CHECK: tt.reshape %{{.*}} allow_reorder : tensor<64xf32> -> tensor<64xf32>
  %z2 = tt.reshape %x allow_reorder : tensor<64xf32> -> tensor<64xf32>
  // CHECK: tt.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<32x2xf32> -> tensor<2x32xf32>
  %t = tt.trans %z {order = array<i32: 1, 0>} : tensor<32x2xf32> -> tensor<2x32xf32>
  // CHECK: tt.split %{{.*}} : tensor<32x2xf32> -> tensor<32xf32>
  %l, %r = tt.split %z : tensor<32x2xf32> -> tensor<32xf32>
  // CHECK: tt.join %{{.*}}, %{{.*}} : tensor<32xf32> -> tensor<32x2xf32>
  %j = tt.join %l, %r : tensor<32xf32> -> tensor<32x2xf32>
  // CHECK: tt.unsplat %{{.*}} : tensor<1x1xf32>
  %single = tt.splat %f : f32 -> tensor<1x1xf32>
  %scalar = tt.unsplat %single : tensor<1x1xf32>
  // CHECK: tt.extern_elementwise %{{.*}} {libname = "", libpath = "", pure = true, symbol = "__nv_tanhf"} : (tensor<64xf32>) -> tensor<64xf32>
  %th = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_tanhf"} : (tensor<64xf32>) -> tensor<64xf32>
  // CHECK: tt.precise_sqrt %{{.*}} : tensor<64xf32>
  %sq = tt.precise_sqrt %x : tensor<64xf32>
  // CHECK: tt.precise_divf %{{.*}}, %{{.*}} : tensor<64xf32>
  %dv = tt.precise_divf %x, %sq : tensor<64xf32>
  // CHECK: tt.clampf %{{.*}}, %{{.*}}, %{{.*}}, propagateNan = none : tensor<64xf32>
  %cl = tt.clampf %x, %sq, %dv, propagateNan = none : tensor<64xf32>
  // CHECK: tt.mulhiui %{{.*}}, %{{.*}} : tensor<64xi32>
  %mh = tt.mulhiui %y, %y : tensor<64xi32>
  // CHECK: tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %{{.*}} : tensor<64xf32> -> tensor<64xf32>
  %asm = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %x : tensor<64xf32> -> tensor<64xf32>
  // CHECK: tt.bitcast %{{.*}} : tensor<64xf32> -> tensor<64xi32>
  %bc = tt.bitcast %x : tensor<64xf32> -> tensor<64xi32>
  // CHECK: tt.histogram %{{.*}} : tensor<64xi32> -> tensor<8xi32>
  %h = tt.histogram %y : tensor<64xi32> -> tensor<8xi32>
  // CHECK: tt.print " x: " {hex = false, isSigned = array<i32: 0>} : %{{.*}} : tensor<64xf32>
  tt.print " x: " {hex = false, isSigned = array<i32: 0>} : %x : tensor<64xf32>
  // CHECK: "tt.reduce"(%{{.*}}) <{axis = 0 : i32}>
  %sum = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %c: f32):
    %s = arith.addf %a, %c : f32
    // CHECK: tt.reduce.return %{{.*}} : f32
    tt.reduce.return %s : f32
  }) : (tensor<64xf32>) -> f32
  // CHECK: "tt.scan"(%{{.*}}) <{axis = 0 : i32, reverse = false}>
  %cum = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%a: f32, %c: f32):
    %s = arith.addf %a, %c : f32
    tt.scan.return %s : f32
  }) : (tensor<64xf32>) -> tensor<64xf32>
  tt.return
}

// CHECK-LABEL: tt.func public @dot_scaled
tt.func public @dot_scaled(%a: tensor<16x32xi8>, %sa: tensor<16x2xi8>, %b: tensor<64x16xf8E4M3FN>, %sb: tensor<16x2xi8>, %c: tensor<16x16xf32>, %h: tensor<16x64xf16>) {
  // CHECK: tt.dot_scaled %{{.*}} scale %{{.*}}, %{{.*}} scale %{{.*}}, %{{.*}} lhs = e2m1 rhs = e4m3 {fastMath = false} : tensor<16x32xi8>, tensor<16x2xi8> * tensor<64x16xf8E4M3FN>, tensor<16x2xi8> -> tensor<16x16xf32>
  %d = tt.dot_scaled %a scale %sa, %b scale %sb, %c lhs = e2m1 rhs = e4m3 {fastMath = false} : tensor<16x32xi8>, tensor<16x2xi8> * tensor<64x16xf8E4M3FN>, tensor<16x2xi8> -> tensor<16x16xf32>
  // CHECK: tt.dot_scaled %{{.*}}, %{{.*}} scale %{{.*}}, %{{.*}} lhs = fp16 rhs = e4m3 {fastMath = true, rhs_k_pack = false} : tensor<16x64xf16> * tensor<64x16xf8E4M3FN>, tensor<16x2xi8> -> tensor<16x16xf32>
  %e = tt.dot_scaled %h, %b scale %sb, %c lhs = fp16 rhs = e4m3 {fastMath = true, rhs_k_pack = false} : tensor<16x64xf16> * tensor<64x16xf8E4M3FN>, tensor<16x2xi8> -> tensor<16x16xf32>
  tt.return
}

// CHECK-LABEL: tt.func public @dot
tt.func public @dot(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>, %c: tensor<32x32xf32>, %base: !tt.ptr<f32>) {
  // CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}}, inputPrecision = tf32 : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
  %d = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
  // CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
  %e = tt.dot %a, %b, %c : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
  %c32 = arith.constant 32 : i32
  %c1 = arith.constant 1 : i64
  %c32l = arith.constant 32 : i64
  %c0 = arith.constant 0 : i32
  // CHECK: tt.make_tensor_descriptor %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] : <f32>, <32x32xf32>
  %desc = tt.make_tensor_descriptor %base, [%c32, %c32], [%c32l, %c1] : <f32>, <32x32xf32>
  // CHECK: tt.descriptor_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tt.tensordesc<32x32xf32>, tensor<32x32xf32>
  tt.descriptor_store %desc[%c0, %c0], %d : !tt.tensordesc<32x32xf32>, tensor<32x32xf32>
  // CHECK: tt.descriptor_load %{{.*}}[%{{.*}}, %{{.*}}] : !tt.tensordesc<32x32xf32> -> tensor<32x32xf32>
  %l = tt.descriptor_load %desc[%c0, %c0] : !tt.tensordesc<32x32xf32> -> tensor<32x32xf32>
  tt.return
}

// Address spaces: Triton 3.9 names them (`tl.const` pointers are in
// "constant"); older Triton numbered them, 1 being global, the default.
// CHECK-LABEL: tt.func public @address_spaces
// CHECK-SAME: !tt.ptr<f32, "constant">, %{{.*}}: !tt.ptr<f32>, %{{.*}}: !tt.ptr<f16>, %{{.*}}: !tt.ptr<i8, 3>
tt.func public @address_spaces(%c: !tt.ptr<f32, "constant">, %g: !tt.ptr<f32>, %one: !tt.ptr<f16, 1>, %three: !tt.ptr<i8, 3>) {
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %p = tt.splat %c : !tt.ptr<f32, "constant"> -> tensor<16x!tt.ptr<f32, "constant">>
  // CHECK: tt.addptr %{{.*}}, %{{.*}} : tensor<16x!tt.ptr<f32, "constant">>, tensor<16xi32>
  %q = tt.addptr %p, %r : tensor<16x!tt.ptr<f32, "constant">>, tensor<16xi32>
  %v = tt.load %q : tensor<16x!tt.ptr<f32, "constant">>
  tt.return
}
