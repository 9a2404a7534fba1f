#!/bin/sh
# The same input gives the same output, byte for byte: `sballoc alloc` on every
# example and on a generated 2,000-tensor kernel, run twice (each run gets
# fresh heap and stack addresses), and once more pinned to one CPU with
# taskset when it is available. The generator itself must repeat too.
#
# usage: sh determinism.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=determinism
. "$2/tests/cli/lib/setup.sh"

pin=""
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
    pin="taskset -c 0"
else
    echo "note: taskset is not available; the pinned runs are skipped"
fi

total=0
failed=0

# same NAME FILE...: every FILE must equal the first.
same() {
    name=$1
    first=$2
    shift 2
    for f in "$@"; do
        if ! cmp -s "$first" "$f"; then
            echo "FAIL $name: ${first##*/} and ${f##*/} differ"
            cmp "$first" "$f" | head -n 1
            failed=$((failed + 1))
            return
        fi
    done
}

# alloc_thrice NAME INPUT: allocate twice, and pinned when possible.
alloc_thrice() {
    total=$((total + 1))
    outs=""
    for run in 1 2 pinned; do
        launcher=""
        if [ "$run" = pinned ]; then
            [ -n "$pin" ] || continue
            launcher=$pin
        fi
        # shellcheck disable=SC2086
        if ! $launcher "$bin" alloc "$2" -o "$tmp/$1.$run.json" 2>"$tmp/err"; then
            echo "FAIL $1: sballoc alloc failed:"
            cat "$tmp/err"
            failed=$((failed + 1))
            return
        fi
        outs="$outs $tmp/$1.$run.json"
    done
    # shellcheck disable=SC2086
    same "$1" $outs
}

for json in "$src"/examples/*.json; do
    [ -e "$json" ] || continue
    name=${json##*/}
    alloc_thrice "${name%.json}" "$json"
done

total=$((total + 1))
if "$bin" gen --seed 7 --tensors 2000 -o "$tmp/gen.1.json" && "$bin" gen --seed 7 --tensors 2000 -o "$tmp/gen.2.json"; then
    same gen "$tmp/gen.1.json" "$tmp/gen.2.json"
    alloc_thrice gen2000 "$tmp/gen.1.json"
else
    echo "FAIL gen: sballoc gen failed"
    failed=$((failed + 1))
fi

echo "$total determinism checks, $failed failed"
[ "$failed" -eq 0 ]
