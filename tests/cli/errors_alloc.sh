#!/bin/sh
# The allocator's error catalogue: every tests/errors/alloc/NNN-name.json loads
# and validates, and `sballoc alloc NNN-name.json -o /dev/null` fails with the
# exact line in NNN-name.expect on standard error and nothing on standard
# output. Cases 001-009 cannot be allocated (exit status 1); cases 010 and up
# are bad input the allocator refuses (exit status 2). The cases run in their
# own directory, so that messages show the file name as passed.
#
# usage: sh errors_alloc.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=errors-alloc
. "$2/tests/cli/lib/setup.sh"
dir=$2/tests/errors/alloc
# shellcheck source=lib/expect.sh
. "$2/tests/cli/lib/expect.sh"

total=0
failed=0

for json in "$dir"/*.json; do
    [ -e "$json" ] || continue
    name=${json##*/}
    case $name in
        00[1-9]-*) want=1 ;;
        *) want=2 ;;
    esac
    expect_case "$dir" "$name" "${json%.json}.expect" "$want" alloc -o /dev/null
done

if [ "$total" -lt 14 ]; then
    echo "FAIL: found $total cases in $dir, expected at least 14"
    failed=$((failed + 1))
fi
echo "$total allocator error cases, $failed failed"
[ "$failed" -eq 0 ]
