// RUN: triton-mtia-compile %s -o - --no-dual-issue | FileCheck %s
// RUN: triton-mtia-compile %s -o - --no-dual-issue --no-vector-loop-fusion | FileCheck %s --check-prefix=OFF

// mtia-fuse-vector-loops: log1p and atan have no SE table, so both run on
// the vector core, and atan(log1p(x)) is one loop (device.h vecLoop): its
// input the loaded tile, its steps the two functions, the first one's
// result in a register. Without the pass, two vec commands and a tile in
// between.
// The pop of the loaded tile, right after log1p in the program, moves after
// the loop, its reader now.
// CHECK: dmaIn(ctx, /*cb=*/0, DType::F32
// CHECK: {{^ +[{]$}}
// CHECK-NEXT: const Operand inputs[] = {view(0, DType::F32, 1)};
// CHECK-NEXT: const VecStep steps[] = {
// CHECK-NEXT: {SeOp::Log1p, DType::F32, 1, {0}},
// CHECK-NEXT: {SeOp::Atan, DType::F32, 1, {stepResult(0)}},
// CHECK-NEXT: };
// CHECK-NEXT: vecLoop(ctx, /*dst=*/{{[0-9]+}}, Shape{1, {64}}, inputs, 1, steps, 2);
// CHECK-NEXT: }
// CHECK: cbPop(ctx, /*cb=*/0, 256);
// CHECK-NOT: vec(ctx
// OFF: vec(ctx, SeOp::Log1p
// OFF: vec(ctx, SeOp::Atan
// OFF-NOT: vecLoop
module {
  tt.func public @atan_log1p(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %x = tt.load %xp : tensor<64x!tt.ptr<f32>>
    %l = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__mtia_log1p"} : (tensor<64xf32>) -> tensor<64xf32>
    %a = tt.extern_elementwise %l {libname = "", libpath = "", pure = true, symbol = "__mtia_atan"} : (tensor<64xf32>) -> tensor<64xf32>
    %ys = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %yp = tt.addptr %ys, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    tt.store %yp, %a : tensor<64x!tt.ptr<f32>>
    tt.return
  }
}
