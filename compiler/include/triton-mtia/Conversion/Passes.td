//===- Passes.td - Conversions between our dialects --------*- tablegen -*-===//

#ifndef TRITON_MTIA_CONVERSION_PASSES
#define TRITON_MTIA_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTTToMTIA : Pass<"convert-tt-to-mtia", "::mlir::ModuleOp"> {
  let summary = "Lower Triton IR to commands on circular buffers";
  let description = [{
    Turns each `tt.func` into a `func.func` whose body is scalar code for the
    PE's RISC-V core plus `mtia` commands:

    * structured tensor-of-pointer loads and stores (base + affine offsets,
      masks that bound a box, `lo <= i < hi` per dimension) become N-D strided DMAs whose masks are
      effective extents; anything else becomes a gather or scatter over a
      materialized address tile;
    * elementwise math, reductions and index tensors that are needed as data
      run on the SIMD engine;
    * every tile value gets its own virtual circular buffer; the command
      after its last use pops it. Loop-carried tensors live in one CB that
      holds the current and the next iteration's tile.

    Ops the backend cannot run yet are errors at their source location.
  }];
  let options = [
    Option<"dmaReport", "dma-report", "bool", /*default=*/"false",
           "emit a remark for every load or store that does not become a "
           "strided DMA, saying why">,
    Option<"poisonMaskedLoads", "poison-masked-loads", "bool", /*default=*/"false",
           "fill masked-out lanes of loads without `other` with NaN (floats) "
           "or the most negative integer instead of zero, to expose kernels "
           "that use them">,
    Option<"indexMath", "index-math", "bool", /*default=*/"true",
           "recover Inductor's index math, `//` and `%` by constants that "
           "split a block into whole digits, as N-D DMAs (IndexMath.cpp); "
           "false leaves such accesses to gathers and scatters">,
    Option<"libdeviceUnit", "libdevice-unit", "std::string", /*default=*/"\"auto\"",
           "where libdevice calls run (the paper's 6.1.3): auto (the SE where "
           "it has a lookup table, else the vector core; the vector-core "
           "sharing may move them), se or vec (pinned there; math the SE has "
           "no table for stays on the vector core)">,
  ];
  let dependentDialects = ["::mlir::triton_mtia::mtia::MTIADialect",
                           "::mlir::func::FuncDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect", "::mlir::scf::SCFDialect"];
}

def ConvertMTIAToLLVM : Pass<"convert-mtia-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower mtia commands to calls through the device API (the LLVM IR path)";
  let description = [{
    The LLVM IR code generator's own step; the C++ emitter's counterpart.
    Each kernel (`func.func` with CBs assigned) becomes
    `mtia_kernel_NAME(Ctx *ctx, const Arg *args)` beside a constant
    `mtia_kernel_NAME_info`, as the C++ path exports them:

    * every mtia command becomes an indirect `llvm.call` through the
      `DeviceOps` table of `ctx`, its Box / Shape / Operand / VecStep
      arguments built in stack slots at the offsets device.h gives;
    * the core and source line the C++ path sets before a command are set
      the same way (IssuePath);
    * scalar ops whose meaning is device.h's (integer division and shifts,
      float -> integer, IEEE min / max, fp8 scalars) call the C functions of
      runtime/include/mtia/llvm_support.h.

    Scalar arith, math, scf and func ops are left to MLIR's conversions to
    the LLVM dialect.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // TRITON_MTIA_CONVERSION_PASSES
