// RUN: triton-mtia-opt %s --mtia-pipeline | FileCheck %s
// RUN: triton-mtia-opt %s --mtia-pipeline="num-stages=1" | FileCheck %s --check-prefix=ONE
// RUN: not triton-mtia-opt %s --mtia-pipeline="local-memory-bytes=32768" 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: triton-mtia-opt %s --mtia-pipeline --mtia-to-llvm-pipeline | FileCheck %s --check-prefix=LLVM

// The compiler's pipeline as one named pass pipeline (compiler/lib/Pipeline),
// what triton-mtia-compile runs for each attempt, with its options: an
// 8192-element fp32 block double-buffered in two CBs, one tile each
// without pipelining, and on a chip of 32 KiB the error that makes the
// tool split the block (the pipeline alone does not retry). Then the LLVM
// lowering, the other named pipeline.

// CHECK: mtia.cb_capacity = array<i64: 65536, 65536>
// ONE: mtia.cb_capacity = array<i64: 32768, 32768>
// SMALL: error: kernel needs 65536 bytes of local memory for its tiles; an MTIA PE has 32768
// LLVM: llvm.func @mtia_kernel_scale_add(

module {
  tt.func public @scale_add(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %o_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
    %c = arith.constant 8192 : i32
    %pid = tt.get_program_id x : i32
    %start = arith.muli %pid, %c : i32
    %range = tt.make_range {end = 8192 : i32, start = 0 : i32} : tensor<8192xi32>
    %starts = tt.splat %start : i32 -> tensor<8192xi32>
    %offs = arith.addi %starts, %range : tensor<8192xi32>
    %ns = tt.splat %n : i32 -> tensor<8192xi32>
    %m = arith.cmpi slt, %offs, %ns : tensor<8192xi32>
    %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<8192x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %offs : tensor<8192x!tt.ptr<f32>>, tensor<8192xi32>
    %x = tt.load %xp, %m : tensor<8192x!tt.ptr<f32>>
    %y = arith.mulf %x, %x : tensor<8192xf32>
    %os = tt.splat %o_ptr : !tt.ptr<f32> -> tensor<8192x!tt.ptr<f32>>
    %op = tt.addptr %os, %offs : tensor<8192x!tt.ptr<f32>>, tensor<8192xi32>
    tt.store %op, %y, %m : tensor<8192x!tt.ptr<f32>>
    tt.return
  }
}
