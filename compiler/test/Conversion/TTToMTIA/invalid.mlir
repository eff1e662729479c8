// RUN: triton-mtia-opt %s --tt-inline-calls --tt-structurize-returns --convert-tt-to-mtia -split-input-file -verify-diagnostics

tt.func public @inline_asm(%p: !tt.ptr<f32>) {
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %x = tt.load %ps : tensor<64x!tt.ptr<f32>>
  // expected-error @+1 {{inline assembly (tt.elementwise_inline_asm, from tl.inline_asm_elementwise) cannot run on MTIA}}
  %y = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %x : tensor<64xf32> -> tensor<64xf32>
  tt.return
}

// -----

tt.func public @combine(%p: !tt.ptr<f32>) {
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %x = tt.load %ps : tensor<64x!tt.ptr<f32>>
  %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{'math.atan2' in a combine region is not supported by the MTIA backend yet}}
    %c = math.atan2 %a, %b : f32
    %d = arith.addf %c, %b : f32
    tt.reduce.return %d : f32
  }) : (tensor<64xf32>) -> f32
  tt.store %p, %s : !tt.ptr<f32>
  tt.return
}

// -----

// expected-error @+1 {{kernel arguments must be scalars or pointers}}
tt.func public @tensor_arg(%x: tensor<64xf32>) {
  tt.return
}

// -----

tt.func public @cuda_libdevice(%p: !tt.ptr<f32>) {
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %x = tt.load %ps : tensor<64x!tt.ptr<f32>>
  // expected-error @+1 {{library function '__nv_tanhf'}}
  %t = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_tanhf"} : (tensor<64xf32>) -> tensor<64xf32>
  tt.store %ps, %t : tensor<64x!tt.ptr<f32>>
  tt.return
}

// -----

tt.func public @while_tensor(%p: !tt.ptr<f32>) {
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %x = tt.load %ps : tensor<64x!tt.ptr<f32>>
  // expected-error @+1 {{'scf.while' is not supported by the MTIA backend yet: while loops whose condition passes on a tensor it computed}}
  %r = scf.while (%a = %x) : (tensor<64xf32>) -> tensor<64xf32> {
    %t = arith.constant true
    %c = arith.addf %a, %a : tensor<64xf32>
    scf.condition(%t) %c : tensor<64xf32>
  } do {
  ^bb0(%b: tensor<64xf32>):
    scf.yield %b : tensor<64xf32>
  }
  tt.store %ps, %r : tensor<64x!tt.ptr<f32>>
  tt.return
}

// -----

// Calls are inlined, so recursion is an error at the call that closes the
// cycle (it used to inline the function into itself until memory ran out).
tt.func private @even(%n: i32) -> i1 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.cmpi eq, %n, %c0 : i32
  %r = scf.if %z -> (i1) {
    %t = arith.constant true
    scf.yield %t : i1
  } else {
    %m = arith.subi %n, %c1 : i32
    %o = tt.call @odd(%m) : (i32) -> i1
    scf.yield %o : i1
  }
  tt.return %r : i1
}
tt.func private @odd(%n: i32) -> i1 {
  %c1 = arith.constant 1 : i32
  %m = arith.subi %n, %c1 : i32
  // expected-error @+1 {{recursive call: even -> odd -> even; the MTIA backend inlines every call}}
  %e = tt.call @even(%m) : (i32) -> i1
  tt.return %e : i1
}
tt.func public @parity(%p: !tt.ptr<i1>, %n: i32) {
  %e = tt.call @even(%n) : (i32) -> i1
  tt.store %p, %e : !tt.ptr<i1>
  tt.return
}

// -----

tt.func public @pe_id_of_a_runtime_axis(%p: !tt.ptr<i32>, %axis: i32) {
  // expected-error @+1 {{get_pe_id takes one constant axis, 0 (the PE's row) or 1 (its column)}}
  %pe = tt.extern_elementwise %axis {libname = "", libpath = "", pure = true, symbol = "__mtia_get_pe_id"} : (i32) -> i32
  tt.store %p, %pe : !tt.ptr<i32>
  tt.return
}

// -----

tt.func public @pe_grid_size_of_axis_two(%p: !tt.ptr<i32>) {
  %c2 = arith.constant 2 : i32
  // expected-error @+1 {{get_pe_grid_size takes one constant axis, 0 (the PE's row) or 1 (its column)}}
  %n = tt.extern_elementwise %c2 {libname = "", libpath = "", pure = true, symbol = "__mtia_get_pe_grid_size"} : (i32) -> i32
  tt.store %p, %n : !tt.ptr<i32>
  tt.return
}

// -----

tt.func public @re_reduce_by_product(%p: !tt.ptr<f32>, %first: i1, %last: i1) {
  %v = arith.constant dense<1.0> : tensor<16xf32>
  // expected-error @+1 {{re_reduce: unknown reduction '__mtia_re_reduce_mul_0' (add, max or min, over axis 0 or 1)}}
  %r = tt.extern_elementwise %v, %first, %last {libname = "", libpath = "", pure = false, symbol = "__mtia_re_reduce_mul_0"} : (tensor<16xf32>, i1, i1) -> tensor<16xf32>
  tt.return
}

// -----

tt.func public @re_reduce_of_tensor_flags(%p: !tt.ptr<f32>, %f: i1, %last: i1) {
  %v = arith.constant dense<1.0> : tensor<16xf32>
  %first = tt.splat %f : i1 -> tensor<16xi1>
  // expected-error @+1 {{re_reduce takes a tensor of values and scalar flags}}
  %r = tt.extern_elementwise %v, %first, %last {libname = "", libpath = "", pure = false, symbol = "__mtia_re_reduce_add_0"} : (tensor<16xf32>, tensor<16xi1>, i1) -> tensor<16xf32>
  tt.return
}

// -----

tt.func public @broadcast_over_axis_two(%p: !tt.ptr<f32>, %source: i1) {
  %v = arith.constant dense<1.0> : tensor<16xf32>
  // expected-error @+1 {{broadcast: unknown broadcast '__mtia_broadcast_2' (over axis 0 or 1)}}
  %r = tt.extern_elementwise %v, %source {libname = "", libpath = "", pure = false, symbol = "__mtia_broadcast_2"} : (tensor<16xf32>, i1) -> tensor<16xf32>
  tt.return
}

// -----

tt.func public @unit_hint_of_a_constant(%p: !tt.ptr<f32>) {
  %v = arith.constant dense<1.0> : tensor<16xf32>
  // expected-error @+1 {{unit_hint applies to a tensor computed by a command just before it, in the same block (not to a constant, a splat or a loop-carried value)}}
  %r = tt.extern_elementwise %v {libname = "", libpath = "", pure = false, symbol = "__mtia_unit_hint_se"} : (tensor<16xf32>) -> tensor<16xf32>
  tt.return
}

// -----

tt.func public @erfc_on_the_se(%in: !tt.ptr<f32>) {
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %ip = tt.splat %in : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %ips = tt.addptr %ip, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %x = tt.load %ips : tensor<16x!tt.ptr<f32>>
  %e = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__mtia_erfc"} : (tensor<16xf32>) -> tensor<16xf32>
  // expected-error @+1 {{unit_hint: the SE has no lookup table for Erfc; it runs on the vector core only}}
  %h = tt.extern_elementwise %e {libname = "", libpath = "", pure = false, symbol = "__mtia_unit_hint_se"} : (tensor<16xf32>) -> tensor<16xf32>
  tt.store %ips, %h : tensor<16x!tt.ptr<f32>>
  tt.return
}
