#!/usr/bin/env bash
# The whole GPU test suite under compute-sanitizer memcheck, in small mode
# (TILESORT_TEST_SMALL=1: randomized tests shrink, the largest sizes skip),
# as one `run` of the device tool. device_check.sh runs memcheck, racecheck
# and synccheck on each binary's *Sanitizer* subset at full size; this is
# the complement: every test, every kernel path, memcheck only.
#
#   scripts/device_memcheck_all.sh BIN_DIR OUT_DIR [SECONDS_PER_BINARY]
#
# BIN_DIR holds tilesort_*_tests (as unpacked from pack_device_bins.sh);
# ONLY="tilesort_gpu_tests tilesort_binning_tests" limits the run to those
# (a device call has 600 s: split the binaries over calls where needed). The
# Vulkan tests need the loader set up first (device_full_check.sh does it).
# Writes OUT_DIR/memcheck-summary.txt (per binary: exit status, gtest
# counts, memcheck's error summary) and OUT_DIR/memcheck-logs.tar.gz.
set -uo pipefail
bin="$1"; out="$2"; budget="${3:-150}"
logs="$(mktemp -d)"
summary="$out/memcheck-summary.txt"
mkdir -p "$out"
: >"$summary"
count() {  # count KIND FILE: the number gtest printed for [  KIND  ] N tests
  grep -E "^\[  $1 +\] [0-9]+ test" "$2" | head -n 1 | grep -oE '[0-9]+' | head -n 1
}
total_passed=0; total_failed=0; total_errors=0
for test in "$bin"/tilesort_*_tests; do
  name="$(basename "$test")"
  if [ -n "${ONLY:-}" ] && ! [[ " $ONLY " == *" $name "* ]]; then continue; fi
  log="$logs/memcheck-$name.txt"
  # Memory errors only: some tests make CUDA calls fail on purpose (an
  # invalid fd to import, a device mismatch), which memcheck would otherwise
  # report as API errors.
  TILESORT_TEST_SMALL=1 timeout "$budget" compute-sanitizer --tool memcheck --report-api-errors no \
    --error-exitcode 99 "$test" >"$log" 2>&1
  rc=$?
  p=$(count PASSED "$log"); f=$(count FAILED "$log"); s=$(count SKIPPED "$log")
  errors=$(grep -oE 'ERROR SUMMARY: [0-9]+' "$log" | grep -oE '[0-9]+' | tail -n 1)
  verdict="exit $rc"
  [ "$rc" -eq 124 ] && verdict="timed out after ${budget} s (counts are of what finished)"
  if grep -q 'terminated before first instrumented API call' "$log"; then
    verdict="no CUDA calls (host-only tests), exit $rc"; errors=0
  fi
  echo "memcheck $name: $verdict, ${p:-0} passed, ${f:-0} failed, ${s:-0} skipped, ${errors:-?} memcheck errors" |
    tee -a "$summary"
  total_passed=$((total_passed + ${p:-0})); total_failed=$((total_failed + ${f:-0}))
  total_errors=$((total_errors + ${errors:-0}))
done
echo "memcheck, whole suite in small mode: $total_passed passed, $total_failed failed, $total_errors errors" |
  tee -a "$summary"
tar -C "$logs" -czf "$out/memcheck-logs.tar.gz" .
rm -rf "$logs"
