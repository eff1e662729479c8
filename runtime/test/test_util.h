//===- test_util.h - Helpers for hand-written test kernels ------*- C++ -*-===//

#ifndef MTIA_TEST_TEST_UTIL_H
#define MTIA_TEST_TEST_UTIL_H

#include "mtia/device.h"
#include "mtia/runtime/simulator.h"

#include <algorithm>
#include <initializer_list>
#include <vector>

namespace mtia::test {

/// The KernelInfo a compiler would emit for a kernel with these CBs.
inline KernelInfo kernelInfo(const char *name, int32_t numArgs,
                             std::initializer_list<int64_t> cbBytes) {
  KernelInfo k{};
  k.abiVersion = kDeviceAbiVersion;
  k.name = name;
  k.numArgs = numArgs;
  k.numCbs = int32_t(cbBytes.size());
  std::copy(cbBytes.begin(), cbBytes.end(), k.cbCapacity);
  return k;
}

inline Arg ptrArg(const void *p) {
  Arg a;
  a.u = reinterpret_cast<uint64_t>(p);
  return a;
}
inline Arg intArg(int64_t v) {
  Arg a;
  a.i = v;
  return a;
}

template <class T> sim::Region regionOf(const std::vector<T> &v) {
  return sim::Region{reinterpret_cast<uint64_t>(v.data()), v.size() * sizeof(T)};
}

/// A dense 1-D box of `n` elements of which the first `valid` move.
inline Box box1(int64_t n, int64_t valid) {
  Box b;
  b.rank = 1;
  b.shape[0] = n;
  b.stride[0] = 1;
  b.valid[0] = std::clamp<int64_t>(valid, 0, n);
  return b;
}

/// out[i] = x[i] + y[i] over n fp32 elements, `block` per program.
/// Args: x, y, out, n, block. CBs: x tiles, y tiles, out tiles.
inline void vectorAddKernel(Ctx *c, const Arg *a) {
  const int64_t n = a[3].i, block = a[4].i;
  const int64_t start = int64_t(programId(c, 0)) * block;
  const Box box = box1(block, n - start);
  const Shape s = shape1(block);
  const uint64_t offset = uint64_t(start) * 4;
  dmaIn(c, 0, DType::F32, a[0].u + offset, box, immFloat(DType::F32, 0));
  dmaIn(c, 1, DType::F32, a[1].u + offset, box, immFloat(DType::F32, 0));
  se(c, SeOp::Add, 2, DType::F32, s, tile(0, DType::F32, s), tile(1, DType::F32, s));
  cbPop(c, 0, block * 4);
  cbPop(c, 1, block * 4);
  dmaOut(c, 2, DType::F32, a[2].u + offset, box);
  cbPop(c, 2, block * 4);
}

/// A configuration with `pes` PEs in one row, other parameters from mtia2i.
inline sim::Config rowOfPes(int64_t pes) {
  sim::Config cfg = sim::mtia2iPreset();
  cfg.pe_rows = 1;
  cfg.pe_cols = pes;
  return cfg;
}

} // namespace mtia::test

#endif // MTIA_TEST_TEST_UTIL_H
