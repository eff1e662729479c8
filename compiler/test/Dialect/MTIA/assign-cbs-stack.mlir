// RUN: triton-mtia-opt %s --mtia-assign-cbs="num-cbs=2" --split-input-file --verify-diagnostics | FileCheck %s

// Three tiles live at once on a PE of two CBs. Stacked, longest lives first
// until the colouring fits: 11, 10, then 13 and 14 (as long as 13). Each
// tile sits behind the ones pushed before it, so its views are offset by
// the bytes in front of it at that point: 11 by 10's 64 elements until 10
// is popped. A pop releases only what reached the front: 13's and 14's wait
// (and vanish), 10's releases 10, 11's releases 11, 13 and 14 at once. The
// stack's capacity is its peak (1280 bytes), double-buffered.
// CHECK-LABEL: func.func @stack
// CHECK-SAME: mtia.cb_capacity = array<i64: 2560, 1024>
// CHECK-NEXT: mtia.se_iota {cb = 0 : i64, elemType = i32, length = 64
// CHECK-NEXT: mtia.se_iota {cb = 0 : i64, elemType = i32, length = 128
// CHECK-NEXT: mtia.se_iota {cb = 1 : i64, elemType = i32, length = 64
// CHECK-NEXT: mtia.se "Add" {cb = 0 : i64, {{.*}}srcs = [#mtia.view<cb = 0, elemType = i32, offset = 64, strides = 1>, #mtia.view<cb = 1, elemType = i32, offset = 0, strides = 1>]}
// CHECK-NEXT: mtia.cb_pop {bytes = 256 : i64, cb = 1 : i64}
// CHECK-NEXT: mtia.se "Add" {cb = 0 : i64, {{.*}}srcs = [#mtia.view<cb = 0, elemType = i32, offset = 0, strides = 1>, #mtia.view<cb = 0, elemType = i32, offset = 64, strides = 1>]}
// CHECK-NEXT: mtia.cb_pop {bytes = 256 : i64, cb = 0 : i64}
// CHECK-NEXT: mtia.se "Copy" {cb = 1 : i64, {{.*}}srcs = [#mtia.view<cb = 0, elemType = i32, offset = 0, strides = 1>]}
// CHECK-NEXT: mtia.cb_pop {bytes = 1024 : i64, cb = 0 : i64}
// CHECK-NEXT: mtia.cb_pop {bytes = 512 : i64, cb = 1 : i64}
// CHECK-NEXT: return
func.func @stack() {
  mtia.se_iota {cb = 10 : i64, elemType = i32, length = 64 : i64, start = 0 : i64}
  mtia.se_iota {cb = 11 : i64, elemType = i32, length = 128 : i64, start = 0 : i64}
  mtia.se_iota {cb = 12 : i64, elemType = i32, length = 64 : i64, start = 0 : i64}
  mtia.se "Add" {cb = 13 : i64, elemType = i32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 11, elemType = i32, offset = 0, strides = 1>, #mtia.view<cb = 12, elemType = i32, offset = 0, strides = 1>]}
  mtia.cb_pop {bytes = 256 : i64, cb = 12 : i64}
  mtia.se "Add" {cb = 14 : i64, elemType = i32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 10, elemType = i32, offset = 0, strides = 1>, #mtia.view<cb = 11, elemType = i32, offset = 0, strides = 1>]}
  mtia.cb_pop {bytes = 256 : i64, cb = 13 : i64}
  mtia.cb_pop {bytes = 256 : i64, cb = 10 : i64}
  mtia.se "Copy" {cb = 15 : i64, elemType = i32, shape = array<i64: 128>, srcs = [#mtia.view<cb = 11, elemType = i32, offset = 0, strides = 1>]}
  mtia.cb_pop {bytes = 256 : i64, cb = 14 : i64}
  mtia.cb_pop {bytes = 512 : i64, cb = 11 : i64}
  mtia.cb_pop {bytes = 512 : i64, cb = 15 : i64}
  return
}

// -----

// A tile stored by a DMA is read at the front of its CB, so it is never
// stacked: with every tile such, the kernel does not fit.
// expected-error @below {{kernel needs 3 circular buffers live at once; an MTIA PE has 2}}
func.func @front(%a: i64) {
  mtia.se_iota {cb = 10 : i64, elemType = i32, length = 64 : i64, start = 0 : i64}
  mtia.se_iota {cb = 11 : i64, elemType = i32, length = 64 : i64, start = 0 : i64}
  mtia.se_iota {cb = 12 : i64, elemType = i32, length = 64 : i64, start = 0 : i64}
  mtia.dma_out %a strides() valid() {cb = 12 : i64, elemType = i32, shape = array<i64>}
  mtia.dma_out %a strides() valid() {cb = 11 : i64, elemType = i32, shape = array<i64>}
  mtia.dma_out %a strides() valid() {cb = 10 : i64, elemType = i32, shape = array<i64>}
  mtia.cb_pop {bytes = 256 : i64, cb = 12 : i64}
  mtia.cb_pop {bytes = 256 : i64, cb = 11 : i64}
  mtia.cb_pop {bytes = 256 : i64, cb = 10 : i64}
  return
}

// -----

// Tiles made before a loop and read inside it (what LICM leaves of a large
// loop-invariant expression) are stacked too: nothing in the loop pushes or
// pops them, so each stays where it is for the whole loop, and the loop's
// views of them are offset like the block's. 10 and 11 share cb 0 (11
// behind 10's 64 elements); the loop's own tile 12, stored from the front,
// takes cb 1.
// CHECK-LABEL: func.func @loop_reads_stacked_tiles
// CHECK-SAME: mtia.cb_capacity = array<i64: 1024, 768>
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.constant
// CHECK-NEXT: mtia.se_iota {cb = 0 : i64
// CHECK-NEXT: mtia.se_iota {cb = 0 : i64
// CHECK-NEXT: scf.for
// CHECK-NEXT: mtia.se "Add" {cb = 1 : i64, {{.*}}srcs = [#mtia.view<cb = 0, elemType = i32, offset = 0, strides = 1>, #mtia.view<cb = 0, elemType = i32, offset = 64, strides = 1>]}
// CHECK-NEXT: mtia.dma_out %{{.*}} {cb = 1 : i64
// CHECK-NEXT: mtia.cb_pop {bytes = 256 : i64, cb = 1 : i64}
// CHECK-NEXT: }
// CHECK-NEXT: mtia.cb_pop {bytes = 512 : i64, cb = 0 : i64}
// CHECK-NEXT: return
func.func @loop_reads_stacked_tiles(%a: i64, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  mtia.se_iota {cb = 10 : i64, elemType = i32, length = 64 : i64, start = 0 : i64}
  mtia.se_iota {cb = 11 : i64, elemType = i32, length = 64 : i64, start = 0 : i64}
  scf.for %i = %c0 to %n step %c1 {
    mtia.se "Add" {cb = 12 : i64, elemType = i32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 10, elemType = i32, offset = 0, strides = 1>, #mtia.view<cb = 11, elemType = i32, offset = 0, strides = 1>]}
    mtia.dma_out %a strides() valid() {cb = 12 : i64, elemType = i32, shape = array<i64>}
    mtia.cb_pop {bytes = 256 : i64, cb = 12 : i64}
  }
  mtia.cb_pop {bytes = 256 : i64, cb = 11 : i64}
  mtia.cb_pop {bytes = 256 : i64, cb = 10 : i64}
  return
}

// -----

// The same tiles, but 11 is carried by the loop (pushed and popped in it):
// it moves while the loop runs, so it is not stacked, and two CBs are not
// enough.
// expected-error @below {{kernel needs 3 circular buffers live at once; an MTIA PE has 2}}
func.func @loop_carries_a_tile(%a: i64, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  mtia.se_iota {cb = 10 : i64, elemType = i32, length = 64 : i64, start = 0 : i64}
  mtia.se_iota {cb = 11 : i64, elemType = i32, length = 64 : i64, start = 0 : i64}
  scf.for %i = %c0 to %n step %c1 {
    mtia.se "Add" {cb = 12 : i64, elemType = i32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 10, elemType = i32, offset = 0, strides = 1>, #mtia.view<cb = 11, elemType = i32, offset = 0, strides = 1>]}
    mtia.dma_out %a strides() valid() {cb = 12 : i64, elemType = i32, shape = array<i64>}
    mtia.se "Copy" {cb = 11 : i64, elemType = i32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 12, elemType = i32, offset = 0, strides = 1>]}
    mtia.cb_pop {bytes = 256 : i64, cb = 12 : i64}
    mtia.cb_pop {bytes = 256 : i64, cb = 11 : i64}
  }
  mtia.cb_pop {bytes = 256 : i64, cb = 11 : i64}
  mtia.cb_pop {bytes = 256 : i64, cb = 10 : i64}
  return
}
