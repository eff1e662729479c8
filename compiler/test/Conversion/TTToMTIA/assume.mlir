// RUN: triton-mtia-opt %s --convert-tt-to-mtia | FileCheck %s

// `tl.assume` arrives as llvm.intr.assume: a fact about scalars, kept for the
// C++ compiler of the core's code (the LLVM IR path's llvm.assume,
// `__builtin_assume` in C++); the commands lower as if it were not there.
// CHECK-LABEL: func.func @copy(
// CHECK: %[[POS:.*]] = arith.cmpi sgt, %arg2, %c0_i32 : i32
// CHECK: llvm.intr.assume %[[POS]] : i1
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %{{.*}}, %c0_i32 : i32
// CHECK: llvm.intr.assume %[[ZERO]] : i1
// CHECK: mtia.dma_in
// CHECK: mtia.dma_out
tt.func public @copy(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>, %stride: i32) {
  %c0 = arith.constant 0 : i32
  %pos = arith.cmpi sgt, %stride, %c0 : i32
  llvm.intr.assume %pos : i1
  %pid = tt.get_program_id x : i32
  %cmod = arith.remsi %pid, %stride : i32
  %zero = arith.cmpi eq, %cmod, %c0 : i32
  llvm.intr.assume %zero : i1
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %x = tt.load %xp : tensor<64x!tt.ptr<f32>>
  %os = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %op = tt.addptr %os, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  tt.store %op, %x : tensor<64x!tt.ptr<f32>>
  tt.return
}
