#!/bin/sh
# Golden cases: each tests/golden/NAME.json run as `sballoc $(cat NAME.args)
# NAME.json` must print NAME.expect (stdout, "--- stderr", stderr, "--- exit
# N"; lines with times left out). scripts/regen-golden.sh rewrites them.
#
# usage: sh golden.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=golden
. "$2/tests/cli/lib/setup.sh"
dir=$src/tests/golden

# run_case NAME OUTFILE: the case's output in the .expect layout.
run_case() {
    args=$(cat "$dir/$1.args")
    # shellcheck disable=SC2086
    (cd "$dir" && "$bin" $args "$1.json") >"$tmp/out" 2>"$tmp/err"
    status=$?
    {
        grep -v '^  time:' "$tmp/out"
        echo "--- stderr"
        cat "$tmp/err"
        echo "--- exit $status"
    } >"$2"
}

failed=0
count=0
for json in "$dir"/*.json; do
    name=$(basename "$json" .json)
    count=$((count + 1))
    if [ ! -f "$dir/$name.args" ] || [ ! -f "$dir/$name.expect" ]; then
        echo "FAIL $name: missing $name.args or $name.expect"
        failed=$((failed + 1))
        continue
    fi
    run_case "$name" "$tmp/actual"
    if ! cmp -s "$tmp/actual" "$dir/$name.expect"; then
        echo "FAIL $name: output differs (scripts/regen-golden.sh rewrites it)"
        diff "$dir/$name.expect" "$tmp/actual" | head -40
        failed=$((failed + 1))
    fi
done

echo "golden: $count cases, $failed failed"
[ "$failed" -eq 0 ] && [ "$count" -gt 0 ]
