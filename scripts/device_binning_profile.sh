#!/usr/bin/env bash
# One call on a GPU machine: where bin_and_sort's time goes, by kernel
# (issue 14). For tiles16-4M and 4k-tiles8, with 32- and 16-bit depths:
#   1. a plain run of tilesort-bench --suite binning --methods tilesort (the
#      event-timed call and the copy floor, median of 15);
#   2. per (case, depth bits) one run under Nsight Compute: one timed
#      bin_and_sort call (--reps 1 --warmup 0; the bench brackets its timed
#      calls with cudaProfilerStart/Stop and ncu starts with profiling off,
#      so the verification call and everything else stay out), tilesort's
#      kernels only, a launch-count limit;
#   3. scripts/ncu_kernel_table.py: a Markdown table per case (kernel,
#      launches, total us, share of the call, DRAM bytes, SM throughput %,
#      issue active %, shared-memory wavefronts).
#
#   scripts/device_binning_profile.sh BIN_DIR OUT_DIR [COMMIT]
#
# BIN_DIR holds tilesort-bench (or BIN_DIR/bench does; built elsewhere is
# fine: it links the CUDA runtime statically). Writes 3 files into OUT_DIR:
#   binning-profile.md        the tables, then the plain run's report
#   binning-profile-ncu.csv   ncu's CSV of every run, one section each
#   binning-profile-log.txt   commands, exit codes, times, every run's output
# About 2-3 minutes on an H200 (each step has a timeout; the whole stays
# under 4). Environment: BINNING_PROFILE_CASES (comma-separated suite cases,
# default tiles16-4M,4k-tiles8), BINNING_PROFILE_SECONDS (the ncu runs' budget,
# default 225; a run left less than 30 s is reported as not run),
# NCU (path to ncu), NCU_LAUNCH_COUNT (default 64),
# NCU_KERNEL_REGEX (default 'tilesort': every kernel in namespace tilesort,
# on demangled names), NCU_CACHE_CONTROL (all | none, default all).
# Exit status: 0 when the plain run and every ncu run gave results, else 1.
set -uo pipefail
bin="$1"; out="$2"; commit="${3:-unknown}"
here="$(cd "$(dirname "$0")" && pwd)"
rc_all=0
. "$here/ncu_profile_lib.sh"
profile_outputs "$out" binning-profile
find_bench "$bin" || exit 1
find_ncu
regex="${NCU_KERNEL_REGEX:-tilesort}"
IFS=, read -r -a cases <<<"${BINNING_PROFILE_CASES:-tiles16-4M,4k-tiles8}"
budget="${BINNING_PROFILE_SECONDS:-225}"
bits_list=(32 16)

say "bench: $bench"
say "ncu: ${ncu:-not found}"

# 1. The plain run: event-timed calls, the copy floor.
t0=$(date +%s)
timeout 110 "$bench" --suite binning --cases "$(IFS=,; echo "${cases[*]}")" --depth-bits 32,16 \
  --methods tilesort --commit "$commit" --out "$tmp/plain" >"$tmp/plain-stdout.md" 2>"$tmp/plain-stderr.txt"
rc=$?
[ "$rc" -eq 0 ] || rc_all=1
say "plain run (--methods tilesort, median of 15): exit $rc in $(( $(date +%s) - t0 )) s"
cat "$tmp/plain-stderr.txt" >>"$log"

# 2. One ncu run per (case, depth bits).
if [ -z "$ncu" ]; then
  say "ncu not found (set NCU=/path/to/ncu): no kernel breakdown"
  rc_all=1
fi
for case in "${cases[@]}"; do
  for bits in "${bits_list[@]}"; do
    [ -n "$ncu" ] || continue
    left=$(( budget - ($(date +%s) - start) ))
    if [ "$left" -lt 30 ]; then
      say "ncu $case $bits-bit: not run, ${left} s left"
      rc_all=1
      continue
    fi
    t0=$(date +%s)
    ncu_section "case=$case bits=$bits calls=1" "$(( left < 80 ? left : 80 ))" "$regex" \
      --suite binning --cases "$case" --depth-bits "$bits" --methods tilesort --reps 1 --warmup 0 \
      --commit "$commit" --out "$tmp/ncu-run" || rc_all=1
    say "ncu $case $bits-bit: exit $ncu_rc, ${ncu_rows:-0} CSV lines, in $(( $(date +%s) - t0 )) s"
  done
done

# 3. The tables, then the plain run's own report.
{
  python3 "$here/ncu_kernel_table.py" "$csv" --plain-json "$tmp/plain.json" --launch-limit "$ncu_launch_limit" ||
    echo "(ncu_kernel_table.py failed: see binning-profile-log.txt)"
  echo
  echo "ncu: \`${ncu:-not found}\` with \`$(ncu_options "$regex")\`."
  echo
  [ -f "$tmp/plain.md" ] && sed -e 's/^#/##/' -e 's/^## tilesort-bench/## Plain run: tilesort-bench/' "$tmp/plain.md"
} >"$md" 2>>"$log"
say "total: $(( $(date +%s) - start )) s; exit $rc_all"
exit "$rc_all"
