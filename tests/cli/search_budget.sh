#!/bin/sh
# `sballoc alloc --search-budget N`: the exact packer's work per function.
# The problem: five buffers whose lifespans leave colouring a hole (the lower
# bound is the capacity, 13, and one arrangement fits). With a budget of one
# unit the search stops at once: the allocation spills, verified, and the
# report says the budget ran out and how to search longer. With the default
# budget it packs: no spill. A budget that is not a positive integer is a
# usage error (exit 2).
#
# usage: sh search_budget.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=search_budget
. "$2/tests/cli/lib/setup.sh"

printf 'id,lower,upper,size\nt0,5,8,1\nt1,5,8,4\nt2,4,6,3\nt3,2,7,4\nt4,6,11,4\n' >"$tmp/trap.csv"
"$bin" import-csv "$tmp/trap.csv" --capacity 13 -o "$tmp/trap.json" 2>"$tmp/err" ||
    fail "import-csv: $(cat "$tmp/err")"

"$bin" alloc "$tmp/trap.json" -o "$tmp/out.json" --search-budget 1 --report >"$tmp/report" 2>"$tmp/err" ||
    fail "alloc --search-budget 1: $(cat "$tmp/err")"
grep -q 'spilled 1 ' "$tmp/report" || fail "a budget of 1 should spill one buffer: $(cat "$tmp/report")"
grep -q 'exact search: exhausted its budget .*; --search-budget N searches longer' "$tmp/report" ||
    fail "the report should say the budget ran out: $(grep 'exact search' "$tmp/report")"
grep -q '^verified' "$tmp/report" || fail "the spilled allocation was not verified"

"$bin" alloc "$tmp/trap.json" -o "$tmp/out.json" --report >"$tmp/report" 2>"$tmp/err" ||
    fail "alloc: $(cat "$tmp/err")"
grep -q 'spilled 0 ' "$tmp/report" || fail "the default budget should pack: $(cat "$tmp/report")"
grep -q 'exact search: packed' "$tmp/report" || fail "the search should pack: $(grep 'exact search' "$tmp/report")"

usage() {
    want=$1
    shift
    "$bin" "$@" >/dev/null 2>"$tmp/err"
    status=$?
    [ "$status" -eq 2 ] || fail "$* exited with $status, expected 2"
    [ "$(cat "$tmp/err")" = "$want" ] || fail "$*: said $(cat "$tmp/err")"
}
for bad in 0 -1 x 1e9 "" 18446744073709551616; do
    usage "sballoc: alloc: --search-budget: expected a positive integer, got \"$bad\"" \
        alloc "$tmp/trap.json" --search-budget "$bad"
done
usage 'sballoc: alloc: --search-budget needs a value' alloc "$tmp/trap.json" --search-budget
"$bin" alloc --help | grep -q -- '--search-budget N' || fail "alloc --help does not describe --search-budget"

finish
