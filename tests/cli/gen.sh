#!/bin/sh
# `sballoc gen`: the same seed gives the same bytes, on standard output and
# with -o; the output passes `sballoc check`; bad arguments are usage errors
# (exit 2) with a message; and every bundled example passes `sballoc check`.
#
# usage: sh gen.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=gen
. "$2/tests/cli/lib/setup.sh"

# Determinism: twice on standard output, once through -o.
"$bin" gen --seed 7 >"$tmp/a.json" 2>"$tmp/err" || fail "gen --seed 7: exit status $?"
"$bin" gen --seed 7 >"$tmp/b.json" 2>>"$tmp/err" || fail "gen --seed 7 (again): exit status $?"
"$bin" gen --seed 7 -o "$tmp/c.json" 2>>"$tmp/err" || fail "gen --seed 7 -o: exit status $?"
[ -s "$tmp/err" ] && fail "gen wrote to standard error: $(cat "$tmp/err")"
[ -s "$tmp/a.json" ] || fail "gen --seed 7 wrote nothing"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "gen --seed 7 twice: outputs differ"
cmp -s "$tmp/a.json" "$tmp/c.json" || fail "gen --seed 7 -o FILE differs from standard output"

# Another seed, another kernel.
"$bin" gen --seed 8 >"$tmp/d.json" || fail "gen --seed 8: exit status $?"
cmp -s "$tmp/a.json" "$tmp/d.json" && fail "gen --seed 7 and --seed 8 gave the same output"

# Generated modules load, validate and re-save unchanged.
"$bin" check "$tmp/a.json" >/dev/null 2>"$tmp/err" || fail "check of gen --seed 7: $(cat "$tmp/err")"
"$bin" fmt "$tmp/a.json" >"$tmp/fmt.json" && cmp -s "$tmp/a.json" "$tmp/fmt.json" ||
    fail "fmt of gen --seed 7 is not byte-identical"
"$bin" gen --seed 3 --tensors 2000 --loop-depth 4 --heights full --pressure 1.4 --target trn3 \
    -o "$tmp/e.json" || fail "gen with every option: exit status $?"
"$bin" check "$tmp/e.json" >"$tmp/out" 2>"$tmp/err" || fail "check of gen with every option: $(cat "$tmp/err")"
grep -q '^sets: 2000$' "$tmp/out" || fail "gen --tensors 2000: $(grep '^sets' "$tmp/out")"
grep -q '^target: trn3' "$tmp/out" || fail "gen --target trn3: $(grep '^target' "$tmp/out")"

"$bin" gen --help >"$tmp/out" 2>&1 && grep -q 'usage: sballoc gen' "$tmp/out" || fail "gen --help"

# Bad arguments: exit 2 and a message naming the problem.
while IFS='|' read -r args expect; do
    # shellcheck disable=SC2086
    "$bin" gen $args >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ "$status" -ne 2 ]; then
        fail "gen $args: exit status $status, expected 2"
    elif ! grep -q -- "$expect" "$tmp/err"; then
        fail "gen $args: message \"$(cat "$tmp/err")\" lacks \"$expect\""
    elif [ -s "$tmp/out" ]; then
        fail "gen $args: wrote to standard output"
    fi
done <<'CASES'
--tensors 0|tensors must be in 1..
--tensors abc|--tensors: "abc" is not a count
--tensors -5|--tensors: "-5" is not a count
--tensors 99999999999|--tensors: "99999999999" is not a count
--seed x|--seed: "x" is not an unsigned integer
--seed -1|--seed: "-1" is not an unsigned integer
--loop-depth 9|loop depth must be in 0..8
--loop-depth two|--loop-depth: "two" is not a depth
--pressure 0|pressure must be in (0, 8]
--pressure nan|--pressure: "nan" is not a number
--pressure 0.5x|--pressure: "0.5x" is not a number
--heights z:1|unknown height "z"
--heights q:1;h:1|expected ',' or the end
--heights q:0|every weight is zero
--target trn9|--target: unknown target "trn9"
--bogus 1|unknown option "--bogus"
--seed|--seed needs a value
stray|unexpected argument "stray"
CASES

# Every bundled example loads and validates.
n=0
for f in "$src"/examples/*.json; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    "$bin" check "$f" >/dev/null 2>"$tmp/err" || fail "check $(basename "$f"): $(cat "$tmp/err")"
done
[ "$n" -ge 6 ] || fail "expected at least 6 examples in $src/examples, found $n"

finish
