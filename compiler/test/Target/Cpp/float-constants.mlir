// RUN: triton-mtia-compile %s -o - --no-scalar-cost | FileCheck %s

// Float constants round-trip: 17 significant digits for a double (the
// smallest normal double must not print as a larger number), 10 for a float.
// CHECK: extern "C" void constants(
// CHECK: double(2.2250738585072014e-308)
// CHECK: float(1.000000015e-01)
tt.func public @constants(%x: f64, %y: f32, %out: !tt.ptr<i32>) {
  %tiny = arith.constant 2.2250738585072014E-308 : f64
  %tenth = arith.constant 1.000000e-01 : f32
  %a = arith.cmpf olt, %x, %tiny : f64
  %b = arith.cmpf olt, %y, %tenth : f32
  %c = arith.andi %a, %b : i1
  %i = arith.extui %c : i1 to i32
  tt.store %out, %i : !tt.ptr<i32>
  tt.return
}
