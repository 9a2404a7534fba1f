#!/bin/sh
# Runs the libFuzzer harnesses of a fuzz build side by side, each for SECONDS.
# The committed seeds (fuzz/corpus/H) are read only; what a run learns goes to
# BUILD/corpus/H, kept between runs, and a crashing input to BUILD/crashes/.
# Exits non-zero when a harness finds a crash, a leak or a timeout, after
# printing the end of its log. Used by `make fuzz` and `make test-fuzz`.
#
# usage: sh fuzz/run.sh BUILD_DIR SECONDS [HARNESS...]   (default: load pipeline)
# FUZZ_SEED and FUZZ_RUNS, when set, fix libFuzzer's seed and its number of
# inputs, so that a run is the same on every machine (SECONDS stays a cap).
set -u
build=$1
seconds=$2
shift 2
[ $# -gt 0 ] || set -- load pipeline
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$build/crashes" "$build/logs"

# UBSan reports are recoverable by default: make them crashes libFuzzer keeps.
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export UBSAN_OPTIONS

pids=""
for h in "$@"; do
    mkdir -p "$build/corpus/$h"
    # shellcheck disable=SC2046
    "$build/fuzz/fuzz_$h" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=30 \
        $( [ -n "${FUZZ_SEED:-}" ] && echo "-seed=$FUZZ_SEED" ) $( [ -n "${FUZZ_RUNS:-}" ] && echo "-runs=$FUZZ_RUNS" ) \
        -dict="$here/bir.dict" -artifact_prefix="$build/crashes/$h-" -print_final_stats=1 \
        "$build/corpus/$h" "$here/corpus/$h" >"$build/logs/$h.log" 2>&1 &
    pids="$pids $!"
done

failed=0
set -- "$@"
for pid in $pids; do
    h=$1
    shift
    if wait "$pid"; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/logs/$h.log")
        cov=$(grep -o 'cov: [0-9]*' "$build/logs/$h.log" | tail -n 1)
        echo "fuzz_$h: ${runs:-?} inputs (at most ${seconds} s), $cov, no failure"
    else
        echo "fuzz_$h: FAILED (log: $build/logs/$h.log)"
        grep -v '^#[0-9]' "$build/logs/$h.log" | tail -n 40
        failed=1
    fi
done
exit $failed
