// RUN: triton-mtia-opt %s --mtia-effective-shapes --split-input-file | FileCheck %s

// RMSNorm of one row, as Liger writes it: x and w are loaded with the box
// [0, %n) and pad 0. x * x keeps pad 0 (0 * 0), so the sum reads the lanes
// outside the box as 0 and is exact on the box; the products are stored
// through that box only. Every command works on %n elements.
// CHECK-LABEL: func.func @rms_norm
// CHECK: mtia.se "Mul" valid(%[[N:.*]]) {cb = 2
// CHECK-NEXT: mtia.se_reduce "Sum" valid(%[[N]]) {axis = 0 : i64, cb = 3 : i64, elemType = f32, fill = 0.000000e+00 : f32
// CHECK: mtia.se "Mul" %{{.*}} : f32 valid(%[[N]]) {cb = 4
// CHECK-NEXT: mtia.se "Mul" valid(%[[N]]) {cb = 5
// CHECK: mtia.dma_out %{{.*}} valid(%[[N]])
func.func @rms_norm(%x: i64, %w: i64, %y: i64, %n: i64) {
  %s1 = arith.constant 1 : i64
  %zero = arith.constant 0.0 : f32
  mtia.dma_in %x strides(%s1) valid(%n) pad %zero : f32 {cb = 0 : i64, elemType = f32, shape = array<i64: 1024>}
  mtia.dma_in %w strides(%s1) valid(%n) pad %zero : f32 {cb = 1 : i64, elemType = f32, shape = array<i64: 1024>}
  mtia.se "Mul" {cb = 2 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>, #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>]}
  mtia.se_reduce "Sum" {axis = 0 : i64, cb = 3 : i64, elemType = f32, shape = array<i64: 1024>, src = #mtia.view<cb = 2, elemType = f32, offset = 0, strides = 1>}
  mtia.cb_pop {bytes = 4096 : i64, cb = 2 : i64}
  %sum = mtia.read {cb = 3 : i64, index = 0 : i64} : f32
  mtia.cb_pop {bytes = 4 : i64, cb = 3 : i64}
  mtia.se "Mul" %sum : f32 {cb = 4 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>, #mtia.imm]}
  mtia.se "Mul" {cb = 5 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 4, elemType = f32, offset = 0, strides = 1>, #mtia.view<cb = 1, elemType = f32, offset = 0, strides = 1>]}
  mtia.cb_pop {bytes = 4096 : i64, cb = 0 : i64}
  mtia.cb_pop {bytes = 4096 : i64, cb = 1 : i64}
  mtia.cb_pop {bytes = 4096 : i64, cb = 4 : i64}
  mtia.dma_out %y strides(%s1) valid(%n) {cb = 5 : i64, elemType = f32, shape = array<i64: 1024>}
  mtia.cb_pop {bytes = 4096 : i64, cb = 5 : i64}
  return
}

// -----

// Softmax of one row padded with -inf: the max reads the lanes outside the
// box as -inf and is exact; x - max reads the max broadcast, so the lanes
// outside the box would hold -inf - max (not a constant), and the sum over
// exp of them must see them: x - max and exp stay whole, and the sum too.
// The divide is read only by the store of the box.
// CHECK-LABEL: func.func @softmax
// CHECK: mtia.se_reduce "Max" valid(%[[N:.*]]) {axis = 0 : i64, cb = 1 : i64, elemType = f32, fill = 0xFF800000 : f32
// CHECK-NEXT: mtia.se "Sub" {cb = 2
// CHECK-NEXT: mtia.se "Exp" {cb = 3
// CHECK-NEXT: mtia.se_reduce "Sum" {axis = 0
// CHECK-NEXT: mtia.se "Div" valid(%[[N]]) {cb = 5
func.func @softmax(%x: i64, %y: i64, %n: i64) {
  %s1 = arith.constant 1 : i64
  %ninf = arith.constant 0xFF800000 : f32
  mtia.dma_in %x strides(%s1) valid(%n) pad %ninf : f32 {cb = 0 : i64, elemType = f32, shape = array<i64: 1024>}
  mtia.se_reduce "Max" {axis = 0 : i64, cb = 1 : i64, elemType = f32, shape = array<i64: 1024>, src = #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>}
  mtia.se "Sub" {cb = 2 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>, #mtia.view<cb = 1, elemType = f32, offset = 0, strides = 0>]}
  mtia.se "Exp" {cb = 3 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 2, elemType = f32, offset = 0, strides = 1>]}
  mtia.se_reduce "Sum" {axis = 0 : i64, cb = 4 : i64, elemType = f32, shape = array<i64: 1024>, src = #mtia.view<cb = 3, elemType = f32, offset = 0, strides = 1>}
  mtia.se "Div" {cb = 5 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 3, elemType = f32, offset = 0, strides = 1>, #mtia.view<cb = 4, elemType = f32, offset = 0, strides = 0>]}
  mtia.dma_out %y strides(%s1) valid(%n) {cb = 5 : i64, elemType = f32, shape = array<i64: 1024>}
  return
}

// -----

// A 2-D box: the row sums keep the row bound (%r); read back broadcast
// along the columns by a command bounded by (%r, %c), they are read inside
// their box. x * 3 keeps pad 0.
// CHECK-LABEL: func.func @rows
// CHECK: mtia.se "Mul" %{{.*}} : f32 valid(%[[R:.*]], %[[C:.*]]) {cb = 1
// CHECK-NEXT: mtia.se_reduce "Sum" valid(%[[R]], %[[C]]) {axis = 1 : i64, cb = 2 : i64, elemType = f32, fill = 0.000000e+00 : f32
// CHECK-NEXT: mtia.se "Sub" valid(%[[R]], %[[C]]) {cb = 3
func.func @rows(%x: i64, %y: i64, %r: i64, %c: i64) {
  %s1 = arith.constant 1 : i64
  %s64 = arith.constant 64 : i64
  %three = arith.constant 3.0 : f32
  mtia.dma_in %x strides(%s64, %s1) valid(%r, %c) {cb = 0 : i64, elemType = f32, shape = array<i64: 16, 64>}
  mtia.se "Mul" %three : f32 {cb = 1 : i64, elemType = f32, shape = array<i64: 16, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>, #mtia.imm]}
  mtia.se_reduce "Sum" {axis = 1 : i64, cb = 2 : i64, elemType = f32, shape = array<i64: 16, 64>, src = #mtia.view<cb = 1, elemType = f32, offset = 0, strides = 64, 1>}
  mtia.se "Sub" {cb = 3 : i64, elemType = f32, shape = array<i64: 16, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>, #mtia.view<cb = 2, elemType = f32, offset = 0, strides = 1, 0>]}
  mtia.dma_out %y strides(%s64, %s1) valid(%r, %c) {cb = 3 : i64, elemType = f32, shape = array<i64: 16, 64>}
  return
}

// -----

// Readers that may see outside the box keep their producers whole: a store
// of another box, a reader in a loop (another block), a transposed reader.
// CHECK-LABEL: func.func @whole
// CHECK: mtia.se "Exp" {cb = 1
// CHECK-NEXT: mtia.dma_out
// CHECK: mtia.se "Neg" {cb = 2
// CHECK: scf.for
// CHECK-NEXT: mtia.dma_out
// CHECK: mtia.se "Abs" {cb = 3
// CHECK-NEXT: mtia.se "Copy" {cb = 4
func.func @whole(%x: i64, %y: i64, %n: i64, %m: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s1 = arith.constant 1 : i64
  %s32 = arith.constant 32 : i64
  mtia.dma_in %x strides(%s1) valid(%n) {cb = 0 : i64, elemType = f32, shape = array<i64: 1024>}
  mtia.se "Exp" {cb = 1 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>]}
  mtia.dma_out %y strides(%s1) valid(%m) {cb = 1 : i64, elemType = f32, shape = array<i64: 1024>}
  mtia.se "Neg" {cb = 2 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>]}
  scf.for %i = %c0 to %c1 step %c1 {
    mtia.dma_out %y strides(%s1) valid(%n) {cb = 2 : i64, elemType = f32, shape = array<i64: 1024>}
  }
  mtia.dma_in %x strides(%s32, %s1) valid(%n, %n) {cb = 5 : i64, elemType = f32, shape = array<i64: 32, 32>}
  mtia.se "Abs" {cb = 3 : i64, elemType = f32, shape = array<i64: 32, 32>, srcs = [#mtia.view<cb = 5, elemType = f32, offset = 0, strides = 32, 1>]}
  mtia.se "Copy" {cb = 4 : i64, elemType = f32, shape = array<i64: 32, 32>, srcs = [#mtia.view<cb = 3, elemType = f32, offset = 0, strides = 1, 32>]}
  mtia.dma_out %y strides(%s32, %s1) valid(%n, %n) {cb = 4 : i64, elemType = f32, shape = array<i64: 32, 32>}
  return
}

// -----

// x + y where y has no box of the form [0, n) (its DMA has lower bounds):
// beyond x's box the sum holds x's pad plus y's real data, not a constant,
// so the reduction over it stays whole; x + y, read whole by it, too.
// CHECK-LABEL: func.func @whole_operand
// CHECK: mtia.se "Add" {cb = 2
// CHECK-NEXT: mtia.se_reduce "Sum" {axis = 0
func.func @whole_operand(%x: i64, %n: i64, %m: i64, %lo: i64) {
  %s1 = arith.constant 1 : i64
  %zero = arith.constant 0.0 : f32
  mtia.dma_in %x strides(%s1) valid(%n) pad %zero : f32 {cb = 0 : i64, elemType = f32, shape = array<i64: 1024>}
  mtia.dma_in %x strides(%s1) valid(%m) begin(%lo) pad %zero : f32 {cb = 1 : i64, elemType = f32, shape = array<i64: 1024>}
  mtia.se "Add" {cb = 2 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>, #mtia.view<cb = 1, elemType = f32, offset = 0, strides = 1>]}
  mtia.se_reduce "Sum" {axis = 0 : i64, cb = 3 : i64, elemType = f32, shape = array<i64: 1024>, src = #mtia.view<cb = 2, elemType = f32, offset = 0, strides = 1>}
  %s = mtia.read {cb = 3 : i64, index = 0 : i64} : f32
  return
}

// -----

// tl.where(cols < n, x - mean, 0): the compare of an iota with n is false
// past the load's box, which is n clamped as the lowering writes it, so
// the select's pad is its 0 and the sum of squares works on the box. The
// compare itself is issued before the bound is computed: it stays whole.
// A compare against another bound (n - 1, @clipped) leaves the select's
// pad unknown: the select, the square and the sum stay whole.
// CHECK-LABEL: func.func @where
// CHECK: mtia.se "CmpLt" %{{.*}} : i32 {cb = 1
// CHECK: mtia.se "Sub" %{{.*}} : f32 valid(%[[B:.*]]) {cb = 3
// CHECK-NEXT: mtia.se "Select" %{{.*}} : f32 valid(%[[B]]) {cb = 4
// CHECK-NEXT: mtia.se "Mul" valid(%[[B]]) {cb = 5
// CHECK-NEXT: mtia.se_reduce "Sum" valid(%[[B]]) {axis = 0 : i64, cb = 6 : i64, elemType = f32, fill = 0.000000e+00 : f32
func.func @where(%x: i64, %n: i32, %mean: f32) {
  %s1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i64
  %c1024 = arith.constant 1024 : i64
  %zero = arith.constant 0.0 : f32
  mtia.se_iota {cb = 0 : i64, elemType = i32, length = 1024 : i64, start = 0 : i64}
  mtia.se "CmpLt" %n : i32 {cb = 1 : i64, elemType = i1, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 0, elemType = i32, offset = 0, strides = 1>, #mtia.imm]}
  %wide = arith.extsi %n : i32 to i64
  %lo = arith.maxsi %wide, %c0 : i64
  %bound = arith.minsi %lo, %c1024 : i64
  mtia.dma_in %x strides(%s1) valid(%bound) pad %zero : f32 {cb = 2 : i64, elemType = f32, shape = array<i64: 1024>}
  mtia.se "Sub" %mean : f32 {cb = 3 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 2, elemType = f32, offset = 0, strides = 1>, #mtia.imm]}
  mtia.se "Select" %zero : f32 {cb = 4 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 1, elemType = i1, offset = 0, strides = 1>, #mtia.view<cb = 3, elemType = f32, offset = 0, strides = 1>, #mtia.imm]}
  mtia.se "Mul" {cb = 5 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 4, elemType = f32, offset = 0, strides = 1>, #mtia.view<cb = 4, elemType = f32, offset = 0, strides = 1>]}
  mtia.se_reduce "Sum" {axis = 0 : i64, cb = 6 : i64, elemType = f32, shape = array<i64: 1024>, src = #mtia.view<cb = 5, elemType = f32, offset = 0, strides = 1>}
  %s = mtia.read {cb = 6 : i64, index = 0 : i64} : f32
  return
}

// CHECK-LABEL: func.func @clipped
// CHECK: mtia.se "Select" %{{.*}} : f32 {cb = 4
// CHECK-NEXT: mtia.se "Mul" {cb = 5
// CHECK-NEXT: mtia.se_reduce "Sum" {axis = 0
func.func @clipped(%x: i64, %n: i32, %mean: f32) {
  %s1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i32
  %c1024 = arith.constant 1024 : i64
  %zero = arith.constant 0.0 : f32
  %m = arith.subi %n, %c1 : i32
  mtia.se_iota {cb = 0 : i64, elemType = i32, length = 1024 : i64, start = 0 : i64}
  mtia.se "CmpLt" %m : i32 {cb = 1 : i64, elemType = i1, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 0, elemType = i32, offset = 0, strides = 1>, #mtia.imm]}
  %wide = arith.extsi %n : i32 to i64
  %lo = arith.maxsi %wide, %c0 : i64
  %bound = arith.minsi %lo, %c1024 : i64
  mtia.dma_in %x strides(%s1) valid(%bound) pad %zero : f32 {cb = 2 : i64, elemType = f32, shape = array<i64: 1024>}
  mtia.se "Sub" %mean : f32 {cb = 3 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 2, elemType = f32, offset = 0, strides = 1>, #mtia.imm]}
  mtia.se "Select" %zero : f32 {cb = 4 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 1, elemType = i1, offset = 0, strides = 1>, #mtia.view<cb = 3, elemType = f32, offset = 0, strides = 1>, #mtia.imm]}
  mtia.se "Mul" {cb = 5 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 4, elemType = f32, offset = 0, strides = 1>, #mtia.view<cb = 4, elemType = f32, offset = 0, strides = 1>]}
  mtia.se_reduce "Sum" {axis = 0 : i64, cb = 6 : i64, elemType = f32, shape = array<i64: 1024>, src = #mtia.view<cb = 5, elemType = f32, offset = 0, strides = 1>}
  %s = mtia.read {cb = 6 : i64, index = 0 : i64} : f32
  return
}

// -----

// An unmasked load: its bounds are the constant extents of the tile, a box
// that restricts nothing. Its readers get no `valid` (which would only keep
// mtia-share-vector-core from splitting them).
// CHECK-LABEL: func.func @unmasked
// CHECK: mtia.se "Exp" {cb = 1
// CHECK: mtia.dma_out
func.func @unmasked(%x: i64, %y: i64) {
  %s1 = arith.constant 1 : i64
  %s64 = arith.constant 64 : i64
  mtia.dma_in %x strides(%s1) valid(%s64) {cb = 0 : i64, elemType = f32, shape = array<i64: 64>}
  mtia.se "Exp" {cb = 1 : i64, elemType = f32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>]}
  mtia.dma_out %y strides(%s1) valid(%s64) {cb = 1 : i64, elemType = f32, shape = array<i64: 64>}
  return
}
