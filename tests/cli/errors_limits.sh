#!/bin/sh
# Inputs beyond the documented limits (docs/errors.md, "Limits"): each
# tests/errors/limits/NNN-name.json is run through `sballoc alloc NNN-name.json
# -o /dev/null` in its directory. A non-empty NNN-name.expect is the exact
# line expected on standard error, with exit status 2; an empty one means the
# input is within the limits and must allocate cleanly (exit status 0, no
# output). Every case must finish within 60 seconds. Case 001, a file over
# the 1 GiB size limit, is made here as a sparse file.
#
# usage: sh errors_limits.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=errors-limits
. "$2/tests/cli/lib/setup.sh"
dir=$2/tests/errors/limits

limit=""
command -v timeout >/dev/null 2>&1 && limit="timeout 60"

total=0
failed=0

# check DIR NAME EXPECT_FILE
check() {
    total=$((total + 1))
    want=2
    [ -s "$3" ] || want=0
    # shellcheck disable=SC2086
    (cd "$1" && $limit "$bin" alloc "$2" -o /dev/null) >"$tmp/stdout" 2>"$tmp/stderr"
    status=$?
    if [ "$status" -ne "$want" ]; then
        echo "FAIL $2: exit status $status, expected $want"
        head -n 5 "$tmp/stderr"
        failed=$((failed + 1))
    elif [ -s "$tmp/stdout" ]; then
        echo "FAIL $2: wrote to standard output"
        failed=$((failed + 1))
    elif ! cmp -s "$tmp/stderr" "$3"; then
        echo "FAIL $2: standard error differs"
        echo "  expected: $(cat "$3")"
        echo "  got:      $(cat "$tmp/stderr")"
        failed=$((failed + 1))
    fi
}

for json in "$dir"/*.json; do
    [ -e "$json" ] || continue
    expect=${json%.json}.expect
    if [ ! -f "$expect" ]; then
        echo "FAIL ${json##*/}: missing ${expect##*/}"
        failed=$((failed + 1))
        continue
    fi
    check "$dir" "${json##*/}" "$expect"
done

# The file size limit, checked before reading: a sparse file takes no space.
if truncate -s 1025M "$tmp/001-file-too-large.json" 2>/dev/null; then
    printf 'sballoc: 001-file-too-large.json: error: the input is larger than the 1024 MiB limit\n' >"$tmp/001.expect"
    check "$tmp" 001-file-too-large.json "$tmp/001.expect"
    rm -f "$tmp/001-file-too-large.json"
else
    echo "note: no sparse file in $tmp; the file size case was not run"
fi

if [ "$total" -lt 13 ]; then
    echo "FAIL: found $total cases in $dir, expected at least 13"
    failed=$((failed + 1))
fi
echo "$total limit cases, $failed failed"
[ "$failed" -eq 0 ]
