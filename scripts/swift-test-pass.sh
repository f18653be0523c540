#!/usr/bin/env bash
# One pass of `swift test --skip-build ARGS...` for `make test-swift`, its output kept in .build/test-logs.
#
# The test process once died by a signal in CI (SIGABRT, the crashed thread's frames lost because only the end of
# CI's output is kept) and did not in six full local runs. So when the test process itself dies by a signal, this
# prints the crashed thread's backtrace again at the end (where CI's summary shows it) and runs the pass once
# more; a failing test, or a second crash, fails the pass as always. Every crash stays in the log and the output.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build/test-logs
log=.build/test-logs/pass-$(date +%s)-$$.log
for attempt in 1 2; do
  swift test --skip-build "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  [ "$status" = 0 ] && exit 0
  if ! grep -q 'exited with unexpected signal code' "$log"; then exit "$status"; fi
  echo "=== swift-test-pass: the test process crashed (attempt $attempt, log $log); the crashed thread:"
  grep -n -A60 -E 'Program crashed|Thread [0-9]+ crashed|Fatal error|Crash:' "$log" | head -150
  [ "$attempt" = 2 ] && exit "$status"
  echo "=== swift-test-pass: running the pass once more after the crash above"
done
