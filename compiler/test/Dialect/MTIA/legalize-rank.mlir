// RUN: triton-mtia-opt %s --mtia-legalize-rank --split-input-file --verify-diagnostics | FileCheck %s

// A dense rank-5 view (a reshape to [2]*5) collapses to one dimension; a
// flipped innermost dimension (stride -1) stays apart from the rest.
// CHECK-LABEL: func.func @collapse
// CHECK: mtia.se "Copy" {cb = 1 : i64, elemType = f32, shape = array<i64: 32>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>]}
// CHECK: mtia.mlu_copy {cb = 2 : i64, elemType = f32, shape = array<i64: 16, 2>, src = #mtia.view<cb = 0, elemType = f32, offset = 1, strides = 2, -1>}
func.func @collapse() {
  mtia.se "Copy" {cb = 1 : i64, elemType = f32, shape = array<i64: 2, 2, 2, 2, 2>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 16, 8, 4, 2, 1>]}
  mtia.mlu_copy {cb = 2 : i64, elemType = f32, shape = array<i64: 2, 2, 2, 2, 2>, src = #mtia.view<cb = 0, elemType = f32, offset = 1, strides = 16, 8, 4, 2, -1>}
  return
}

// -----

// Six dimensions that do not merge (every other one flipped) become one
// command per index of the outer two, over the inner four, in row-major
// order at view offsets.
// CHECK-LABEL: func.func @split
// CHECK: mtia.se "Add" {{.*}} shape = array<i64: 2, 2, 2, 2>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 16, strides = 8, -4, 2, -1>, #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 8, 4, 2, 1>]}
// CHECK: mtia.se "Add" {{.*}} offset = 0, {{.*}} offset = 16,
// CHECK: mtia.se "Add" {{.*}} offset = 48, {{.*}} offset = 32,
// CHECK: mtia.se "Add" {{.*}} offset = 32, {{.*}} offset = 48,
// CHECK-NOT: mtia.se
func.func @split() {
  mtia.se "Add" {cb = 1 : i64, elemType = f32, shape = array<i64: 2, 2, 2, 2, 2, 2>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 16, strides = 32, -16, 8, -4, 2, -1>, #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 32, 16, 8, 4, 2, 1>]}
  return
}

// -----

// A reduction keeps its axis apart and renumbers it.
// CHECK-LABEL: func.func @reduce
// CHECK: mtia.se_reduce "sum" {axis = 1 : i64, cb = 1 : i64, elemType = f32, shape = array<i64: 4, 2, 8>, src = #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 16, 8, 1>}
func.func @reduce() {
  mtia.se_reduce "sum" {axis = 2 : i64, cb = 1 : i64, elemType = f32, shape = array<i64: 2, 2, 2, 2, 2, 2>, src = #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 32, 16, 8, 4, 2, 1>}
  return
}

// -----

// Gathers read and write dense tiles only: they become 1-D. DMA boxes keep
// their rank (the device's boxes have 8 dimensions).
// CHECK-LABEL: func.func @dense_and_dma
// CHECK: mtia.gather_in {{.*}} shape = array<i64: 32>}
// CHECK: mtia.dma_in {{.*}} shape = array<i64: 2, 2, 2, 2, 2>}
func.func @dense_and_dma(%a: i64, %s: i64) {
  mtia.gather_in {addrCb = 0 : i64, cb = 1 : i64, elemType = f32, maskCb = -1 : i64, shape = array<i64: 2, 2, 2, 2, 2>}
  mtia.dma_in %a strides(%s, %s, %s, %s, %s) valid(%s, %s, %s, %s, %s) {cb = 2 : i64, elemType = f32, shape = array<i64: 2, 2, 2, 2, 2>}
  return
}

// -----

// An atomic's address and mask tiles sit at the front of their CBs, so it
// merges but is never split.
func.func @atomic(%v: f32) {
  // expected-error @below {{a tile of rank 6 whose views do not collapse to the device's 4 dimensions}}
  mtia.atomic_rmw "FAdd" {addrCb = 0 : i64, cb = -1 : i64, elemType = f32, maskCb = -1 : i64, shape = array<i64: 2, 2, 2, 2, 2, 2>, srcs = [#mtia.view<cb = 1, elemType = f32, offset = 0, strides = 32, -16, 8, -4, 2, -1>]}
  return
}
