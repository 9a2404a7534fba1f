#!/bin/sh
# Inputs that once crashed or misled sballoc (mostly found by fuzzing, see
# fuzz/): every tests/regress/*.json must be handled cleanly by `sballoc check`
# and `sballoc alloc`. Clean means exit status 0, 1 or 2 and no sanitizer
# report; a signal (status 128 and up), a sanitizer report or a run longer
# than 60 seconds fails. tests/regress/README.md says what each case was.
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

for json in "$dir"/*.json; do
    [ -e "$json" ] || continue
    name=${json##*/}
    total=$((total + 1))
    run "$name" "$bin" check "$json"
    run "$name" "$bin" alloc "$json" -o /dev/null
done

if [ "$total" -lt 1 ]; then
    echo "FAIL: no cases in $dir"
    failed=$((failed + 1))
fi
echo "$total regression cases, $failed failures"
[ "$failed" -eq 0 ]
