#!/bin/sh
# The loader's error catalogue: every tests/errors/loader/NNN-name.json is a bad
# input, and NNN-name.expect holds the exact line `sballoc check` must print on
# standard error for it. Each case must exit with status 2 (bad input), print
# that one line and nothing on standard output.
#
# usage: sh errors.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=errors
. "$2/tests/cli/lib/setup.sh"
dir=$src/tests/errors/loader

fail=0
count=0

# check NAME EXPECTED_STDERR_FILE: run `sballoc check NAME` in the case
# directory, so that messages show the file name as passed.
check() {
    name=$1
    expect=$2
    count=$((count + 1))
    (cd "$dir" && "$bin" check "$name") >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne 2 ]; then
        echo "FAIL $name: exit status $rc, expected 2"
        fail=$((fail + 1))
        return
    fi
    if [ -s "$tmp/out" ]; then
        echo "FAIL $name: unexpected standard output:"
        cat "$tmp/out"
        fail=$((fail + 1))
        return
    fi
    if ! cmp -s "$tmp/err" "$expect"; then
        echo "FAIL $name: standard error differs"
        echo "  expected: $(cat "$expect")"
        echo "  got:      $(cat "$tmp/err")"
        fail=$((fail + 1))
    fi
}

for case in "$dir"/*.json; do
    [ -e "$case" ] || continue
    name=${case##*/}
    expect=${case%.json}.expect
    if [ ! -f "$expect" ]; then
        echo "FAIL $name: no ${expect##*/} beside it"
        fail=$((fail + 1))
        continue
    fi
    check "$name" "$expect"
done

# A file that does not exist is an input error too.
printf 'sballoc: no-such-file.json: error: cannot open: No such file or directory\n' >"$tmp/missing.expect"
check no-such-file.json "$tmp/missing.expect"

if [ "$count" -lt 26 ]; then
    echo "FAIL: only $count cases found in $dir"
    fail=$((fail + 1))
fi
echo "$count error cases, $fail failed"
[ "$fail" -eq 0 ]
