// RUN: triton-mtia-opt %s -split-input-file -verify-diagnostics

tt.func @range_length() {
  // expected-error @+1 {{result must be a 1-D tensor of 16 elements}}
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<32xi32>
  tt.return
}

// -----

tt.func @range_empty() {
  // expected-error @+1 {{end must be greater than start}}
  %r = tt.make_range {end = 0 : i32, start = 0 : i32} : tensor<1xi32>
  tt.return
}

// -----

tt.func @broadcast_non_unit(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{can only broadcast dimensions of size 1}}
  %b = tt.broadcast %x : tensor<4x2xf32> -> tensor<4x8xf32>
  tt.return
}

// -----

tt.func @reduce_axis(%x: tensor<8xf32>) {
  // expected-error @+1 {{axis 1 is out of range for rank 1}}
  %s = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tt.reduce.return %c : f32
  }) : (tensor<8xf32>) -> f32
  tt.return
}

// -----

tt.func @load_mask_shape(%p: tensor<8x!tt.ptr<f32>>, %m: tensor<4xi1>) {
  // expected-error @+1 {{mask has the pointer's shape with i1 elements}}
  %v = "tt.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<8x!tt.ptr<f32>>, tensor<4xi1>) -> tensor<8xf32>
  tt.return
}

// -----

tt.func @cat_wrong_shape(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<12xf32> {
  // expected-error @+1 {{result must be the operands joined along dimension 0}}
  %c = tt.cat %a, %b : tensor<8xf32> -> tensor<12xf32>
  tt.return %c : tensor<12xf32>
}

// -----

tt.func @unsplat_of_many(%x: tensor<2xf32>) {
  // expected-error @+1 {{can only unsplat a tensor of one element, not 2}}
  %s = tt.unsplat %x : tensor<2xf32>
  tt.return
}
