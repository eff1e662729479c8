// RUN: triton-mtia-opt %s --mtia-replace-front --split-input-file | FileCheck %s
// RUN: triton-mtia-opt %s --mtia-replace-front --mtia-assign-cbs="num-stages=1" --split-input-file | FileCheck %s --check-prefix=CAP

// acc += x in a loop: the Add reads the accumulator at the front of cb 0 and
// appends the next one; the pop of the old one that follows goes with it.
// The CB then needs room for one accumulator, not two.
// CHECK-LABEL: func.func @accumulate
// CHECK: scf.for
// CHECK-NEXT: mtia.dma_in
// CHECK-NEXT: mtia.se "Add" {cb = 0 : i64, elemType = f32, mtia.replace_front
// CHECK-NEXT: mtia.cb_pop {bytes = 4096 : i64, cb = 1 : i64}
// CHECK-NEXT: }
// CAP-LABEL: func.func @accumulate
// CAP-SAME: mtia.cb_capacity = array<i64: 4096, 4096>
func.func @accumulate(%x: i64, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s1 = arith.constant 1 : i64
  %v = arith.constant 1024 : i64
  %zero = arith.constant 0.0 : f32
  mtia.se "Copy" %zero : f32 {cb = 0 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.imm]}
  scf.for %i = %c0 to %n step %c1 {
    mtia.dma_in %x strides(%s1) valid(%v) {cb = 1 : i64, elemType = f32, shape = array<i64: 1024>}
    mtia.se "Add" {cb = 0 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>, #mtia.view<cb = 1, elemType = f32, offset = 0, strides = 1>]}
    mtia.cb_pop {bytes = 4096 : i64, cb = 0 : i64}
    mtia.cb_pop {bytes = 4096 : i64, cb = 1 : i64}
  }
  mtia.cb_pop {bytes = 4096 : i64, cb = 0 : i64}
  return
}

// -----

// The accumulator read transposed, or widened from a narrower tile that
// fills the same bytes, is still the front tile: replaced.
// CHECK-LABEL: func.func @any_view
// CHECK: mtia.se "Add" {cb = 0 : i64, elemType = f32, mtia.replace_front
// CHECK-NEXT: mtia.se_iota {cb = 1 : i64
// CHECK-NEXT: mtia.se "Copy" {cb = 1 : i64, elemType = i32, mtia.replace_front
// CHECK-NEXT: mtia.cb_pop {bytes = 1024 : i64, cb = 0 : i64}
// CHECK-NEXT: mtia.cb_pop {bytes = 1024 : i64, cb = 1 : i64}
// CHECK-NEXT: return
func.func @any_view() {
  mtia.se_iota {cb = 0 : i64, elemType = f32, length = 256 : i64, start = 0 : i64}
  mtia.se "Add" {cb = 0 : i64, elemType = f32, shape = array<i64: 16, 16>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1, 16>, #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 16, 1>]}
  mtia.cb_pop {bytes = 1024 : i64, cb = 0 : i64}
  mtia.se_iota {cb = 1 : i64, elemType = i64, length = 128 : i64, start = 0 : i64}
  mtia.se "Copy" {cb = 1 : i64, elemType = i32, shape = array<i64: 256>, srcs = [#mtia.view<cb = 1, elemType = i32, offset = 0, strides = 1>]}
  mtia.cb_pop {bytes = 1024 : i64, cb = 1 : i64}
  mtia.cb_pop {bytes = 1024 : i64, cb = 0 : i64}
  mtia.cb_pop {bytes = 1024 : i64, cb = 1 : i64}
  return
}

// -----

// Left as they are: the old tile is read after the command (by a store);
// the pop is of another size than the result; the command reads only part
// of the front, so the CB may hold less than the tile it would pop (here
// the pop pops the command's own result); the pop is inside a region.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: mtia.replace_front
// CHECK: return
func.func @kept(%out: i64, %c: i1) {
  %s1 = arith.constant 1 : i64
  %v = arith.constant 256 : i64
  %one = arith.constant 1.0 : f32
  mtia.se_iota {cb = 0 : i64, elemType = f32, length = 256 : i64, start = 0 : i64}
  mtia.se "Add" %one : f32 {cb = 0 : i64, elemType = f32, shape = array<i64: 256>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>, #mtia.imm]}
  mtia.dma_out %out strides(%s1) valid(%v) {cb = 0 : i64, elemType = f32, shape = array<i64: 256>}
  mtia.cb_pop {bytes = 1024 : i64, cb = 0 : i64}
  mtia.se "Add" %one : f32 {cb = 0 : i64, elemType = f32, shape = array<i64: 128>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>, #mtia.imm]}
  mtia.cb_pop {bytes = 1024 : i64, cb = 0 : i64}
  mtia.se "Add" %one : f32 {cb = 1 : i64, elemType = f32, shape = array<i64: 128>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>, #mtia.imm]}
  mtia.cb_pop {bytes = 512 : i64, cb = 1 : i64}
  mtia.se "Add" %one : f32 {cb = 0 : i64, elemType = f32, shape = array<i64: 128>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>, #mtia.imm]}
  scf.if %c {
    mtia.cb_pop {bytes = 512 : i64, cb = 0 : i64}
  }
  return
}
