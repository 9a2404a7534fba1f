#!/bin/sh
# Inputs that once crashed or misled sballoc (mostly found by fuzzing, see
# fuzz/): every tests/regress/*.json must be handled cleanly by `sballoc check`
# and `sballoc alloc`. Clean means exit status 0, 1 or 2 and no sanitizer
# report; a signal (status 128 and up), a sanitizer report or a run longer
# than 60 seconds fails. tests/regress/README.md says what each case was.
#
# A case may say more of what is right for it: NAME.expect, next to NAME.json,
# is a shell fragment run with $json set to the case, calling
#     expect_status STATUS ARGS...   `sballoc ARGS...` exits with STATUS
#     expect_says PATTERN ARGS...    its standard output or error matches PATTERN
#     expect_no_out PATTERN ARGS...  neither does
# (PATTERN is a grep basic regular expression).
#
# usage: sh regress.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=regress
. "$2/tests/cli/lib/setup.sh"
dir=$2/tests/regress

limit=""
command -v timeout >/dev/null 2>&1 && limit="timeout 60"

total=0
failed=0

# run NAME CMD...: one command on one case.
run() {
    name=$1
    shift
    # shellcheck disable=SC2086
    $limit "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -gt 2 ]; then
        echo "FAIL $name: \`$*\` exited with status $rc"
        head -n 20 "$tmp/err"
        failed=$((failed + 1))
    elif grep -q 'Sanitizer\|runtime error:' "$tmp/err"; then
        echo "FAIL $name: \`$*\` reported:"
        head -n 20 "$tmp/err"
        failed=$((failed + 1))
    elif [ "$rc" -ne 0 ] && [ ! -s "$tmp/err" ]; then
        echo "FAIL $name: \`$*\` exited with status $rc and no message"
        failed=$((failed + 1))
    fi
}

# sballoc ARGS... into $tmp/out and $tmp/err; sets $rc.
capture() {
    # shellcheck disable=SC2086
    $limit "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

expect_status() {
    want=$1
    shift
    capture "$@"
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL $name: \`sballoc $*\` exited with status $rc, expected $want"
        head -n 5 "$tmp/err"
        failed=$((failed + 1))
    fi
}

expect_says() {
    pat=$1
    shift
    capture "$@"
    if ! cat "$tmp/out" "$tmp/err" | grep -q -- "$pat"; then
        echo "FAIL $name: \`sballoc $*\` did not say /$pat/:"
        head -n 5 "$tmp/err"
        failed=$((failed + 1))
    fi
}

expect_no_out() {
    pat=$1
    shift
    capture "$@"
    if cat "$tmp/out" "$tmp/err" | grep -q -- "$pat"; then
        echo "FAIL $name: \`sballoc $*\` said /$pat/"
        failed=$((failed + 1))
    fi
}

for json in "$dir"/*.json; do
    [ -e "$json" ] || continue
    name=${json##*/}
    total=$((total + 1))
    run "$name" "$bin" check "$json"
    run "$name" "$bin" alloc "$json" -o /dev/null
    expect=${json%.json}.expect
    # shellcheck disable=SC1090
    [ -f "$expect" ] && . "$expect"
done

if [ "$total" -lt 1 ]; then
    echo "FAIL: no cases in $dir"
    failed=$((failed + 1))
fi
echo "$total regression cases, $failed failures"
[ "$failed" -eq 0 ]
