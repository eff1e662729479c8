// RUN: triton-mtia-compile %s --from-mtia -o - | FileCheck %s
// RUN: triton-mtia-compile %s --from-mtia --emit-llvm -o - | FileCheck %s --check-prefix=LLVM

// The emitters from the mtia level, no pass run (--from-mtia): a load of a
// masked box, an SE command on two views of its tile, a fenced store, the
// pops. Each op is one device-API call in the C++ and one call through the
// device table in the LLVM IR; the CB capacities become the kernel's info.

module {
  func.func @square(%x: i64 {mtia.pointer}, %out: i64 {mtia.pointer}, %n: i32)
      attributes {mtia.cb_capacity = array<i64: 65536, 65536>} {
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : i64
    %c8192 = arith.constant 8192 : i64
    %alias = mtia.may_alias %x, %out
    %n64 = arith.extsi %n : i32 to i64
    %pos = arith.maxsi %n64, %c0 : i64
    %valid = arith.minsi %pos, %c8192 : i64
    mtia.dma_in %x strides(%c1) valid(%valid) {cb = 0 : i64, elemType = f32, shape = array<i64: 8192>}
    mtia.se "Mul" valid(%valid) {cb = 1 : i64, elemType = f32, shape = array<i64: 8192>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>, #mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>]}
    mtia.cb_pop {bytes = 32768 : i64, cb = 0 : i64}
    mtia.fence "stores_after_loads" if %alias
    mtia.dma_out %out strides(%c1) valid(%valid) {cb = 1 : i64, elemType = f32, shape = array<i64: 8192>}
    mtia.cb_pop {bytes = 32768 : i64, cb = 1 : i64}
    return
  }
}

// CHECK: /*cbCapacity=*/{65536, 65536}
// CHECK: extern "C" void mtia_kernel_square(Ctx *ctx, const Arg *args)
// CHECK: mayAlias(ctx,
// CHECK: dmaIn(ctx, /*cb=*/0, DType::F32,
// CHECK: SeOp::Mul
// CHECK: cbPop(ctx, /*cb=*/0, 32768);
// CHECK: fence(ctx,
// CHECK: dmaOut(ctx, /*cb=*/1, DType::F32,
// CHECK: cbPop(ctx, /*cb=*/1, 32768);

// LLVM: @mtia_kernel_square_info = constant {{.*}} [15 x i64] [i64 65536, i64 65536,
// LLVM: define void @mtia_kernel_square(ptr %0, ptr %1)
// The device-table calls in op order: dmaIn (cb 0), se, cbPop 0, fence, dmaOut (cb 1).
// LLVM: call void %{{[0-9]+}}(ptr %0, i32 0, i32 7, i64
// LLVM: call void %{{[0-9]+}}(ptr %0, i32 {{[0-9]+}}, i32 1, i32 7,
// LLVM: call void %{{[0-9]+}}(ptr %0, i32 0, i64 32768)
// LLVM: call void %{{[0-9]+}}(ptr %0, i32 2)
// LLVM: call void %{{[0-9]+}}(ptr %0, i32 1, i32 7, i64
