#!/usr/bin/env bash
# One call on a GPU machine: the whole GPU test suite, compute-sanitizer
# (memcheck, racecheck, synccheck) on the sanitizer subset, then the full
# benchmark with the test counts recorded in its reports.
#
#   scripts/device_check.sh BIN_DIR OUT_DIR COMMIT
#
# BIN_DIR holds tilesort_host_tests, tilesort_gpu_tests and tilesort-bench
# (built on another machine is fine: they link the CUDA runtime statically).
# Writes OUT_DIR/{tests-*.txt,sanitizer-*.txt,summary.txt,bench.md,bench.json}.
set -uo pipefail
bin="$1"; out="$2"; commit="$3"
mkdir -p "$out"

count() {  # count KIND FILE: the number gtest printed for [  KIND  ] N tests
  grep -E "^\[  $1 +\] [0-9]+ test" "$2" | head -n 1 | grep -oE '[0-9]+' | head -n 1
}

passed=0; failed=0; skipped=0
for suite in host gpu; do
  log="$out/tests-$suite.txt"
  "$bin/tilesort_${suite}_tests" >"$log" 2>&1
  echo "tests-$suite: exit $?"
  p=$(count PASSED "$log"); f=$(count FAILED "$log"); s=$(count SKIPPED "$log")
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
done
echo "tests: $passed passed, $failed failed, $skipped skipped" | tee "$out/summary.txt"

for tool in memcheck racecheck synccheck; do
  log="$out/sanitizer-$tool.txt"
  compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin/tilesort_gpu_tests" --gtest_filter='*Sanitizer*' >"$log" 2>&1
  rc=$?
  echo "sanitizer $tool: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' "$log" | tr '\n' ' ')" |
    tee -a "$out/summary.txt"
done

"$bin/tilesort-bench" --commit "$commit" --tests-passed "$passed" --tests-failed "$failed" \
  --tests-skipped "$skipped" --out "$out/bench" 2>"$out/bench-progress.txt" | grep -A14 '^## Summary'
echo "bench: exit ${PIPESTATUS[0]}" | tee -a "$out/summary.txt"
