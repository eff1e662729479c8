// RUN: triton-mtia-compile %s -o - --no-dual-issue | FileCheck %s
// RUN: triton-mtia-compile %s -o - --no-scalar-cost --no-dual-issue | FileCheck %s --check-prefix=OFF

// mtia.scalar_cycles prints as scalarCycles(ctx, N) at the start of its block:
// the body pays sitofp 4 + divf 20 once, and 2 for the alias test of X and
// Y with the branch around the store's fence (mtia-order-memory); the loop
// body pays its control (2),
// two extsi, the multiply by the element size (a shift), the address add,
// and the bound's subi, maxsi and minsi (1 each) per iteration. In a loop
// it names the loop's line first, so that the simulator's watchdog can say
// where a loop of scalar code spins.
// CHECK: extern "C" void mtia_kernel_row_mean(Ctx *ctx, const Arg *args) {
// CHECK: const int32_t [[N:.*]] = static_cast<int32_t>(args[2].i);
// CHECK-NEXT: scalarCycles(ctx, 26);
// CHECK: for (int32_t
// CHECK-NEXT: ctx->line = 26;
// CHECK-NEXT: scalarCycles(ctx, 9);
// CHECK-NOT: scalarCycles
// CHECK: return;

// OFF-NOT: scalarCycles
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
