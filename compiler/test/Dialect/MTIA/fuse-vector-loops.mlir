// RUN: triton-mtia-opt %s --mtia-fuse-vector-loops --split-input-file | FileCheck %s

// A chain on the vector core, softplus-like: log1p(x) * s - m[:, None].
// Each result is only the next command's operand, so the three run as one
// loop at the last one's place, the intermediates in registers: inputs x,
// the immediate s and the row-broadcast m; the pops of the two
// intermediate tiles go, the loop's own result and its inputs stay.
// CHECK-LABEL: func.func @chain
// CHECK-NOT: mtia.se
// CHECK: mtia.vec_loop %arg1 : f32 {cb = 4 : i64, elemType = f32, shape = array<i64: 4, 64>,
// CHECK-SAME: srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>, #mtia.imm, #mtia.view<cb = 3, elemType = f32, offset = 0, strides = 1, 0>]
// CHECK-SAME: steps = [#mtia.vec_step<opcode = "Log1p", elemType = f32, args = 0>, #mtia.vec_step<opcode = "Mul", elemType = f32, args = -1, 1>, #mtia.vec_step<opcode = "Sub", elemType = f32, args = -2, 2>]
// CHECK-NEXT: mtia.cb_pop {bytes = 1024 : i64, cb = 0 : i64}
// CHECK-NEXT: mtia.cb_pop {bytes = 1024 : i64, cb = 4 : i64}
// CHECK-NEXT: return
func.func @chain(%a: i64, %s: f32) {
  mtia.se "Log1p" {cb = 1 : i64, elemType = f32, shape = array<i64: 4, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>], unit = "vec"}
  mtia.se "Mul" %s : f32 {cb = 2 : i64, elemType = f32, shape = array<i64: 4, 64>, srcs = [#mtia.view<cb = 1, elemType = f32, offset = 0, strides = 64, 1>, #mtia.imm], unit = "vec"}
  mtia.cb_pop {bytes = 1024 : i64, cb = 1 : i64}
  mtia.se "Sub" {cb = 4 : i64, elemType = f32, shape = array<i64: 4, 64>, srcs = [#mtia.view<cb = 2, elemType = f32, offset = 0, strides = 64, 1>, #mtia.view<cb = 3, elemType = f32, offset = 0, strides = 1, 0>], unit = "vec"}
  mtia.cb_pop {bytes = 1024 : i64, cb = 2 : i64}
  mtia.cb_pop {bytes = 1024 : i64, cb = 0 : i64}
  mtia.cb_pop {bytes = 1024 : i64, cb = 4 : i64}
  return
}

// -----

// x * x of a tile computed on the vector core: one register, read twice;
// the f16 cast in between keeps its type as a step of its own.
// CHECK-LABEL: func.func @square
// CHECK: mtia.vec_loop {cb = 3 : i64, elemType = f16
// CHECK-SAME: steps = [#mtia.vec_step<opcode = "Exp", elemType = f32, args = 0>, #mtia.vec_step<opcode = "Copy", elemType = f16, args = -1>, #mtia.vec_step<opcode = "Mul", elemType = f16, args = -2, -2>]
// CHECK-NOT: mtia.se
func.func @square() {
  mtia.se "Exp" {cb = 1 : i64, elemType = f32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>], unit = "vec"}
  mtia.se "Copy" {cb = 2 : i64, elemType = f16, shape = array<i64: 64>, srcs = [#mtia.view<cb = 1, elemType = f32, offset = 0, strides = 1>], unit = "vec"}
  mtia.cb_pop {bytes = 256 : i64, cb = 1 : i64}
  mtia.se "Mul" {cb = 3 : i64, elemType = f16, shape = array<i64: 64>, srcs = [#mtia.view<cb = 2, elemType = f16, offset = 0, strides = 1>, #mtia.view<cb = 2, elemType = f16, offset = 0, strides = 1>], unit = "vec"}
  mtia.cb_pop {bytes = 128 : i64, cb = 2 : i64}
  return
}

// -----

// The lowering pops an input right after its last reader: that pop moves
// after the loop that now reads it.
// CHECK-LABEL: func.func @delayed_pop
// CHECK: mtia.vec_loop {cb = 2 : i64
// CHECK-NEXT: mtia.cb_pop {bytes = 256 : i64, cb = 0 : i64}
// CHECK-NEXT: mtia.cb_pop {bytes = 256 : i64, cb = 2 : i64}
// CHECK-NEXT: return
func.func @delayed_pop() {
  mtia.se "Log1p" {cb = 1 : i64, elemType = f32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>], unit = "vec"}
  mtia.cb_pop {bytes = 256 : i64, cb = 0 : i64}
  mtia.se "Atan" {cb = 2 : i64, elemType = f32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 1, elemType = f32, offset = 0, strides = 1>], unit = "vec"}
  mtia.cb_pop {bytes = 256 : i64, cb = 1 : i64}
  mtia.cb_pop {bytes = 256 : i64, cb = 2 : i64}
  return
}

// -----

// Two chains read one tile, whose one pop comes before either chain's end:
// the first loop takes the pop after it; the second chain would need it
// after its own loop too, so it stays two commands (folding it as well
// left the pop between the loops, and the second read a released tile).
// CHECK-LABEL: func.func @one_pop_two_chains
// CHECK: mtia.se "Log1p" {cb = 2 : i64
// CHECK-NEXT: mtia.vec_loop {cb = 3 : i64
// CHECK-NEXT: mtia.cb_pop {bytes = 256 : i64, cb = 0 : i64}
// CHECK-NEXT: mtia.se "Atan" {cb = 4 : i64
func.func @one_pop_two_chains() {
  mtia.se "Exp" {cb = 1 : i64, elemType = f32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>], unit = "vec"}
  mtia.se "Log1p" {cb = 2 : i64, elemType = f32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>], unit = "vec"}
  mtia.cb_pop {bytes = 256 : i64, cb = 0 : i64}
  mtia.se "Atan" {cb = 3 : i64, elemType = f32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 1, elemType = f32, offset = 0, strides = 1>], unit = "vec"}
  mtia.cb_pop {bytes = 256 : i64, cb = 1 : i64}
  mtia.se "Atan" {cb = 4 : i64, elemType = f32, shape = array<i64: 64>, srcs = [#mtia.view<cb = 2, elemType = f32, offset = 0, strides = 1>], unit = "vec"}
  mtia.cb_pop {bytes = 256 : i64, cb = 2 : i64}
  return
}

// -----

// Two commands of a chain split at the same row by mtia-share-vector-core:
// the SE's parts append rows 0-50, the vector core's rows 51-63. The vector
// core's part of the second reads exactly the rows its part of the first
// wrote, so the two fold; the SE's parts stay, and the pop of the first
// CB releases the SE's 51 rows only (51 * 64 * 4 bytes). The loaded tile's
// pop after the first command keeps the 51 rows the SE's part read where it
// was; the 13 the loop reads go after it, and its view starts at the front.
// CHECK-LABEL: func.func @split_chain
// CHECK: mtia.se "Neg" {cb = 1 : i64, elemType = f32, shape = array<i64: 51, 64>
// CHECK-NEXT: mtia.cb_pop {bytes = 13056 : i64, cb = 0 : i64}
// CHECK-NEXT: mtia.se "Exp2" {cb = 2 : i64, elemType = f32, shape = array<i64: 51, 64>
// CHECK-NEXT: mtia.vec_loop {cb = 2 : i64, elemType = f32, shape = array<i64: 13, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>], steps = [#mtia.vec_step<opcode = "Neg", elemType = f32, args = 0>, #mtia.vec_step<opcode = "Exp2", elemType = f32, args = -1>]}
// CHECK-NEXT: mtia.cb_pop {bytes = 3328 : i64, cb = 0 : i64}
// CHECK-NEXT: mtia.cb_pop {bytes = 13056 : i64, cb = 1 : i64}
func.func @split_chain() {
  mtia.se "Neg" {cb = 1 : i64, elemType = f32, shape = array<i64: 51, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.se "Neg" {cb = 1 : i64, elemType = f32, shape = array<i64: 13, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 3264, strides = 64, 1>], unit = "vec"}
  mtia.cb_pop {bytes = 16384 : i64, cb = 0 : i64}
  mtia.se "Exp2" {cb = 2 : i64, elemType = f32, shape = array<i64: 51, 64>, srcs = [#mtia.view<cb = 1, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.se "Exp2" {cb = 2 : i64, elemType = f32, shape = array<i64: 13, 64>, srcs = [#mtia.view<cb = 1, elemType = f32, offset = 3264, strides = 64, 1>], unit = "vec"}
  mtia.cb_pop {bytes = 16384 : i64, cb = 1 : i64}
  return
}

// -----

// Not folded: a result that is also stored (a second reader), one read by
// the SE, one read through a transposed view, and one whose input tile is
// popped before its reader and read after the pop (the next tile).
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-8: mtia.se
// CHECK-NOT: mtia.vec_loop
func.func @kept(%a: i64) {
  %c1 = arith.constant 1 : i64
  %c64 = arith.constant 64 : i64
  mtia.se "Log1p" {cb = 1 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>], unit = "vec"}
  mtia.dma_out %a strides(%c64, %c1) valid(%c64, %c64) {cb = 1 : i64, elemType = f32, shape = array<i64: 64, 64>}
  mtia.se "Exp" {cb = 2 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 1, elemType = f32, offset = 0, strides = 64, 1>], unit = "vec"}
  mtia.cb_pop {bytes = 16384 : i64, cb = 1 : i64}
  mtia.se "Log1p" {cb = 3 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>], unit = "vec"}
  mtia.se "Exp" {cb = 4 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 3, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.cb_pop {bytes = 16384 : i64, cb = 3 : i64}
  mtia.se "Log1p" {cb = 5 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>], unit = "vec"}
  mtia.se "Exp" {cb = 6 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 5, elemType = f32, offset = 0, strides = 1, 64>], unit = "vec"}
  mtia.cb_pop {bytes = 16384 : i64, cb = 5 : i64}
  mtia.se "Log1p" {cb = 7 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>], unit = "vec"}
  mtia.cb_pop {bytes = 16384 : i64, cb = 0 : i64}
  mtia.dma_out %a strides(%c64, %c1) valid(%c64, %c64) {cb = 0 : i64, elemType = f32, shape = array<i64: 64, 64>}
  mtia.se "Exp" {cb = 8 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 7, elemType = f32, offset = 0, strides = 64, 1>], unit = "vec"}
  mtia.cb_pop {bytes = 16384 : i64, cb = 7 : i64}
  return
}
