//===- TTOps.td - Operations of the tt dialect -------------*- tablegen -*-===//
//
// Each op carries the name, operands, attributes and textual syntax that
// upstream Triton prints. Verifiers check only what our lowering relies on.
//
//===----------------------------------------------------------------------===//

#ifndef TRITON_MTIA_TT_OPS
#define TRITON_MTIA_TT_OPS

include "triton-mtia/Dialect/TT/IR/TTTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

def TT_FuncOp : TT_Op<"func", [AutomaticAllocationScope, FunctionOpInterface,
                               IsolatedFromAbove]> {
  let summary = "a Triton kernel or device function";
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return isExternal() ? nullptr : &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
  }];
}

def TT_ReturnOp : TT_Op<"return", [Pure, ReturnLike, Terminator]> {
  let summary = "return from a tt.func";
  let arguments = (ins Variadic<AnyType>:$srcs);
  let assemblyFormat = "attr-dict ($srcs^ `:` type($srcs))?";
}

def TT_CallOp : TT_Op<"call", [CallOpInterface,
                               DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "call of a noinline device function";
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$operands,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let results = (outs Variadic<AnyType>);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, results)
  }];
  let extraClassDeclaration = [{
    operand_range getArgOperands() { return getOperands(); }
    ::mlir::MutableOperandRange getArgOperandsMutable() { return getOperandsMutable(); }
    ::mlir::CallInterfaceCallable getCallableForCallee() { return (*this)->getAttrOfType<::mlir::SymbolRefAttr>("callee"); }
    void setCalleeFromCallable(::mlir::CallInterfaceCallable callee) {
      (*this)->setAttr("callee", ::llvm::cast<::mlir::SymbolRefAttr>(callee));
    }
  }];
}

//===----------------------------------------------------------------------===//
// Program ids
//===----------------------------------------------------------------------===//

def TT_GetProgramIdOp : TT_Op<"get_program_id", [Pure]> {
  let arguments = (ins TT_ProgramIDDim:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def TT_GetNumProgramsOp : TT_Op<"get_num_programs", [Pure]> {
  let arguments = (ins TT_ProgramIDDim:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def TT_MakeRangeOp : TT_Op<"make_range", [Pure]> {
  let summary = "the 1-D tensor start, start+1, ..., end-1";
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def TT_SplatOp : TT_Op<"splat", [Pure]> {
  let arguments = (ins AnyType:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def TT_BroadcastOp : TT_Op<"broadcast", [Pure]> {
  let arguments = (ins AnyRankedTensor:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def TT_ExpandDimsOp : TT_Op<"expand_dims", [Pure]> {
  let arguments = (ins AnyRankedTensor:$src, I32Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def TT_ReshapeOp : TT_Op<"reshape", [Pure]> {
  let arguments = (ins AnyRankedTensor:$src, UnitAttr:$allow_reorder,
                       UnitAttr:$efficient_layout);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $src (`allow_reorder` $allow_reorder^)? (`efficient_layout` $efficient_layout^)?
    attr-dict `:` type($src) `->` type($result)
  }];
}

def TT_TransOp : TT_Op<"trans", [Pure]> {
  let arguments = (ins AnyRankedTensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def TT_JoinOp : TT_Op<"join", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
}

// tl.cat(a, b, can_reorder=True): the two tensors along dimension 0, in any
// element order (tt-decompose-cat chooses a then b).
def TT_CatOp : TT_Op<"cat", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def TT_SplitOp : TT_Op<"split", [Pure, AllTypesMatch<["outLHS", "outRHS"]>]> {
  let arguments = (ins AnyRankedTensor:$src);
  let results = (outs AnyRankedTensor:$outLHS, AnyRankedTensor:$outRHS);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($outLHS)";
}

def TT_UnsplatOp : TT_Op<"unsplat", [Pure,
    TypesMatchWith<"result is the element type of src", "src", "result",
                   "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "the scalar of a one-element tensor";
  let description = [{
    `x.item()`, a reshape to no dimensions, and `tl.split` of a 2-element
    tensor into two scalars.
  }];
  let arguments = (ins AnyRankedTensor:$src);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def TT_AddPtrOp : TT_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "pointer plus an element offset";
  let arguments = (ins TT_PtrLike:$ptr, AnyType:$offset);
  let results = (outs TT_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)";
}

def TT_LoadOp : TT_Op<"load", [MemoryEffects<[MemRead]>,
    TypesMatchWith<"mask has the pointer's shape with i1 elements", "ptr", "mask",
                   "::mlir::triton_mtia::tt::getI1SameShape($_self)",
                   "($_op.getOperands().size() <= 1) || std::equal_to<>()">,
    TypesMatchWith<"other has the result type", "ptr", "other",
                   "::mlir::triton_mtia::tt::getPointeeType($_self)",
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">,
    TypesMatchWith<"result is the pointee type", "ptr", "result",
                   "::mlir::triton_mtia::tt::getPointeeType($_self)">,
    AttrSizedOperandSegments]> {
  let arguments = (ins TT_PtrLike:$ptr, Optional<AnyType>:$mask,
                       Optional<AnyType>:$other,
                       OptionalAttr<TT_CachePolicyAttr>:$cachePolicy,
                       DefaultValuedAttr<BoolAttr, "false">:$isVolatile);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)? attr-dict `:` type($ptr)
  }];
}

def TT_StoreOp : TT_Op<"store", [MemoryEffects<[MemWrite]>,
    TypesMatchWith<"value is the pointee type", "ptr", "value",
                   "::mlir::triton_mtia::tt::getPointeeType($_self)">,
    TypesMatchWith<"mask has the pointer's shape with i1 elements", "ptr", "mask",
                   "::mlir::triton_mtia::tt::getI1SameShape($_self)",
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">]> {
  let arguments = (ins TT_PtrLike:$ptr, AnyType:$value, Optional<AnyType>:$mask,
                       OptionalAttr<TT_CachePolicyAttr>:$cachePolicy);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)? attr-dict `:` type($ptr)
  }];
}

def TT_AtomicRMWOp : TT_Op<"atomic_rmw", [MemoryEffects<[MemRead, MemWrite]>]> {
  let arguments = (ins TT_RMWOp:$atomic_rmw_op, TT_MemSemantic:$sem,
                       TT_MemSyncScope:$scope, TT_PtrLike:$ptr, AnyType:$val,
                       Optional<AnyType>:$mask);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $atomic_rmw_op `,` $sem `,` $scope `,` $ptr `,` $val (`,` $mask^)? attr-dict `:`
    functional-type(operands, $result)
  }];
}

def TT_AtomicCASOp : TT_Op<"atomic_cas", [MemoryEffects<[MemRead, MemWrite]>]> {
  let arguments = (ins TT_MemSemantic:$sem, TT_MemSyncScope:$scope,
                       TT_PtrLike:$ptr, AnyType:$cmp, AnyType:$val);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $sem `,` $scope `,` $ptr `,` $cmp `,` $val attr-dict `:`
    functional-type(operands, $result)
  }];
}

def TT_IntToPtrOp : TT_Op<"int_to_ptr", [Pure]> {
  let arguments = (ins AnyType:$src);
  let results = (outs TT_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def TT_PtrToIntOp : TT_Op<"ptr_to_int", [Pure]> {
  let arguments = (ins TT_PtrLike:$src);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def TT_BitcastOp : TT_Op<"bitcast", [Pure]> {
  let arguments = (ins AnyType:$src);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def TT_FpToFpOp : TT_Op<"fp_to_fp", [Pure]> {
  let arguments = (ins AnyType:$src, OptionalAttr<TT_RoundingMode>:$rounding);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $src attr-dict (`,` `rounding` `=` $rounding^)? `:` type($src) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

def TT_MakeTensorDescOp : TT_Op<"make_tensor_descriptor", [Pure, SameVariadicOperandSize]> {
  let arguments = (ins TT_Ptr:$base, Variadic<I32>:$shape, Variadic<I64>:$strides);
  let results = (outs TT_TensorDescType:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` attr-dict `:` type($base) `,` type($result)
  }];
}

def TT_DescriptorLoadOp : TT_Op<"descriptor_load", [MemoryEffects<[MemRead]>]> {
  let arguments = (ins TT_TensorDescType:$desc, Variadic<I32>:$indices,
                       OptionalAttr<TT_CachePolicyAttr>:$cachePolicy);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $desc `[` $indices `]` attr-dict `:` qualified(type($desc)) `->` type($result)
  }];
}

def TT_DescriptorStoreOp : TT_Op<"descriptor_store", [MemoryEffects<[MemWrite]>]> {
  let arguments = (ins TT_TensorDescType:$desc, Variadic<I32>:$indices,
                       AnyRankedTensor:$src);
  let assemblyFormat = [{
    $desc `[` $indices `]` `,` $src attr-dict `:` qualified(type($desc)) `,` type($src)
  }];
}

//===----------------------------------------------------------------------===//
// Computation
//===----------------------------------------------------------------------===//

def TT_DotOp : TT_Op<"dot", [Pure, AllTypesMatch<["c", "d"]>]> {
  let arguments = (ins AnyRankedTensor:$a, AnyRankedTensor:$b, AnyRankedTensor:$c,
                       DefaultValuedAttr<TT_InputPrecision, "::mlir::triton_mtia::tt::InputPrecision::IEEE">:$inputPrecision,
                       DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc);
  let results = (outs AnyRankedTensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`,` `inputPrecision` `=` $inputPrecision^)? attr-dict `:`
    type($a) `*` type($b) `->` type($d)
  }];
}

def TT_DotScaledOp : TT_Op<"dot_scaled", [Pure, AttrSizedOperandSegments,
                                           AllTypesMatch<["c", "d"]>]> {
  let summary = "dot of microscaled operands (mxfp4 / mxfp8 with e8m0 scales)";
  let description = [{
    d = (a * scale(a_scale)) x (b * scale(b_scale)) + c. An e2m1 operand
    holds two values per byte (low nibble first) along K, or along M / N
    when its `k_pack` is false. A scale element covers K / (scale columns)
    consecutive elements of K; an i8 scale s is 2^(s - 127) (e8m0).
  }];
  let arguments = (ins AnyRankedTensor:$a, AnyRankedTensor:$b, AnyRankedTensor:$c,
                       Optional<AnyRankedTensor>:$a_scale,
                       Optional<AnyRankedTensor>:$b_scale,
                       TT_ScaleDotElemType:$a_elem_type,
                       TT_ScaleDotElemType:$b_elem_type, BoolAttr:$fastMath,
                       DefaultValuedAttr<BoolAttr, "true">:$lhs_k_pack,
                       DefaultValuedAttr<BoolAttr, "true">:$rhs_k_pack);
  let results = (outs AnyRankedTensor:$d);
  let assemblyFormat = [{
    $a (`scale` $a_scale^)? `,` $b (`scale` $b_scale^)? `,` $c
    `lhs` `=` $a_elem_type `rhs` `=` $b_elem_type attr-dict
    `:` type($a) (`,` type($a_scale)^)? `*` type($b) (`,` type($b_scale)^)?
    `->` type($d)
  }];
}

def TT_ReduceOp : TT_Op<"reduce", [Pure, SingleBlock]> {
  let summary = "reduction along an axis with a combine region";
  let arguments = (ins Variadic<AnyRankedTensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<AnyType>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let hasVerifier = 1;
}

def TT_ReduceReturnOp : TT_Op<"reduce.return", [HasParent<"ReduceOp">, Pure,
                                                ReturnLike, Terminator]> {
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "attr-dict ($result^ `:` type($result))?";
}

def TT_ScanOp : TT_Op<"scan", [Pure, SingleBlock]> {
  let summary = "inclusive scan along an axis with a combine region";
  let arguments = (ins Variadic<AnyRankedTensor>:$srcs, I32Attr:$axis, BoolAttr:$reverse);
  let results = (outs Variadic<AnyRankedTensor>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
}

def TT_ScanReturnOp : TT_Op<"scan.return", [HasParent<"ScanOp">, Pure,
                                            ReturnLike, Terminator]> {
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "attr-dict ($result^ `:` type($result))?";
}

def TT_HistogramOp : TT_Op<"histogram", [Pure,
    TypesMatchWith<"mask has the source's shape with i1 elements", "src", "mask",
                   "::mlir::triton_mtia::tt::getI1SameShape($_self)",
                   "($_op.getOperands().size() <= 1) || std::equal_to<>()">]> {
  let arguments = (ins AnyRankedTensor:$src, Optional<AnyRankedTensor>:$mask);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $src (`,` $mask^)? attr-dict `:` type($src) `->` type($result)
  }];
}

def TT_GatherOp : TT_Op<"gather", [Pure]> {
  let arguments = (ins AnyRankedTensor:$src, AnyRankedTensor:$indices, I32Attr:$axis,
                       UnitAttr:$efficient_layout);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $src `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
}

def TT_ExternElementwiseOp : TT_Op<"extern_elementwise", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "call of a library function per element (libdevice)";
  let description = [{
    Pure when `pure` is set (libdevice's math). Otherwise the call has
    effects the compiler must keep, in program order and exactly once: the
    language extensions' cross-PE communication (`__mtia_re_reduce_*`) is
    such a call, and erasing, duplicating or moving it would change what
    the other PEs receive.
  }];
  let arguments = (ins Variadic<AnyType>:$srcs, StrAttr:$libname, StrAttr:$libpath,
                       StrAttr:$symbol, BoolAttr:$pure);
  let results = (outs AnyType:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, $result)";
}

def TT_ElementwiseInlineAsmOp : TT_Op<"elementwise_inline_asm", []> {
  let summary = "inline target assembly per element (GPU-only)";
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints, BoolAttr:$pure,
                       I32Attr:$packed_element, Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>:$result);
  let assemblyFormat = [{
    $asm_string attr-dict ($args^ `:` type($args))? `->` type($result)
  }];
}

def TT_ClampFOp : TT_Op<"clampf", [Pure, SameOperandsAndResultType]> {
  let arguments = (ins AnyType:$x, AnyType:$min, AnyType:$max,
                       TT_PropagateNan:$propagateNan);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $x `,` $min `,` $max `,` `propagateNan` `=` $propagateNan attr-dict `:` type($result)
  }];
}

def TT_PreciseSqrtOp : TT_Op<"precise_sqrt", [Pure, SameOperandsAndResultType]> {
  let arguments = (ins AnyType:$x);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def TT_PreciseDivFOp : TT_Op<"precise_divf", [Pure, SameOperandsAndResultType]> {
  let arguments = (ins AnyType:$x, AnyType:$y);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x)";
}

def TT_MulhiUIOp : TT_Op<"mulhiui", [Pure, SameOperandsAndResultType]> {
  let arguments = (ins AnyType:$x, AnyType:$y);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x)";
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def TT_PrintOp : TT_Op<"print", [MemoryEffects<[MemWrite]>]> {
  let arguments = (ins StrAttr:$prefix, BoolAttr:$hex, Variadic<AnyType>:$args,
                       DenseI32ArrayAttr:$isSigned);
  let assemblyFormat = [{
    $prefix attr-dict (`:` $args^ `:` type($args))?
  }];
}

def TT_AssertOp : TT_Op<"assert", [MemoryEffects<[MemWrite]>]> {
  let arguments = (ins AnyType:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict `:` type($condition)";
}

#endif // TRITON_MTIA_TT_OPS
