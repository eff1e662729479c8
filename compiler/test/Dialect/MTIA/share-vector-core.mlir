// RUN: triton-mtia-opt %s --mtia-share-vector-core="split=false" | FileCheck %s
// RUN: triton-mtia-opt %s --mtia-share-vector-core | FileCheck %s --check-prefix=SPLIT

// Two commands on one loaded 64x64 f32 tile (136 SE cycles, 260 on the
// vector core each): the first takes the free SE (done at 392); the second
// would wait for it (528) and the idle vector core finishes it at 516. The
// Exp of the first result finds the SE free again and stays. (An SE command
// prints no `unit`: "se" is the default.)
// CHECK-LABEL: func.func @two_chains
// CHECK: mtia.se "Mul" {{[^"]*$}}
// CHECK: mtia.se "Add" {{.*}}unit = "vec"}
// CHECK: mtia.se "Exp" {{[^"]*$}}
func.func @two_chains(%a: i64) {
  %c1 = arith.constant 1 : i64
  %c64 = arith.constant 64 : i64
  mtia.dma_in %a strides(%c64, %c1) valid(%c64, %c64) {cb = 0 : i64, elemType = f32, shape = array<i64: 64, 64>}
  mtia.se "Mul" {cb = 2 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>, #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.se "Add" {cb = 3 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>, #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
  mtia.se "Exp" {cb = 4 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 2, elemType = f32, offset = 0, strides = 64, 1>]}
  return
}

// A chain of dependent commands: each needs the previous one's tile, so
// nothing runs in parallel and every command stays on the faster SE;
// commands already on the vector core (no SE table) stay there.
// With splitting, each SE command of the chain runs on both units: the SE
// takes the first 42 rows (8 + 42 * 64 / 32 = 92 cycles) and a second
// command on the vector core the other 22 (4 + 22 * 64 / 16 = 92), its views
// 42 rows (2688 elements) further on; both append to the same CB, in order.
// The vector core's Log1p is not split (it was never the SE's).
// SPLIT-LABEL: func.func @one_chain
// SPLIT: mtia.se "Mul" {cb = 1 : i64, elemType = f32, shape = array<i64: 42, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>, #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>]}
// SPLIT-NEXT: mtia.se "Mul" {cb = 1 : i64, elemType = f32, shape = array<i64: 22, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 2688, strides = 64, 1>, #mtia.view<cb = 0, elemType = f32, offset = 2688, strides = 64, 1>], unit = "vec"}
// SPLIT-NEXT: mtia.se "Log1p" {cb = 2 : i64, elemType = f32, shape = array<i64: 64, 64>
// SPLIT-NEXT: mtia.se "Exp" {cb = 3 : i64, elemType = f32, shape = array<i64: 42, 64>
// SPLIT-NEXT: mtia.se "Exp" {cb = 3 : i64, elemType = f32, shape = array<i64: 22, 64>, {{.*}}offset = 2688{{.*}}unit = "vec"}
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
// offset in the vector core's part (42 * 0); the other view moves 42 rows.
// SPLIT-LABEL: func.func @broadcast_rows
// SPLIT: mtia.se "Sub" {cb = 3 : i64, elemType = f32, shape = array<i64: 42, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>, #mtia.view<cb = 4, elemType = f32, offset = 0, strides = 0, 1>]}
// SPLIT-NEXT: mtia.se "Sub" {cb = 3 : i64, elemType = f32, shape = array<i64: 22, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 2688, strides = 64, 1>, #mtia.view<cb = 4, elemType = f32, offset = 0, strides = 0, 1>], unit = "vec"}
func.func @broadcast_rows(%a: i64) {
  %c1 = arith.constant 1 : i64
  %c64 = arith.constant 64 : i64
  mtia.dma_in %a strides(%c64, %c1) valid(%c64, %c64) {cb = 0 : i64, elemType = f32, shape = array<i64: 64, 64>}
  mtia.se "Sub" {cb = 3 : i64, elemType = f32, shape = array<i64: 64, 64>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 64, 1>, #mtia.view<cb = 4, elemType = f32, offset = 0, strides = 0, 1>]}
  return
}
