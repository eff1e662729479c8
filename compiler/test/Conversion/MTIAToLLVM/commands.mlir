// RUN: triton-mtia-opt %s --convert-mtia-to-llvm | FileCheck %s

// Each command is an indirect call through the DeviceOps table of `ctx`
// (the kernel's first argument), at the entry's offset in device.h; its
// Box, Shape and Operand arguments are built in stack slots of the entry
// block, one per struct the commands take. The scalar arguments are loads
// of 8-byte `Arg` slots. The offsets below are x86-64's (DeviceOps::dmaIn
// at 0, se at 32, cbPop at 56, fence at 200, mayAlias at 208; Ctx::line at
// 40, Ctx::programId at 16).

// The KernelInfo the runtime reads: ABI version, name, 4 arguments, 3 CBs.
// CHECK: llvm.mlir.global private constant @mtia_kernel_add_name("add\00")
// CHECK: llvm.mlir.global external constant @mtia_kernel_add_info()
// CHECK: llvm.mlir.constant(10 : i32)
// CHECK: llvm.mlir.addressof @mtia_kernel_add_name
// CHECK: llvm.mlir.constant(4 : i32)
// CHECK: llvm.mlir.constant(3 : i32)
// CHECK: llvm.mlir.constant(8192 : i64)

// CHECK-LABEL: func.func @mtia_kernel_add(
// CHECK-SAME: %[[CTX:.*]]: !llvm.ptr, %[[ARGS:.*]]: !llvm.ptr)
// CHECK: %[[BOX:.*]] = llvm.alloca %{{.*}} x i8 {alignment = 8 : i64}
// CHECK: %[[X:.*]] = llvm.load %[[ARGS]] : !llvm.ptr -> i64
// CHECK: %[[NSLOT:.*]] = llvm.getelementptr %[[ARGS]][24] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: %[[N64:.*]] = llvm.load %[[NSLOT]] : !llvm.ptr -> i64
// CHECK: llvm.trunc %[[N64]] : i64 to i32

// mtia.may_alias: DeviceOps::mayAlias, nonzero.
// CHECK: %[[OPS:.*]] = llvm.load %[[CTX]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[ENTRY:.*]] = llvm.getelementptr %[[OPS]][208]
// CHECK: %[[FN:.*]] = llvm.load %[[ENTRY]]
// CHECK: %[[MAY:.*]] = llvm.call %[[FN]](%[[CTX]], {{.*}}) : !llvm.ptr, (!llvm.ptr, i64, i64) -> i32
// CHECK: llvm.icmp "ne" %[[MAY]]

// mtia.program_id 0: Ctx::programId[0].
// CHECK: llvm.getelementptr %[[CTX]][16]
// CHECK: llvm.load {{.*}} : !llvm.ptr -> i32

// The line the command came from, then the DMA: rank 1, shape 1024,
// stride, valid, the pad (immInt(F32, 0)) in an Operand slot.
// CHECK: %[[LINE:.*]] = llvm.getelementptr %[[CTX]][40]
// CHECK: llvm.store {{.*}}, %[[LINE]] : i32, !llvm.ptr
// CHECK: llvm.store %{{.*}}, %[[BOX]] : i32, !llvm.ptr
// CHECK: %[[OPS2:.*]] = llvm.load %[[CTX]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DMA:.*]] = llvm.load %[[OPS2]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call %[[DMA]](%[[CTX]], {{.*}}, %[[BOX]], {{.*}}) : !llvm.ptr, (!llvm.ptr, i32, i32, i64, !llvm.ptr, !llvm.ptr) -> ()

// mtia.se "Add": DeviceOps::se with two operands.
// CHECK: llvm.getelementptr %{{.*}}[32] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.call %{{.*}}(%[[CTX]], {{.*}}) : !llvm.ptr, (!llvm.ptr, i32, i32, i32, !llvm.ptr, !llvm.ptr, i32) -> ()

// mtia.cb_pop: DeviceOps::cbPop.
// CHECK: llvm.getelementptr %{{.*}}[56] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.call %{{.*}}(%[[CTX]], {{.*}}) : !llvm.ptr, (!llvm.ptr, i32, i64) -> ()

// A conditional fence runs under scf.if.
// CHECK: scf.if
// CHECK: llvm.getelementptr %{{.*}}[200] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.call %{{.*}}(%[[CTX]], {{.*}}) : !llvm.ptr, (!llvm.ptr, i32) -> ()
// CHECK-NOT: mtia.
module {
  func.func @add(%arg0: i64 {mtia.pointer}, %arg1: i64 {mtia.pointer}, %arg2: i64 {mtia.pointer}, %arg3: i32) attributes {mtia.cb_capacity = array<i64: 8192, 8192, 8192>} {
    %0 = mtia.may_alias %arg1, %arg2
    %1 = mtia.may_alias %arg0, %arg2
    %2 = arith.ori %1, %0 : i1
    %c1024_i64 = arith.constant 1024 : i64
    %c4_i64 = arith.constant 4 : i64
    %c1_i64 = arith.constant 1 : i64
    %c0_i64 = arith.constant 0 : i64
    %c1024_i32 = arith.constant 1024 : i32
    %3 = mtia.program_id 0 : i32
    %4 = arith.muli %3, %c1024_i32 : i32
    %5 = arith.extsi %4 : i32 to i64
    %6 = arith.muli %5, %c4_i64 : i64
    %7 = arith.addi %arg0, %6 : i64
    %8 = arith.extsi %arg3 : i32 to i64
    %9 = arith.subi %8, %5 : i64
    %10 = arith.maxsi %9, %c0_i64 : i64
    %11 = arith.minsi %10, %c1024_i64 : i64
    mtia.dma_in %7 strides(%c1_i64) valid(%11) {cb = 0 : i64, elemType = f32, shape = array<i64: 1024>} loc("k.py":10:1)
    %12 = arith.addi %arg1, %6 : i64
    mtia.dma_in %12 strides(%c1_i64) valid(%11) {cb = 1 : i64, elemType = f32, shape = array<i64: 1024>} loc("k.py":11:1)
    mtia.se "Add" {cb = 2 : i64, elemType = f32, shape = array<i64: 1024>, srcs = [#mtia.view<cb = 0, elemType = f32, offset = 0, strides = 1>, #mtia.view<cb = 1, elemType = f32, offset = 0, strides = 1>]} loc("k.py":12:1)
    mtia.cb_pop {bytes = 4096 : i64, cb = 0 : i64} loc("k.py":12:1)
    mtia.cb_pop {bytes = 4096 : i64, cb = 1 : i64} loc("k.py":12:1)
    %13 = arith.addi %arg2, %6 : i64
    mtia.fence "stores_after_loads" if %2 loc("k.py":13:1)
    mtia.dma_out %13 strides(%c1_i64) valid(%11) {cb = 2 : i64, elemType = f32, shape = array<i64: 1024>} loc("k.py":13:1)
    mtia.cb_pop {bytes = 4096 : i64, cb = 2 : i64} loc("k.py":13:1)
    return
  }
}
