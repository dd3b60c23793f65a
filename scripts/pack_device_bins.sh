#!/usr/bin/env bash
# Packs what a lent GPU machine runs into one xz archive (the device tool
# carries at most 64 MiB): every test binary, tilesort-bench, tilesort-demo,
# the example programs and the C API library, stripped, plus lib/ with the
# shared libraries a bare machine lacks (libglfw and its X11 libraries).
#
#   scripts/pack_device_bins.sh BUILD_DIR ARCHIVE
#
# The device scripts (device_full_check.sh, device_demo_check.sh,
# device_python_check.sh, device_bench_sweep.sh) take the unpacked folder.
set -euo pipefail
build="$1"; archive="$2"
stage="$(mktemp -d)"; trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib"
for f in "$build"/tests/tilesort_*_tests "$build"/tests/*/tilesort_*_tests "$build"/bench/tilesort-bench \
         "$build"/demo/tilesort-demo "$build"/examples/*; do
  [ -f "$f" ] && [ -x "$f" ] && cp "$f" "$stage/"
done
for f in "$build"/capi/libtilesort_c.so*; do [ -e "$f" ] && cp -P "$f" "$stage/"; done
if [ -x "$stage/tilesort-demo" ]; then
  ldd "$stage/tilesort-demo" | awk '/libglfw|libX|libxcb|libbsd|libmd/ {print $3}' | xargs -r -I{} cp -L {} "$stage/lib/"
fi
strip "$stage"/tilesort_* "$stage"/tilesort-* 2>/dev/null || true
for f in "$stage"/*; do [ -f "$f" ] && file "$f" | grep -q 'ELF.*executable' && strip "$f" 2>/dev/null || true; done
# Every binary embeds the same ~27 MB library: one xz stream with a 64 MiB
# dictionary (-9, one thread) stores it about once (16 MB in all, against
# 69 MB at -3 with threads, over the tool's 64 MiB).
tar -C "$stage" -cf - . | xz -9 -T1 > "$archive"
ls -la "$archive"
