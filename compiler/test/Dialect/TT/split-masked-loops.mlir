// RUN: triton-mtia-opt %s --tt-split-masked-loops --split-input-file | FileCheck %s

// A row in chunks of 256 with `where(cols < n, x, 0)`: cols = start + [0,
// 255] is all below n while start + 255 < n, i.e. start <= T = n - 256. The
// loop is split at s = lb + (T < lb ? 0 : (T - lb) / step + 1) * step (in
// 64 bits), min(s, ub), or at lb when that leaves the first loop fewer than
// 4 iterations (not worth a second pipeline start): the first loop, with the comparison true, loads
// without a mask and selects nothing; the second runs as written from the
// first one's result.
// CHECK-LABEL: tt.func @masked_chunks
// CHECK-SAME: (%[[X:.*]]: !tt.ptr<f32>, %[[N:.*]]: i32)
// CHECK: %[[N64:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK: %[[K:.*]] = arith.constant -256 : i64
// CHECK: %[[T:.*]] = arith.addi %[[N64]], %[[K]] : i64
// CHECK: %[[Q:.*]] = arith.divsi %{{.*}}, %{{.*}} : i64
// CHECK: %[[NONE:.*]] = arith.cmpi slt, %[[T]], %{{.*}} : i64
// CHECK: %[[S:.*]] = arith.addi
// CHECK: %[[CLAMPED:.*]] = arith.minsi %[[S]], %{{.*}} : i64
// CHECK: %[[PREFIX:.*]] = arith.subi %[[CLAMPED]], %[[LB:.*]] : i64
// CHECK: %[[FOUR:.*]] = arith.constant 4 : i64
// CHECK: %[[MIN:.*]] = arith.muli %{{.*}}, %[[FOUR]] : i64
// CHECK: %[[SHORT:.*]] = arith.cmpi slt, %[[PREFIX]], %[[MIN]] : i64
// CHECK: %[[SPLIT64:.*]] = arith.select %[[SHORT]], %[[LB]], %[[CLAMPED]] : i64
// CHECK: %[[SPLIT:.*]] = arith.trunci %[[SPLIT64]] : i64 to i32
// CHECK: %[[FIRST:.*]] = scf.for %{{.*}} = %{{.*}} to %[[SPLIT]] step %{{.*}} iter_args(%[[A:.*]] = %{{.*}})
// CHECK-NOT: arith.cmpi
// CHECK-NOT: arith.select
// CHECK: tt.load %{{.*}} : tensor<256x!tt.ptr<f32>>
// CHECK-NOT: arith.select
// CHECK: scf.yield
// CHECK: %[[REST:.*]] = scf.for %{{.*}} = %[[SPLIT]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[FIRST]])
// CHECK: arith.cmpi slt
// CHECK: tt.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<256x!tt.ptr<f32>>
// CHECK: arith.select
// CHECK: tt.return %[[REST]]
tt.func @masked_chunks(%x: !tt.ptr<f32>, %n: i32) -> tensor<256xf32> {
  %c0 = arith.constant 0 : i32
  %c256 = arith.constant 256 : i32
  %zero = arith.constant dense<0.0> : tensor<256xf32>
  %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %ns = tt.splat %n : i32 -> tensor<256xi32>
  %xp = tt.splat %x : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %acc = scf.for %start = %c0 to %n step %c256 iter_args(%a = %zero) -> (tensor<256xf32>) : i32 {
    %s = tt.splat %start : i32 -> tensor<256xi32>
    %cols = arith.addi %s, %r : tensor<256xi32>
    %m = arith.cmpi slt, %cols, %ns : tensor<256xi32>
    %p = tt.addptr %xp, %cols : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %v = tt.load %p, %m, %zero : tensor<256x!tt.ptr<f32>>
    %w = arith.select %m, %v, %zero : tensor<256xi1>, tensor<256xf32>
    %next = arith.addf %a, %w : tensor<256xf32>
    scf.yield %next : tensor<256xf32>
  }
  tt.return %acc : tensor<256xf32>
}

// -----

// Causal attention's masks: kv = start_n + [0, 63] against the sequence end
// (kv < n: start_n <= n - 64) and the diagonal (offs_m >= kv, offs_m =
// start_m + [0, 63]: start_n <= start_m - 63), through expand_dims,
// broadcast and an `and`. The prefix is where both hold (the least bound);
// there the `and`, both comparisons and the select fold away.
// CHECK-LABEL: tt.func @causal
// CHECK: %[[T1:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK: %[[T2:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK: arith.minsi %[[T1]], %[[T2]] : i64
// CHECK: scf.for
// CHECK-NOT: arith.cmpi
// CHECK-NOT: arith.andi
// CHECK-NOT: arith.select
// CHECK: scf.yield
// CHECK: scf.for
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi sge
// CHECK: arith.andi
// CHECK: arith.select
tt.func @causal(%qk: tensor<64x64xf32>, %start_m: i32, %n: i32, %hi: i32) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32>
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %sm = tt.splat %start_m : i32 -> tensor<64xi32>
  %offs_m = arith.addi %sm, %r : tensor<64xi32>
  %om = tt.expand_dims %offs_m {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %omb = tt.broadcast %om : tensor<64x1xi32> -> tensor<64x64xi32>
  %ns = tt.splat %n : i32 -> tensor<1x64xi32>
  %out = scf.for %start_n = %c0 to %hi step %c64 iter_args(%a = %qk) -> (tensor<64x64xf32>) : i32 {
    %s = tt.splat %start_n : i32 -> tensor<64xi32>
    %kv = arith.addi %s, %r : tensor<64xi32>
    %kv0 = tt.expand_dims %kv {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %inb = arith.cmpi slt, %kv0, %ns : tensor<1x64xi32>
    %kvb = tt.broadcast %kv0 : tensor<1x64xi32> -> tensor<64x64xi32>
    %diag = arith.cmpi sge, %omb, %kvb : tensor<64x64xi32>
    %inbb = tt.broadcast %inb : tensor<1x64xi1> -> tensor<64x64xi1>
    %valid = arith.andi %inbb, %diag : tensor<64x64xi1>
    %masked = arith.select %valid, %a, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
    scf.yield %masked : tensor<64x64xf32>
  }
  tt.return %out : tensor<64x64xf32>
}

// -----

// Masks the DMA applies (a load's, a store's) cost nothing to compute: no
// second copy of the loop for them.
// CHECK-LABEL: tt.func @load_mask_only
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: tt.return
tt.func @load_mask_only(%x: !tt.ptr<f32>, %n: i32) -> tensor<256xf32> {
  %c0 = arith.constant 0 : i32
  %c256 = arith.constant 256 : i32
  %zero = arith.constant dense<0.0> : tensor<256xf32>
  %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %ns = tt.splat %n : i32 -> tensor<256xi32>
  %xp = tt.splat %x : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %acc = scf.for %start = %c0 to %n step %c256 iter_args(%a = %zero) -> (tensor<256xf32>) : i32 {
    %s = tt.splat %start : i32 -> tensor<256xi32>
    %cols = arith.addi %s, %r : tensor<256xi32>
    %m = arith.cmpi slt, %cols, %ns : tensor<256xi32>
    %p = tt.addptr %xp, %cols : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %v = tt.load %p, %m, %zero : tensor<256x!tt.ptr<f32>>
    %next = arith.addf %a, %v : tensor<256xf32>
    scf.yield %next : tensor<256xf32>
  }
  tt.return %acc : tensor<256xf32>
}

// -----

// The induction variable on the larger side (start + [0, 255] >= lo) holds
// on a suffix of the iterations, not a prefix: left alone.
// CHECK-LABEL: tt.func @lower_bound_mask
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: arith.select
tt.func @lower_bound_mask(%lo: i32, %n: i32) -> tensor<256xf32> {
  %c0 = arith.constant 0 : i32
  %c256 = arith.constant 256 : i32
  %zero = arith.constant dense<0.0> : tensor<256xf32>
  %one = arith.constant dense<1.0> : tensor<256xf32>
  %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %los = tt.splat %lo : i32 -> tensor<256xi32>
  %acc = scf.for %start = %c0 to %n step %c256 iter_args(%a = %zero) -> (tensor<256xf32>) : i32 {
    %s = tt.splat %start : i32 -> tensor<256xi32>
    %cols = arith.addi %s, %r : tensor<256xi32>
    %m = arith.cmpi sge, %cols, %los : tensor<256xi32>
    %w = arith.select %m, %one, %zero : tensor<256xi1>, tensor<256xf32>
    %next = arith.addf %a, %w : tensor<256xf32>
    scf.yield %next : tensor<256xf32>
  }
  tt.return %acc : tensor<256xf32>
}
