#!/usr/bin/env bash
# One call on a GPU machine: tilesort-bench --sweep (issue 13), the u32-u32
# variant first, then the 16-bit range and the keys-only variant in the time
# left (SWEEP_TOTAL_BUDGET seconds in all, default 330: a whole sweep of
# each, with margin under 6 minutes).
#
#   scripts/device_bench_sweep.sh BIN_DIR OUT_DIR COMMIT
#
# BIN_DIR holds tilesort-bench (built on another machine is fine: it links
# the CUDA runtime statically). Writes into OUT_DIR, 8 files at most because
# the device tool returns no more:
#   sweep.md sweep.svg                      u32-u32 (its Markdown links sweep.svg)
#   sweep-more.md sweep-more.svg            u32-u32-16bit
#   sweep-keys.md sweep-keys.svg            u32-none
#   summary.txt                             exit codes, times and the Targets tables
#   logs.tar.gz                             the CSV and JSON reports and the progress logs
# Exit status: 0 when every run exited 0, else 1.
set -uo pipefail
bin="$1"; out="$2"; commit="$3"
logs="$out/logs"
mkdir -p "$logs"
total_budget=${SWEEP_TOTAL_BUDGET:-330}   # seconds for everything
start=$(date +%s)
rc_all=0

run_sweep() {  # run_sweep NAME BUDGET_S TIMEOUT_S ARGS...: one sweep into $out/NAME.*
  local name="$1" budget="$2" limit="$3"; shift 3
  local t0; t0=$(date +%s)
  timeout "$limit" "$bin/tilesort-bench" --sweep --commit "$commit" --sweep-budget "$budget" \
    --out "$logs/$name" "$@" >"$logs/$name-stdout.md" 2>"$logs/$name-progress.txt"
  local rc=$?
  [ "$rc" -eq 0 ] || rc_all=1
  for ext in md svg; do [ -f "$logs/$name.$ext" ] && mv "$logs/$name.$ext" "$out/$name.$ext"; done
  echo "sweep $name ($*): exit $rc in $(( $(date +%s) - t0 )) s; $(grep -E '^tilesort-bench: sweep:' "$logs/$name-progress.txt" | tail -n 1)" |
    tee -a "$out/summary.txt"
  if [ -f "$out/$name.md" ]; then
    sed -n '/^## Targets/,/^## Plot/p' "$out/$name.md" | sed '$d' >>"$out/summary.txt"
  else
    tail -n 20 "$logs/$name-progress.txt" >>"$out/summary.txt"
  fi
}

# 1. The headline: u32 keys + u32 values, every size and the 2^26 segment.
run_sweep sweep 170 200 --sweep-variants u32-u32
headline_s=$(( $(date +%s) - start ))

# 2. The 16-bit range, then keys only. Keys alone move half the bytes and
#    took about half the headline's time (25 against 56 s on the H200 at
#    e31fbdf), so the 16-bit sweep gets the time left less that reserve
#    (halving the time left ran it out of budget while keys alone finished
#    with 44 s unused). A budget stops new points in time to write the
#    reports; the rest is listed as not run.
run_rest() {  # run_rest NAME VARIANT RESERVE_S: the variant's sweep in the time left less RESERVE_S
  local left; left=$(( total_budget - ($(date +%s) - start) ))
  local mine=$(( left - $3 ))
  if [ "$mine" -gt 40 ]; then
    run_sweep "$1" $(( mine - 20 )) "$mine" --sweep-variants "$2"
  else
    echo "$1: not run, ${left} s left" | tee -a "$out/summary.txt"
  fi
}
run_rest sweep-more u32-u32-16bit $(( headline_s / 2 + 10 ))
run_rest sweep-keys u32-none 0
echo "total: $(( $(date +%s) - start )) s" | tee -a "$out/summary.txt"

tar -C "$out" -czf "$out/logs.tar.gz" logs && rm -rf "$logs"
exit "$rc_all"
