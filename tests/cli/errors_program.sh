#!/bin/sh
# The program-validation error catalogue: every tests/errors/program/NNN-name.json
# loads, and fails `sballoc check` validation; NNN-name.expect beside it holds
# the exact line printed on standard error. Each case must exit with status 2,
# print that line and nothing on standard output. The cases run in their own
# directory, so that messages show the file name as passed.
#
# usage: sh errors_program.sh SBALLOC_BINARY SOURCE_DIR
set -u

bin=$1
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
dir=$2/tests/errors/program
tmp=${TMPDIR:-/tmp}/sballoc-errors-program.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

total=0
failed=0

for json in "$dir"/*.json; do
    [ -e "$json" ] || continue
    name=${json##*/}
    expect=${json%.json}.expect
    total=$((total + 1))
    if [ ! -f "$expect" ]; then
        echo "FAIL $name: missing ${expect##*/}"
        failed=$((failed + 1))
        continue
    fi
    (cd "$dir" && "$bin" check "$name") >"$tmp/stdout" 2>"$tmp/stderr"
    status=$?
    if [ "$status" -ne 2 ]; then
        echo "FAIL $name: exit status $status, expected 2"
        failed=$((failed + 1))
    elif [ -s "$tmp/stdout" ]; then
        echo "FAIL $name: wrote to standard output"
        failed=$((failed + 1))
    elif ! cmp -s "$tmp/stderr" "$expect"; then
        echo "FAIL $name: standard error differs"
        echo "  expected: $(cat "$expect")"
        echo "  got:      $(cat "$tmp/stderr")"
        failed=$((failed + 1))
    fi
done

if [ "$total" -lt 14 ]; then
    echo "FAIL: found $total cases in $dir, expected at least 14"
    failed=$((failed + 1))
fi
echo "$total program error cases, $failed failed"
[ "$failed" -eq 0 ]
