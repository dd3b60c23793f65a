#!/usr/bin/env bash
# The full check on a lent GPU machine, as one `run` of the device tool:
# Vulkan loader set-up (the device README's .gl recipe), then
# scripts/device_check.sh on binaries built elsewhere, then the examples
# (each checks itself against a CPU reference). Results land in $OUT, as
# five files: summary.txt (the GPU, every verdict), bench.{md,json},
# suites.md (the suites, the probes and the examples' output) and
# logs.tar.gz; the device tool returns 8, so a caller may add 3.
#
#   scripts/device_full_check.sh BINARIES.tar.xz COMMIT
#
# The archive holds the test binaries, tilesort-bench, tilesort-demo with
# lib/ (libglfw and its X11 libraries), and the example programs, stripped.
# Carry the archive and .gl with the call. TILESORT_CHECK_SECONDS=N (see
# device_check.sh) keeps the whole within about N seconds, the examples
# included; on an H100 the whole takes about 480 s without the key probes.
set -u
archive="$1"; sha="$2"
if [ -n "${TILESORT_CHECK_SECONDS:-}" ]; then
  full_deadline=$(( $(date +%s) + TILESORT_CHECK_SECONDS ))
  # device_check.sh stops in time to leave the examples (about 15 s) theirs.
  export TILESORT_CHECK_DEADLINE=$(( full_deadline - 15 ))
fi
. "$(dirname "$0")/device_vulkan_env.sh" || exit 1
bin=/tmp/tsbin; mkdir -p $bin && xz -d -c "$archive" | tar xf - -C $bin
# Few files: the device tool returns at most 8, and callers add their own.
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>&1 | sed 's/^/gpu: /' >> "$OUT/summary.txt"
bash scripts/device_check.sh $bin "$OUT" "$sha"
for ex in bin_and_sort tile_blend vulkan_sort_in_place sort_segments; do
  [ -x $bin/$ex ] || continue
  if [ -n "${full_deadline:-}" ] && [ $(( full_deadline - $(date +%s) )) -lt 5 ]; then
    echo "example $ex: not run (TILESORT_CHECK_SECONDS)" | tee -a "$OUT/summary.txt"; continue
  fi
  LD_LIBRARY_PATH="$bin/lib:${LD_LIBRARY_PATH:-}" timeout 60 $bin/$ex > /tmp/example-$ex.txt 2>&1
  echo "example $ex: exit $?; $(tail -1 /tmp/example-$ex.txt)" | tee -a "$OUT/summary.txt"
  { printf '\n## Example %s\n\n```\n' "$ex"; cat /tmp/example-$ex.txt; printf '```\n'; } >> "$OUT/suites.md"
done
ls -la "$OUT"
