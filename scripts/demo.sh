#!/usr/bin/env bash
# Sets everything up, then runs the demo: sample Triton kernels on the
# simulated MTIA-2i, checked against PyTorch. Outputs go to ./mtia-demo-out/.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
"${PYTHON:-python3}" -m triton_mtia.demo "$@"
