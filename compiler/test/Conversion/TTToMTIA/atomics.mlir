// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s

// Tensor atomics: the pointers become an address tile (as for a gather), the
// mask an i1 tile; acq_rel puts a barrier on each side. The old values are
// not used, so no CB receives them.
// CHECK-LABEL: func.func @tensor_add(
// CHECK: mtia.barrier
// CHECK-NEXT: mtia.atomic_rmw "FAdd" {addrCb = [[A:[0-9]+]] : i64, cb = -1 : i64, elemType = f32, maskCb = [[M:[0-9]+]] : i64, shape = array<i64: 64>
// CHECK-NEXT: mtia.barrier
// CHECK-DAG: mtia.cb_pop {bytes = 512 : i64, cb = [[A]] : i64}
// CHECK-DAG: mtia.cb_pop {bytes = 64 : i64, cb = [[M]] : i64}
tt.func public @tensor_add(%out: !tt.ptr<f32>, %x: !tt.ptr<f32>, %n: i32) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %ns = tt.splat %n : i32 -> tensor<64xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<64xi32>
  %xp = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xpp = tt.addptr %xp, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %v = tt.load %xpp, %m : tensor<64x!tt.ptr<f32>>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %opp = tt.addptr %op, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %old = tt.atomic_rmw fadd, acq_rel, gpu, %opp, %v, %m : (tensor<64x!tt.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> tensor<64xf32>
  tt.return
}

// Float max as Triton emits it: integer max through a bitcast of the
// pointers, which keeps the same addresses.
// CHECK-LABEL: func.func @float_max(
// CHECK: mtia.atomic_rmw "Max" {addrCb = {{[0-9]+}} : i64, cb = -1 : i64, elemType = i32
tt.func public @float_max(%out: !tt.ptr<f32>, %x: !tt.ptr<f32>) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xp = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xpp = tt.addptr %xp, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %v = tt.load %xpp : tensor<64x!tt.ptr<f32>>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %opp = tt.addptr %op, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %vi = tt.bitcast %v : tensor<64xf32> -> tensor<64xi32>
  %pi = tt.bitcast %opp : tensor<64x!tt.ptr<f32>> -> tensor<64x!tt.ptr<i32>>
  %t = arith.constant dense<true> : tensor<64xi1>
  %old = tt.atomic_rmw max, acq_rel, gpu, %pi, %vi, %t : (tensor<64x!tt.ptr<i32>>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xi32>
  tt.return
}

// A spin lock: the CAS on a scalar pointer is a one-element command whose
// old value the core reads (blocking) inside an scf.while; the unlock is an
// exchange whose result is unused.
// CHECK-LABEL: func.func @spin_lock(
// CHECK-SAME: %[[L:.*]]: i64
// CHECK: scf.while
// CHECK: mtia.se "Copy" %[[L]] : i64 {cb = [[LA:[0-9]+]] : i64, elemType = i64, shape = array<i64>
// CHECK: mtia.atomic_cas %{{.*}}, %{{.*}} : i32, i32 {addrCb = [[LA]] : i64, cb = [[OLD:[0-9]+]] : i64, elemType = i32, shape = array<i64>
// CHECK: %[[V:.*]] = mtia.read {cb = [[OLD]] : i64, index = 0 : i64} : i32
// CHECK: %[[C:.*]] = arith.cmpi eq, %[[V]]
// CHECK: scf.condition(%[[C]])
// CHECK: mtia.atomic_rmw "Xchg"
// CHECK-SAME: cb = -1 : i64, elemType = i32, maskCb = -1 : i64
tt.func public @spin_lock(%lock: !tt.ptr<i32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %true = arith.constant true
  scf.while : () -> () {
    %o = tt.atomic_cas acq_rel, gpu, %lock, %c0, %c1 : (!tt.ptr<i32>, i32, i32) -> i32
    %b = arith.cmpi eq, %o, %c1 : i32
    scf.condition(%b)
  } do {
    scf.yield
  }
  %x = tt.atomic_rmw exch, acq_rel, gpu, %lock, %c0, %true : (!tt.ptr<i32>, i32, i1) -> i32
  tt.return
}

// Relaxed atomics need no barrier; a used scalar result is read back.
// CHECK-LABEL: func.func @relaxed_counter(
// CHECK-NOT: mtia.barrier
// CHECK: mtia.atomic_rmw "Add" %{{.*}} : i32 {addrCb = {{[0-9]+}} : i64, cb = [[R:[0-9]+]] : i64
// CHECK: mtia.read {cb = [[R]] : i64, index = 0 : i64} : i32
tt.func public @relaxed_counter(%c: !tt.ptr<i32>) {
  %c1 = arith.constant 1 : i32
  %true = arith.constant true
  %old = tt.atomic_rmw add, relaxed, gpu, %c, %c1, %true : (!tt.ptr<i32>, i32, i1) -> i32
  %p = tt.addptr %c, %c1 : !tt.ptr<i32>, i32
  tt.store %p, %old : !tt.ptr<i32>
  tt.return
}
