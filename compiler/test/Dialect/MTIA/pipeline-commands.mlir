// RUN: triton-mtia-opt %s --mtia-pipeline-commands --split-input-file | FileCheck %s
// RUN: triton-mtia-opt %s --mtia-pipeline-commands --mtia-assign-cbs="num-stages=1" --split-input-file | FileCheck %s --check-prefix=CAP

// Attention's shape: a K tile loaded (cb 1), a dot with q (cb 0, loaded
// before the loop) into cb 2, then an SE tail reading the dot. Stage 0 (the
// load, the dot and the K pop, with the address arithmetic) is issued for
// the first iteration before the loop and for the next one at the top of
// the body, each under a bounds test; the tail stays. The dot's CB then
// holds two tiles (this iteration's and the next one's): 32768 bytes, in
// the physical CB after the accumulator's (whose Add needs two as well).
// CHECK-LABEL: func.func @dot_then_tail
// CHECK-SAME: attributes {mtia.pipelined_loops = 1 : i64}
// CHECK: mtia.dma_in %{{.*}} {cb = 0 : i64
// CHECK: %[[FIRST:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: arith.extsi
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.addi
// CHECK-NEXT: mtia.dma_in %{{.*}} {cb = 1 : i64
// CHECK-NEXT: mtia.dpe {{.*}}cb = 2 : i64
// CHECK-NEXT: mtia.cb_pop {bytes = 8192 : i64, cb = 1 : i64}
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %[[IV:.*]] = %{{.*}} to %[[UB:.*]] step %[[STEP:[^ ]*]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[IV]], %[[STEP]] : i32
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[UB]] : i32
// CHECK-NEXT: scf.if %[[MORE]] {
// CHECK-NEXT: arith.extsi %[[NEXT]]
// CHECK: mtia.dma_in {{.*}}cb = 1 : i64
// CHECK-NEXT: mtia.dpe {{.*}}cb = 2 : i64
// CHECK-NEXT: mtia.cb_pop {bytes = 8192 : i64, cb = 1 : i64}
// CHECK-NEXT: }
// CHECK-NEXT: mtia.se "Exp2" {cb = 3 : i64
// CHECK-NEXT: mtia.cb_pop {bytes = 16384 : i64, cb = 2 : i64}
// CHECK-NEXT: mtia.se "Add"
// CHECK-NEXT: mtia.cb_pop {bytes = 16384 : i64, cb = 4 : i64}
// CHECK-NEXT: mtia.cb_pop {bytes = 16384 : i64, cb = 3 : i64}
// CHECK-NEXT: }
// CAP-LABEL: func.func @dot_then_tail
// CAP-SAME: mtia.cb_capacity = array<i64: 8192, 32768, 8192, 32768, 16384>
func.func @dot_then_tail(%q: i64, %k: i64, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %s1 = arith.constant 1 : i64
  %s64 = arith.constant 64 : i64
  %zero = arith.constant 0.0 : f32
  mtia.dma_in %q strides(%s64, %s1) valid(%s64, %s64) {cb = 0 : i64, elemType = f16, shape = array<i64: 64, 64>}
  mtia.se "Copy" %zero : f32 {cb = 4 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.imm]}
  scf.for %i = %c0 to %n step %c64 : i32 {
    %w = arith.extsi %i : i32 to i64
    %o = arith.muli %w, %s64 : i64
    %a = arith.addi %k, %o : i64
    mtia.dma_in %a strides(%s64, %s1) valid(%s64, %s64) {cb = 1 : i64, elemType = f16, shape = array<i64: 64, 64>}
    mtia.dpe {accType = f32, cb = 2 : i64, k = 64 : i64, m = 64 : i64, n = 64 : i64, srcs = [#mtia.view<cb = 0, elemType = f16, offset = 0, strides = 64, 1>, #mtia.view<cb = 1, elemType = f16, offset = 0, strides = 1, 64>, #mtia.imm]}
    mtia.cb_pop {bytes = 8192 : i64, cb = 1 : i64}
    mtia.se "Exp2" {cb = 3 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 2, elemType = f32, offset = 0, strides = 64, 1>]}
    mtia.cb_pop {bytes = 16384 : i64, cb = 2 : i64}
    mtia.se "Add" {cb = 4 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 4, elemType = f32, offset = 0, strides = 64, 1>, #mtia.view<cb = 3, elemType = f32, offset = 0, strides = 64, 1>]}
    mtia.cb_pop {bytes = 16384 : i64, cb = 4 : i64}
    mtia.cb_pop {bytes = 16384 : i64, cb = 3 : i64}
  }
  mtia.cb_pop {bytes = 8192 : i64, cb = 0 : i64}
  mtia.cb_pop {bytes = 16384 : i64, cb = 4 : i64}
  return
}

// -----

// A loop that stores: the next iteration's load would pass this one's
// store. Left as it is.
// CHECK-LABEL: func.func @stores
// CHECK-NOT: scf.if
// CHECK-NOT: pipelined_loops
// CHECK: scf.for
// CHECK-NEXT: mtia.dma_in
// CHECK-NEXT: mtia.dpe
func.func @stores(%x: i64, %y: i64, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s1 = arith.constant 1 : i64
  %s64 = arith.constant 64 : i64
  scf.for %i = %c0 to %n step %c1 {
    mtia.dma_in %x strides(%s64, %s1) valid(%s64, %s64) {cb = 1 : i64, elemType = f16, shape = array<i64: 64, 64>}
    mtia.dpe {accType = f32, cb = 2 : i64, k = 64 : i64, m = 64 : i64, n = 64 : i64, srcs = [#mtia.view<cb = 1, elemType = f16, offset = 0, strides = 64, 1>, #mtia.view<cb = 1, elemType = f16, offset = 0, strides = 1, 64>, #mtia.imm]}
    mtia.cb_pop {bytes = 8192 : i64, cb = 1 : i64}
    mtia.dma_out %y strides(%s64, %s1) valid(%s64, %s64) {cb = 2 : i64, elemType = f32, shape = array<i64: 64, 64>}
    mtia.cb_pop {bytes = 16384 : i64, cb = 2 : i64}
  }
  return
}

// -----

// A GEMM's K loop: the dot accumulates into its own loop-carried CB, so it
// is stage 1, and a stage 0 of loads alone is not worth it (the core
// already issues loads ahead). Left as it is.
// CHECK-LABEL: func.func @accumulating_dot
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK-NEXT: mtia.dma_in
// CHECK-NEXT: mtia.dpe
func.func @accumulating_dot(%x: i64, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s1 = arith.constant 1 : i64
  %s64 = arith.constant 64 : i64
  %zero = arith.constant 0.0 : f32
  mtia.se "Copy" %zero : f32 {cb = 0 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.imm]}
  scf.for %i = %c0 to %n step %c1 {
    mtia.dma_in %x strides(%s64, %s1) valid(%s64, %s64) {cb = 1 : i64, elemType = f16, shape = array<i64: 64, 64>}
    mtia.dpe {accType = f32, cb = 0 : i64, k = 64 : i64, m = 64 : i64, n = 64 : i64, srcs = [#mtia.view<cb = 1, elemType = f16, offset = 0, strides = 64, 1>, #mtia.view<cb = 1, elemType = f16, offset = 0, strides = 1, 64>, #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
    mtia.cb_pop {bytes = 8192 : i64, cb = 1 : i64}
    mtia.cb_pop {bytes = 16384 : i64, cb = 0 : i64}
  }
  mtia.cb_pop {bytes = 16384 : i64, cb = 0 : i64}
  return
}

// -----

// A dot whose operand is computed in stage 1 (p v after the softmax) stays
// in stage 1. Its load alone could go to stage 0, but a stage 0 without a
// dot or SE command is not worth it: nothing moves.
// CHECK-LABEL: func.func @dot_after_tail
// CHECK-NOT: scf.if
func.func @dot_after_tail(%x: i64, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s1 = arith.constant 1 : i64
  %s64 = arith.constant 64 : i64
  %zero = arith.constant 0.0 : f32
  mtia.se "Copy" %zero : f32 {cb = 0 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.imm]}
  scf.for %i = %c0 to %n step %c1 {
    mtia.se "Exp2" {cb = 2 : i64, elemType = f16, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
    mtia.dma_in %x strides(%s64, %s1) valid(%s64, %s64) {cb = 1 : i64, elemType = f16, shape = array<i64: 64, 64>}
    mtia.dpe {accType = f32, cb = 3 : i64, k = 64 : i64, m = 64 : i64, n = 64 : i64, srcs = [#mtia.view<cb = 2, elemType = f16, offset = 0, strides = 64, 1>, #mtia.view<cb = 1, elemType = f16, offset = 0, strides = 64, 1>, #mtia.imm]}
    mtia.cb_pop {bytes = 8192 : i64, cb = 1 : i64}
    mtia.cb_pop {bytes = 8192 : i64, cb = 2 : i64}
    mtia.se "Copy" {cb = 0 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 3, elemType = f32, offset = 0, strides = 64, 1>]}
    mtia.cb_pop {bytes = 16384 : i64, cb = 0 : i64}
    mtia.cb_pop {bytes = 16384 : i64, cb = 3 : i64}
  }
  mtia.cb_pop {bytes = 16384 : i64, cb = 0 : i64}
  return
}
