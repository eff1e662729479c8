// RUN: triton-mtia-compile %s -o - --no-scalar-cost | FileCheck %s

// Names that a `v_` in front leaves reserved (a `__` anywhere, a leading `_`
// and a capital), and the numbered forms of a name ending in `_`, once sent
// the name picking into an endless loop (test_tuple.py::test_namedtuple: the
// parameter `_X.ptr` of a named tuple `_X`).
// CHECK-LABEL: extern "C" void mtia_kernel_reserved_names(Ctx *ctx, const Arg *args) {
// CHECK-DAG: const float v_X_ptr =
// CHECK-DAG: const float v_a_b =
// CHECK-DAG: const float v_x =
// CHECK-DAG: const float y_ =
// CHECK-DAG: const float y_1 =
tt.func public @reserved_names(%x: f32 loc("_X.ptr"), %out: !tt.ptr<f32>) {
  %a = arith.addf %x, %x : f32 loc("a__b")
  %b = arith.mulf %a, %x : f32 loc("__x")
  %c = arith.addf %b, %a : f32 loc("y_")
  %d = arith.mulf %c, %b : f32 loc("y_")
  tt.store %out, %d : !tt.ptr<f32>
  tt.return
}
