//===- PrecompiledHeaders.cpp - Owner of the compiler's PCH ---------------===//
//
// Empty: the target TritonMTIAPrecompiledHeaders (compiler/CMakeLists.txt)
// needs one source to own the precompiled MLIR and LLVM headers that every
// compiler library reuses.
//
//===----------------------------------------------------------------------===//
