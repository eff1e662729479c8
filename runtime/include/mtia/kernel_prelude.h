//===- kernel_prelude.h - What a generated kernel includes ------*- C++ -*-===//
//
// Every kernel that triton-mtia-compile emits includes this header and
// nothing else: the device API and the standard headers its scalar code
// uses. One list, so that the Python face can precompile it once
// (backend/object_cache.py, a clang precompiled header) and every kernel's
// compile skips parsing it.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_KERNEL_PRELUDE_H
#define MTIA_KERNEL_PRELUDE_H

#include "mtia/device.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#endif // MTIA_KERNEL_PRELUDE_H
