#!/bin/sh
# `sballoc show`: the linearized program with operand footprints, on a small
# tiled kernel (nested loops, an axis-indexed block, all blocks, PSUM, an
# empty loop, a non-memory operand); then the error paths.
#
# usage: sh show.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=show
. "$2/tests/cli/lib/setup.sh"
failed=0

cat >"$tmp/in.json" <<'JSON'
{"arch": "trn2", "functions": [{"name": "tiled", "allocations": [
  {"name": "x", "kind": "ExternalInput", "dtype": "bfloat16", "tensor_shape": [4, 128, 256], "partition_dim": 1,
   "memorylocations": [{"name": "x_dram", "type": "DRAM"}]},
  {"name": "w", "kind": "Const", "dtype": "bfloat16", "tensor_shape": [128, 128],
   "memorylocations": [{"name": "w_sb", "type": "SB"}]},
  {"name": "t", "dtype": "bfloat16", "tensor_shape": [4, 128, 256], "partition_dim": 1,
   "memorylocations": [{"name": "t_sb", "type": "SB"}]},
  {"name": "acc", "dtype": "float32", "tensor_shape": [128, 512],
   "memorylocations": [{"name": "acc_psum", "type": "PSUM"}]},
  {"name": "y", "kind": "ExternalOutput", "dtype": "float32", "tensor_shape": [128, 512],
   "memorylocations": [{"name": "y_dram", "type": "DRAM"}]}],
 "blocks": [{"name": "entry", "instructions": [
  {"name": "tiles", "opcode": "Loop", "LoopAxis": {"name": "i", "lb": 0, "ub": 4, "stride": 1}, "blocks": [
   {"name": "body", "instructions": [
    {"name": "load", "opcode": "DMALoad", "engine": "dma",
     "ins": [{"kind": "symbolic_ap", "memsetref": "x", "ap": [[256, 128], [1, 256]], "terms": [["i", 32768]]}],
     "outs": [{"kind": "symbolic_ap", "memsetref": "t", "ap": [[256, 128], [1, 256]], "terms": [["i", 32768]]}]},
    {"name": "halves", "opcode": "Loop", "LoopAxis": {"name": "j", "lb": 0, "ub": 2, "stride": 1}, "blocks": [
     {"name": "inner", "instructions": [
      {"name": "mm", "opcode": "Matmult", "engine": "pe",
       "ins": [{"memsetref": "w", "ap": [[128, 128], [1, 128]]},
               {"kind": "symbolic_ap", "memsetref": "t", "ap": [[256, 64], [1, 256]],
                "terms": [["i", 32768], ["j", 16384]]}],
       "outs": [{"kind": "symbolic_ap", "memsetref": "acc", "ap": [[512, 128], [1, 256]], "terms": [["j", 256]]}]}]}]}]}]},
  {"name": "never", "opcode": "Loop", "LoopAxis": {"name": "k", "lb": 0, "ub": 0}, "blocks": []},
  {"name": "scale", "opcode": "Activation", "engine": "act",
   "ins": [{"memsetref": "acc", "ap": [[512, 128], [1, 512]]}, {"kind": "imm_value", "value": 0.5}],
   "outs": [{"memsetref": "y", "ap": [[512, 128], [1, 512]]}]},
  {"name": "sum", "opcode": "TensorReduce", "engine": "dve",
   "ins": [{"memsetref": "t", "ap": [[256, 128], [32768, 4], [1, 256]]}],
   "outs": [{"memsetref": "acc", "ap": [[512, 128], [1, 1]]}]}]}]}]}
JSON

cat >"$tmp/expect" <<'TEXT'
function "tiled": 10 points, loop depth 2
    0  for i in [0, 4) step 1  (tiles, 4 iterations)
    1    load  DMALoad  dma
             R x [DRAM]  partitions [0, 128)  bytes [0, 512)  blocks i: 0 +1 per iteration (0..3)
             W t [SB]  partitions [0, 128)  bytes [0, 512)  blocks i: 0 +1 per iteration (0..3)
    2    for j in [0, 2) step 1  (halves, 2 iterations)
    3      mm  Matmult  pe
               R w [SB]  partitions [0, 128)  bytes [0, 256)  block 0
               R t [SB]  partitions [0, 128)  bytes [0, 512)  blocks i: 0 +1 per iteration (0..3)
               W acc [PSUM]  partitions [0, 128)  bytes [0, 2048)  block 0
    4    end j
    5  end i
    6  for k in [0, 0) step 1  (never, 0 iterations)
    7  end k
    8  scale  Activation  act
           R acc [PSUM]  partitions [0, 128)  bytes [0, 2048)  block 0
           R imm_value
           W y [DRAM]  partitions [0, 128)  bytes [0, 2048)  block 0
    9  sum  TensorReduce  dve
           R t [SB]  partitions [0, 128)  bytes [0, 512)  blocks all 0..3
           W acc [PSUM]  partitions [0, 128)  bytes [0, 4)  block 0
TEXT

"$bin" show "$tmp/in.json" >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" -ne 0 ] || [ -s "$tmp/err" ]; then
    echo "FAIL show: exit status $status"
    cat "$tmp/err"
    failed=$((failed + 1))
elif ! cmp -s "$tmp/out" "$tmp/expect"; then
    echo "FAIL show: output differs"
    diff "$tmp/expect" "$tmp/out"
    failed=$((failed + 1))
fi

# Standard input gives the same listing.
"$bin" show - <"$tmp/in.json" >"$tmp/out" 2>"$tmp/err"
if [ $? -ne 0 ] || ! cmp -s "$tmp/out" "$tmp/expect"; then
    echo "FAIL show -: output differs from show FILE"
    failed=$((failed + 1))
fi

# After allocation every operand shows its placement by memory type (the
# seed's rendering): SB by address and base, PSUM by bank and address.
"$bin" alloc "$tmp/in.json" -o "$tmp/alloc.json" >/dev/null 2>"$tmp/err" || {
    echo "FAIL alloc before show"
    cat "$tmp/err"
    failed=$((failed + 1))
}
"$bin" show "$tmp/alloc.json" >"$tmp/out" 2>"$tmp/err"
for want in ' R w \[SB addr [0-9]* base 0\] ' ' W acc \[PSUM bank [0-7] addr [0-9]*\] '; do
    grep -q "$want" "$tmp/out" || {
        echo "FAIL show of an allocated module: no line matching '$want'"
        cat "$tmp/out"
        failed=$((failed + 1))
    }
done

# A footprint that cannot be derived: the error as check prints it, exit 2.
case=011-partition-out-of-bound.json
(cd "$src/tests/errors/program" && "$bin" show "$case") >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" -ne 2 ] || ! cmp -s "$tmp/err" "$src/tests/errors/program/${case%.json}.expect"; then
    echo "FAIL show $case: exit status $status, standard error:"
    cat "$tmp/err"
    failed=$((failed + 1))
fi

# No file, or two: a usage error.
for args in "" "a.json b.json"; do
    # shellcheck disable=SC2086
    "$bin" show $args >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ "$status" -ne 2 ] || ! grep -q 'usage: sballoc show FILE' "$tmp/err"; then
        echo "FAIL show $args: exit status $status, expected a usage error"
        failed=$((failed + 1))
    fi
done

echo "show: $failed failed"
[ "$failed" -eq 0 ]
