#!/usr/bin/env bash
# Every test suite of the project: the compiler's lit tests, the C++ unit
# tests (ctest), and the Python tests (pytest). Runs setup first; it is
# idempotent and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

./scripts/setup.sh

# The build tree pip used (pyproject.toml: build-dir = "build/{wheel_tag}").
tag=$("$PYTHON" -c 'from scikit_build_core.builder.wheel_tag import WheelTag; print(WheelTag.compute_best([]))')
build="build/$tag"
[ -f "$build/CMakeCache.txt" ] || { echo "test: no build tree at $build" >&2; exit 1; }

status=0
echo "== lit: compiler"
# lit has no `python -m` entry; use the console script pip put beside this Python.
lit="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_path("scripts"))')/lit"
"$lit" -sv "$build/compiler/test" || status=1
echo "== ctest"
# The C++ unit tests are not part of the package's build (runtime/CMakeLists.txt).
cmake --build "$build" --target mtia_sim_tests || status=1
ctest --test-dir "$build" --output-on-failure || status=1
echo "== pytest"
# One worker per core (pytest-xdist); a file's tests stay on one worker, so
# its kernels are compiled once, except tests that name a group of their own
# (test/python/conftest.py). Compiled objects are shared across workers and
# runs through the object cache (docs/python.md).
"$PYTHON" -m pytest -q -n auto --dist loadgroup test/python || status=1
exit $status
