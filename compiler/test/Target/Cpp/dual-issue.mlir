// RUN: triton-mtia-compile %s -o - | FileCheck %s
// RUN: triton-mtia-compile %s -o - --no-dual-issue | FileCheck %s --check-prefix=OFF

// After mtia-dual-issue the C++ selects the issuing core (onCore) where it
// changes on a path: each program starts on core 0, so the body's first
// core-0 cost needs no switch; core 1 takes the mean's sitofp and divf (24:
// they feed the vector core's copy of the result), the SE commands and
// their pops. Each pop is issued on the core of its CB's last reader: the
// sum's tile was read by the SE on core 1, the mean by the read on core 0.
// A loop body and the code after a loop may be reached on either core, so
// they select theirs again. The replaceFront that binds a pop to the SE's
// Add is issued on the Add's core, after the switch.
// CHECK: extern "C" void mtia_kernel_row_mean(Ctx *ctx, const Arg *args) {
// CHECK: const int32_t [[N:.*]] = static_cast<int32_t>(args[2].i);
// CHECK-NEXT: scalarCycles(ctx, 2);
// CHECK-NEXT: onCore(ctx, 1);
// CHECK-NEXT: scalarCycles(ctx, 24);
// CHECK: se(ctx, SeOp::Copy
// CHECK-NEXT: for (int32_t
// CHECK-NEXT: onCore(ctx, 0);
// CHECK: scalarCycles(ctx, 9);
// CHECK-NEXT: onCore(ctx, 1);
// CHECK-NEXT: scalarCycles(ctx, 2);
// CHECK: onCore(ctx, 0);
// CHECK-NEXT: dmaIn(ctx, /*cb=*/1
// CHECK: onCore(ctx, 1);
// CHECK-NEXT: replaceFront(ctx, /*cb=*/0);
// CHECK-NEXT: se(ctx, SeOp::Add
// CHECK-NEXT: cbPop(ctx, /*cb=*/1, 1024);
// CHECK-NEXT: }
// CHECK: onCore(ctx, 1);
// CHECK-NEXT: seReduce(
// CHECK-NEXT: onCore(ctx, 0);
// CHECK-NEXT: readFloat(
// CHECK-NEXT: onCore(ctx, 1);
// CHECK-NEXT: cbPop(ctx, /*cb=*/0, 1024);
// CHECK: onCore(ctx, 0);
// CHECK-NEXT: cbPop(ctx, /*cb=*/1, 4);
// CHECK: onCore(ctx, 1);
// CHECK-NEXT: vec(ctx, SeOp::Copy
// CHECK-NEXT: onCore(ctx, 0);
// CHECK: dmaOut(
// CHECK: return;

// OFF-NOT: onCore
tt.func public @row_mean(%X: !tt.ptr<f32>, %Y: !tt.ptr<f32>, %N: i32) {
  %c256 = arith.constant 256 : i32
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<256xf32>
  %acc = scf.for %off = %c0 to %N step %c256 iter_args(%a = %zero) -> (tensor<256xf32>) : i32 {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %s = tt.splat %off : i32 -> tensor<256xi32>
    %cols = arith.addi %s, %r : tensor<256xi32>
    %n = tt.splat %N : i32 -> tensor<256xi32>
    %m = arith.cmpi slt, %cols, %n : tensor<256xi32>
    %xp = tt.splat %X : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %p = tt.addptr %xp, %cols : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x = tt.load %p, %m, %zero : tensor<256x!tt.ptr<f32>>
    %next = arith.addf %a, %x : tensor<256xf32>
    scf.yield %next : tensor<256xf32>
  }
  %sum = "tt.reduce"(%acc) <{axis = 0 : i32}> ({
  ^bb0(%l: f32, %r: f32):
    %c = arith.addf %l, %r : f32
    tt.reduce.return %c : f32
  }) : (tensor<256xf32>) -> f32
  %nf = arith.sitofp %N : i32 to f32
  %mean = arith.divf %sum, %nf : f32
  tt.store %Y, %mean : !tt.ptr<f32>
  tt.return
}
