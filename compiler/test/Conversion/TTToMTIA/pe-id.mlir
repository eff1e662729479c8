// RUN: triton-mtia-opt %s --convert-tt-to-mtia --canonicalize --cse | FileCheck %s
// RUN: triton-mtia-compile %s -o - --no-dual-issue | FileCheck %s --check-prefix=CPP

// The language extension's PE queries (mtl.get_pe_id, mtl.get_pe_grid_size)
// arrive as extern calls of reserved symbols on a constant axis and become
// the PE's own ids, read from the program's context.
// CHECK-LABEL: func.func @pe_ids(
// CHECK-DAG: mtia.pe_id 0 : i32
// CHECK-DAG: mtia.pe_id 1 : i32
// CHECK-DAG: mtia.pe_grid_size 1 : i32
// CHECK-NOT: __mtia_get_pe
// CPP-DAG: = peId(ctx, 0);
// CPP-DAG: = peId(ctx, 1);
// CPP-DAG: = peGridSize(ctx, 1);
tt.func public @pe_ids(%out: !tt.ptr<i32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %row = tt.extern_elementwise %c0 {libname = "", libpath = "", pure = true, symbol = "__mtia_get_pe_id"} : (i32) -> i32
  %col = tt.extern_elementwise %c1 {libname = "", libpath = "", pure = true, symbol = "__mtia_get_pe_id"} : (i32) -> i32
  %cols = tt.extern_elementwise %c1 {libname = "", libpath = "", pure = true, symbol = "__mtia_get_pe_grid_size"} : (i32) -> i32
  %linear = arith.muli %row, %cols : i32
  %pe = arith.addi %linear, %col : i32
  %p = tt.addptr %out, %pe : !tt.ptr<i32>, i32
  tt.store %p, %pe : !tt.ptr<i32>
  tt.return
}
