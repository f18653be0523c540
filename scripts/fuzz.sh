#!/usr/bin/env bash
# Runs each libFuzzer target (Fuzz/Sources/CabFuzz) for SECONDS (default 60) with AddressSanitizer, starting from
# the checked-in corpus in Fuzz/corpus/TARGET; new inputs go to .build/fuzz-corpus/TARGET, crashes to
# .build/fuzz-findings/. Prints executions per target; exits non-zero on the first finding.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (needs `make fuzz-build` first)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(pbf json osmand tariff http)
binary=.build/fuzz/debug/CabFuzz
[ -x "$binary" ] || { echo "fuzz.sh: $binary is missing; run make fuzz-build" >&2; exit 66; }
mkdir -p .build/fuzz-findings
status=0
for target in "${targets[@]}"; do
    mkdir -p ".build/fuzz-corpus/$target"
    log=".build/fuzz-findings/$target.log"
    set +e
    CAB_FUZZ_TARGET="$target" ASAN_OPTIONS=detect_leaks=0 "$binary" -max_total_time="$seconds" -max_len=65536 \
        -timeout=10 -rss_limit_mb=1536 -print_final_stats=1 -artifact_prefix=".build/fuzz-findings/$target-" \
        ".build/fuzz-corpus/$target" "Fuzz/corpus/$target" >"$log" 2>&1
    code=$?
    set -e
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    corpus=$(ls ".build/fuzz-corpus/$target" | wc -l)
    if [ $code -ne 0 ]; then
        echo "fuzz $target: FINDING after $runs executions (exit $code); see $log and .build/fuzz-findings/$target-*"
        grep -m5 -E 'ERROR|Fatal error|SUMMARY' "$log" || true
        status=1
    else
        echo "fuzz $target: $runs executions in ${seconds} s, no crash (corpus $corpus new inputs)"
    fi
done
exit $status
