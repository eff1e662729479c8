//===- MTIAOps.td - The mtia command dialect ---------------*- tablegen -*-===//
//
// `mtia` is the level at which a kernel is a scalar program for the PE's
// RISC-V core that issues commands to fixed-function units. Tensors are gone:
// every tile lives in a circular buffer (CB), named by an integer id, and
// every op below is one command of runtime/include/mtia/device.h. Scalar code
// (arith, math, scf) stays in upstream dialects. See docs/dialects/mtia.md.
//
// CB ids are virtual after tt-to-mtia (one per tile value) and physical
// (< 15) after mtia-assign-cbs.
//
//===----------------------------------------------------------------------===//

#ifndef TRITON_MTIA_MTIA_OPS
#define TRITON_MTIA_MTIA_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def MTIA_Dialect : Dialect {
  let name = "mtia";
  let cppNamespace = "::mlir::triton_mtia::mtia";
  let summary = "commands of an MTIA processing element on circular buffers";
  let useDefaultAttributePrinterParser = 1;
}

class MTIA_Op<string mnemonic, list<Trait> traits = []>
    : Op<MTIA_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

/// A strided view of the front of a CB, read by an SE command:
/// `#mtia.view<cb = 3, elemType = f32, offset = 0, strides = [1, 0]>`.
def MTIA_ViewAttr : AttrDef<MTIA_Dialect, "View"> {
  let mnemonic = "view";
  let parameters = (ins "int64_t":$cb, "::mlir::Type":$elemType,
                        "int64_t":$offset,
                        ArrayRefParameter<"int64_t">:$strides);
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// The same view reading another CB.
    ViewAttr withCb(int64_t newCb) const {
      return get(getContext(), newCb, getElemType(), getOffset(), getStrides());
    }
  }];
}

/// Placeholder in an SE command's source list for "the next immediate
/// operand" (a scalar from a core register).
def MTIA_ImmAttr : AttrDef<MTIA_Dialect, "Imm"> {
  let mnemonic = "imm";
}

//===----------------------------------------------------------------------===//
// Program ids
//===----------------------------------------------------------------------===//

def MTIA_ProgramIdOp : MTIA_Op<"program_id", [Pure]> {
  let arguments = (ins I32Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def MTIA_NumProgramsOp : MTIA_Op<"num_programs", [Pure]> {
  let arguments = (ins I32Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Fabric interface (DMA)
//===----------------------------------------------------------------------===//

def MTIA_DmaInOp : MTIA_Op<"dma_in", [AttrSizedOperandSegments]> {
  let summary = "N-D strided block of memory -> a new tile at the back of a CB";
  let description = [{
    Only the leading `valid[d]` elements of each dimension move; the rest of
    the dense tile of `shape` takes `pad` (zero if absent). Strides are in
    elements.
  }];
  let arguments = (ins I64:$addr, Variadic<I64>:$strides, Variadic<I64>:$valid,
                       Optional<AnyType>:$pad, I64Attr:$cb, TypeAttr:$elemType,
                       DenseI64ArrayAttr:$shape);
  let assemblyFormat = [{
    $addr `strides` `(` $strides `)` `valid` `(` $valid `)` (`pad` $pad^ `:` type($pad))?
    attr-dict
  }];
  let hasVerifier = 1;
}

def MTIA_DmaOutOp : MTIA_Op<"dma_out", [AttrSizedOperandSegments]> {
  let summary = "the valid part of the front tile of a CB -> N-D strided memory";
  let arguments = (ins I64:$addr, Variadic<I64>:$strides, Variadic<I64>:$valid,
                       I64Attr:$cb, TypeAttr:$elemType, DenseI64ArrayAttr:$shape);
  let assemblyFormat = [{
    $addr `strides` `(` $strides `)` `valid` `(` $valid `)` attr-dict
  }];
  let hasVerifier = 1;
}

def MTIA_GatherInOp : MTIA_Op<"gather_in"> {
  let summary = "per-element addresses (an i64 tile) -> a new tile";
  let arguments = (ins Optional<AnyType>:$pad, I64Attr:$cb, I64Attr:$addrCb,
                       I64Attr:$maskCb, TypeAttr:$elemType,
                       DenseI64ArrayAttr:$shape);
  let assemblyFormat = "(`pad` $pad^ `:` type($pad))? attr-dict";
}

def MTIA_ScatterOutOp : MTIA_Op<"scatter_out"> {
  let summary = "the front tile of a CB -> per-element addresses";
  let arguments = (ins I64Attr:$cb, I64Attr:$addrCb, I64Attr:$maskCb,
                       TypeAttr:$elemType, DenseI64ArrayAttr:$shape);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// SIMD engine
//===----------------------------------------------------------------------===//

def MTIA_SeOp : MTIA_Op<"se"> {
  let summary = "elementwise SIMD Engine command; result appended to `cb`";
  let description = [{
    `srcs` lists the operands in order: a `#mtia.view` reads a CB, a
    `#mtia.imm` takes the next of `imms`. `opcode` is a name from
    runtime/include/mtia/se_ops.def.
  }];
  let arguments = (ins Variadic<AnyType>:$imms, StrAttr:$opcode, I64Attr:$cb,
                       TypeAttr:$elemType, DenseI64ArrayAttr:$shape,
                       ArrayAttr:$srcs);
  let assemblyFormat = "$opcode ($imms^ `:` type($imms))? attr-dict";
  let hasVerifier = 1;
}

def MTIA_SeReduceOp : MTIA_Op<"se_reduce"> {
  let summary = "SIMD Engine reduction of a view along an axis";
  let arguments = (ins StrAttr:$kind, I64Attr:$cb, TypeAttr:$elemType,
                       DenseI64ArrayAttr:$shape, I64Attr:$axis, MTIA_ViewAttr:$src);
  let assemblyFormat = "$kind attr-dict";
}

def MTIA_SeIotaOp : MTIA_Op<"se_iota"> {
  let summary = "appends the 1-D tile start, start+1, ... to `cb`";
  let arguments = (ins I64Attr:$cb, TypeAttr:$elemType, I64Attr:$length,
                       I64Attr:$start);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Command processor and core
//===----------------------------------------------------------------------===//

def MTIA_CbPopOp : MTIA_Op<"cb_pop"> {
  let summary = "release bytes at the front of a CB after its earlier readers";
  let arguments = (ins I64Attr:$cb, I64Attr:$bytes);
  let assemblyFormat = "attr-dict";
}

def MTIA_ReadOp : MTIA_Op<"read"> {
  let summary = "the core reads one element of the front of a CB (blocking)";
  let arguments = (ins I64Attr:$cb, I64Attr:$index);
  let results = (outs AnyType:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

#endif // TRITON_MTIA_MTIA_OPS
