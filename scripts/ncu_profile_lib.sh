# Sourced by scripts/device_sort_profile.sh and scripts/device_binning_profile.sh:
# their output files, finding tilesort-bench and ncu, the metrics both tables
# read (scripts/ncu_kernel_table.py), and one profiled bench run appended to
# the sections file.
#   . "$(dirname "$0")/ncu_profile_lib.sh"
#   profile_outputs OUT_DIR NAME

# profile_outputs OUT_DIR NAME: sets md, csv and log to OUT_DIR/NAME.md,
# NAME-ncu.csv and NAME-log.txt (the last two emptied), tmp to a folder removed
# on exit, and start to now.
profile_outputs() {
  mkdir -p "$1"
  md="$1/$2.md"; csv="$1/$2-ncu.csv"; log="$1/$2-log.txt"
  : >"$csv"; : >"$log"
  tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
  start=$(date +%s)
}

say() { echo "$*" | tee -a "$log"; }

ncu_launch_limit="${NCU_LAUNCH_COUNT:-64}"
ncu_cache="${NCU_CACHE_CONTROL:-all}"
ncu_metrics="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum"
ncu_metrics+=",sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
ncu_metrics+=",smsp__issue_active.avg.pct_of_peak_sustained_active"

# find_bench BIN_DIR: sets bench to BIN_DIR's tilesort-bench (or BIN_DIR/bench's); 1 if none.
find_bench() {
  bench=""
  local candidate
  for candidate in "$1/tilesort-bench" "$1/bench/tilesort-bench"; do
    [ -x "$candidate" ] && { bench="$candidate"; return 0; }
  done
  say "no tilesort-bench in $1 or $1/bench"
  return 1
}

# find_ncu: sets ncu to $NCU, the ncu on PATH, CUDA's, or the newest Nsight Compute install ("" if none).
find_ncu() {
  ncu="${NCU:-$(command -v ncu || true)}"
  [ -z "$ncu" ] && [ -x /usr/local/cuda/bin/ncu ] && ncu=/usr/local/cuda/bin/ncu
  # shellcheck disable=SC2012  # newest install by version-sorted path
  [ -z "$ncu" ] && ncu="$(ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | sort -V | tail -n 1)"
  if [ -n "$ncu" ]; then "$ncu" --version >>"$log" 2>&1; fi
}

# The ncu options, for the reports' footers.
ncu_options() {
  echo "--profile-from-start off --kernel-name-base demangled --kernel-name regex:$1 --launch-count" \
       "$ncu_launch_limit --clock-control none --cache-control $ncu_cache --metrics $ncu_metrics"
}

# ncu_section FIELDS LIMIT_S REGEX BENCH_ARGS...: one bench run under ncu,
# profiling the kernels whose demangled names match REGEX, appended to $csv
# as "### tilesort-bench-ncu FIELDS rc=R" and ncu's CSV. Sets ncu_rc and
# ncu_rows (the CSV's data lines); returns 0 when both say it gave results.
ncu_section() {
  local fields="$1" limit_s="$2" regex="$3"; shift 3
  # shellcheck disable=SC2046  # ncu_options is a list of arguments
  local cmd=("$ncu" $(ncu_options "$regex") --csv --print-units base --log-file "$tmp/ncu.csv" "$bench" "$@")
  echo "+ ${cmd[*]}" >>"$log"
  rm -f "$tmp/ncu.csv"
  timeout "$limit_s" "${cmd[@]}" >>"$log" 2>&1
  ncu_rc=$?
  echo "### tilesort-bench-ncu $fields rc=$ncu_rc" >>"$csv"
  [ -f "$tmp/ncu.csv" ] && cat "$tmp/ncu.csv" >>"$csv"
  ncu_rows=$(grep -c '^"[0-9]' "$tmp/ncu.csv" 2>/dev/null || true)
  [ "$ncu_rc" -eq 0 ] && [ "${ncu_rows:-0}" -gt 0 ]
}
