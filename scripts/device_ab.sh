#!/usr/bin/env bash
# Same-run A/B of tilesort-bench builds on a GPU machine: every build runs
# the same bench arguments, alternating build by build, PASSES times, so
# clock and thermal drift hit every build alike. Then one table: per row,
# the median over passes of each build's tilesort time, and the ratios to
# the first build.
#
#   scripts/device_ab.sh OUT_DIR PASSES NAME=BENCH [NAME=BENCH ...] -- BENCH_ARGS...
#
# Run from the repository root, with .gl carried (see below). BENCH_ARGS
# are tilesort-bench's own (a --suite too). Each run writes
# OUT_DIR/runs/NAME-PASS.json; the table (scripts/ab_table.py) goes to
# stdout and OUT_DIR/ab.md.
set -uo pipefail
out="$1"; passes="$2"; shift 2
builds=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do builds+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
# With interop built the benches link libvulkan.so.1, which a bare machine
# lacks: install the loader from .gl when carried, and stop before any pass
# if a bench still cannot load.
if [ -d .gl ]; then . "$(dirname "$0")/device_vulkan_env.sh" || exit 1; fi
for build in "${builds[@]}"; do
  missing=$(ldd "${build#*=}" 2>&1 | grep -E 'not found|No such file')
  [ -z "$missing" ] || { echo "ab: ${build%%=*} cannot load: $missing (carry .gl with the call)" >&2; exit 1; }
done
mkdir -p "$out/runs"
names=(); for build in "${builds[@]}"; do names+=("${build%%=*}"); done
# The table is written however the script ends: a `timeout` around it
# (SIGTERM) still leaves the passes that finished in one table, instead of
# none. Each bench runs in the background so that the signal is taken at
# once rather than after the running bench.
running=""
write_table() {
  [ -n "$running" ] && kill "$running" 2>/dev/null
  python3 "$(dirname "$0")/ab_table.py" "$out/runs" "${names[@]}" | tee "$out/ab.md"
}
trap write_table EXIT
trap 'echo "ab: interrupted; the table holds the passes that finished" >&2; exit 143' TERM INT
for pass in $(seq 1 "$passes"); do
  for build in "${builds[@]}"; do
    name="${build%%=*}"; bench="${build#*=}"
    "$bench" "$@" --out "$out/runs/$name-$pass" >/dev/null 2>"$out/runs/$name-$pass.progress.txt" &
    running=$!
    wait "$running"; rc=$?; running=""
    echo "ab: $name pass $pass: exit $rc" >&2
  done
done
