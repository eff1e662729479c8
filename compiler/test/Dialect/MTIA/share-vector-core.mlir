// RUN: triton-mtia-opt %s --mtia-share-vector-core | FileCheck %s

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
