#!/usr/bin/env bash
# Installs what triton-mtia needs on Debian 12 and builds + installs the
# package (C++ simulator, compiler, Python face) with pip.
#
# Idempotent: system and Python packages are installed only when missing, and
# the CMake build tree (build/<wheel tag>/) persists, so a re-run rebuilds
# only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
APT_PACKAGES=(cmake ninja-build ccache clang-22 lld-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools libgtest-dev)
# Pinned versions: see docs/dependencies.md.
PIP_PACKAGES=(torch==2.13.0 triton==3.9.0 numpy pytest pytest-xdist lit scikit-build-core pybind11 packaging matplotlib expecttest==0.3.0
              transformers==5.25.0)
PIP_NODEPS_PACKAGES=(liger-kernel==0.8.5)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
# pybind11 needs Python's headers; a Debian python3 has them only with python3-dev.
if ! "$PYTHON" -c 'import os, sysconfig, sys; sys.exit(not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
  missing+=(python3-dev)
fi
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

"$PYTHON" -m pip install --quiet "${PIP_PACKAGES[@]}"
# liger-kernel (the kernels test/python/test_liger.py runs) without its
# dependencies: its metadata asks for torch/triton ranges that pip would
# otherwise be free to replace; the pins above are what it runs on. Of its
# imports only `packaging` is not already a dependency of ours.
"$PYTHON" -m pip install --quiet --no-deps "${PIP_NODEPS_PACKAGES[@]}"
# --no-build-isolation: build against the torch/triton/pybind11 installed above,
# and reuse the persistent build tree.
"$PYTHON" -m pip install --no-build-isolation --no-deps .
