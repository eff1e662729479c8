// RUN: triton-mtia-opt %s --tt-i1-arith-to-logic | FileCheck %s

// Sums of comparisons wrap as 1-bit integers: true + true = false.
// CHECK-LABEL: tt.func @add_sub_mul
// CHECK-SAME: (%[[X:.*]]: tensor<16xi1>, %[[Y:.*]]: tensor<16xi1>)
// CHECK-NEXT: %[[A:.*]] = arith.xori %[[X]], %[[Y]] : tensor<16xi1>
// CHECK-NEXT: %[[S:.*]] = arith.xori %[[A]], %[[Y]] : tensor<16xi1>
// CHECK-NEXT: %[[M:.*]] = arith.andi %[[S]], %[[X]] : tensor<16xi1>
// CHECK-NEXT: tt.return %[[M]]
tt.func @add_sub_mul(%x: tensor<16xi1>, %y: tensor<16xi1>) -> tensor<16xi1> {
  %a = arith.addi %x, %y : tensor<16xi1>
  %s = arith.subi %a, %y : tensor<16xi1>
  %m = arith.muli %s, %x : tensor<16xi1>
  tt.return %m : tensor<16xi1>
}

// Signed, true is -1 and the least value; unsigned, it is 1 and the greatest.
// CHECK-LABEL: tt.func @min_max
// CHECK: arith.andi %arg0, %arg1 : i1
// CHECK: arith.ori %arg0, %arg1 : i1
// CHECK: arith.ori %arg0, %arg1 : i1
// CHECK: arith.andi %arg0, %arg1 : i1
// CHECK-NOT: arith.m
tt.func @min_max(%x: i1, %y: i1) -> (i1, i1, i1, i1) {
  %0 = arith.maxsi %x, %y : i1
  %1 = arith.minsi %x, %y : i1
  %2 = arith.maxui %x, %y : i1
  %3 = arith.minui %x, %y : i1
  tt.return %0, %1, %2, %3 : i1, i1, i1, i1
}

// x / 0 = -1 and x % 0 = x (device.h), x / 1 = x, x % 1 = 0; shifts by 1
// are by the width: 0, or the sign for shrsi.
// CHECK-LABEL: tt.func @div_rem_shift
// CHECK: %[[T:.*]] = arith.constant dense<true> : tensor<4xi1>
// CHECK: %[[NY:.*]] = arith.xori %arg1, %[[T]]
// CHECK: %[[D:.*]] = arith.ori %arg0, %[[NY]]
// CHECK: arith.andi %arg0, %{{.*}}
// CHECK: arith.andi %arg0, %{{.*}}
// CHECK: tt.return %[[D]], %{{.*}}, %{{.*}}, %arg0
tt.func @div_rem_shift(%x: tensor<4xi1>, %y: tensor<4xi1>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %d = arith.divsi %x, %y : tensor<4xi1>
  %r = arith.remui %x, %y : tensor<4xi1>
  %l = arith.shli %x, %y : tensor<4xi1>
  %a = arith.shrsi %x, %y : tensor<4xi1>
  tt.return %d, %r, %l, %a : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// A reduce region's combine is rewritten too; wider integers are left alone.
// CHECK-LABEL: tt.func @reduce_parity
// CHECK: tt.reduce
// CHECK: arith.xori
// CHECK: arith.addi %{{.*}} : i32
tt.func @reduce_parity(%x: tensor<8xi1>, %n: i32) -> (i1, i32) {
  %r = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: i1, %b: i1):
    %s = arith.addi %a, %b : i1
    tt.reduce.return %s : i1
  }) : (tensor<8xi1>) -> i1
  %w = arith.addi %n, %n : i32
  tt.return %r, %w : i1, i32
}
