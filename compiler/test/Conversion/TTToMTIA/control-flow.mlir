// RUN: triton-mtia-opt %s --tt-inline-calls --tt-structurize-returns --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// `if pid * BLOCK >= n: return` becomes an scf.if around the rest of the
// kernel; a noinline device function is inlined; tl.debug_barrier is a
// barrier.
// CHECK-LABEL: func.func @early_return(
// CHECK: %[[C:.*]] = arith.cmpi sge
// CHECK: scf.if %[[C]] {
// CHECK-NEXT: } else {
// CHECK: arith.muli
// CHECK: mtia.barrier
// CHECK: mtia.dma_out
// CHECK: }
// CHECK: return
tt.func public @early_return(%x: !tt.ptr<i32>, %n: i32) {
  %c64 = arith.constant 64 : i32
  %pid = tt.get_program_id x : i32
  %s = arith.muli %pid, %c64 : i32
  %done = arith.cmpi sge, %s, %n : i32
  cf.cond_br %done, ^bb1, ^bb2
^bb1:
  tt.return
^bb2:
  %v = tt.call @helper(%pid, %n) : (i32, i32) -> i32
  ttg.barrier all
  tt.store %x, %v : !tt.ptr<i32>
  tt.return
}
tt.func private @helper(%a: i32, %b: i32) -> i32 attributes {noinline = true} {
  %0 = arith.muli %a, %b : i32
  tt.return %0 : i32
}

// Nested early returns: each cond_br becomes an scf.if; the code after the
// inner return stays in the branch that does not return.
// CHECK-LABEL: func.func @nested(
// CHECK: scf.if %arg1 {
// CHECK: mtia.dma_out
// CHECK: scf.if %arg2 {
// CHECK-NEXT: } else {
// CHECK: mtia.dma_out
tt.func public @nested(%x: !tt.ptr<i32>, %a: i1, %b: i1) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  cf.cond_br %a, ^bb1, ^bb4
^bb1:
  tt.store %x, %c1 : !tt.ptr<i32>
  cf.cond_br %b, ^bb2, ^bb3
^bb2:
  tt.return
^bb3:
  tt.store %x, %c2 : !tt.ptr<i32>
  tt.return
^bb4:
  tt.return
}

// Returns that are not a nest of ifs (an inner `if: return` beside a store
// that both sides reach, values returned from every branch of a nested
// if/else) are predicated: each block in an scf.if on whether it is reached,
// the values it defines for later blocks as the if's results, and the
// returned value chosen by the return reached.
// CHECK-LABEL: func.func @pick_kernel(
// CHECK-NOT: cf.
// CHECK: scf.if
// CHECK: mtia.dma_out
tt.func private @pick(%x: i32, %a: i32, %b: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %xp = arith.cmpi sgt, %x, %c0 : i32
  cf.cond_br %xp, ^pos, ^neg
^pos:
  %ap = arith.cmpi sgt, %a, %c0 : i32
  cf.cond_br %ap, ^r1, ^r2
^neg:
  %bp = arith.cmpi sgt, %b, %c0 : i32
  cf.cond_br %bp, ^r3, ^r4
^r1:
  %one = arith.constant 1 : i32
  tt.return %one : i32
^r2:
  %two = arith.constant 2 : i32
  tt.return %two : i32
^r3:
  %three = arith.constant 3 : i32
  tt.return %three : i32
^r4:
  %four = arith.constant 4 : i32
  tt.return %four : i32
}
tt.func public @pick_kernel(%out: !tt.ptr<i32>, %x: i32, %a: i32, %b: i32) {
  %v = tt.call @pick(%x, %a, %b) : (i32, i32, i32) -> i32
  tt.store %out, %v : !tt.ptr<i32>
  tt.return
}
