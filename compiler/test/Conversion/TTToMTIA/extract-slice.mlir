// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// mtl.extract_slice arrives as tt.gather along each dimension it cuts, by
// the indices offset + arange(size). At a constant offset the gather is a
// view of its source's tile: no command, and its indices are never
// computed; the source stays in its CB until the view's last reader.
// CHECK-LABEL: func.func @constant_slices(
// CHECK: mtia.dma_in {{.*}}cb = 0 : i64, elemType = f32, shape = array<i64: 32, 64>
// CHECK-NOT: mtia.se_gather
// CHECK-NOT: mtia.se_iota
// CHECK: mtia.se "Add" {{.*}}srcs = [#mtia.view<cb = 0, elemType = f32, offset = 528, strides = 64, 1>, #mtia.view<cb = 0, elemType = f32, offset = 560, strides = 64, 1>]
// CHECK: mtia.cb_pop {bytes = 8192 : i64, cb = 0 : i64}
tt.func public @constant_slices(%in: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
  %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %c = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %rs = arith.muli %r2, %c64 : tensor<32x1xi32>
  %rb = tt.broadcast %rs : tensor<32x1xi32> -> tensor<32x64xi32>
  %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tt.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %offs = arith.addi %rb, %cb : tensor<32x64xi32>
  %ip = tt.splat %in : !tt.ptr<f32> -> tensor<32x64x!tt.ptr<f32>>
  %ips = tt.addptr %ip, %offs : tensor<32x64x!tt.ptr<f32>>, tensor<32x64xi32>
  %A = tt.load %ips : tensor<32x64x!tt.ptr<f32>>
  // Rows [8, 24): offset 8 along axis 0.
  %i16 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %c8 = arith.constant dense<8> : tensor<16xi32>
  %rows = arith.addi %i16, %c8 : tensor<16xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rowsb = tt.broadcast %rows2 : tensor<16x1xi32> -> tensor<16x64xi32>
  %part = tt.gather %A[%rowsb] {axis = 0 : i32} : (tensor<32x64xf32>, tensor<16x64xi32>) -> tensor<16x64xf32>
  // Columns [16, 32) and [48, 64) of those rows.
  %c16 = arith.constant dense<16> : tensor<16xi32>
  %c48 = arith.constant dense<48> : tensor<16xi32>
  %cols1 = arith.addi %i16, %c16 : tensor<16xi32>
  %cols2 = arith.addi %i16, %c48 : tensor<16xi32>
  %cols1e = tt.expand_dims %cols1 {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %cols2e = tt.expand_dims %cols2 {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %cols1b = tt.broadcast %cols1e : tensor<1x16xi32> -> tensor<16x16xi32>
  %cols2b = tt.broadcast %cols2e : tensor<1x16xi32> -> tensor<16x16xi32>
  %s1 = tt.gather %part[%cols1b] {axis = 1 : i32} : (tensor<16x64xf32>, tensor<16x16xi32>) -> tensor<16x16xf32>
  %s2 = tt.gather %part[%cols2b] {axis = 1 : i32} : (tensor<16x64xf32>, tensor<16x16xi32>) -> tensor<16x16xf32>
  %sum = arith.addf %s1, %s2 : tensor<16x16xf32>
  %o = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %flat = tt.reshape %sum : tensor<16x16xf32> -> tensor<256xf32>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %ops = tt.addptr %op, %o : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
  tt.store %ops, %flat : tensor<256x!tt.ptr<f32>>
  tt.return
}

// At an offset known only at run time, or with indices that are not a
// contiguous run, the gather copies on the SE (which faults on an index
// out of range).
// CHECK-LABEL: func.func @runtime_slice(
// CHECK: mtia.se_iota
// CHECK: mtia.se_gather
// CHECK-LABEL: func.func @not_a_slice(
// CHECK: mtia.se_gather
tt.func public @runtime_slice(%in: !tt.ptr<f32>, %out: !tt.ptr<f32>, %off: i32) {
  %c = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %ip = tt.splat %in : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %ips = tt.addptr %ip, %c : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %A = tt.load %ips : tensor<64x!tt.ptr<f32>>
  %i16 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %offs = tt.splat %off : i32 -> tensor<16xi32>
  %idx = arith.addi %i16, %offs : tensor<16xi32>
  %s = tt.gather %A[%idx] {axis = 0 : i32} : (tensor<64xf32>, tensor<16xi32>) -> tensor<16xf32>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %ops = tt.addptr %op, %i16 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %ops, %s : tensor<16x!tt.ptr<f32>>
  tt.return
}
tt.func public @not_a_slice(%in: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
  %c = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %ip = tt.splat %in : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %ips = tt.addptr %ip, %c : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %A = tt.load %ips : tensor<64x!tt.ptr<f32>>
  %i16 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %c2 = arith.constant dense<2> : tensor<16xi32>
  %every_other = arith.muli %i16, %c2 : tensor<16xi32>
  %s = tt.gather %A[%every_other] {axis = 0 : i32} : (tensor<64xf32>, tensor<16xi32>) -> tensor<16xf32>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %ops = tt.addptr %op, %i16 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %ops, %s : tensor<16x!tt.ptr<f32>>
  tt.return
}
