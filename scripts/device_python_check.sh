#!/usr/bin/env bash
# The Python package on a GPU machine, in one call: the pytest suite
# (tests/python: CPU-side checks plus the PyTorch and CuPy GPU tests), the
# splat example, and the Python benchmark with the C++ CUB reference.
#
#   scripts/device_python_check.sh BUILD_OR_BIN_DIR OUT_DIR
#
# BUILD_OR_BIN_DIR holds libtilesort_c.so.1 (the build dir's capi/ or the dir
# itself) and, optionally, tilesort-bench (bench/ or the dir itself) for the
# CUB row. It needs python3 with pytest, numpy, torch and/or cupy; nothing is
# installed. Writes OUT_DIR/summary.txt, pytest.txt, python-bench.{md,json},
# example.txt and cub-binning.{md,json}. Without a GPU (or PyTorch) every
# GPU test, the example and the benchmark skip; the script still exits 0 then.
# Exit status: 0 when everything that ran passed, 1 otherwise.
set -uo pipefail
bin="$(cd "$1" && pwd)"; out="$2"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
repo="$(cd "$(dirname "$0")/.." && pwd)"
summary="$out/summary.txt"
: >"$summary"
status=0
note() { echo "$*" | tee -a "$summary"; }

lib=""
for candidate in "$bin/libtilesort_c.so.1" "$bin/capi/libtilesort_c.so.1" "$bin/libtilesort_c.so" "$bin/capi/libtilesort_c.so"; do
  [ -f "$candidate" ] && { lib="$candidate"; break; }
done
if [ -z "$lib" ]; then
  note "device_python_check: no libtilesort_c.so.1 in $bin or $bin/capi"
  exit 1
fi
export TILESORT_LIBRARY="$lib" PYTHONDONTWRITEBYTECODE=1
python="${PYTHON:-python3}"
note "library: $lib"
note "python: $("$python" -c 'import sys; print(sys.version.split()[0])' 2>&1)"
for module in pytest numpy torch cupy; do
  note "$module: $("$python" -c "import $module; print($module.__version__)" 2>&1 | tail -n 1)"
done
note "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 || echo none)"

# 1. The suite (CPU-side and GPU tests), seed printed in its header.
timeout 150 "$python" -m pytest "$repo/tests/python" -rs -p no:cacheprovider >"$out/pytest.txt" 2>&1
rc=$?
note "pytest: exit $rc; $(grep -E 'TILESORT_TEST_SEED' "$out/pytest.txt" | head -n 1); $(tail -n 1 "$out/pytest.txt")"
[ $rc -eq 0 ] || status=1

# 2. The C++ pipeline with CUB, for the benchmark's reference row.
bench=""
for candidate in "$bin/tilesort-bench" "$bin/bench/tilesort-bench"; do
  [ -x "$candidate" ] && { bench="$candidate"; break; }
done
cub_json=""
if [ -n "$bench" ]; then
  timeout 90 "$bench" --suite binning --cases tiles16-4M --quick --out "$out/cub-binning" \
    >"$out/cub-binning-stdout.txt" 2>&1
  rc=$?
  note "cub binning (tilesort-bench --suite binning --cases tiles16-4M --quick): exit $rc"
  [ -f "$out/cub-binning.json" ] && cub_json="$out/cub-binning.json"
else
  note "cub binning: skipped (no tilesort-bench in $bin or $bin/bench)"
fi

# 3. The example: the 3DGS way and tilesort, checked equal.
timeout 60 "$python" "$repo/examples/python/splat_sort.py" >"$out/example.txt" 2>&1
rc=$?
note "example splat_sort.py: exit $rc; $(tail -n 2 "$out/example.txt" | tr '\n' ' ')"
[ $rc -eq 0 ] || [ $rc -eq 2 ] || status=1  # 2: no PyTorch or no GPU, skipped

# 4. The Python benchmark (exit 2: no GPU or no PyTorch, not a failure here).
timeout 150 "$python" "$repo/examples/python/benchmark.py" --out "$out/python-bench" ${cub_json:+--cub-json "$cub_json"} \
  >"$out/python-bench-stdout.txt" 2>&1
rc=$?
note "benchmark: exit $rc"
if [ $rc -eq 0 ] || [ $rc -eq 1 ]; then
  [ -f "$out/python-bench.md" ] && cat "$out/python-bench.md" >>"$summary"
  [ $rc -eq 0 ] || status=1
elif [ $rc -ne 2 ]; then
  status=1
  tail -n 20 "$out/python-bench-stdout.txt" >>"$summary"
fi
note "device_python_check: exit $status"
exit $status
