// RUN: triton-mtia-opt %s --mtia-assign-cbs="num-stages=1" | FileCheck %s --check-prefix=ONE
// RUN: triton-mtia-opt %s --mtia-assign-cbs="num-stages=2" | FileCheck %s --check-prefix=TWO
// RUN: triton-mtia-opt %s --mtia-assign-cbs="num-stages=4" | FileCheck %s --check-prefix=FOUR

// num-stages is the depth of a CB filled inside a loop: 1 holds one tile
// (no pipelining, nothing doubled), 2 doubles every CB (everything fits
// twice), 4 then gives the loop's CB four of its 4 KiB tiles; the 1 KiB
// tile filled before the loop stays doubled.
// ONE: mtia.cb_capacity = array<i64: 1024, 4096>
// TWO: mtia.cb_capacity = array<i64: 2048, 8192>
// FOUR: mtia.cb_capacity = array<i64: 2048, 16384>
func.func @depth(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  mtia.se_iota {cb = 10 : i64, elemType = i32, length = 256 : i64, start = 0 : i64}
  scf.for %i = %c0 to %n step %c1 {
    mtia.se "Copy" {cb = 11 : i64, elemType = i32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 10, elemType = i32, offset = 0, strides = 0>]}
    mtia.cb_pop {bytes = 4096 : i64, cb = 11 : i64}
  }
  mtia.cb_pop {bytes = 1024 : i64, cb = 10 : i64}
  return
}
