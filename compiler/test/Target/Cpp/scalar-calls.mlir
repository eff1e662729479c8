// RUN: triton-mtia-compile %s -o - --no-scalar-cost | FileCheck %s

// Library calls on scalars cast every operand to one type: an integer
// constant prints as an int literal (std::min(int8_t, int) has no
// overload), and 16-bit floats compute in float (std::fabs of _Float16 is
// ambiguous); the result is cast back. maxnumf is device.h's maxNumOf
// (-0 < +0, as the SE's Max).
// CHECK-LABEL: extern "C" void mtia_kernel_narrow(
// CHECK: static_cast<int8_t>(std::min(static_cast<int8_t>({{.*}}), static_cast<int8_t>(26)))
// CHECK: static_cast<_Float16>(std::fabs(static_cast<float>(
// CHECK: static_cast<_Float16>(maxNumOf(static_cast<float>({{.*}}), static_cast<float>(
tt.func public @narrow(%i: i8, %h: f16, %out8: !tt.ptr<i8>, %out16: !tt.ptr<f16>) {
  %c26 = arith.constant 26 : i8
  %half = arith.constant 5.000000e-01 : f16
  %m = arith.minsi %i, %c26 : i8
  tt.store %out8, %m : !tt.ptr<i8>
  %a = math.absf %h : f16
  %x = arith.maxnumf %a, %half : f16
  tt.store %out16, %x : !tt.ptr<f16>
  tt.return
}

// tl.maximum / tl.minimum with propagate_nan=ALL are arith.maximumf /
// minimumf: device.h's maximumOf / minimumOf, the SE's semantics.
// CHECK-LABEL: extern "C" void mtia_kernel_nan_propagating(
// CHECK: maximumOf(static_cast<float>(
// CHECK: minimumOf(static_cast<float>(
tt.func public @nan_propagating(%x: f32, %y: f32, %out: !tt.ptr<f32>) {
  %a = arith.maximumf %x, %y : f32
  %b = arith.minimumf %a, %y : f32
  tt.store %out, %b : !tt.ptr<f32>
  tt.return
}
