// RUN: triton-mtia-compile %s -o - --no-scalar-cost | FileCheck %s

// Float constants round-trip: 17 significant digits for a double (the
// smallest normal double must not print as a larger number), 10 for a float.
// CHECK: extern "C" void mtia_kernel_constants(
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

// 16-bit infinities and NaNs (Triton prints them as hex bit patterns) go
// through double: std::numeric_limits has no _Float16 or __bf16 and would
// give 0.
// CHECK-LABEL: extern "C" void mtia_kernel_special(
// CHECK: _Float16(-__builtin_inf())
// CHECK: __bf16(__builtin_inf())
tt.func public @special(%x: f16, %y: bf16, %out: !tt.ptr<i32>) {
  %ninf = arith.constant 0xFC00 : f16
  %inf = arith.constant 0x7F80 : bf16
  %a = arith.cmpf ogt, %x, %ninf : f16
  %b = arith.cmpf olt, %y, %inf : bf16
  %c = arith.andi %a, %b : i1
  %i = arith.extui %c : i1 to i32
  tt.store %out, %i : !tt.ptr<i32>
  tt.return
}

// fp8 scalars are floats rounded by device.h where the source converts to
// fp8; bitcasts go through the code.
// CHECK-LABEL: extern "C" void mtia_kernel_fp8(
// CHECK: const float [[T:.*]] = roundToE4m3(static_cast<float>(
// CHECK: static_cast<int8_t>(e4m3FromFloat([[T]]))
tt.func public @fp8(%x: f32, %out: !tt.ptr<i8>) {
  %t = arith.truncf %x : f32 to f8E4M3FN
  %i = arith.bitcast %t : f8E4M3FN to i8
  tt.store %out, %i : !tt.ptr<i8>
  tt.return
}
