#!/bin/sh
# CSV interop from the command line: MiniMalloc's input.12.csv (read from
# ../shared beside the source tree) imported at capacity 12, allocated with
# every strategy, exported and checked; the exported columns equal the input's;
# then the error paths: a bad row (FILE:LINE:COL, exit 2), an overlapping
# packing (exit 1), a missing --capacity (usage, exit 2), and export of a
# module that was never allocated (exit 1).
#
# usage: sh csv.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=csv
. "$2/tests/cli/lib/setup.sh"

input="$src/../shared/bench/minimalloc/input.12.csv"
if [ -r "$input" ]; then
    "$bin" import-csv "$input" --capacity 12 -o "$tmp/in.json" 2>"$tmp/err" || fail "import-csv: $(cat "$tmp/err")"
    for strategy in coloring best-fit greedy-size; do
        "$bin" alloc "$tmp/in.json" --strategy "$strategy" -o "$tmp/a.json" 2>"$tmp/err" ||
            fail "alloc --strategy $strategy: $(cat "$tmp/err")"
        "$bin" export-csv "$tmp/a.json" -o "$tmp/out.csv" 2>"$tmp/err" ||
            fail "export-csv ($strategy): $(cat "$tmp/err")"
        "$bin" check-csv "$tmp/out.csv" --capacity 12 >"$tmp/check" 2>"$tmp/err" ||
            fail "check-csv ($strategy): $(cat "$tmp/err")"
        grep -q 'a valid packing: 5 buffers, .* peak live 12, peak used 12 of 12' "$tmp/check" ||
            fail "check-csv ($strategy) said: $(cat "$tmp/check")"
        # The first four columns come back as given; the fifth is the offset.
        tr -d '\r' <"$input" | sed '/^$/d' >"$tmp/want"
        sed 's/,[^,]*$//' "$tmp/out.csv" >"$tmp/got"
        cmp -s "$tmp/want" "$tmp/got" || fail "export-csv ($strategy) columns differ: $(diff "$tmp/want" "$tmp/got")"
        head -n 1 "$tmp/out.csv" | grep -qx 'id,lower,upper,size,offset' || fail "export-csv header"
    done
    # Standard input and output work as well.
    "$bin" import-csv - --capacity 12 <"$input" >"$tmp/stdin.json" 2>"$tmp/err" &&
        cmp -s "$tmp/stdin.json" "$tmp/in.json" || fail "import-csv - differs from import-csv FILE"
    "$bin" export-csv - <"$tmp/a.json" >"$tmp/stdout.csv" 2>"$tmp/err" &&
        cmp -s "$tmp/stdout.csv" "$tmp/out.csv" || fail "export-csv - differs from export-csv -o FILE"
    # Never allocated: no offsets to export.
    "$bin" export-csv "$tmp/in.json" >"$tmp/out" 2>"$tmp/err"
    status=$?
    [ "$status" -eq 1 ] && grep -q 'has no SB address: allocate the module first' "$tmp/err" ||
        fail "export-csv of an unallocated module: exit $status: $(cat "$tmp/err")"
else
    echo "csv: $input not found: the MiniMalloc round trip is skipped"
fi

# A bad row: file, line and column, exit 2.
printf 'id,lower,upper,size\nb1,0,3,4\nb2,5,x,4\n' >"$tmp/bad.csv"
"$bin" import-csv "$tmp/bad.csv" --capacity 12 >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" -eq 2 ] &&
    grep -qx "sballoc: $tmp/bad.csv:3:6: error: expected an integer for upper, found \"x\"" "$tmp/err" ||
    fail "import-csv bad row: exit $status: $(cat "$tmp/err")"

# Overlapping buffers: the check fails, exit 1.
printf 'id,lower,upper,size,offset\nb1,0,3,4,0\nb2,2,9,4,2\n' >"$tmp/overlap.csv"
"$bin" check-csv "$tmp/overlap.csv" --capacity 12 >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" -eq 1 ] && grep -q "overlap.csv:3:10: error: buffers \"b1\" (line 2) and \"b2\" overlap" "$tmp/err" ||
    fail "check-csv overlap: exit $status: $(cat "$tmp/err")"

# Touching buffers may share bytes.
printf 'id,lower,upper,size,offset\nb1,0,3,4,0\nb2,3,9,4,0\n' >"$tmp/touch.csv"
"$bin" check-csv "$tmp/touch.csv" --capacity 4 >"$tmp/out" 2>"$tmp/err" || fail "check-csv touching: $(cat "$tmp/err")"

# Usage errors.
for args in "import-csv $tmp/bad.csv" "check-csv $tmp/touch.csv" "import-csv $tmp/bad.csv --capacity 0" \
    "export-csv" "export-csv a b"; do
    # shellcheck disable=SC2086
    "$bin" $args >"$tmp/out" 2>"$tmp/err"
    status=$?
    [ "$status" -eq 2 ] && grep -q 'usage: sballoc\|--capacity' "$tmp/err" ||
        fail "$args: exit $status, expected a usage error: $(cat "$tmp/err")"
done

finish
