// RUN: triton-mtia-opt %s --mtia-assign-cbs --split-input-file --verify-diagnostics | FileCheck %s

// Virtual CBs 10 and 11 are live at once; 12 starts after 10 is popped and
// reuses its physical CB. Capacities double-buffer the largest tile.
// CHECK-LABEL: func.func @share
// CHECK-SAME: mtia.cb_capacity = array<i64: 2048, 1024>
// CHECK: mtia.se_iota {cb = 0 : i64
// CHECK: mtia.se_iota {cb = 1 : i64
// CHECK: mtia.cb_pop {bytes = 256 : i64, cb = 0 : i64}
// CHECK: mtia.se_iota {cb = 0 : i64, elemType = i32, length = 256 : i64
func.func @share() {
  mtia.se_iota {cb = 10 : i64, elemType = i32, length = 64 : i64, start = 0 : i64}
  mtia.se_iota {cb = 11 : i64, elemType = i32, length = 128 : i64, start = 0 : i64}
  mtia.cb_pop {bytes = 256 : i64, cb = 10 : i64}
  mtia.se_iota {cb = 12 : i64, elemType = i32, length = 256 : i64, start = 0 : i64}
  mtia.cb_pop {bytes = 512 : i64, cb = 11 : i64}
  mtia.cb_pop {bytes = 1024 : i64, cb = 12 : i64}
  return
}

// -----

// A tile defined before a loop and read inside it is live for the whole loop,
// so a tile of the loop body cannot take its CB.
// CHECK-LABEL: func.func @loop
// CHECK: mtia.se_iota {cb = 0 : i64
// CHECK: scf.for
// CHECK:   mtia.se {{.*}}cb = 1 : i64
func.func @loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  mtia.se_iota {cb = 5 : i64, elemType = i32, length = 64 : i64, start = 0 : i64}
  scf.for %i = %c0 to %n step %c1 {
    mtia.se "Copy" {cb = 6 : i64, elemType = i32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 5, elemType = i32, offset = 0, strides = 1>]}
    mtia.cb_pop {bytes = 256 : i64, cb = 6 : i64}
  }
  mtia.cb_pop {bytes = 256 : i64, cb = 5 : i64}
  return
}

// -----

// Doubling every CB does not fit (2 x 348 KiB > 384 KiB), so the CBs filled
// inside the loop get room for more tiles, one stage at a time, the
// cheapest first, while they fit: a second 16 KiB tile (364 KiB), not a
// second 32 KiB one (396 KiB), then a third 16 KiB one (380 KiB; three is
// the default depth). The 300 KiB tile filled before the loop stays single.
// CHECK-LABEL: func.func @stream
// CHECK-SAME: mtia.cb_capacity = array<i64: 307200, 32768, 49152>
func.func @stream(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  mtia.se_iota {cb = 10 : i64, elemType = i32, length = 76800 : i64, start = 0 : i64}
  scf.for %i = %c0 to %n step %c1 {
    mtia.se_iota {cb = 11 : i64, elemType = i32, length = 8192 : i64, start = 0 : i64}
    mtia.se_iota {cb = 12 : i64, elemType = i32, length = 4096 : i64, start = 0 : i64}
    mtia.cb_pop {bytes = 32768 : i64, cb = 11 : i64}
    mtia.cb_pop {bytes = 16384 : i64, cb = 12 : i64}
  }
  mtia.cb_pop {bytes = 307200 : i64, cb = 10 : i64}
  return
}

// -----

// Sixteen tiles live at once: two of them share a CB, one behind the other
// (stacking, assign-cbs-stack.mlir), so fifteen CBs hold them.
// CHECK-LABEL: func.func @sixteen_live
// CHECK-SAME: mtia.cb_capacity = array<i64: 128, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64>
func.func @sixteen_live() {
  mtia.se_iota {cb = 0 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.se_iota {cb = 1 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.se_iota {cb = 2 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.se_iota {cb = 3 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.se_iota {cb = 4 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.se_iota {cb = 5 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.se_iota {cb = 6 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.se_iota {cb = 7 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.se_iota {cb = 8 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.se_iota {cb = 9 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.se_iota {cb = 10 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.se_iota {cb = 11 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.se_iota {cb = 12 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.se_iota {cb = 13 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.se_iota {cb = 14 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.se_iota {cb = 15 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 0 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 1 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 2 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 3 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 4 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 5 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 6 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 7 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 8 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 9 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 10 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 11 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 12 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 13 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 14 : i64}
  mtia.cb_pop {bytes = 32 : i64, cb = 15 : i64}
  return
}

// -----

func.func @vector_only_on_se() {
  mtia.se_iota {cb = 0 : i64, elemType = i32, length = 8 : i64, start = 0 : i64}
  // expected-error @+1 {{Log1p has no SE lookup table; it runs on the vector core}}
  mtia.se "Log1p" {cb = 1 : i64, elemType = f32, shape = array<i64: 8>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>]}
  return
}

// -----

// A command that reads a CB after its every tile was popped would wait on the
// chip forever (a deadlock of the kernel): it is a lowering bug, reported
// here. (An Inductor dropout kernel once read the offsets of a scatter's
// addresses after their pop.)
func.func @use_after_pop() {
  mtia.se_iota {cb = 10 : i64, elemType = i32, length = 16 : i64, start = 0 : i64}
  mtia.se "Copy" {cb = 11 : i64, elemType = i64, shape = array<i64: 16>, srcs = [#mtia.view<cb = 10, elemType = i32, offset = 0, strides = 1>]}
  mtia.cb_pop {bytes = 64 : i64, cb = 10 : i64}
  // expected-error @+1 {{internal: reads CB 10 after its every tile was popped}}
  mtia.se "Copy" {cb = 12 : i64, elemType = i64, shape = array<i64: 16>, srcs = [#mtia.view<cb = 10, elemType = i32, offset = 0, strides = 1>]}
  mtia.cb_pop {bytes = 128 : i64, cb = 11 : i64}
  mtia.cb_pop {bytes = 128 : i64, cb = 12 : i64}
  return
}
