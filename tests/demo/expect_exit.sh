#!/usr/bin/env bash
# expect_exit.sh EXPECTED_CODE EXPECTED_VERDICT DEMO [ARGS...]
# Runs the demo; passes (0) when it exits with EXPECTED_CODE and printed
# "verify: EXPECTED_VERDICT". Exit codes 3 (no Vulkan device) and 4 (no CUDA
# path for --gpu) are passed through so ctest reports the test as skipped.
set -u
expected_code="$1"; expected_verdict="$2"; shift 2
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
"$@" >"$log" 2>&1
code=$?
cat "$log"
if [ "$code" -eq 3 ] || [ "$code" -eq 4 ]; then
  echo "expect_exit: SKIPPED (exit code $code: $(tail -n 1 "$log"))"
  exit "$code"
fi
if [ "$code" -ne "$expected_code" ]; then
  echo "expect_exit: FAIL: exit code $code, expected $expected_code"
  exit 1
fi
if ! grep -q "^verify: $expected_verdict" "$log"; then
  echo "expect_exit: FAIL: no 'verify: $expected_verdict' line"
  exit 1
fi
echo "expect_exit: ok (exit code $code, verify: $expected_verdict)"
