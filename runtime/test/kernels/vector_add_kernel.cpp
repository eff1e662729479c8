//===- vector_add_kernel.cpp - A kernel shared object, as clang builds one ===//
//
// Built as a module so the tests exercise the dlopen path exactly as
// generated kernels use it: only device.h, two exported C symbols.
//
//===----------------------------------------------------------------------===//

#include "mtia/device.h"

using namespace mtia;

extern "C" {

/// out[i] = x[i] + y[i]; args: x, y, out, n; 256 elements per program.
void vector_add(Ctx *c, const Arg *a) {
  constexpr int64_t kBlock = 256;
  const int64_t n = a[3].i;
  const int64_t start = int64_t(programId(c, 0)) * kBlock;
  Box box;
  box.rank = 1;
  box.shape[0] = kBlock;
  box.stride[0] = 1;
  box.valid[0] = n - start < kBlock ? n - start : kBlock;
  Shape s;
  s.rank = 1;
  s.dim[0] = kBlock;
  const uint64_t offset = uint64_t(start) * 4;
  dmaIn(c, 0, DType::F32, a[0].u + offset, box, immFloat(DType::F32, 0));
  dmaIn(c, 1, DType::F32, a[1].u + offset, box, immFloat(DType::F32, 0));
  se(c, SeOp::Add, 2, DType::F32, s, tile(0, DType::F32, s), tile(1, DType::F32, s));
  cbPop(c, 0, kBlock * 4);
  cbPop(c, 1, kBlock * 4);
  dmaOut(c, 2, DType::F32, a[2].u + offset, box);
  cbPop(c, 2, kBlock * 4);
}

extern const KernelInfo vector_add_info = {
    kDeviceAbiVersion, "vector_add", 4, 3, {2048, 2048, 2048}};
}
