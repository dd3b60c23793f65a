#!/usr/bin/env bash
# The demo and interop check on a lent GPU machine (issue 15), one `run` of
# the device tool, under 4 minutes on an H200:
#   1. the interop suite's handoff latency, every mode (semaphore / memory
#      word, serial / prequeued), each direction, plus the measurement floor;
#   2. the demo's A/B, 1920x1080: tilesort against 3DGS on the same frames at
#      1M, 4M and 16M particles, both sorters verified against the CPU
#      reference every run; 3DGS as the primary at 4M; the CPU sorter at each
#      size; the memory-word handoff; sort off; the corruption check (exit 2);
#   3. the throughput sweep (particle counts x tile sizes x sorters) -> CSV + SVG;
#   4. the test binaries tilesort_interop_tests and tilesort_demo_tests.
#
#   scripts/device_demo_check.sh BIN_DIR OUT_DIR COMMIT
#
# COMMIT (the SHA the binaries were built from) heads summary.txt and ab.md
# and goes into the interop report, so every result names the code it
# measured.
# BIN_DIR: tilesort-bench, tilesort-demo, tilesort_interop_tests,
# tilesort_demo_tests, and lib/ with the shared libraries a bare machine
# lacks (libglfw and its X11 libraries, as in device_full_check.sh's
# archive). Run from the repository root; when .gl (the Vulkan loader .debs)
# is there, the script installs it and points the loader at NVIDIA's ICD.
# OUT_DIR gets summary.txt, interop-handoff.{md,json}, sweep.{csv,svg},
# ab.md and logs.tar.gz (every log).
set -uo pipefail
bin="$1"; out="$2"; commit="${3:?usage: device_demo_check.sh BIN_DIR OUT_DIR COMMIT}"
mkdir -p "$out"; logs="$out/logs"; mkdir -p "$logs"
summary="$out/summary.txt"; : >"$summary"
if [ -d .gl ]; then . "$(dirname "$0")/device_vulkan_env.sh" || exit 1; fi
export LD_LIBRARY_PATH="$bin/lib:${LD_LIBRARY_PATH:-}"
unset DISPLAY WAYLAND_DISPLAY
start=$(date +%s)
note() { echo "$*" | tee -a "$summary"; }
note "commit: $commit"
note "device_demo_check: $(date -u +%FT%TZ), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
for b in tilesort-bench tilesort-demo tilesort_interop_tests tilesort_demo_tests; do
  [ -x "$bin/$b" ] || note "MISSING: $bin/$b"
done

# 1. Handoff latency, every mode.
timeout 120 "$bin/tilesort-bench" --suite interop --handoff-only --frames 200 --commit "$commit" --out "$out/interop-handoff" \
  >"$logs/interop-handoff-stdout.txt" 2>"$logs/interop-handoff-progress.txt"
note "interop handoff: exit $?"
[ -f "$out/interop-handoff.md" ] && sed -n '/^| mode/,/^$/p;/^| reference/,/^$/p' "$out/interop-handoff.md" >>"$summary"

# 2. The demo at 1080p. Every run verifies its last frame: the primary
# sorter's lists, records and image against the CPU reference, and each
# compared sorter's lists against those (exit 0 = every sorter PASSED).
demo() {  # demo NAME TIMEOUT ARGS...: one headless run, its verdicts and summary lines into summary.txt
  local name="$1" limit="$2"; shift 2
  local log="$logs/demo-$name.txt"
  timeout "$limit" "$bin/tilesort-demo" --headless --size 1920x1080 --quiet --out /tmp/tilesort-demo-$name.ppm \
    "$@" >"$log" 2>&1
  local rc=$?
  note "demo $name ($*): exit $rc; $(grep -E '^verify\[' "$log" | tr '\n' ' ')"
  grep -E '^summary: (median|A/B)' "$log" | sed 's/^/    /' >>"$summary"
  return $rc
}
{ echo "commit: $commit, $(date -u +%F), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>&1 | head -1), 1920x1080, 16 px tiles"
  echo
  echo "| particles | records/frame | tilesort ms | 3DGS ms | speedup | frame ms (both sorting) | verified |"
  echo "|---|---|---|---|---|---|---|"; } >"$out/ab.md"
for p in 1000000 4000000 16000000; do
  demo "ab-$p" 90 --gpu --sorter tilesort --compare --particles "$p" --frames 120
  log="$logs/demo-ab-$p.txt"
  ab=$(grep -E '^summary: A/B' "$log" | head -1)
  ts=$(echo "$ab" | grep -oE 'tilesort [0-9.]+ ms' | grep -oE '[0-9.]+' | head -1)
  gs=$(echo "$ab" | grep -oE '3dgs [0-9.]+ ms' | grep -oE '[0-9]+\.[0-9]+' | head -1)
  sp=$(echo "$ab" | grep -oE '[0-9.]+x faster' | grep -oE '[0-9.]+' | head -1)
  rec=$(grep -E '^summary: median [0-9]+ records' "$log" | grep -oE 'median [0-9]+' | grep -oE '[0-9]+')
  fr=$(grep -E '^summary: median frame' "$log" | grep -oE 'frame [0-9.]+' | grep -oE '[0-9.]+')
  ver=$(grep -cE '^verify\[[a-z0-9]+\]: PASSED' "$log")
  echo "| $p | ${rec:-?} | ${ts:-?} | ${gs:-?} | ${sp:-?}x | ${fr:-?} | $ver of 2 sorters |" >>"$out/ab.md"
done
cat "$out/ab.md" >>"$summary"
demo "3dgs-primary-4M" 60 --gpu --sorter 3dgs --compare --particles 4000000 --frames 60
demo "handoff-memory-4M" 60 --gpu --handoff memory --particles 4000000 --frames 120
demo "handoff-semaphore-4M-no-compare" 60 --gpu --no-compare --particles 4000000 --frames 120
demo "sort-off-8px-1M" 60 --gpu --no-sort --tile 8 --particles 1000000 --frames 60
for p in 1000000 4000000 16000000; do
  demo "cpu-$p" 120 --sorter cpu --particles "$p" --frames 3 --records-per-particle 4
done
demo "corrupt" 60 --gpu --particles 1000000 --frames 10 --corrupt-for-test
note "    (demo corrupt must exit 2)"

# 3. The sweep: records/s against records per frame, every sorter, CSV + SVG.
demo "sweep" 150 --gpu --sweep --sweep-out "$out/sweep"
grep -E '^sweep:' "$logs/demo-sweep.txt" >>"$summary"

# 4. Test binaries (the GPU tests run here; the 1000-frame loop included).
for t in tilesort_interop_tests tilesort_demo_tests; do
  [ -x "$bin/$t" ] || continue
  timeout 240 "$bin/$t" >"$logs/$t.txt" 2>&1
  rc=$?
  note "$t: exit $rc; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\]' "$logs/$t.txt" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \] [A-Za-z]' "$logs/$t.txt" >>"$summary"
done
note "device_demo_check: done in $(( $(date +%s) - start )) s"
tar -C "$out" -czf "$out/logs.tar.gz" logs && rm -rf "$logs"
ls -la "$out"
