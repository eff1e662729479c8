#!/usr/bin/env bash
# Times what a fresh machine pays (issue 23): the README's two commands on a
# fresh clone of this checkout's HEAD, with ccache off and empty Triton,
# object and Inductor caches. The apt and pip packages are not removed, so
# a machine without them also pays their download.
#
#   scripts/time_fresh_clone.sh [WORKDIR]     (default /tmp/mtia-fresh)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-/tmp/mtia-fresh}"
rm -rf "$work"
git clone -q "$src" "$work/repo"
export CCACHE_DISABLE=1
export TRITON_CACHE_DIR="$work/caches/triton"
export TRITON_MTIA_OBJECT_CACHE_DIR="$work/caches/objects"
export TORCHINDUCTOR_CACHE_DIR="$work/caches/inductor"
cd "$work/repo"
for step in demo test; do
  start=$(date +%s)
  status=0
  "./scripts/$step.sh" > "$work/$step.log" 2>&1 || status=$?
  echo "$step.sh: exit $status, $(( $(date +%s) - start )) s (log: $work/$step.log)"
done
