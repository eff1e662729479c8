// RUN: triton-mtia-compile %s -o - --no-scalar-cost | FileCheck %s

// Variables keep Triton's names, except where a name would redefine or
// shadow one the generated code needs (the kernel's `ctx`, a C++ keyword,
// a device API function such as `tile`), and each name is given once even
// when a Python variable is called like another's numbered form.
// CHECK-LABEL: extern "C" void mtia_kernel_names(Ctx *ctx, const Arg *args) {
// CHECK-DAG: const float v_ctx =
// CHECK-DAG: const float v_int =
// CHECK-DAG: const float v_tile =
// CHECK-DAG: const float values =
// CHECK-DAG: const float values_1 =
// CHECK-DAG: const float values_2 =
// CHECK-NOT: const float ctx =
tt.func public @names(%x: f32, %out: !tt.ptr<f32>) {
  %a = arith.addf %x, %x : f32 loc("ctx")
  %b = arith.mulf %a, %x : f32 loc("int")
  %c = arith.addf %b, %a : f32 loc("tile")
  %d = arith.addf %c, %x : f32 loc("values")
  %e = arith.mulf %d, %c : f32 loc("values_1")
  %f = arith.addf %e, %d : f32 loc("values")
  tt.store %out, %f : !tt.ptr<f32>
  tt.return
}
