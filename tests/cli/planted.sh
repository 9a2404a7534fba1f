#!/bin/sh
# `sballoc gen --planted`: instances with a known zero-slack packing, by
# guillotine cuts or (--walls) by memory reused over time, 1-D or 2-D. The
# same arguments give the same bytes; --solution writes the planted packing,
# which the verifier accepts, and it leaves no slack (the lower bound is the
# capacity). The packer packs small planted instances, 1-D and 2-D, that the
# colouring alone spills. And a function whose tensors fit band by band is
# not declared impossible because their bytes add up across bands.
#
# usage: sh planted.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=planted
. "$2/tests/cli/lib/setup.sh"

"$bin" gen --planted --seed 5 --tensors 300 -o "$tmp/a.json" --solution "$tmp/a.sol.json" 2>"$tmp/err" ||
    fail "gen --planted: $(cat "$tmp/err")"
"$bin" gen --planted --seed 5 --tensors 300 >"$tmp/b.json" || fail "gen --planted to standard output"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "gen --planted twice: outputs differ"
"$bin" gen --planted --seed 6 --tensors 300 >"$tmp/c.json" || fail "gen --planted --seed 6"
cmp -s "$tmp/a.json" "$tmp/c.json" && fail "seeds 5 and 6 gave the same instance"
"$bin" verify "$tmp/a.sol.json" >"$tmp/out" 2>"$tmp/err" || fail "the planted solution does not verify: $(cat "$tmp/err")"
"$bin" check "$tmp/a.json" >"$tmp/out" || fail "check of a planted instance"
grep -q '^sets: 300$' "$tmp/out" || fail "--tensors 300: $(grep '^sets' "$tmp/out")"
"$bin" analyze "$tmp/a.json" --log 2>&1 | grep -q '^SB high-water mark = 65536 bytes' ||
    fail "the planted instance should have zero slack (lower bound = capacity 65536)"

# 1-D, every option.
"$bin" gen --planted --seed 2 --tensors 200 --heights full --capacity 1048576 --span 150 --min-size 4096 \
    -o "$tmp/d.json" --solution "$tmp/d.sol.json" || fail "gen --planted with every option"
"$bin" verify "$tmp/d.sol.json" >/dev/null 2>"$tmp/err" || fail "1-D planted solution: $(cat "$tmp/err")"

# Holes: a seeded share of the tiling left out. The planted packing still
# packs what is kept, the count is the one asked for, and there is slack.
"$bin" gen --planted --seed 4 --tensors 250 --heights full --holes 20 -o "$tmp/h.json" --solution "$tmp/h.sol.json" ||
    fail "gen --planted --holes 20"
"$bin" verify "$tmp/h.sol.json" >/dev/null 2>"$tmp/err" || fail "planted solution with holes: $(cat "$tmp/err")"
"$bin" check "$tmp/h.json" >"$tmp/out" || fail "check of a planted instance with holes"
grep -q '^sets: 250$' "$tmp/out" || fail "--holes 20 --tensors 250: $(grep '^sets' "$tmp/out")"
"$bin" analyze "$tmp/h.json" --log 2>&1 | grep -q '^SB high-water mark = 65536 bytes' &&
    fail "seed 4 with 20% holes should leave slack: its high-water mark is the capacity"
"$bin" gen --planted --holes 91 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'holes must be a percent' "$tmp/err" || fail "gen --planted --holes 91: $(cat "$tmp/err")"

# Holes filled: the same function with the pieces left out kept, after the
# others: as many as the tiling had, no slack (the lower bound is the
# capacity), the planted packing verifies; without --holes it is a usage error.
"$bin" gen --planted --seed 4 --tensors 250 --heights full --holes 20 --fill-holes -o "$tmp/f.json" \
    --solution "$tmp/f.sol.json" 2>"$tmp/err" || fail "gen --planted --holes 20 --fill-holes: $(cat "$tmp/err")"
"$bin" verify "$tmp/f.sol.json" >/dev/null 2>"$tmp/err" || fail "planted solution with holes filled: $(cat "$tmp/err")"
"$bin" check "$tmp/f.json" >"$tmp/out" || fail "check of a planted instance with holes filled"
grep -q '^sets: 313$' "$tmp/out" || fail "--holes 20 --fill-holes --tensors 250: $(grep '^sets' "$tmp/out")"
"$bin" analyze "$tmp/f.json" --log 2>&1 | grep -q '^SB high-water mark = 65536 bytes' ||
    fail "with its holes filled the instance should have no slack"
"$bin" gen --planted --fill-holes >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'fill-holes needs holes' "$tmp/err" || fail "gen --planted --fill-holes: $(cat "$tmp/err")"
"$bin" gen --fill-holes >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'applies only to --planted' "$tmp/err" || fail "gen --fill-holes without --planted: $(cat "$tmp/err")"

# Elongation: tensors that live longer for their size (cuts in time that
# much rarer), as MiniMalloc's instances. Still a tiling with holes: the
# planted packing verifies and the count is the one asked for.
"$bin" gen --planted --seed 4 --tensors 300 --heights full --capacity 1048576 --min-size 1024 --span 1024 \
    --holes 5 --elongation 8 -o "$tmp/e.json" --solution "$tmp/e.sol.json" 2>"$tmp/err" ||
    fail "gen --planted --elongation 8: $(cat "$tmp/err")"
"$bin" verify "$tmp/e.sol.json" >/dev/null 2>"$tmp/err" || fail "elongated planted solution: $(cat "$tmp/err")"
"$bin" check "$tmp/e.json" >"$tmp/out" || fail "check of an elongated planted instance"
grep -q '^sets: 300$' "$tmp/out" || fail "--elongation 8 --tensors 300: $(grep '^sets' "$tmp/out")"
"$bin" gen --planted --elongation x >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'elongation: "x" is not a count' "$tmp/err" || fail "gen --elongation x: $(cat "$tmp/err")"
"$bin" gen --elongation 2 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'applies only to --planted' "$tmp/err" || fail "gen --elongation without --planted: $(cat "$tmp/err")"

# Walls: memory reused over time, a 1-D tiling no guillotine cut splits.
# The same arguments give the same bytes, the planted packing verifies, the
# count is the one asked for, and there is no slack.
"$bin" gen --planted --walls --heights full --seed 3 --tensors 400 -o "$tmp/w.json" --solution "$tmp/w.sol.json" \
    2>"$tmp/err" || fail "gen --planted --walls: $(cat "$tmp/err")"
"$bin" gen --planted --walls --heights full --seed 3 --tensors 400 >"$tmp/w2.json" || fail "gen --walls to stdout"
cmp -s "$tmp/w.json" "$tmp/w2.json" || fail "gen --planted --walls twice: outputs differ"
"$bin" verify "$tmp/w.sol.json" >/dev/null 2>"$tmp/err" || fail "walls solution: $(cat "$tmp/err")"
"$bin" check "$tmp/w.json" >"$tmp/out" || fail "check of a walls instance"
grep -q '^sets: 400$' "$tmp/out" || fail "--walls --tensors 400: $(grep '^sets' "$tmp/out")"
"$bin" analyze "$tmp/w.json" --log 2>&1 | grep -q '^SB high-water mark = 65536 bytes' ||
    fail "the walls instance should have zero slack (lower bound = capacity 65536)"

# Walls in 2-D (the default mix): each quarter's freed room is cut by
# height, so tensors of a quarter, a half and the full height share it. The
# planted packing verifies, every quarter stays full (no slack), all three
# heights occur, and the count is the one asked for (now and then the last
# step must make a few more, not here).
"$bin" gen --planted --walls --seed 3 --tensors 400 -o "$tmp/v.json" --solution "$tmp/v.sol.json" 2>"$tmp/err" ||
    fail "gen --planted --walls in 2-D: $(cat "$tmp/err")"
"$bin" gen --planted --walls --seed 3 --tensors 400 >"$tmp/v2.json" || fail "2-D walls to stdout"
cmp -s "$tmp/v.json" "$tmp/v2.json" || fail "2-D walls twice: outputs differ"
"$bin" verify "$tmp/v.sol.json" >/dev/null 2>"$tmp/err" || fail "2-D walls solution: $(cat "$tmp/err")"
"$bin" check "$tmp/v.json" >"$tmp/out" || fail "check of a 2-D walls instance"
sets=$(sed -n 's/^sets: //p' "$tmp/out")
[ "$sets" -eq 400 ] || fail "2-D walls --tensors 400 made $sets"
"$bin" analyze "$tmp/v.json" --log 2>&1 | grep -q '^SB high-water mark = 65536 bytes' ||
    fail "the 2-D walls instance should have zero slack (lower bound = capacity 65536)"
tr -d '\n' <"$tmp/v.json" | sed 's/"tensor_shape": \[ */\n/g' | cut -d, -f1 | sed 1d >"$tmp/parts"
grep -Eqx '([1-9]|[12][0-9]|3[0-2])' "$tmp/parts" || fail "2-D walls: no quarter-height tensor"
grep -Eqx '(3[3-9]|[45][0-9]|6[0-4])' "$tmp/parts" || fail "2-D walls: no half-height tensor"
grep -Eqx '(6[5-9]|[7-9][0-9]|1[01][0-9]|12[0-8])' "$tmp/parts" || fail "2-D walls: no full-height tensor"
"$bin" gen --planted --walls --heights h:1,f:1 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'walls in 2-D need quarter heights' "$tmp/err" ||
    fail "gen --planted --walls without quarter heights: $(cat "$tmp/err")"
"$bin" gen --walls >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'applies only to --planted' "$tmp/err" || fail "gen --walls: $(cat "$tmp/err")"

# Packing: small instances that colouring alone spills pack with no spill.
# The 200-tensor one packs only with the per-band section bounds: without
# them every search runs out of budget and tensors spill.
for args in "--seed 3 --tensors 100" "--seed 1 --tensors 200" "--seed 2 --tensors 120 --heights full"; do
    # shellcheck disable=SC2086
    "$bin" gen --planted $args -o "$tmp/p.json" || fail "gen --planted $args"
    "$bin" alloc "$tmp/p.json" -o "$tmp/p.out.json" --report >"$tmp/report" 2>"$tmp/err" ||
        fail "alloc of planted $args: $(cat "$tmp/err")"
    grep -q 'spilled 0 ' "$tmp/report" || fail "planted $args should pack: $(grep spilled "$tmp/report")"
    grep -q '^verified' "$tmp/report" || fail "planted $args: not verified"
done

# Insertion: with a budget the search of this instance runs out on, the
# nodes select left unplaced are put in one at a time (the windows around
# each repacked): some go in, and the result still verifies.
"$bin" gen --planted --seed 3 --tensors 300 --heights full --holes 10 -o "$tmp/i.json" || fail "gen holes 10"
"$bin" alloc "$tmp/i.json" --search-budget 100000000 --report --log -o "$tmp/i.out.json" >"$tmp/report" \
    2>"$tmp/log" || fail "alloc with insertion: $(cat "$tmp/log")"
grep -Eq '^search: insertion put [1-9][0-9]* of [0-9]+ unplaced nodes' "$tmp/report" ||
    fail "insertion should put some nodes in: $(grep 'insertion' "$tmp/report")"
grep -q '^verified' "$tmp/report" || fail "insertion: not verified"

# Bad options.
"$bin" gen --planted --capacity 100 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "gen --planted --capacity 100 should be a usage error"
"$bin" gen --planted --pressure 0.5 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'does not apply to --planted' "$tmp/err" || fail "gen --planted --pressure: $(cat "$tmp/err")"
"$bin" gen --solution x.json >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'applies only to --planted' "$tmp/err" || fail "gen --solution: $(cat "$tmp/err")"

# The tensors of this function fit quarter by quarter (best fit packs them)
# but their bytes add up to three times the SB: with a tiny budget it must
# still allocate, not be declared impossible.
"$bin" alloc "$2/tests/regress/010-feasible-declared-impossible.json" --search-budget 1000 -o "$tmp/f.json" \
    --report >"$tmp/report" 2>"$tmp/err" || fail "feasible function declared impossible: $(cat "$tmp/err")"
grep -q '^verified' "$tmp/report" || fail "010: not verified"
"$bin" alloc "$2/tests/regress/010-feasible-declared-impossible.json" -o "$tmp/f.json" --report >"$tmp/report" ||
    fail "010 with the default budget"
grep -q 'spilled 0 ' "$tmp/report" || fail "010 should pack with no spill: $(grep spilled "$tmp/report")"
grep -q 'SB pressure 16384 bytes/partition' "$tmp/report" ||
    fail "010: SB pressure should count per band: $(grep 'SB pressure' "$tmp/report")"

finish
