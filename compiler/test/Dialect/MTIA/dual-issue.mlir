// RUN: triton-mtia-opt %s --mtia-dual-issue --split-input-file | FileCheck %s
// RUN: triton-mtia-opt %s --mtia-dual-issue --mtia-scalar-cost --split-input-file | FileCheck %s --check-prefix=COST

// A row loop as softmax lowers: the DMAs stay on core 0 (no attribute),
// the SE commands go to core 1, and each pop goes with the command before
// it (the SE's pops to core 1, the store's pop to core 0). The load
// address (extsi, muli, addi) is core 0's only; the scale (mulf) feeds the SE's
// immediate, core 1's only; the bound (minsi) feeds both DMAs and the loop
// bound (addi of %n) is the loop's control, run by both cores.
// CHECK-LABEL: func.func @row_loop
// CHECK-SAME: mtia.dual_issue
// CHECK: %[[UB:.*]] = arith.addi %{{.*}}, %{{.*}} {mtia.issue_cores = 3 : i64} : i32
// CHECK: scf.for
// CHECK-NEXT: arith.extsi %{{.*}} : i32 to i64
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: arith.addi %{{.*}}, %[[OFF]] : i64
// CHECK-NEXT: arith.minsi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: arith.mulf %{{.*}}, %{{.*}} {mtia.issue_cores = 2 : i64} : f32
// CHECK-NEXT: mtia.dma_in {{.*}}{cb = 0 : i64, elemType = f32, shape
// CHECK-NEXT: mtia.se_reduce "Max" {{.*}}mtia.core = 1 : i64
// CHECK-NEXT: mtia.se "Mul" {{.*}}mtia.core = 1 : i64
// CHECK-NEXT: mtia.cb_pop {bytes = 4096 : i64, cb = 0 : i64, mtia.core = 1 : i64}
// CHECK-NEXT: mtia.cb_pop {bytes = 4 : i64, cb = 1 : i64, mtia.core = 1 : i64}
// CHECK-NEXT: mtia.dma_out {{.*}}{cb = 2 : i64, elemType = f32, shape
// CHECK-NEXT: mtia.cb_pop {bytes = 4096 : i64, cb = 2 : i64}
// CHECK-NEXT: } {mtia.issue_cores = 3 : i64}

// mtia-scalar-cost charges each core for its share: before the loop, the
// bound's addi (1) on both; in the body, core 0 the loop control (2), extsi 1,
// muli by 4 (a shift) 1, addi 1, minsi 1 = 6, and core 1 the control (2) and mulf 4 = 6.
// COST-LABEL: func.func @row_loop
// COST-NEXT: mtia.scalar_cycles {cycles = 1 : i64}
// COST-NEXT: mtia.scalar_cycles {core = 1 : i64, cycles = 1 : i64}
// COST: scf.for
// COST-NEXT: mtia.scalar_cycles {cycles = 6 : i64}
// COST-NEXT: mtia.scalar_cycles {core = 1 : i64, cycles = 6 : i64}
// COST-NEXT: arith.extsi
func.func @row_loop(%in: i64, %out: i64, %n: i32, %m: i32, %cols: i64, %s: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c1_i64 = arith.constant 1 : i64
  %c4 = arith.constant 4 : i64
  %c1024 = arith.constant 1024 : i64
  %c2 = arith.constant 2.0 : f32
  %pad = arith.constant 0xFF800000 : f32
  %ub = arith.addi %n, %m : i32
  scf.for %row = %c0 to %ub step %c1 : i32 {
    %r = arith.extsi %row : i32 to i64
    %off = arith.muli %r, %c4 : i64
    %src = arith.addi %in, %off : i64
    %valid = arith.minsi %cols, %c1024 : i64
    %scale = arith.mulf %s, %c2 : f32
    mtia.dma_in %src strides(%c1_i64) valid(%valid) pad %pad : f32 {cb = 0 : i64, elemType = f32, shape = array<i64: 1024>}
    mtia.se_reduce "Max" {axis = 0 : i64, cb = 1 : i64, elemType = f32, shape = array<i64: 1024>, src = #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>}
    mtia.se "Mul" %scale : f32 {cb = 2 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>, #mtia.imm]}
    mtia.cb_pop {bytes = 4096 : i64, cb = 0 : i64}
    mtia.cb_pop {bytes = 4 : i64, cb = 1 : i64}
    mtia.dma_out %out strides(%c1_i64) valid(%valid) {cb = 2 : i64, elemType = f32, shape = array<i64: 1024>}
    mtia.cb_pop {bytes = 4096 : i64, cb = 2 : i64}
  }
  return
}

// -----

// Only DMAs (a copy): nothing to split, the function is left alone and its
// scalar code stays on core 0.
// CHECK-LABEL: func.func @copy_only
// CHECK-NOT: mtia.dual_issue
// CHECK-NOT: mtia.core
// CHECK-NOT: mtia.issue_cores
// CHECK: return
// COST-LABEL: func.func @copy_only
// COST-NEXT: mtia.scalar_cycles {cycles = 1 : i64}
// COST-NOT: core = 1
func.func @copy_only(%in: i64, %out: i64, %n: i64) {
  %c1 = arith.constant 1 : i64
  %c256 = arith.constant 256 : i64
  %v = arith.minsi %n, %c256 : i64
  mtia.dma_in %in strides(%c1) valid(%v) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  mtia.dma_out %out strides(%c1) valid(%v) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  mtia.cb_pop {bytes = 1024 : i64, cb = 0 : i64}
  return
}

// -----

// A loop of SE commands only, inside a function that also loads: the loop's
// control runs on core 1 alone; the read of the reduction stays on core 0,
// and so does the pop after it.
// CHECK-LABEL: func.func @se_loop
// CHECK: scf.for
// CHECK: } {mtia.issue_cores = 2 : i64}
// CHECK-NEXT: mtia.se_reduce {{.*}}mtia.core = 1 : i64
// CHECK-NEXT: mtia.read {cb = 1 : i64, index = 0 : i64} : f32
// CHECK-NEXT: mtia.cb_pop {bytes = 4 : i64, cb = 1 : i64}
// COST-LABEL: func.func @se_loop
// COST: scf.for
// COST-NEXT: mtia.scalar_cycles {core = 1 : i64, cycles = 2 : i64}
// COST-NEXT: mtia.se
func.func @se_loop(%in: i64, %n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c1_i64 = arith.constant 1 : i64
  %c256 = arith.constant 256 : i64
  mtia.dma_in %in strides(%c1_i64) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  scf.for %i = %c0 to %n step %c1 : i32 {
    mtia.se "Exp" {cb = 0 : i64, elemType = f32, mtia.replace_front, shape = array<i64: 256>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>]}
  }
  mtia.se_reduce "Sum" {axis = 0 : i64, cb = 1 : i64, elemType = f32, shape = array<i64: 256>, src = #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>}
  %r = mtia.read {cb = 1 : i64, index = 0 : i64} : f32
  mtia.cb_pop {bytes = 4 : i64, cb = 1 : i64}
  mtia.cb_pop {bytes = 1024 : i64, cb = 0 : i64}
  return %r : f32
}
