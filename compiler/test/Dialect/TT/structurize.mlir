// RUN: triton-mtia-opt %s --tt-inline-calls | FileCheck %s --check-prefix=INLINE
// RUN: triton-mtia-opt %s --tt-structurize-returns | FileCheck %s --check-prefix=RETURNS
// RUN: triton-mtia-opt %s --tt-inline-calls --tt-structurize-returns | FileCheck %s --check-prefix=BOTH

// The two rewrites that make a kernel one block of structured code before
// convert-tt-to-mtia, each on its own: tt-inline-calls replaces the call of
// a noinline device function by its body; tt-structurize-returns turns the
// early return's cf.cond_br into an scf.if whose other branch holds the rest.

// INLINE-LABEL: tt.func public @early_return(
// INLINE-NOT: tt.call
// INLINE: arith.muli %{{.*}}, %arg1 : i32
// INLINE: tt.store
// RETURNS-LABEL: tt.func public @early_return(
// RETURNS-NOT: cf.cond_br
// RETURNS: scf.if %{{.*}} {
// RETURNS-NEXT: } else {
// RETURNS: tt.call @helper
// RETURNS: tt.store
// BOTH-LABEL: tt.func public @early_return(
// BOTH-NOT: tt.call
// BOTH-NOT: cf.cond_br
// BOTH: scf.if
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
  tt.store %x, %v : !tt.ptr<i32>
  tt.return
}
tt.func private @helper(%a: i32, %b: i32) -> i32 attributes {noinline = true} {
  %0 = arith.muli %a, %b : i32
  tt.return %0 : i32
}
