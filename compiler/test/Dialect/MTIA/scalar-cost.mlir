// RUN: triton-mtia-opt %s --mtia-scalar-cost --split-input-file | FileCheck %s

// Each block pays for its own scalar ops, once per execution, in one
// mtia.scalar_cycles at its start:
// * the body: addi 1 + muli 3 + index_cast 1 = 5 (constants are free; the
//   loop's control is charged in its body);
// * the loop body: control 2 + index_cast 1 + cmpi 1 + the scf.if's branch 1
//   = 5; the command (se_iota) costs nothing here;
// * the then-branch: divsi 20 + remsi by the constant 7 (a multiply by a
//   magic number) 6 = 26; the se command taking the result as an immediate
//   costs nothing here;
// * the else-branch: addf 4 + math.exp 40 = 44.
// CHECK-LABEL: func.func @loop_if_div(
// CHECK-NEXT: mtia.scalar_cycles {cycles = 5 : i64}
// CHECK-NEXT: arith.constant 0 : index
// CHECK: scf.for
// CHECK-NEXT: mtia.scalar_cycles {cycles = 5 : i64}
// CHECK-NEXT: arith.index_cast
// CHECK: scf.if
// CHECK-NEXT: mtia.scalar_cycles {cycles = 26 : i64}
// CHECK-NEXT: arith.divsi
// CHECK: } else {
// CHECK-NEXT: mtia.scalar_cycles {cycles = 44 : i64}
// CHECK-NEXT: arith.addf
func.func @loop_if_div(%a: i32, %b: i32, %f: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i32
  %x = arith.addi %a, %b : i32
  %y = arith.muli %x, %c7 : i32
  %n = arith.index_cast %y : i32 to index
  scf.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i32
    %p = arith.cmpi slt, %ii, %a : i32
    mtia.se_iota {cb = 0 : i64, elemType = i32, length = 64 : i64, start = 0 : i64}
    scf.if %p {
      %q = arith.divsi %a, %b : i32
      %r = arith.remsi %q, %c7 : i32
      mtia.se "Add" %r : i32 {cb = 1 : i64, elemType = i32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 0, elemType = i32, offset = 0, strides = 1>, #mtia.imm]}
      mtia.cb_pop {bytes = 256 : i64, cb = 1 : i64}
    } else {
      %g = arith.addf %f, %f : f32
      %e = math.exp %g : f32
      mtia.se "Mul" %e : f32 {cb = 1 : i64, elemType = f32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>, #mtia.imm]}
      mtia.cb_pop {bytes = 256 : i64, cb = 1 : i64}
    }
    mtia.cb_pop {bytes = 256 : i64, cb = 0 : i64}
  }
  return
}

// -----

// A block of commands only, a loop whose body has no scalar op but its
// control (2 cycles per iteration), and ops on tensors: only the loop
// control is charged. Tensor arithmetic (not scalar code) and commands
// (charged by the simulator as issue_cycles) cost nothing here.
// CHECK-LABEL: func.func @commands_and_tensors(
// CHECK-NOT: mtia.scalar_cycles
// CHECK: scf.for
// CHECK-NEXT: mtia.scalar_cycles {cycles = 2 : i64}
// CHECK-NEXT: mtia.se "Copy"
// CHECK-NOT: mtia.scalar_cycles
// CHECK: return
func.func @commands_and_tensors(%n: index, %t: tensor<64xf32>, %u: tensor<64xi32>) -> (tensor<64xf32>, tensor<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = arith.addf %t, %t : tensor<64xf32>
  %d = arith.divsi %u, %u : tensor<64xi32>
  mtia.se_iota {cb = 0 : i64, elemType = i32, length = 64 : i64, start = 0 : i64}
  %pid = mtia.program_id 0 : i32
  scf.for %i = %c0 to %n step %c1 {
    mtia.se "Copy" {cb = 1 : i64, elemType = i32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 0, elemType = i32, offset = 0, strides = 1>]}
    mtia.cb_pop {bytes = 256 : i64, cb = 1 : i64}
  }
  mtia.cb_pop {bytes = 256 : i64, cb = 0 : i64}
  return %s, %d : tensor<64xf32>, tensor<64xi32>
}

// -----

// scf.while: the condition block pays the branch (1) and its cmpi (1) per
// test; the body its addi (1). The body of the function pays the call (4)
// and the muli (3); a divui of the callee is charged in the callee (20).
// CHECK-LABEL: func.func @while_and_call(
// CHECK-NEXT: mtia.scalar_cycles {cycles = 7 : i64}
// CHECK: scf.while
// CHECK-NEXT: mtia.scalar_cycles {cycles = 2 : i64}
// CHECK-NEXT: arith.cmpi
// CHECK: } do {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: mtia.scalar_cycles {cycles = 1 : i64}
// CHECK-NEXT: arith.addi
// CHECK-LABEL: func.func @callee(
// CHECK-NEXT: mtia.scalar_cycles {cycles = 20 : i64}
func.func @while_and_call(%a: i32, %n: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %m = arith.muli %a, %n : i32
  %w = scf.while (%i = %m) : (i32) -> i32 {
    %p = arith.cmpi slt, %i, %n : i32
    scf.condition(%p) %i : i32
  } do {
  ^bb0(%i: i32):
    %next = arith.addi %i, %c1 : i32
    scf.yield %next : i32
  }
  %r = func.call @callee(%w, %n) : (i32, i32) -> i32
  return %r : i32
}
func.func @callee(%a: i32, %b: i32) -> i32 {
  %q = arith.divui %a, %b : i32
  return %q : i32
}

// -----

// Constants are inlined into the C++, whose compiler strength-reduces by
// them: mul by 4 is a shift (1), unsigned div by 8 a shift (1), signed div
// by 8 shifts with a sign fix-up (4), rem by 7 a magic-number multiply (6),
// and a div by a non-constant the divider (20): 32.
// CHECK-LABEL: func.func @strength_reduced(
// CHECK-NEXT: mtia.scalar_cycles {cycles = 32 : i64}
func.func @strength_reduced(%a: i32, %b: i32) -> (i32, i32, i32, i32, i32) {
  %c4 = arith.constant 4 : i32
  %c7 = arith.constant 7 : i32
  %c8 = arith.constant 8 : i32
  %m = arith.muli %c4, %a : i32
  %u = arith.divui %a, %c8 : i32
  %s = arith.divsi %a, %c8 : i32
  %r = arith.remsi %a, %c7 : i32
  %d = arith.divsi %a, %b : i32
  return %m, %u, %s, %r, %d : i32, i32, i32, i32, i32
}

// -----

// Running the pass again recomputes the costs instead of adding to them.
// CHECK-LABEL: func.func @idempotent(
// CHECK-NEXT: mtia.scalar_cycles {cycles = 1 : i64}
// CHECK-NEXT: arith.addi
func.func @idempotent(%a: i32) -> i32 {
  mtia.scalar_cycles {cycles = 9 : i64}
  %b = arith.addi %a, %a : i32
  return %b : i32
}
