// RUN: triton-mtia-opt %s --mtia-issue-loads-early | FileCheck %s

// A segment's start and end offsets: the second load, and the address it
// needs, move above the first read, so both round trips overlap. Both
// tiles share CB 0 and are read in order.
// CHECK-LABEL: func.func @start_and_end(
// CHECK: mtia.dma_in %arg0 {{.*}}cb = 0
// CHECK-NEXT: %[[END:.*]] = arith.addi %arg0, %c8_i64
// CHECK-NEXT: mtia.dma_in %[[END]] {{.*}}cb = 0
// CHECK-NEXT: mtia.read {cb = 0 : i64, index = 0 : i64} : i64
// CHECK-NEXT: mtia.cb_pop
// CHECK-NEXT: mtia.read {cb = 0 : i64, index = 0 : i64} : i64
func.func @start_and_end(%p: i64 {mtia.pointer}) -> (i64, i64) {
  %c8 = arith.constant 8 : i64
  mtia.dma_in %p strides() valid() {cb = 0 : i64, elemType = i64, shape = array<i64>}
  %start = mtia.read {cb = 0 : i64, index = 0 : i64} : i64
  mtia.cb_pop {bytes = 8 : i64, cb = 0 : i64}
  %q = arith.addi %p, %c8 : i64
  mtia.dma_in %q strides() valid() {cb = 0 : i64, elemType = i64, shape = array<i64>}
  %end = mtia.read {cb = 0 : i64, index = 0 : i64} : i64
  mtia.cb_pop {bytes = 8 : i64, cb = 0 : i64}
  return %start, %end : i64, i64
}

// A load whose address is the first read's value stays after it.
// CHECK-LABEL: func.func @address_from_memory(
// CHECK: mtia.read {cb = 0
// CHECK: mtia.dma_in {{.*}}cb = 1
func.func @address_from_memory(%p: i64 {mtia.pointer}) -> i64 {
  mtia.dma_in %p strides() valid() {cb = 0 : i64, elemType = i64, shape = array<i64>}
  %q = mtia.read {cb = 0 : i64, index = 0 : i64} : i64
  mtia.cb_pop {bytes = 8 : i64, cb = 0 : i64}
  mtia.dma_in %q strides() valid() {cb = 1 : i64, elemType = i64, shape = array<i64>}
  %v = mtia.read {cb = 1 : i64, index = 0 : i64} : i64
  mtia.cb_pop {bytes = 8 : i64, cb = 1 : i64}
  return %v : i64
}

// A load never passes a store (it would see other memory), nor a command
// of a compute unit.
// CHECK-LABEL: func.func @barriers(
// CHECK: mtia.read {cb = 0
// CHECK: mtia.dma_out
// CHECK: mtia.dma_in {{.*}}cb = 2
// CHECK: mtia.read {cb = 3
// CHECK: mtia.se "Exp"
// CHECK: mtia.dma_in {{.*}}cb = 5
func.func @barriers(%p: i64 {mtia.pointer}, %y: i64 {mtia.pointer}) {
  %c1 = arith.constant 1 : i64
  %c8 = arith.constant 8 : i64
  mtia.dma_in %p strides() valid() {cb = 0 : i64, elemType = i64, shape = array<i64>}
  %a = mtia.read {cb = 0 : i64, index = 0 : i64} : i64
  mtia.cb_pop {bytes = 8 : i64, cb = 0 : i64}
  mtia.se "Copy" %a : i64 {cb = 1 : i64, elemType = i64, shape = array<i64>, srcs = [#mtia.imm]}
  mtia.dma_out %y strides() valid() {cb = 1 : i64, elemType = i64, shape = array<i64>}
  mtia.cb_pop {bytes = 8 : i64, cb = 1 : i64}
  mtia.dma_in %p strides() valid() {cb = 2 : i64, elemType = i64, shape = array<i64>}
  mtia.dma_in %p strides(%c1) valid(%c8) {cb = 3 : i64, elemType = f32, shape = array<i64: 8>}
  %b = mtia.read {cb = 3 : i64, index = 0 : i64} : f32
  mtia.se "Exp" {cb = 4 : i64, elemType = f32, shape = array<i64: 8>, srcs = [#mtia.view<cb = 3, elemType = f32, offset = 0, strides = 1>]}
  mtia.dma_in %p strides() valid() {cb = 5 : i64, elemType = i64, shape = array<i64>}
  %c = mtia.read {cb = 5 : i64, index = 0 : i64} : i64
  return
}
