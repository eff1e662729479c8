// RUN: triton-mtia-compile %s -o %t.cpp --llvm-ir-out=%t.ll --no-dual-issue
// RUN: FileCheck %s --input-file=%t.cpp
// RUN: FileCheck %s --input-file=%t.ll --check-prefix=LLVM

// `tl.assume(n % 16 == 0)`: the fact reaches the C++ compiler of the core's
// code as __builtin_assume (llvm.assume on the LLVM IR path, which
// --llvm-ir-out writes from the same lowering: the Python backend's
// asm['llir']). The code that only computes the fact costs the core nothing:
// the block pays 2 cycles for the alias test of its two pointers, not the 4 +
// 1 of the remainder and the compare as well.
// CHECK-LABEL: extern "C" void mtia_kernel_assumed(Ctx *ctx, const Arg *args) {
// CHECK: scalarCycles(ctx, 2);
// CHECK: __builtin_assume(
// CHECK: dmaIn(
// LLVM-LABEL: define void @mtia_kernel_assumed(
// LLVM: call void @llvm.assume(i1 %{{.*}})
tt.func public @assumed(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %rem = arith.remsi %n, %c16 : i32
  %zero = arith.cmpi eq, %rem, %c0 : i32
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
