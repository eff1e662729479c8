//===- TTTypes.td - Types and attributes of the tt dialect -*- tablegen -*-===//

#ifndef TRITON_MTIA_TT_TYPES
#define TRITON_MTIA_TT_TYPES

include "triton-mtia/Dialect/TT/IR/TTDialect.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// `!tt.ptr<f32>` (the global address space is the default and is not
/// printed), `!tt.ptr<f32, "constant">` (Triton 3.9's `tl.const` pointers:
/// address spaces are names) or `!tt.ptr<f32, 3>` (older Triton's numbered
/// spaces, kept as their number's spelling; 1 is global). Every space is
/// global memory on an MTIA PE: the space is kept only to print it back.
def TT_PointerType : TypeDef<TT_Dialect, "Pointer"> {
  let mnemonic = "ptr";
  let summary = "pointer to an element of global memory";
  let parameters = (ins "::mlir::Type":$pointeeType,
                        StringRefParameter<"address space", "\"global\"">:$addressSpace);
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType,
                                        CArg<"::llvm::StringRef", "\"global\"">:$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let skipDefaultBuilders = 1;
}

/// `!tt.tensordesc<32x32xf32>`: a descriptor of a block of a global tensor.
def TT_TensorDescType : TypeDef<TT_Dialect, "TensorDesc"> {
  let mnemonic = "tensordesc";
  let summary = "tensor descriptor";
  let parameters = (ins "::mlir::RankedTensorType":$blockType);
  let hasCustomAssemblyFormat = 1;
}

def TT_Ptr : Type<CPred<"::llvm::isa<::mlir::triton_mtia::tt::PointerType>($_self)">,
                  "tt pointer", "::mlir::triton_mtia::tt::PointerType">;
def TT_PtrLike : AnyTypeOf<[TT_Ptr, RankedTensorOf<[TT_Ptr]>]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def TT_ProgramIDDim : I32EnumAttr<"ProgramIDDim", "program id axis", [
    I32EnumAttrCase<"X", 0, "x">, I32EnumAttrCase<"Y", 1, "y">,
    I32EnumAttrCase<"Z", 2, "z">]> {
  let cppNamespace = "::mlir::triton_mtia::tt";
}

def TT_CacheModifier : I32EnumAttr<"CacheModifier", "cache modifier", [
    I32EnumAttrCase<"NONE", 1, "none">, I32EnumAttrCase<"CA", 2, "ca">,
    I32EnumAttrCase<"CG", 3, "cg">, I32EnumAttrCase<"WB", 4, "wb">,
    I32EnumAttrCase<"CS", 5, "cs">, I32EnumAttrCase<"WT", 6, "wt">,
    I32EnumAttrCase<"CV", 7, "cv">]> {
  let cppNamespace = "::mlir::triton_mtia::tt";
}

def TT_EvictionPolicy : I32EnumAttr<"EvictionPolicy", "eviction policy", [
    I32EnumAttrCase<"NORMAL", 1, "evict_normal">,
    I32EnumAttrCase<"EVICT_FIRST", 2, "evict_first">,
    I32EnumAttrCase<"EVICT_LAST", 3, "evict_last">]> {
  let cppNamespace = "::mlir::triton_mtia::tt";
}

def TT_RMWOp : I32EnumAttr<"RMWOp", "atomic read-modify-write kind", [
    I32EnumAttrCase<"AND", 1, "and">, I32EnumAttrCase<"OR", 2, "or">,
    I32EnumAttrCase<"XOR", 3, "xor">, I32EnumAttrCase<"ADD", 4, "add">,
    I32EnumAttrCase<"FADD", 5, "fadd">, I32EnumAttrCase<"MAX", 6, "max">,
    I32EnumAttrCase<"MIN", 7, "min">, I32EnumAttrCase<"UMAX", 8, "umax">,
    I32EnumAttrCase<"UMIN", 9, "umin">, I32EnumAttrCase<"XCHG", 10, "exch">]> {
  let cppNamespace = "::mlir::triton_mtia::tt";
}

def TT_MemSemantic : I32EnumAttr<"MemSemantic", "memory ordering", [
    I32EnumAttrCase<"RELAXED", 1, "relaxed">, I32EnumAttrCase<"ACQUIRE", 2, "acquire">,
    I32EnumAttrCase<"RELEASE", 3, "release">, I32EnumAttrCase<"ACQUIRE_RELEASE", 4, "acq_rel">]> {
  let cppNamespace = "::mlir::triton_mtia::tt";
}

def TT_MemSyncScope : I32EnumAttr<"MemSyncScope", "synchronization scope", [
    I32EnumAttrCase<"GPU", 1, "gpu">, I32EnumAttrCase<"CTA", 2, "cta">,
    I32EnumAttrCase<"SYSTEM", 3, "sys">]> {
  let cppNamespace = "::mlir::triton_mtia::tt";
}

def TT_InputPrecision : I32EnumAttr<"InputPrecision", "dot input precision", [
    I32EnumAttrCase<"TF32", 0, "tf32">, I32EnumAttrCase<"TF32x3", 1, "tf32x3">,
    I32EnumAttrCase<"IEEE", 2, "ieee">, I32EnumAttrCase<"BF16x3", 3, "bf16x3">,
    I32EnumAttrCase<"BF16x6", 4, "bf16x6">]> {
  let cppNamespace = "::mlir::triton_mtia::tt";
}

def TT_PropagateNan : I32EnumAttr<"PropagateNan", "NaN propagation of clampf", [
    I32EnumAttrCase<"NONE", 0, "none">, I32EnumAttrCase<"ALL", 65535, "all">]> {
  let cppNamespace = "::mlir::triton_mtia::tt";
}

def TT_ScaleDotElemType : I32EnumAttr<"ScaleDotElemType",
    "element format of a tt.dot_scaled operand", [
    I32EnumAttrCase<"E4M3", 0, "e4m3">, I32EnumAttrCase<"E5M2", 1, "e5m2">,
    I32EnumAttrCase<"E2M3", 2, "e2m3">, I32EnumAttrCase<"E3M2", 3, "e3m2">,
    I32EnumAttrCase<"E2M1", 4, "e2m1">, I32EnumAttrCase<"BF16", 5, "bf16">,
    I32EnumAttrCase<"FP16", 6, "fp16">]> {
  let cppNamespace = "::mlir::triton_mtia::tt";
}

def TT_RoundingMode : I32EnumAttr<"RoundingMode", "float rounding mode", [
    I32EnumAttrCase<"RTZ", 0, "rtz">, I32EnumAttrCase<"RTNE", 1, "rtne">]> {
  let cppNamespace = "::mlir::triton_mtia::tt";
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

/// `#tt.cache_policy<cache_modifier = cg, eviction_policy = evict_last>`
def TT_CachePolicyAttr : AttrDef<TT_Dialect, "CachePolicy"> {
  let mnemonic = "cache_policy";
  let summary = "cache hints of a load or store (no effect on MTIA)";
  let parameters = (ins EnumParameter<TT_CacheModifier>:$cache_modifier,
                        EnumParameter<TT_EvictionPolicy>:$eviction_policy);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // TRITON_MTIA_TT_TYPES
