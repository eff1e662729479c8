// RUN: triton-mtia-compile %s -o - --no-scalar-cost --emit-llvm --stack-limit=131072 | FileCheck %s

// The LLVM IR path computes scalars as the C++ path does (device.h's
// semantics where C++ or LLVM would trap or be undefined): division and
// shifts call llvm_support.h's instances of device.h's templates, narrow
// integers widened to 32 bits; float -> integer saturates; maxnumf is
// maxNumOf, on float for f16; f16 math is computed in float and rounded.
// The kernel carries clang's frame limit (-Wframe-larger-than for IR).

// CHECK: @mtia_kernel_scalars_info = constant { i32, ptr, i32, i32, [15 x i64] } { i32 10,
// CHECK-LABEL: define void @mtia_kernel_scalars(ptr %0, ptr %1)
// CHECK-SAME: #[[ATTRS:[0-9]+]]
// CHECK: call i32 @mtia_divSigned_i32(i32
// CHECK: sext i8 {{.*}} to i32
// CHECK: call i32 @mtia_remSigned_i8(i32
// CHECK: call i64 @mtia_shiftLeft_i64(i64
// CHECK: call i64 @mtia_floatToInt_i32(double
// CHECK: call i64 @mtia_floatToInt_u8(double
// CHECK: fpext half {{.*}} to float
// CHECK: call float @mtia_maxNumOf_f32(float
// CHECK: fptrunc float {{.*}} to half
// CHECK: fpext half {{.*}} to float
// CHECK: call float @llvm.exp.f32(float
// CHECK: fptrunc float {{.*}} to half
// CHECK: attributes #[[ATTRS]] = { "warn-stack-size"="131072" }
tt.func public @scalars(%a: i32, %b: i32, %c: i8, %d: i64, %x: f32, %h: f16,
                        %o32: !tt.ptr<i32>, %o8: !tt.ptr<i8>, %o64: !tt.ptr<i64>, %of: !tt.ptr<f16>) {
  %q = arith.divsi %a, %b : i32
  %c3 = arith.constant 3 : i8
  %r = arith.remsi %c, %c3 : i8
  %s = arith.shli %d, %d : i64
  %i = arith.fptosi %x : f32 to i32
  %u = arith.fptoui %x : f32 to i8
  %qi = arith.addi %q, %i : i32
  tt.store %o32, %qi : !tt.ptr<i32>
  %ru = arith.addi %r, %u : i8
  tt.store %o8, %ru : !tt.ptr<i8>
  tt.store %o64, %s : !tt.ptr<i64>
  %half = arith.constant 5.000000e-01 : f16
  %m = arith.maxnumf %h, %half : f16
  %e = math.exp %m : f16
  tt.store %of, %e : !tt.ptr<f16>
  tt.return
}
