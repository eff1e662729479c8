// RUN: triton-mtia-opt %s --split-input-file --tt-rematerialize="strength=1" --convert-tt-to-mtia | FileCheck %s --check-prefix=LOADS
// RUN: triton-mtia-opt %s --split-input-file --tt-rematerialize="strength=2" --convert-tt-to-mtia | FileCheck %s --check-prefix=ALL
// RUN: triton-mtia-opt %s --split-input-file --convert-tt-to-mtia | FileCheck %s --check-prefix=NONE

// x is read by exp, by the add and, after y's load, by a mul: with
// rematerialization each later reader loads it again instead of it being
// held (x three times, y once).
// NONE-LABEL: func.func @reuse(
// NONE-COUNT-2: mtia.dma_in
// NONE-NOT: mtia.dma_in
// LOADS-LABEL: func.func @reuse(
// LOADS-COUNT-4: mtia.dma_in
// LOADS-NOT: mtia.dma_in
// e = exp(x) is a computed tile: only level 2 recomputes it (and loads x
// once more for it) at its last reader.
// ALL-LABEL: func.func @reuse(
// ALL-COUNT-5: mtia.dma_in
// ALL-NOT: mtia.dma_in
tt.func public @reuse(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>) {
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %x = tt.load %xp : tensor<64x!tt.ptr<f32>>
  %e = math.exp %x : tensor<64xf32>
  %a = arith.addf %x, %e : tensor<64xf32>
  %ys = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %y = tt.load %yp : tensor<64x!tt.ptr<f32>>
  %b = arith.mulf %y, %a : tensor<64xf32>
  %c = arith.mulf %b, %x : tensor<64xf32>
  %d = arith.mulf %c, %e : tensor<64xf32>
  %os = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %op = tt.addptr %os, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  tt.store %op, %d : tensor<64x!tt.ptr<f32>>
  tt.return
}

// -----

// A store between the two uses may change what x's load reads: no copy.
// LOADS-LABEL: func.func @store_between(
// ALL-LABEL: func.func @store_between(
// NONE-LABEL: func.func @store_between(
// LOADS-COUNT-1: mtia.dma_in
// LOADS-NOT: mtia.dma_in
tt.func public @store_between(%x_ptr: !tt.ptr<f32>) {
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %x = tt.load %xp : tensor<64x!tt.ptr<f32>>
  %a = arith.addf %x, %x : tensor<64xf32>
  tt.store %xp, %a : tensor<64x!tt.ptr<f32>>
  %b = arith.mulf %x, %x : tensor<64xf32>
  tt.store %xp, %b : tensor<64x!tt.ptr<f32>>
  tt.return
}

// -----

// Loads hoisted to the top (as Inductor writes them) move down to their
// first use: y's DMA comes after x's square, not before it.
// LOADS-LABEL: func.func @hoisted(
// LOADS: mtia.dma_in %arg0
// LOADS: mtia.se "Mul"
// LOADS: mtia.dma_in %arg1
// NONE-LABEL: func.func @hoisted(
// NONE: mtia.dma_in %arg0
// NONE: mtia.dma_in %arg1
// NONE: mtia.se "Mul"
// ALL-LABEL: func.func @hoisted(
tt.func public @hoisted(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>) {
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %ys = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %x = tt.load %xp : tensor<64x!tt.ptr<f32>>
  %y = tt.load %yp : tensor<64x!tt.ptr<f32>>
  %a = arith.mulf %x, %x : tensor<64xf32>
  %b = arith.addf %a, %y : tensor<64xf32>
  tt.store %xp, %b : tensor<64x!tt.ptr<f32>>
  tt.return
}
