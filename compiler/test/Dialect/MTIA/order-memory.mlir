// RUN: triton-mtia-opt %s --mtia-order-memory | FileCheck %s

// A load of the bytes a store of the same program just wrote: the load waits
// for the store (read after write). The store waits for the load of %x only
// if %x and %out share an allocation.
// CHECK-LABEL: func.func @read_own_write
// CHECK-NEXT: %[[ALIAS:.*]] = mtia.may_alias %arg0, %arg1
// CHECK: mtia.dma_in %arg0
// CHECK-NEXT: mtia.fence "stores_after_loads" if %[[ALIAS]]
// CHECK-NEXT: mtia.dma_out %[[OUT:.*]] strides
// CHECK-NEXT: mtia.fence "loads_after_stores"{{$}}
// CHECK-NEXT: mtia.dma_in %[[OUT]] strides
func.func @read_own_write(%x: i64 {mtia.pointer}, %out: i64 {mtia.pointer}) {
  %c1 = arith.constant 1 : i64
  %c256 = arith.constant 256 : i64
  mtia.dma_in %x strides(%c1) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  mtia.dma_out %out strides(%c1) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  mtia.dma_in %out strides(%c1) valid(%c256) {cb = 1 : i64, elemType = f32, shape = array<i64: 256>}
  return
}

// Two pointer arguments may be one tensor: the fence is issued when the
// runtime says they share an allocation. The load of %x before the store
// makes the store wait too (write after read), on the same condition.
// CHECK-LABEL: func.func @two_arguments
// CHECK-NEXT: %[[ALIAS:.*]] = mtia.may_alias %arg0, %arg1
// CHECK: mtia.dma_in %arg0
// CHECK-NEXT: mtia.fence "stores_after_loads" if %[[ALIAS]]
// CHECK-NEXT: mtia.dma_out %arg1
// CHECK-NEXT: mtia.fence "loads_after_stores" if %[[ALIAS]]
// CHECK-NEXT: mtia.dma_in %arg0
func.func @two_arguments(%x: i64 {mtia.pointer}, %out: i64 {mtia.pointer}) {
  %c1 = arith.constant 1 : i64
  %c256 = arith.constant 256 : i64
  mtia.dma_in %x strides(%c1) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  mtia.dma_out %out strides(%c1) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  mtia.dma_in %x strides(%c1) valid(%c256) {cb = 1 : i64, elemType = f32, shape = array<i64: 256>}
  return
}

// One argument, boxes whose byte hulls do not meet: no fence. 256 f32 at
// %x + 1024 bytes begin where the stored ones end; a 2-D box of 4 rows with
// a constant row stride of 512 elements spans 3 * 2048 + 1024 bytes.
// CHECK-LABEL: func.func @disjoint
// CHECK-NOT: mtia.fence
// CHECK: return
func.func @disjoint(%x: i64 {mtia.pointer}) {
  %c1 = arith.constant 1 : i64
  %c4 = arith.constant 4 : i64
  %c256 = arith.constant 256 : i64
  %c512 = arith.constant 512 : i64
  %c1024 = arith.constant 1024 : i64
  %c7168 = arith.constant 7168 : i64
  %next = arith.addi %x, %c1024 : i64
  %after = arith.addi %x, %c7168 : i64
  mtia.dma_out %x strides(%c1) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  mtia.dma_in %next strides(%c1) valid(%c256) {cb = 1 : i64, elemType = f32, shape = array<i64: 256>}
  mtia.dma_in %after strides(%c512, %c1) valid(%c4, %c256) {cb = 2 : i64, elemType = f32, shape = array<i64: 4, 256>}
  return
}

// A 2-D box with a run-time row stride has no constant hull: fenced.
// CHECK-LABEL: func.func @runtime_stride
// CHECK: mtia.dma_out
// CHECK-NEXT: mtia.fence "loads_after_stores"
func.func @runtime_stride(%x: i64 {mtia.pointer}, %stride: i64) {
  %c1 = arith.constant 1 : i64
  %c4 = arith.constant 4 : i64
  %c256 = arith.constant 256 : i64
  %c4096 = arith.constant 4096 : i64
  %far = arith.addi %x, %c4096 : i64
  mtia.dma_out %x strides(%stride, %c1) valid(%c4, %c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 4, 256>}
  mtia.dma_in %far strides(%c1) valid(%c256) {cb = 1 : i64, elemType = f32, shape = array<i64: 256>}
  return
}

// An in-place loop, x[i*256 : i*256+256] += 1: each store waits for this
// iteration's load (write after read, same bytes), but the next iteration's
// load is 1024 bytes further on, past what the previous store wrote, so it
// is not held back.
// CHECK-LABEL: func.func @in_place_loop
// CHECK: scf.for
// CHECK-NOT: "loads_after_stores"
// CHECK: mtia.dma_in
// CHECK: mtia.fence "stores_after_loads"{{$}}
// CHECK-NEXT: mtia.dma_out
// CHECK-NOT: mtia.fence
// CHECK: return
func.func @in_place_loop(%x: i64 {mtia.pointer}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %c4 = arith.constant 4 : i64
  %c256 = arith.constant 256 : i64
  %c256_i32 = arith.constant 256 : i32
  scf.for %i = %c0 to %n step %c256_i32 : i32 {
    %o = arith.extsi %i : i32 to i64
    %b = arith.muli %o, %c4 : i64
    %p = arith.addi %x, %b : i64
    mtia.dma_in %p strides(%c1) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
    mtia.se "Add" %c1 : i64 {cb = 1 : i64, elemType = f32, shape = array<i64: 256>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>, #mtia.imm]}
    mtia.dma_out %p strides(%c1) valid(%c256) {cb = 1 : i64, elemType = f32, shape = array<i64: 256>}
  }
  return
}

// Accumulating into one tile of memory: every iteration reads what the
// previous one wrote, so the load waits for the store across the back edge.
// CHECK-LABEL: func.func @accumulate_in_memory
// CHECK: scf.for
// CHECK-NEXT: mtia.fence "loads_after_stores"{{$}}
// CHECK-NEXT: mtia.dma_in %arg0
// CHECK-NEXT: mtia.fence "stores_after_loads"{{$}}
// CHECK-NEXT: mtia.dma_out %arg0
func.func @accumulate_in_memory(%acc: i64 {mtia.pointer}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c1_i64 = arith.constant 1 : i64
  %c256 = arith.constant 256 : i64
  scf.for %i = %c0 to %n step %c1 : i32 {
    mtia.dma_in %acc strides(%c1_i64) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
    mtia.dma_out %acc strides(%c1_i64) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  }
  return
}

// A pointer carried by the loop and moved by a constant: the next
// iteration's load is past the previous store. A store and a load of two
// arguments in a loop: the condition is computed once, at the entry.
// CHECK-LABEL: func.func @carried_pointer
// CHECK-NEXT: %[[ALIAS:.*]] = mtia.may_alias %arg0, %arg1
// CHECK: scf.for
// CHECK-NEXT: mtia.fence "loads_after_stores" if %[[ALIAS]]
// CHECK-NEXT: mtia.dma_in
// CHECK-NEXT: mtia.fence "stores_after_loads" if %[[ALIAS]]
// CHECK-NEXT: mtia.dma_out
// CHECK-NOT: mtia.fence
// CHECK: return
func.func @carried_pointer(%x: i64 {mtia.pointer}, %out: i64 {mtia.pointer}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c1_i64 = arith.constant 1 : i64
  %c256 = arith.constant 256 : i64
  %c1024 = arith.constant 1024 : i64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%p = %x) -> (i64) : i32 {
    mtia.dma_in %p strides(%c1_i64) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
    mtia.dma_out %out strides(%c1_i64) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
    %next = arith.addi %p, %c1024 : i64
    scf.yield %next : i64
  }
  return
}

// Per-element addresses and addresses read from memory: nothing is known,
// everything is fenced. Stores after stores are never fenced (one in-order
// unit runs them).
// CHECK-LABEL: func.func @unknown_addresses
// CHECK: mtia.dma_out
// CHECK-NEXT: mtia.dma_out
// CHECK-NEXT: mtia.fence "loads_after_stores"{{$}}
// CHECK-NEXT: mtia.gather_in
// CHECK: mtia.read
// CHECK-NEXT: mtia.fence "stores_after_loads"{{$}}
// CHECK-NEXT: mtia.scatter_out
// CHECK-NEXT: mtia.fence "loads_after_stores"{{$}}
// CHECK-NEXT: mtia.dma_in
func.func @unknown_addresses(%x: i64 {mtia.pointer}, %y: i64 {mtia.pointer}) {
  %c1 = arith.constant 1 : i64
  %c256 = arith.constant 256 : i64
  mtia.dma_out %x strides(%c1) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  mtia.dma_out %x strides(%c1) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  mtia.gather_in {addrCb = 2 : i64, cb = 3 : i64, elemType = f32, maskCb = -1 : i64, shape = array<i64: 256>}
  %p = mtia.read {cb = 4 : i64, index = 0 : i64, mtia.pointer} : i64
  mtia.scatter_out {addrCb = 2 : i64, cb = 3 : i64, elemType = f32, maskCb = -1 : i64, shape = array<i64: 256>}
  mtia.dma_in %p strides(%c1) valid(%c256) {cb = 5 : i64, elemType = f32, shape = array<i64: 256>}
  return
}

// A gather whose addresses are offsets from a pointer argument (`base`) is
// ordered against another argument's store only if the two may alias.
// CHECK-LABEL: func.func @gather_with_base
// CHECK-NEXT: %[[ALIAS:.*]] = mtia.may_alias %arg0, %arg1
// CHECK: mtia.dma_out %arg1
// CHECK-NEXT: mtia.fence "loads_after_stores" if %[[ALIAS]]
// CHECK-NEXT: mtia.gather_in base %arg0
func.func @gather_with_base(%table: i64 {mtia.pointer}, %out: i64 {mtia.pointer}) {
  %c1 = arith.constant 1 : i64
  %c256 = arith.constant 256 : i64
  mtia.dma_out %out strides(%c1) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  mtia.gather_in base %table {addrCb = 2 : i64, cb = 3 : i64, elemType = f32, maskCb = -1 : i64, shape = array<i64: 256>}
  return
}

// A branch that stores makes a later load wait on both paths' behalf.
// CHECK-LABEL: func.func @branch
// CHECK: scf.if
// CHECK-NEXT: mtia.dma_out
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: mtia.fence "loads_after_stores"{{$}}
// CHECK-NEXT: mtia.dma_in
func.func @branch(%x: i64 {mtia.pointer}, %c: i1) {
  %c1 = arith.constant 1 : i64
  %c256 = arith.constant 256 : i64
  scf.if %c {
    mtia.dma_out %x strides(%c1) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  }
  mtia.dma_in %x strides(%c1) valid(%c256) {cb = 1 : i64, elemType = f32, shape = array<i64: 256>}
  return
}

// Stores before a loop that its loads may read: one fence in front of the
// loop orders all of its iterations, instead of one fence per iteration.
// CHECK-LABEL: func.func @fence_before_loop
// CHECK: mtia.dma_out %arg0
// CHECK-NEXT: mtia.fence "loads_after_stores"{{$}}
// CHECK-NEXT: scf.for
// CHECK-NOT: mtia.fence
// CHECK: return
func.func @fence_before_loop(%x: i64 {mtia.pointer}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c1_i64 = arith.constant 1 : i64
  %c4 = arith.constant 4 : i64
  %c256 = arith.constant 256 : i64
  mtia.dma_out %x strides(%c1_i64) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  scf.for %i = %c0 to %n step %c1 : i32 {
    %o = arith.extsi %i : i32 to i64
    %b = arith.muli %o, %c4 : i64
    %p = arith.addi %x, %b : i64
    mtia.dma_in %p strides(%c1_i64) valid(%c256) {cb = 1 : i64, elemType = f32, shape = array<i64: 256>}
  }
  return
}

// Loads of three arguments after a store of a fourth: one fence, issued if
// any of the three may be the fourth; the OR is computed at the entry.
// CHECK-LABEL: func.func @one_fence_for_three_loads
// CHECK-DAG: %[[XO:.*]] = mtia.may_alias %arg0, %arg3
// CHECK-DAG: %[[WO:.*]] = mtia.may_alias %arg1, %arg3
// CHECK-DAG: %[[BO:.*]] = mtia.may_alias %arg2, %arg3
// CHECK-DAG: %[[XW:.*]] = arith.ori %[[XO]], %[[WO]]
// CHECK-DAG: %[[ANY:.*]] = arith.ori %[[XW]], %[[BO]]
// CHECK: mtia.dma_out %arg3
// CHECK-NEXT: mtia.fence "loads_after_stores" if %[[ANY]]
// CHECK-NEXT: mtia.dma_in %arg0
// CHECK-NEXT: mtia.dma_in %arg1
// CHECK-NEXT: mtia.dma_in %arg2
func.func @one_fence_for_three_loads(%x: i64 {mtia.pointer}, %w: i64 {mtia.pointer}, %b: i64 {mtia.pointer}, %y: i64 {mtia.pointer}) {
  %c1 = arith.constant 1 : i64
  %c256 = arith.constant 256 : i64
  mtia.dma_out %y strides(%c1) valid(%c256) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  mtia.dma_in %x strides(%c1) valid(%c256) {cb = 1 : i64, elemType = f32, shape = array<i64: 256>}
  mtia.dma_in %w strides(%c1) valid(%c256) {cb = 2 : i64, elemType = f32, shape = array<i64: 256>}
  mtia.dma_in %b strides(%c1) valid(%c256) {cb = 3 : i64, elemType = f32, shape = array<i64: 256>}
  return
}
