// RUN: triton-mtia-opt %s --mtia-share-vector-core="split=false" | FileCheck %s
// RUN: triton-mtia-opt %s --mtia-share-vector-core | FileCheck %s --check-prefix=SPLIT
// RUN: triton-mtia-opt %s --mtia-share-vector-core="split=false fuse=false" | FileCheck %s --check-prefix=NOFUSE

// Four independent commands on one loaded 64x64 f32 tile (loaded at 256):
// 136 cycles each on the SE, 516 on the vector core (4 + 256 strips of two
// port cycles: a load and a store). The first three take the SE in turn
// (done at 392, 528, 664); the fourth would wait for them (800), and the idle
// vector core finishes it at 772. The Exp of the first result finds the SE
// free again and stays. (An SE command prints no `unit`: "se" is the
// default.)
// CHECK-LABEL: func.func @independent
// CHECK: mtia.se "Neg" {{[^"]*$}}
// CHECK: mtia.se "Abs" {{[^"]*$}}
// CHECK: mtia.se "Sqrt" {{[^"]*$}}
// CHECK: mtia.se "Sin" {{.*}}unit = "vec"}
// CHECK: mtia.se "Exp" {{[^"]*$}}
func.func @independent(%a: i64) {
  %c1 = arith.constant 1 : i64
  %c64 = arith.constant 64 : i64
  mtia.dma_in %a strides(%c64, %c1) valid(%c64, %c64) {cb = 0 : i64, elemType = f32, shape = array<i64: 64, 64>}
  mtia.se "Neg" {cb = 2 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.se "Abs" {cb = 3 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.se "Sqrt" {cb = 4 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.se "Sin" {cb = 5 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.se "Exp" {cb = 6 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 2, elemType = f32, offset = 0, strides = 64, 1>]}
  return
}

// The same commands, but the core reads an element of the Sqrt's result
// before it issues the Sin: it waits for that tile (664), when the SE has
// nothing queued, so the Sin finishes first on the SE (800, against 1180).
// CHECK-LABEL: func.func @after_a_read
// CHECK: mtia.read
// CHECK-NEXT: mtia.se "Sin" {{[^"]*$}}
func.func @after_a_read(%a: i64) {
  %c1 = arith.constant 1 : i64
  %c64 = arith.constant 64 : i64
  mtia.dma_in %a strides(%c64, %c1) valid(%c64, %c64) {cb = 0 : i64, elemType = f32, shape = array<i64: 64, 64>}
  mtia.se "Neg" {cb = 2 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.se "Abs" {cb = 3 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.se "Sqrt" {cb = 4 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  %x = mtia.read {cb = 4 : i64, index = 0 : i64} : f32
  mtia.se "Sin" {cb = 5 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  return
}

// A command on two views pays three port cycles a strip on the vector core
// (two loads, a store): 772 cycles. Behind the same three SE commands it
// finishes at 800 on the SE and at 1028 on the vector core: it stays.
// CHECK-LABEL: func.func @two_loads
// CHECK: mtia.se "Add" {{[^"]*$}}
func.func @two_loads(%a: i64) {
  %c1 = arith.constant 1 : i64
  %c64 = arith.constant 64 : i64
  mtia.dma_in %a strides(%c64, %c1) valid(%c64, %c64) {cb = 0 : i64, elemType = f32, shape = array<i64: 64, 64>}
  mtia.se "Neg" {cb = 2 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.se "Abs" {cb = 3 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.se "Sqrt" {cb = 4 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.se "Add" {cb = 5 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>, #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  return
}

// A chain of dependent commands: each needs the previous one's tile, so
// nothing runs in parallel and every command stays on the faster SE;
// commands already on the vector core (no SE table) stay there.
// With splitting, each SE command of the chain runs on both units. Mul
// reads two views, three port cycles a strip on the vector core: the SE
// takes the first 55 rows (8 + 55 * 64 / 32 = 118 cycles) and a second
// command on the vector core the other 9 (4 + 9 * 4 * 3 = 112), its views
// 55 rows (3520 elements) further on; both append to the same CB, in order.
// Exp, two port cycles a strip: 51 rows (110) and 13 (4 + 13 * 4 * 2 = 108).
// Both finish more than a command's issue (16) before the SE alone (136).
// The vector core's Log1p is not split (it was never the SE's).
// SPLIT-LABEL: func.func @one_chain
// SPLIT: mtia.se "Mul" {cb = 1 : i64, elemType = f32, shape = array<i64: 55, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>, #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
// SPLIT-NEXT: mtia.se "Mul" {cb = 1 : i64, elemType = f32, shape = array<i64: 9, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 3520, strides = 64, 1>, #mtia.view<cb = 0, elemType = f32, offset = 3520, strides = 64, 1>], unit = "vec"}
// SPLIT-NEXT: mtia.se "Log1p" {cb = 2 : i64, elemType = f32, shape = array<i64: 64, 64>
// SPLIT-NEXT: mtia.se "Exp" {cb = 3 : i64, elemType = f32, shape = array<i64: 51, 64>
// SPLIT-NEXT: mtia.se "Exp" {cb = 3 : i64, elemType = f32, shape = array<i64: 13, 64>, {{.*}}offset = 3264{{.*}}unit = "vec"}
// CHECK-LABEL: func.func @one_chain
// CHECK: mtia.se "Mul" {{[^"]*$}}
// CHECK: mtia.se "Log1p" {{.*}}unit = "vec"}
// CHECK: mtia.se "Exp" {{[^"]*$}}
func.func @one_chain(%a: i64) {
  %c1 = arith.constant 1 : i64
  %c64 = arith.constant 64 : i64
  mtia.dma_in %a strides(%c64, %c1) valid(%c64, %c64) {cb = 0 : i64, elemType = f32, shape = array<i64: 64, 64>}
  mtia.se "Mul" {cb = 1 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>, #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.se "Log1p" {cb = 2 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 1, elemType = f32, offset = 0, strides = 64, 1>], unit = "vec"}
  mtia.se "Exp" {cb = 3 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 2, elemType = f32, offset = 0, strides = 64, 1>]}
  return
}

// Not split: an accumulator's update (it reads the CB it appends to, and its
// pop goes with it) and a tile of one row.
// SPLIT-LABEL: func.func @unsplittable
// SPLIT: mtia.se "Add" {cb = 1 : i64, elemType = f32, shape = array<i64: 64, 64>
// SPLIT-NEXT: mtia.se "Exp" {cb = 2 : i64, elemType = f32, shape = array<i64: 1, 4096>
// SPLIT-NEXT: return
func.func @unsplittable(%a: i64) {
  %c1 = arith.constant 1 : i64
  %c64 = arith.constant 64 : i64
  mtia.dma_in %a strides(%c64, %c1) valid(%c64, %c64) {cb = 0 : i64, elemType = f32, shape = array<i64: 64, 64>}
  mtia.se "Add" {cb = 1 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 1, elemType = f32, offset = 0, strides = 64, 1>, #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.se "Exp" {cb = 2 : i64, elemType = f32, shape = array<i64: 1, 4096>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 0, 1>]}
  return
}

// A broadcast operand (a row repeated: stride 0 along the rows) keeps its
// offset in the vector core's part (55 * 0); the other view moves 55 rows.
// SPLIT-LABEL: func.func @broadcast_rows
// SPLIT: mtia.se "Sub" {cb = 3 : i64, elemType = f32, shape = array<i64: 55, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>, #mtia.view<cb = 4, elemType = f32, offset = 0, strides = 0, 1>]}
// SPLIT-NEXT: mtia.se "Sub" {cb = 3 : i64, elemType = f32, shape = array<i64: 9, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 3520, strides = 64, 1>, #mtia.view<cb = 4, elemType = f32, offset = 0, strides = 0, 1>], unit = "vec"}
func.func @broadcast_rows(%a: i64) {
  %c1 = arith.constant 1 : i64
  %c64 = arith.constant 64 : i64
  mtia.dma_in %a strides(%c64, %c1) valid(%c64, %c64) {cb = 0 : i64, elemType = f32, shape = array<i64: 64, 64>}
  mtia.se "Sub" {cb = 3 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>, #mtia.view<cb = 4, elemType = f32, offset = 0, strides = 0, 1>]}
  return
}

// A command whose operand is only the result of a vector-core loop can join
// that loop (mtia-fuse-vector-loops folds it in): Log1p, which has no SE
// table, runs from 256 to 772 (two port cycles a strip); Neg after it would
// finish at 908 on the SE, but in the loop it only adds an ALU pass a strip,
// which the port already takes: the loop still ends at 772. Without fusion
// Neg would be a loop of its own after Log1p's (1288): it stays on the SE.
// CHECK-LABEL: func.func @join
// CHECK: mtia.se "Log1p" {{.*}}unit = "vec"}
// CHECK-NEXT: mtia.se "Neg" {{.*}}unit = "vec"}
// NOFUSE-LABEL: func.func @join
// NOFUSE: mtia.se "Neg" {{[^"]*$}}
func.func @join(%a: i64) {
  %c1 = arith.constant 1 : i64
  %c64 = arith.constant 64 : i64
  mtia.dma_in %a strides(%c64, %c1) valid(%c64, %c64) {cb = 0 : i64, elemType = f32, shape = array<i64: 64, 64>}
  mtia.se "Log1p" {cb = 1 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>], unit = "vec"}
  mtia.se "Neg" {cb = 2 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 1, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.cb_pop {bytes = 16384 : i64, cb = 1 : i64}
  return
}
