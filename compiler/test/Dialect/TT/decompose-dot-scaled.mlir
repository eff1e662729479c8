// RUN: triton-mtia-opt %s --tt-decompose-dot-scaled --split-input-file --verify-diagnostics | FileCheck %s

// mxfp4 x mxfp8: the e2m1 bytes are decoded nibble by nibble to f32, the
// low nibble first along K (join + reshape); the e4m3 operand is extended.
// Each e8m0 scale becomes f32 bits s << 23 (0 and 255 apart), broadcast over
// its group of 32 along K; the rhs scale [N, K/32] is transposed to [K, N].
// Both products are rounded to bf16 for one tt.dot with f32 accumulation.
// CHECK-LABEL: tt.func @mxfp4_x_mxfp8
// CHECK-NOT: tt.dot_scaled
// CHECK: arith.extui %arg0 : tensor<16x32xi8> to tensor<16x32xi32>
// CHECK: tt.join {{.*}} : tensor<16x32xf32> -> tensor<16x32x2xf32>
// CHECK: tt.reshape {{.*}} : tensor<16x32x2xf32> -> tensor<16x64xf32>
// CHECK: tt.fp_to_fp %arg2 : tensor<64x16xf8E4M3FN> -> tensor<64x16xf32>
// CHECK: arith.constant dense<23> : tensor<16x2xi32>
// CHECK: tt.expand_dims {{.*}} {axis = 2 : i32} : tensor<16x2xf32> -> tensor<16x2x1xf32>
// CHECK: tt.broadcast {{.*}} : tensor<16x2x1xf32> -> tensor<16x2x32xf32>
// CHECK: tt.reshape {{.*}} : tensor<16x2x32xf32> -> tensor<16x64xf32>
// CHECK: arith.mulf {{.*}} : tensor<16x64xf32>
// CHECK: tt.trans {{.*}} {order = array<i32: 1, 0>} : tensor<16x64xf32> -> tensor<64x16xf32>
// CHECK: arith.mulf {{.*}} : tensor<64x16xf32>
// CHECK: arith.truncf {{.*}} : tensor<16x64xf32> to tensor<16x64xbf16>
// CHECK: arith.truncf {{.*}} : tensor<64x16xf32> to tensor<64x16xbf16>
// CHECK: tt.dot {{.*}} : tensor<16x64xbf16> * tensor<64x16xbf16> -> tensor<16x16xf32>
tt.func @mxfp4_x_mxfp8(%a: tensor<16x32xi8>, %sa: tensor<16x2xi8>, %b: tensor<64x16xf8E4M3FN>, %sb: tensor<16x2xi8>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = tt.dot_scaled %a scale %sa, %b scale %sb, %c lhs = e2m1 rhs = e4m3 {fastMath = false} : tensor<16x32xi8>, tensor<16x2xi8> * tensor<64x16xf8E4M3FN>, tensor<16x2xi8> -> tensor<16x16xf32>
  tt.return %d : tensor<16x16xf32>
}

// -----

// An rhs e2m1 packed along K (its first dimension) interleaves through a
// transpose; an fp16 operand keeps both in f32; no scales, no multiplies.
// CHECK-LABEL: tt.func @fp16_x_mxfp4_unscaled
// CHECK: tt.join {{.*}} : tensor<32x16xf32> -> tensor<32x16x2xf32>
// CHECK: tt.trans {{.*}} {order = array<i32: 0, 2, 1>} : tensor<32x16x2xf32> -> tensor<32x2x16xf32>
// CHECK: tt.reshape {{.*}} : tensor<32x2x16xf32> -> tensor<64x16xf32>
// CHECK-NOT: arith.mulf
// CHECK-NOT: arith.truncf
// CHECK: tt.dot {{.*}} : tensor<16x64xf32> * tensor<64x16xf32> -> tensor<16x16xf32>
tt.func @fp16_x_mxfp4_unscaled(%a: tensor<16x64xf16>, %b: tensor<32x16xi8>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = tt.dot_scaled %a, %b, %c lhs = fp16 rhs = e2m1 {fastMath = false} : tensor<16x64xf16> * tensor<32x16xi8> -> tensor<16x16xf32>
  tt.return %d : tensor<16x16xf32>
}

// -----

tt.func @mxfp6(%a: tensor<16x64xi8>, %b: tensor<64x16xf8E4M3FN>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @below {{tt.dot_scaled operands of format e2m3 are not supported by the MTIA backend yet}}
  %d = tt.dot_scaled %a, %b, %c lhs = e2m3 rhs = e4m3 {fastMath = false} : tensor<16x64xi8> * tensor<64x16xf8E4M3FN> -> tensor<16x16xf32>
  tt.return %d : tensor<16x16xf32>
}
