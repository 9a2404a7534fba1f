#!/bin/sh
# `sballoc alloc -j N` and several FILEs: the output does not depend on N.
# A module of several functions allocated with -j 1 and -j 3 is written
# byte-identical, with the same report (times aside; a small exact-search
# budget keeps it quick, and spilling); several FILEs into -o DIR
# give the files that one run per FILE gives, reports in FILE order. With
# stderr not a terminal nothing is printed on it (no progress line). Bad uses:
# -o a file with several FILEs, two FILEs of one base name, -j 0 (exit 2); a
# FILE that fails does not stop the others, and the exit status is the worst.
#
# usage: sh jobs.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=jobs
. "$2/tests/cli/lib/setup.sh"

"$bin" gen --seed 11 --tensors 600 --functions 5 --pressure 1.2 -o "$tmp/many.json" 2>"$tmp/err" ||
    fail "gen --functions: $(cat "$tmp/err")"
grep -q '"name": "kernel_4"' "$tmp/many.json" || fail "gen --functions 5 should name kernel_0..kernel_4"
for j in 1 3; do
    "$bin" alloc "$tmp/many.json" -j $j -o "$tmp/many.j$j.json" --search-budget 100000 --report >"$tmp/rep.j$j" 2>"$tmp/err.j$j" ||
        fail "alloc -j $j: $(cat "$tmp/err.j$j")"
    [ -s "$tmp/err.j$j" ] && fail "alloc -j $j wrote on stderr (not a terminal): $(cat "$tmp/err.j$j")"
    grep -v 'time:' "$tmp/rep.j$j" >"$tmp/rep.j$j.notime"
done
cmp -s "$tmp/many.j1.json" "$tmp/many.j3.json" || fail "-j 3 output differs from -j 1"
cmp -s "$tmp/rep.j1.notime" "$tmp/rep.j3.notime" || fail "-j 3 report differs from -j 1"
grep -q 'spilled [1-9]' "$tmp/rep.j1" || fail "the pressure should make some function spill"

mkdir -p "$tmp/in" "$tmp/one" "$tmp/all"
for s in 1 2 3; do
    "$bin" gen --seed $s --tensors 400 -o "$tmp/in/k$s.json" 2>"$tmp/err" || fail "gen: $(cat "$tmp/err")"
    "$bin" alloc "$tmp/in/k$s.json" -o "$tmp/one/k$s.json" --report >>"$tmp/rep.one" 2>"$tmp/err" ||
        fail "alloc k$s: $(cat "$tmp/err")"
done
"$bin" alloc "$tmp/in/k1.json" "$tmp/in/k2.json" "$tmp/in/k3.json" -o "$tmp/all" -j 2 --report \
    >"$tmp/rep.all" 2>"$tmp/err" || fail "alloc of 3 FILEs: $(cat "$tmp/err")"
for s in 1 2 3; do
    cmp -s "$tmp/one/k$s.json" "$tmp/all/k$s.json" || fail "k$s.json differs from its own run's"
done
grep -v 'time:' "$tmp/rep.one" >"$tmp/rep.one.notime"
grep -v 'time:' "$tmp/rep.all" >"$tmp/rep.all.notime"
cmp -s "$tmp/rep.one.notime" "$tmp/rep.all.notime" || fail "reports of 3 FILEs are not in FILE order"

expect_usage() {
    "$bin" alloc "$@" >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "alloc $*: exit $rc, expected 2"
}
expect_usage "$tmp/in/k1.json" "$tmp/in/k2.json" -o "$tmp/all/k1.json"
grep -q 'must be an existing directory' "$tmp/err" || fail "-o FILE with several FILEs: $(cat "$tmp/err")"
expect_usage "$tmp/in/k1.json" "$tmp/one/k1.json" -o "$tmp/all"
grep -q 'would both be written to' "$tmp/err" || fail "two FILEs of one base name: $(cat "$tmp/err")"
expect_usage "$tmp/in/k1.json" -j 0
grep -q -- '-j: expected a count of 1 to 64' "$tmp/err" || fail "-j 0: $(cat "$tmp/err")"

printf '{"version": 2, "functions": [' >"$tmp/in/bad.json"
"$bin" alloc "$tmp/in/bad.json" "$tmp/in/k2.json" -o "$tmp/all" -j 2 >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "a FILE that does not load: exit $rc, expected 2"
grep -q 'bad.json:1:' "$tmp/err" || fail "the bad FILE's error: $(cat "$tmp/err")"
cmp -s "$tmp/one/k2.json" "$tmp/all/k2.json" || fail "the good FILE should still be written"

finish
