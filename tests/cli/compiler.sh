#!/bin/sh
# The compiler's own BIR dumps through every command (tests/data/compiler/):
#   - check, alloc, verify, draw and fmt accept each kernel;
#   - fmt keeps the compiler's spelling (engine DVE, dtype float8e4, memref
#     alone) and adds no key of sballoc's own layout; fmt is idempotent;
#   - alloc's output verifies, keeps the spelling, re-saves byte-identical
#     through fmt, and draws one tensor group
#     per SB location verify counts;
#   - the compiler's own placement (placed_matmul.json) verifies and draws
#     as it is, without alloc; verify --target checks it against the chip it
#     was placed for, --sb-align against another alignment;
#   - a Gather written over its input is refused by verify (exit 1), and on
#     a target too small for the Gather beside its inputs alloc fails (exit
#     1) naming the kernel source line instead of overlapping them.
#
# usage: sh compiler.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=compiler
. "$2/tests/cli/lib/setup.sh"
dir=$src/tests/data/compiler

count=0
for f in "$dir"/*.json; do
    k=${f##*/}
    k=${k%.json}
    count=$((count + 1))
    "$bin" check "$f" >/dev/null || fail "$k: check exited with $?"
    "$bin" fmt "$f" -o "$tmp/$k.fmt.json" || fail "$k: fmt exited with $?"
    "$bin" fmt "$tmp/$k.fmt.json" -o "$tmp/$k.fmt2.json" || fail "$k: second fmt exited with $?"
    cmp -s "$tmp/$k.fmt.json" "$tmp/$k.fmt2.json" || fail "$k: fmt is not idempotent"
    for key in '"version"' '"tensor_class"' '"physical_ap", "memsetref"'; do
        if grep -q "$key" "$tmp/$k.fmt.json" && ! grep -q "$key" "$f"; then
            fail "$k: fmt added $key"
        fi
    done
    "$bin" alloc "$f" -o "$tmp/$k.alloc.json" >/dev/null || fail "$k: alloc exited with $?"
    "$bin" fmt "$tmp/$k.alloc.json" -o "$tmp/$k.alloc.fmt.json" || fail "$k: fmt of alloc's output exited with $?"
    cmp -s "$tmp/$k.alloc.json" "$tmp/$k.alloc.fmt.json" || fail "$k: fmt changes alloc's output"
    "$bin" verify "$tmp/$k.alloc.json" >"$tmp/$k.verify" || fail "$k: verify of alloc's output exited with $?"
    "$bin" draw "$tmp/$k.alloc.json" -o "$tmp/$k.svg" || fail "$k: draw exited with $?"
    locs=$(sed -n 's/.* \([0-9][0-9]*\) SB locations.*/\1/p' "$tmp/$k.verify")
    groups=$(grep -o '<g class="tensor"' "$tmp/$k.svg" | wc -l | tr -d ' ')
    [ -n "$locs" ] && [ "$groups" -eq "$locs" ] || fail "$k: $groups tensor groups drawn, verify counts '$locs' SB locations"
done
[ "$count" -ge 5 ] || fail "only $count kernels in $dir"

# The spelling survives fmt and alloc.
for out in "$tmp/sample.fmt.json" "$tmp/sample.alloc.json"; do
    grep -q '"engine": "DVE"' "$out" || fail "${out##*/}: engine DVE was not kept"
    grep -q '"engine": "ALL"' "$out" || fail "${out##*/}: engine ALL was not kept"
    grep -q '"dtype": "float8e4"' "$out" || fail "${out##*/}: dtype float8e4 was not kept"
    grep -q '"queues"' "$out" || fail "${out##*/}: the top-level queues were not kept"
    grep -q '"op_name": "nl.exp"' "$out" || fail "${out##*/}: the debug of an instruction was not kept"
done
grep -q '"addr"' "$tmp/sample.fmt.json" && fail "fmt placed something"
grep -q '"addr"' "$tmp/sample.alloc.json" || fail "alloc placed nothing"

# show points at the kernel source.
"$bin" show "$dir/sample.json" >"$tmp/show" || fail "show exited with $?"
grep -q 'I-3  Activation  Activation (line 14, nl.exp)' "$tmp/show" || fail "show does not name the source line"

# The compiler's own allocation, checked and drawn as it is.
placed=$dir/placed_matmul.json
"$bin" verify "$placed" >/dev/null || fail "verify of the compiler's placement exited with $?"
"$bin" draw "$placed" -o "$tmp/placed.svg" || fail "draw of the compiler's placement exited with $?"
grep -q '<g class="tensor"' "$tmp/placed.svg" || fail "the compiler's placement draws no tensor"

# A dump names no target: --target says which chip's SBUF it was placed for.
sed 's/"addr": 256,/"addr": 179712,/' "$placed" >"$tmp/high.json"
grep -q '"addr": 179712' "$tmp/high.json" || fail "could not move bt in $placed"
"$bin" verify "$tmp/high.json" >/dev/null || fail "bt ending at byte 180736 does not verify on trn2"
"$bin" verify "$tmp/high.json" --target trn1 >/dev/null 2>"$tmp/high.err"
rc=$?
[ "$rc" -eq 1 ] || fail "verify --target trn1 of bt past 180224 exited with $rc, expected 1"
grep -q 'exceed the 180224 SB bytes per partition' "$tmp/high.err" || fail "verify --target trn1: $(cat "$tmp/high.err")"

# Another allocator's addresses need not be multiples of sballoc's 32 bytes:
# --sb-align says which alignment to hold them to.
sed 's/"addr": 256,/"addr": 272,/' "$placed" >"$tmp/odd.json"
"$bin" verify "$tmp/odd.json" >/dev/null 2>"$tmp/odd.err"
rc=$?
[ "$rc" -eq 1 ] || fail "verify of bt at byte 272 exited with $rc, expected 1 (SB alignment 32)"
grep -q 'addr 272 is not a multiple of the SB alignment 32' "$tmp/odd.err" || fail "verify: $(cat "$tmp/odd.err")"
"$bin" verify "$tmp/odd.json" --sb-align 16 >/dev/null || fail "verify --sb-align 16 of bt at byte 272 exited with $?"
"$bin" verify "$tmp/odd.json" --sb-align 3 >/dev/null 2>&1
[ $? -eq 2 ] || fail "verify --sb-align 3 should be a usage error"

# A Gather written over its own table.
"$bin" verify "$src/tests/data/verify/fail_library_overlap.json" >/dev/null 2>"$tmp/overlap.err"
rc=$?
[ "$rc" -eq 1 ] || fail "verify of a Gather over its input exited with $rc, expected 1"
grep -q 'library instruction "I-3" (Gather) (line 20, nisa.gather) writes tensor "g_set"' "$tmp/overlap.err" ||
    fail "verify did not name the Gather and its source line: $(cat "$tmp/overlap.err")"

# On 4096 bytes per partition the Gather cannot sit beside its inputs.
sed '1a\
 "target": {"name": "trn2", "sbuf_bytes_per_partition": 4096},' "$dir/gather.json" >"$tmp/tight.json"
"$bin" alloc "$tmp/tight.json" -o "$tmp/tight.out.json" >/dev/null 2>"$tmp/tight.err"
rc=$?
[ "$rc" -eq 1 ] || fail "alloc of the tight Gather exited with $rc, expected 1"
grep -q 'I-3 (line 20, nisa.gather)' "$tmp/tight.err" || fail "alloc did not name the source line: $(cat "$tmp/tight.err")"

finish
