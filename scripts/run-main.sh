#!/usr/bin/env bash
# `make run`: the benchmark when a CUDA GPU is visible, else a clear message.
set -euo pipefail
build_dir="${1:-build}"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  commit="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
  # Results of ad-hoc runs stay in the build folder; bench/results/ holds the
  # committed device runs only.
  exec "$build_dir/bench/tilesort-bench" --commit "$commit" --out "$build_dir/bench-latest"
fi
echo "tilesort: no CUDA GPU is visible on this machine, so the benchmark cannot run."
echo "tilesort: the library and tests were built; 'make test' runs the CPU-side tests"
echo "tilesort: (GPU tests skip with a reason). Run 'make run' on a machine with an"
echo "tilesort: NVIDIA GPU (sm_75 or newer) to measure tilesort against CUB."
