#!/usr/bin/env bash
# One call on a GPU machine: every test binary, compute-sanitizer (memcheck,
# racecheck, synccheck) on each binary's *Sanitizer* subset, then the full
# segmented-sort benchmark, two key-distribution probes (few distinct keys,
# one dominant key) and every extra suite, with the test counts
# recorded in the reports.
#
#   scripts/device_check.sh BIN_DIR OUT_DIR COMMIT
#
# BIN_DIR holds tilesort_*_tests, tilesort-bench and (optionally)
# tilesort-demo with lib/ (built on another machine is fine: they link the
# CUDA runtime statically). Vulkan tests need the
# loader and driver set up by the caller (see docs/interop.md).
# Writes OUT_DIR/summary.txt, bench.{md,json}, suites.md and logs.tar.gz (every
# log and suite report): few files, because the device tool returns at most 8.
#
# TILESORT_CHECK_SECONDS=N: finish within about N seconds. A step that would
# not fit in the time left (each has a typical time below) is not started and
# the summary says so, and the logs are still packed: a call's hard limit then
# cuts nothing off in the middle. Unset: every step runs.
set -uo pipefail
bin="$1"; out="$2"; commit="$3"
logs="$out/logs"
mkdir -p "$logs"
# The deadline (epoch seconds): a caller's (device_full_check.sh counts its
# own set-up and examples in), else TILESORT_CHECK_SECONDS from now.
deadline="${TILESORT_CHECK_DEADLINE:-}"
[ -z "$deadline" ] && [ -n "${TILESORT_CHECK_SECONDS:-}" ] && deadline=$(( $(date +%s) + TILESORT_CHECK_SECONDS ))

seconds_left() { echo $(( deadline - $(date +%s) )); }

# limit SECONDS: a step's own time limit, cut to the time left (at least 1 s).
limit() {
  [ -n "$deadline" ] || { echo "$1"; return; }
  local left; left=$(seconds_left)
  echo $(( left >= $1 ? $1 : (left > 1 ? left : 1) ))
}

# fits SECONDS WHAT: whether a step of about SECONDS fits before the deadline;
# if not, the summary records WHAT as not run.
fits() {
  [ -n "$deadline" ] || return 0
  local left; left=$(seconds_left)
  [ "$left" -ge "$1" ] && return 0
  echo "$2: not run (about $1 s needed, $left s left of TILESORT_CHECK_SECONDS)" | tee -a "$out/summary.txt"
  return 1
}

count() {  # count KIND FILE: the number gtest printed for [  KIND  ] N tests
  grep -E "^\[  $1 +\] [0-9]+ test" "$2" | head -n 1 | grep -oE '[0-9]+' | head -n 1
}

passed=0; failed=0; skipped=0
tests=("$bin"/tilesort_*_tests)
for test in "${tests[@]}"; do
  name="$(basename "$test")"
  log="$logs/$name.txt"
  timeout "$(limit 300)" "$test" >"$log" 2>&1
  rc=$?
  p=$(count PASSED "$log"); f=$(count FAILED "$log"); s=$(count SKIPPED "$log")
  echo "$name: exit $rc, ${p:-0} passed, ${f:-0} failed, ${s:-0} skipped" | tee -a "$out/summary.txt"
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
done
echo "tests: $passed passed, $failed failed, $skipped skipped" | tee -a "$out/summary.txt"

for test in "${tests[@]}"; do
  name="$(basename "$test")"
  "$test" --gtest_list_tests --gtest_filter='*Sanitizer*' 2>/dev/null | grep -q '^  ' || continue
  # The binning sanitizer tests draw up to 600k records: shrink them (as their
  # own device runs did) so the three tools fit the call. The others run full size.
  small=0; [ "$name" = tilesort_binning_tests ] && small=1
  for tool in memcheck racecheck synccheck; do
    fits 40 "sanitizer $tool $name" || continue
    log="$logs/sanitizer-$tool-$name.txt"
    TILESORT_TEST_SMALL=$small timeout "$(limit 240)" compute-sanitizer --tool "$tool" --error-exitcode 99 "$test" \
      --gtest_filter='*Sanitizer*' >"$log" 2>&1
    rc=$?
    echo "sanitizer $tool $name: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED|SKIPPED)' "$log" | tr '\n' ' ')" |
      tee -a "$out/summary.txt"
  done
done

if fits 60 bench; then
  timeout "$(limit 300)" "$bin/tilesort-bench" --commit "$commit" --tests-passed "$passed" --tests-failed "$failed" \
    --tests-skipped "$skipped" --out "$out/bench" 2>"$logs/bench-progress.txt" | grep -A14 '^## Summary'
  echo "bench: exit ${PIPESTATUS[0]}" | tee -a "$out/summary.txt"
fi

# Key distributions the headline rows do not have, in large segments, where
# the MSD rounds and their fallback decide the cost: few distinct keys
# (--key-bits 1) and one dominant key among random ones (--zero-keys 50).
# One 2^24-pair segment took 37 ms with half its keys 0 until 70ac4b2.
# Their reports go into suites.md beside the suites. TILESORT_CHECK_PROBES=0
# leaves them out, for a call short of device time whose change cannot reach
# the MSD rounds (the summary says so).
: >"$out/suites.md"
probes=("--key-bits 1" "--zero-keys 50")
[ "${TILESORT_CHECK_PROBES:-1}" = 0 ] && { probes=(); echo "key probes: not run (TILESORT_CHECK_PROBES=0)" | tee -a "$out/summary.txt"; }
for keys in "${probes[@]}"; do
  fits 60 "bench $keys (both runs)" || continue
  name="keys$(echo "$keys" | tr -d ' -')"
  timeout "$(limit 120)" "$bin/tilesort-bench" $keys --workloads fixed-65536,fixed-1048576,powerlaw --segments fixed:16777216 \
    --variants u32-u32,u32-none,u64-u32 --reps 5 --warmup 1 --commit "$commit" --out "$logs/$name" \
    >"$logs/$name-stdout.txt" 2>"$logs/$name-progress.txt"
  echo "bench $keys: exit $?" | tee -a "$out/summary.txt"
  { [ -f "$logs/$name.md" ] && cat "$logs/$name.md"; echo; } >>"$out/suites.md"
  timeout "$(limit 120)" "$bin/tilesort-bench" $keys --segments fixed:67108864 --items 67108864 --variants u32-u32,u32-none,u64-u32 \
    --methods copy,tilesort,cub-radix-sort --reps 3 --warmup 1 --commit "$commit" --out "$logs/$name-single" \
    >"$logs/$name-single-stdout.txt" 2>"$logs/$name-single-progress.txt"
  echo "bench $keys, one 2^26 segment: exit $?" | tee -a "$out/summary.txt"
  { [ -f "$logs/$name-single.md" ] && cat "$logs/$name-single.md"; echo; } >>"$out/suites.md"
done

# Extra suites (binning, block sort, interop, ...): whatever this build registered.
suites=$("$bin/tilesort-bench" --list-suites)
for suite in $suites; do
  fits 45 "suite $suite" || continue
  timeout "$(limit 300)" "$bin/tilesort-bench" --suite "$suite" --commit "$commit" --out "$logs/suite-$suite" \
    >"$logs/suite-$suite-stdout.txt" 2>"$logs/suite-$suite-progress.txt"
  rc=$?
  echo "suite $suite: exit $rc" | tee -a "$out/summary.txt"
  { [ -f "$logs/suite-$suite.md" ] && cat "$logs/suite-$suite.md"; echo; } >>"$out/suites.md"
done

# The demo's GPU path, headless: every run verifies its last frame (records,
# order, offsets, image) and must exit 0; the corrupted run must exit 2.
# BIN_DIR/lib holds the shared libraries a bare machine lacks (libglfw).
if [ -x "$bin/tilesort-demo" ]; then
  for args in "--particles 1000000" "--particles 4000000" "--particles 4000000 --tile 8 --records-per-particle 16" \
              "--particles 4000000 --tile 32" "--particles 1000000 --no-sort"; do
    fits 15 "demo $args" || continue
    log="$logs/demo-$(echo "$args" | tr ' ' '_').txt"
    LD_LIBRARY_PATH="$bin/lib:${LD_LIBRARY_PATH:-}" timeout "$(limit 60)" "$bin/tilesort-demo" --headless --gpu --frames 300 --quiet \
      $args --out /tmp/tilesort-demo.ppm >"$log" 2>&1
    echo "demo $args: exit $?; $(grep -E '^summary: median|^verify' "$log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
  done
  if fits 10 "demo --corrupt-for-test"; then
    LD_LIBRARY_PATH="$bin/lib:${LD_LIBRARY_PATH:-}" timeout "$(limit 30)" "$bin/tilesort-demo" --headless --gpu --frames 10 \
      --particles 1000000 --corrupt-for-test --quiet --out /tmp/tilesort-demo.ppm >"$logs/demo-corrupt.txt" 2>&1
    echo "demo --corrupt-for-test: exit $? (must be 2)" | tee -a "$out/summary.txt"
  fi
fi

tar -C "$out" -czf "$out/logs.tar.gz" logs && rm -rf "$logs"
