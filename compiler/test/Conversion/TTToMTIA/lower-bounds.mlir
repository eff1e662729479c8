// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// Masks with lower bounds are boxes [begin, end) per dimension: the access
// stays a DMA whose box carries `begin`.

// A shifted window: x[offs - 1] where lo <= offs < hi. The address is the
// element before x's offs; begin = clamp(lo - start, 0, 64), end =
// clamp(hi - start, 0, 64).
// CHECK-LABEL: func.func @window(
// CHECK-SAME: %[[X:.*]]: i64 {mtia.pointer}, %[[OUT:.*]]: i64 {mtia.pointer}, %[[LO:.*]]: i32, %[[HI:.*]]: i32)
// CHECK: %[[LO64:.*]] = arith.extsi %[[LO]] : i32 to i64
// CHECK: %[[LOSUB:.*]] = arith.subi %[[LO64]], %{{.*}} : i64
// CHECK: %[[LOMAX:.*]] = arith.maxsi %[[LOSUB]], %{{.*}} : i64
// CHECK: %[[BEGIN:.*]] = arith.minsi %[[LOMAX]], %{{.*}} : i64
// CHECK: mtia.dma_in %{{.*}} strides(%{{.*}}) valid(%{{.*}}) begin(%[[BEGIN]]) pad %{{.*}} : f32 {cb = [[T:[0-9]+]] : i64, elemType = f32, shape = array<i64: 64>}
// The store's mask has no lower bound: no begin.
// CHECK: mtia.dma_out %{{.*}} strides(%{{.*}}) valid(%{{[^)]*}}) {cb = [[T]] : i64, elemType = f32, shape = array<i64: 64>}
// CHECK-NOT: mtia.gather_in
// CHECK-NOT: mtia.scatter_out
tt.func public @window(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>, %lo: i32, %hi: i32) {
  %c64 = arith.constant 64 : i32
  %ones = arith.constant dense<1> : tensor<64xi32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64xf32>
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c64 : i32
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %splat = tt.splat %start : i32 -> tensor<64xi32>
  %offs = arith.addi %splat, %range : tensor<64xi32>
  %los = tt.splat %lo : i32 -> tensor<64xi32>
  %his = tt.splat %hi : i32 -> tensor<64xi32>
  %m1 = arith.cmpi sge, %offs, %los : tensor<64xi32>
  %m2 = arith.cmpi slt, %offs, %his : tensor<64xi32>
  %m = arith.andi %m1, %m2 : tensor<64xi1>
  %prev = arith.subi %offs, %ones : tensor<64xi32>
  %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %prev : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %x = tt.load %xp, %m, %zero : tensor<64x!tt.ptr<f32>>
  %os = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %op = tt.addptr %os, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  tt.store %op, %x, %m2 : tensor<64x!tt.ptr<f32>>
  tt.return
}

// A constant lower bound in the mirrored and strict forms: `1 < offs` begins
// at 2 (offs starts at 0), `offs > 0` at 1; the AND takes the larger.
// CHECK-LABEL: func.func @strict(
// CHECK: %[[C2:.*]] = arith.constant 2 : i64
// CHECK: mtia.dma_in %{{.*}} strides(%{{.*}}) valid(%{{.*}}) begin(%[[C2]]) {cb = {{[0-9]+}} : i64, elemType = i32, shape = array<i64: 16>}
tt.func public @strict(%x_ptr: !tt.ptr<i32>, %out_ptr: !tt.ptr<i32>) {
  %one = arith.constant dense<1> : tensor<16xi32>
  %zero = arith.constant dense<0> : tensor<16xi32>
  %offs = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %m1 = arith.cmpi slt, %one, %offs : tensor<16xi32>
  %m2 = arith.cmpi sgt, %offs, %zero : tensor<16xi32>
  %m = arith.andi %m1, %m2 : tensor<16xi1>
  %xs = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
  %xp = tt.addptr %xs, %offs : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
  %x = tt.load %xp, %m : tensor<16x!tt.ptr<i32>>
  %os = tt.splat %out_ptr : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
  %op = tt.addptr %os, %offs : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
  tt.store %op, %x : tensor<16x!tt.ptr<i32>>
  tt.return
}

// A 2-D stencil tap x[r - 1, c] with (r >= 1) & (r < M) & (c < N): rows
// begin at clamp(1 - r0, 0, 8), columns at 0.
// CHECK-LABEL: func.func @stencil(
// CHECK: mtia.dma_in %{{.*}} strides(%{{.*}}, %{{.*}}) valid(%{{.*}}, %{{.*}}) begin(%{{.*}}, %[[Z:.*]]) pad %{{.*}} : f32 {cb = {{[0-9]+}} : i64, elemType = f32, shape = array<i64: 8, 16>}
// CHECK-NOT: mtia.gather_in
tt.func public @stencil(%X: !tt.ptr<f32>, %Y: !tt.ptr<f32>, %M: i32, %N: i32, %sxm: i32) {
  %zero = arith.constant dense<0.000000e+00> : tensor<8x16xf32>
  %one = arith.constant dense<1> : tensor<8x1xi32>
  %c8 = arith.constant 8 : i32
  %pid = tt.get_program_id x : i32
  %r0 = arith.muli %pid, %c8 : i32
  %rr = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %rs = tt.splat %r0 : i32 -> tensor<8xi32>
  %rm = arith.addi %rs, %rr : tensor<8xi32>
  %rn = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %e = tt.expand_dims %rm {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %up = arith.subi %e, %one : tensor<8x1xi32>
  %ss = tt.splat %sxm : i32 -> tensor<8x1xi32>
  %rowoff = arith.muli %up, %ss : tensor<8x1xi32>
  %xs = tt.splat %X : !tt.ptr<f32> -> tensor<8x1x!tt.ptr<f32>>
  %xr = tt.addptr %xs, %rowoff : tensor<8x1x!tt.ptr<f32>>, tensor<8x1xi32>
  %en = tt.expand_dims %rn {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %xb = tt.broadcast %xr : tensor<8x1x!tt.ptr<f32>> -> tensor<8x16x!tt.ptr<f32>>
  %nb = tt.broadcast %en : tensor<1x16xi32> -> tensor<8x16xi32>
  %p = tt.addptr %xb, %nb : tensor<8x16x!tt.ptr<f32>>, tensor<8x16xi32>
  %lo = arith.cmpi sge, %e, %one : tensor<8x1xi32>
  %ms = tt.splat %M : i32 -> tensor<8x1xi32>
  %hi = arith.cmpi slt, %e, %ms : tensor<8x1xi32>
  %rows = arith.andi %lo, %hi : tensor<8x1xi1>
  %nsp = tt.splat %N : i32 -> tensor<1x16xi32>
  %cols = arith.cmpi slt, %en, %nsp : tensor<1x16xi32>
  %rowsb = tt.broadcast %rows : tensor<8x1xi1> -> tensor<8x16xi1>
  %colsb = tt.broadcast %cols : tensor<1x16xi1> -> tensor<8x16xi1>
  %m = arith.andi %rowsb, %colsb : tensor<8x16xi1>
  %x = tt.load %p, %m, %zero : tensor<8x16x!tt.ptr<f32>>
  %yb = tt.splat %Y : !tt.ptr<f32> -> tensor<8x16x!tt.ptr<f32>>
  %yp = tt.addptr %yb, %nb : tensor<8x16x!tt.ptr<f32>>, tensor<8x16xi32>
  tt.store %yp, %x : tensor<8x16x!tt.ptr<f32>>
  tt.return
}

// A store whose mask has a lower bound writes only [lo - start, n - start).
// CHECK-LABEL: func.func @tail_store(
// CHECK: mtia.dma_in %{{.*}} strides(%{{.*}}) valid(%{{[^)]*}}) {cb
// CHECK: mtia.dma_out %{{.*}} strides(%{{.*}}) valid(%{{.*}}) begin(%{{.*}}) {cb = {{[0-9]+}} : i64, elemType = f32, shape = array<i64: 32>}
// CHECK-NOT: mtia.scatter_out
tt.func public @tail_store(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>, %lo: i32, %n: i32) {
  %c32 = arith.constant 32 : i32
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c32 : i32
  %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %splat = tt.splat %start : i32 -> tensor<32xi32>
  %offs = arith.addi %splat, %range : tensor<32xi32>
  %ns = tt.splat %n : i32 -> tensor<32xi32>
  %los = tt.splat %lo : i32 -> tensor<32xi32>
  %inb = arith.cmpi slt, %offs, %ns : tensor<32xi32>
  %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %offs : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
  %x = tt.load %xp, %inb : tensor<32x!tt.ptr<f32>>
  %ge = arith.cmpi sle, %los, %offs : tensor<32xi32>
  %m = arith.andi %ge, %inb : tensor<32xi1>
  %os = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
  %op = tt.addptr %os, %offs : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
  tt.store %op, %x, %m : tensor<32x!tt.ptr<f32>>
  tt.return
}

// Masks that are no box still fall back to a gather: an OR of bounds, and an
// unsigned lower bound (which also holds for negative indices).
// CHECK-LABEL: func.func @not_a_box(
// CHECK: mtia.gather_in
// CHECK: mtia.gather_in
// CHECK-NOT: mtia.dma_in
tt.func public @not_a_box(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>, %lo: i32, %hi: i32) {
  %offs = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %los = tt.splat %lo : i32 -> tensor<16xi32>
  %his = tt.splat %hi : i32 -> tensor<16xi32>
  %m1 = arith.cmpi slt, %offs, %los : tensor<16xi32>
  %m2 = arith.cmpi sge, %offs, %his : tensor<16xi32>
  %m = arith.ori %m1, %m2 : tensor<16xi1>
  %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %offs : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %x = tt.load %xp, %m : tensor<16x!tt.ptr<f32>>
  %mu = arith.cmpi uge, %offs, %los : tensor<16xi32>
  %y = tt.load %xp, %mu : tensor<16x!tt.ptr<f32>>
  %s = arith.addf %x, %y : tensor<16xf32>
  %os = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %op = tt.addptr %os, %offs : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %op, %s : tensor<16x!tt.ptr<f32>>
  tt.return
}

// Unsigned upper bounds. `(offs - lo) <u 100` is the one-compare form of
// lo <= offs < lo + 100: a negative difference is 2^32 + d unsigned, past
// 100, so the box begins at clamp(lo - start) as well as ending at
// clamp(100 + lo - start).
// CHECK-LABEL: func.func @unsigned_window(
// CHECK: mtia.dma_in %{{.*}} strides(%{{.*}}) valid(%{{.*}}) begin(%{{.*}}) pad %{{.*}} : f32
// CHECK-NOT: mtia.gather_in
tt.func public @unsigned_window(%x_ptr: !tt.ptr<f32>, %lo: i32) {
  %c64 = arith.constant 64 : i32
  %c100 = arith.constant dense<100> : tensor<64xi32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64xf32>
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c64 : i32
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %splat = tt.splat %start : i32 -> tensor<64xi32>
  %offs = arith.addi %splat, %range : tensor<64xi32>
  %los = tt.splat %lo : i32 -> tensor<64xi32>
  %d = arith.subi %offs, %los : tensor<64xi32>
  %m = arith.cmpi ult, %d, %c100 : tensor<64xi32>
  %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %x = tt.load %xp, %m, %zero : tensor<64x!tt.ptr<f32>>
  tt.store %xp, %x : tensor<64x!tt.ptr<f32>>
  tt.return
}

// A run-time unsigned bound may be 2^31 or more (n = -1 is 2^32 - 1, which
// keeps every non-negative index), and a constant one at or above 2^31 keeps
// negative indices too: both compare per element.
// CHECK-LABEL: func.func @unsigned_runtime_bound(
// CHECK: mtia.gather_in
// CHECK: mtia.gather_in
// CHECK-NOT: mtia.dma_in
tt.func public @unsigned_runtime_bound(%x_ptr: !tt.ptr<f32>, %n: i32) {
  %big = arith.constant dense<-16> : tensor<16xi32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16xf32>
  %offs = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %ns = tt.splat %n : i32 -> tensor<16xi32>
  %m = arith.cmpi ult, %offs, %ns : tensor<16xi32>
  %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %offs : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %x = tt.load %xp, %m, %zero : tensor<16x!tt.ptr<f32>>
  %m2 = arith.cmpi ule, %offs, %big : tensor<16xi32>
  %y = tt.load %xp, %m2, %zero : tensor<16x!tt.ptr<f32>>
  %s = arith.addf %x, %y : tensor<16xf32>
  tt.store %xp, %s : tensor<16x!tt.ptr<f32>>
  tt.return
}
