#!/bin/sh
# The program-validation error catalogue: every tests/errors/program/NNN-name.json
# loads, and fails `sballoc check` validation; NNN-name.expect beside it holds
# the exact line printed on standard error. Each case must exit with status 2,
# print that line and nothing on standard output. The cases run in their own
# directory, so that messages show the file name as passed.
#
# usage: sh errors_program.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=errors-program
. "$2/tests/cli/lib/setup.sh"
dir=$2/tests/errors/program
# shellcheck source=lib/expect.sh
. "$2/tests/cli/lib/expect.sh"

total=0
failed=0

for json in "$dir"/*.json; do
    [ -e "$json" ] || continue
    expect_case "$dir" "${json##*/}" "${json%.json}.expect" 2 check
done

if [ "$total" -lt 14 ]; then
    echo "FAIL: found $total cases in $dir, expected at least 14"
    failed=$((failed + 1))
fi
echo "$total program error cases, $failed failed"
[ "$failed" -eq 0 ]
