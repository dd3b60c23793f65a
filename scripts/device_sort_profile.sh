#!/usr/bin/env bash
# One call on a GPU machine: where segmented_sort's time goes, by kernel, on
# the rows where issue 13's targets are missed, and the CUB call each
# "never slower than CUB" miss loses to. Per row, one run of tilesort-bench
# under Nsight Compute: one timed call (--reps 1 --warmup 0; the bench puts
# its timed calls alone between cudaProfilerStart/Stop and ncu starts with
# profiling off, so the verification call and the input's restoration stay
# out), the method's kernels only. scripts/ncu_kernel_table.py --sort turns
# the CSV into a table per row (kernel, launches, us, share, DRAM bytes,
# SM throughput %, issue active %, shared-memory wavefronts).
#
#   scripts/device_sort_profile.sh BIN_DIR OUT_DIR [COMMIT]
#
# BIN_DIR holds tilesort-bench (or BIN_DIR/bench does). Writes into OUT_DIR:
#   sort-profile.md        the tables (re-render with a full run's bench.json
#                          for event-timed x copy: ncu_kernel_table.py --sort
#                          CSV --plain-json bench.json)
#   sort-profile-ncu.csv   ncu's CSV of every run, one section each
#   sort-profile-log.txt   commands, exit codes, times
# Environment: SORT_PROFILE_SECONDS (default 300: rows left when less than
# 25 s remain are reported as not run), NCU, NCU_LAUNCH_COUNT (default 64),
# NCU_CACHE_CONTROL (all | none, default all): read by ncu_profile_lib.sh.
# Exit status: 0 when every row gave kernel rows, else 1.
set -uo pipefail
bin="$1"; out="$2"; commit="${3:-unknown}"
here="$(cd "$(dirname "$0")" && pwd)"
budget="${SORT_PROFILE_SECONDS:-300}"
. "$here/ncu_profile_lib.sh"
profile_outputs "$out" sort-profile
find_bench "$bin" || exit 1
find_ncu
[ -n "$ncu" ] || { say "ncu not found (set NCU=/path/to/ncu)"; exit 1; }

# workload (as the bench names it) | variant | method | extra bench arguments
rows=(
  "fixed-16|u32-u32|tilesort|" "fixed-64|u32-u32|tilesort|" "fixed-256|u32-u32|tilesort|"
  "fixed-1024|u32-u32|tilesort|" "fixed-4096|u32-u32|tilesort|" "fixed-16384|u32-u32|tilesort|"
  "fixed-65536|u32-u32|tilesort|" "fixed-1048576|u32-u32|tilesort|" "tiles16-1M|u32-u32|tilesort|"
  "tiles16-4M|u32-u32|tilesort|" "tiles16-4M|u32-u32-16bit|tilesort|" "powerlaw|u32-u32|tilesort|"
  "fixed-65536|u32-none-16bit|tilesort|" "fixed-65536|u32-none-16bit|cub-segmented-radix-sort|"
  "fixed-16|u32-none-16bit|tilesort|" "fixed-16|u32-none-16bit|cub-segmented-sort|"
  "fixed:67108864|u32-u32|tilesort|--items 67108864" "fixed:67108864|u32-u32|cub-radix-sort|--items 67108864"
  # The sweep's cliffs, each beside the power of two above it.
  "fixed:20|u32-u32|tilesort|" "fixed:32|u32-u32|tilesort|" "fixed:160|u32-u32|tilesort|"
  "fixed:640|u32-u32|tilesort|"
)
rc_all=0
for row in "${rows[@]}"; do
  IFS='|' read -r workload variant method extra <<<"$row"
  left=$(( budget - ($(date +%s) - start) ))
  if [ "$left" -lt 25 ]; then
    say "ncu $workload $variant $method: not run, ${left} s left"
    echo "### tilesort-bench-ncu workload=$workload variant=$variant method=$method calls=1 rc=not-run" >>"$csv"
    rc_all=1
    continue
  fi
  case "$workload" in
    *:*) select=(--segments "$workload") ;;
    *) select=(--workloads "$workload") ;;
  esac
  # Kernels of the method alone: tilesort's namespace, or CUB's.
  regex=tilesort; [ "$method" = tilesort ] || regex='cub'
  t0=$(date +%s)
  # shellcheck disable=SC2086  # extra holds whole bench arguments
  ncu_section "workload=$workload variant=$variant method=$method calls=1" "$(( left < 90 ? left : 90 ))" "$regex" \
    "${select[@]}" --variants "$variant" --methods "$method" $extra --reps 1 --warmup 0 \
    --commit "$commit" --out "$tmp/run" || rc_all=1
  say "ncu $workload $variant $method: exit $ncu_rc, ${ncu_rows:-0} CSV lines, in $(( $(date +%s) - t0 )) s"
done

{
  python3 "$here/ncu_kernel_table.py" --sort "$csv" --launch-limit "$ncu_launch_limit" ||
    echo "(ncu_kernel_table.py failed: see sort-profile-log.txt)"
  echo
  echo "commit: $commit; ncu: \`$ncu $(ncu_options '(tilesort|cub)')\`."
} >"$md" 2>>"$log"
say "total: $(( $(date +%s) - start )) s; exit $rc_all"
exit "$rc_all"
