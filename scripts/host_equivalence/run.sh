#!/usr/bin/env bash
# Checks on a machine without a GPU that a change to host code leaves the
# device side alone: the PTX of every sorter translation unit, and every
# launch the public API makes (kernel, grid, block, shared memory, argument
# bytes) over a grid of plans and calls, recorded against a fake CUDA
# runtime (fake_cudart.cpp, driven by drive_api.cpp).
#
#   scripts/host_equivalence/run.sh BASE_REV [REV] [-- compare.py options]
#
# REV defaults to the working tree. Options after -- go to both comparisons,
# e.g. -- --rename 'INS0_9GridShapeILi256ELi8EEE' 'I' for kernels whose
# template arguments were renamed. WORK=DIR keeps the builds (default: a
# temporary folder). Needs nvcc and g++; about 3 minutes on 2 cores.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(git -C "$here" rev-parse --show-toplevel)"
base="$1"; shift
rev=""
if [ $# -gt 0 ] && [ "$1" != "--" ]; then rev="$1"; shift; fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
work="${WORK:-$(mktemp -d)}"
nvcc="${NVCC:-nvcc}"

# $1: revision ("" = working tree), $2: folder. Builds the library with the
# launch hook, the driver and the fake runtime; writes trace.txt and ptx/.
build() {
  local source="$1" out="$2"
  rm -rf "$out" && mkdir -p "$out/obj" "$out/ptx"
  if [ -z "$source" ]; then
    cp -r "$repo/sorter" "$out/sorter"
  else
    git -C "$repo" archive "$source" sorter | tar -x -C "$out"
  fi
  # The hook: launch_kernel reports each argument as the kernel receives it.
  python3 - "$out/sorter/src/dispatch/dispatch.hpp" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
marker = '  return cudaLaunchKernelEx('
assert text.count(marker) == 1, 'launch_kernel is not written once'
text = text.replace(marker, '#ifdef TILESORT_TRACE_LAUNCHES\n'
                    '  [&](Params... p) { (tilesort_trace_arg(&p, sizeof(p)), ...); }(args...);\n'
                    '#endif\n' + marker)
text = text.replace('namespace tilesort {', 'extern "C" void tilesort_trace_arg(const void*, std::size_t);\n'
                    'namespace tilesort {', 1)
open(path, 'w').write(text)
PY
  for key_bits in 32 64; do for value_bits in 0 32 64; do
    sed -e "s/@key_bits@/$key_bits/g" -e "s/@value_bits@/$value_bits/g" \
      "$out/sorter/src/dispatch/segmented_sort_instance.cu.in" > "$out/obj/segmented_sort_k${key_bits}_v${value_bits}.cu"
  done; done
  local includes="-I$out/sorter/include -I$out/sorter/src"
  local sources
  sources="$(ls "$out"/sorter/src/dispatch/*.cu "$out"/sorter/src/binning/*.cu "$out"/obj/*.cu)"
  for s in $sources; do
    # The PTX as the build makes it (-O3), and the host object at -O1 with
    # PTX only embedded (no ptxas), which is all the fake runtime needs.
    "$nvcc" -O3 -DNDEBUG -arch=compute_90 --expt-relaxed-constexpr -std=c++17 $includes -ptx "$s" \
      -o "$out/ptx/$(basename "$s" .cu).ptx" &
    "$nvcc" -O1 -arch=compute_90 --expt-relaxed-constexpr -std=c++17 -DTILESORT_TRACE_LAUNCHES -cudart none \
      $includes -c "$s" -o "$out/obj/$(basename "$s" .cu).o" &
    wait
  done
  local cuda_include
  cuda_include="$(dirname "$(command -v "$nvcc")")/../include"
  g++ -std=c++17 -O1 $includes -I"$cuda_include" -c "$out/sorter/src/status.cpp" -o "$out/obj/status.o"
  g++ -std=c++17 -O1 $includes -I"$cuda_include" -c "$here/drive_api.cpp" -o "$out/obj/drive_api.o"
  g++ -std=c++17 -O1 -I"$cuda_include" -c "$here/fake_cudart.cpp" -o "$out/obj/fake_cudart.o"
  g++ -o "$out/drive_api" "$out"/obj/*.o
  "$out/drive_api" > "$out/trace.txt"
}

build "$base" "$work/base"
build "$rev" "$work/new"
status=0
echo "== PTX ($base against ${rev:-the working tree})"
python3 "$here/compare.py" ptx "$work/base/ptx" "$work/new/ptx" "$@" || status=1
echo "== launches"
python3 "$here/compare.py" trace "$work/base/trace.txt" "$work/new/trace.txt" "$@" || status=1
echo "builds in $work"
exit $status
