#!/bin/sh
# The DRAM page on the command line: `sballoc alloc --dram-page N` places the
# DRAM scratch on pages of N bytes and proves the result with the verifier on
# the same page; `sballoc verify --dram-page N` checks that every scratch
# address is a multiple of N (default 512). The kernel: d0 and d1, two
# Internal DRAM tensors of 256 bytes live at the same time.
#   - --dram-page 256 puts d1 at 256, which only a verifier told the page
#     accepts: alloc passes its page on;
#   - --dram-page 1024 puts d1 at 1024; verify --dram-page 1024 passes;
#     moved to 512 it still passes the default page and fails on 1024 with
#     the exact message (exit 1);
#   - a page that is not a positive power of two, or no page, is a usage
#     error (exit 2).
#
# usage: sh dram_page.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=dram_page
. "$2/tests/cli/lib/setup.sh"

ap='"ap": [[64, 1], [1, 64]]'
cat >"$tmp/k.json" <<EOF
{"version": 2, "arch": "trn2", "functions": [{"name": "f", "allocations": [
  {"name": "x", "kind": "ExternalInput", "dtype": "float32", "tensor_shape": [1, 64],
   "memorylocations": [{"name": "x", "type": "DRAM"}]},
  {"name": "xs", "dtype": "float32", "tensor_shape": [1, 64], "memorylocations": [{"name": "xs", "type": "SB"}]},
  {"name": "d0", "dtype": "float32", "tensor_shape": [1, 64], "memorylocations": [{"name": "d0", "type": "DRAM"}]},
  {"name": "d1", "dtype": "float32", "tensor_shape": [1, 64], "memorylocations": [{"name": "d1", "type": "DRAM"}]},
  {"name": "r0", "dtype": "float32", "tensor_shape": [1, 64], "memorylocations": [{"name": "r0", "type": "SB"}]},
  {"name": "r1", "dtype": "float32", "tensor_shape": [1, 64], "memorylocations": [{"name": "r1", "type": "SB"}]}],
 "blocks": [{"name": "entry", "instructions": [
  {"name": "load", "opcode": "DMALoad", "ins": [{"memsetref": "x", $ap}], "outs": [{"memsetref": "xs", $ap}]},
  {"name": "s0", "opcode": "DMAStore", "ins": [{"memsetref": "xs", $ap}], "outs": [{"memsetref": "d0", $ap}]},
  {"name": "s1", "opcode": "DMAStore", "ins": [{"memsetref": "xs", $ap}], "outs": [{"memsetref": "d1", $ap}]},
  {"name": "l0", "opcode": "DMALoad", "ins": [{"memsetref": "d0", $ap}], "outs": [{"memsetref": "r0", $ap}]},
  {"name": "l1", "opcode": "DMALoad", "ins": [{"memsetref": "d1", $ap}], "outs": [{"memsetref": "r1", $ap}]}]}]}]}
EOF

# the addr of DRAM location NAME in the saved module FILE (canonical layout:
# name, type, addr on consecutive lines)
dram_addr() {
    grep -A 2 "\"name\": \"$2\"" "$1" | grep -A 1 '"type": "DRAM"' | sed -n 's/.*"addr": \([0-9]*\).*/\1/p'
}

# A page of 256: d1 at 256, proved on that page.
if "$bin" alloc "$tmp/k.json" --dram-page 256 -o "$tmp/a256.json" 2>"$tmp/err"; then
    [ "$(dram_addr "$tmp/a256.json" d1)" = 256 ] || fail "--dram-page 256: d1 is not at 256"
    "$bin" verify "$tmp/a256.json" >/dev/null 2>&1 && fail "verify on the default page accepts d1 at 256"
    "$bin" verify "$tmp/a256.json" --dram-page 256 >/dev/null || fail "verify --dram-page 256 rejects the module"
else
    fail "alloc --dram-page 256: $(cat "$tmp/err")"
fi

# A page of 1024: d1 at 1024; moved to 512, off the page.
if "$bin" alloc "$tmp/k.json" --dram-page 1024 -o "$tmp/a.json" 2>"$tmp/err"; then
    [ "$(dram_addr "$tmp/a.json" d0)" = 0 ] || fail "--dram-page 1024: d0 is not at 0"
    [ "$(dram_addr "$tmp/a.json" d1)" = 1024 ] || fail "--dram-page 1024: d1 is not at 1024"
    "$bin" verify --dram-page 1024 "$tmp/a.json" >/dev/null || fail "verify --dram-page 1024 rejects the module"
    sed 's/"addr": 1024/"addr": 512/' "$tmp/a.json" >"$tmp/moved.json"
    [ "$(dram_addr "$tmp/moved.json" d1)" = 512 ] || fail "the edit did not move d1 to 512"
    "$bin" verify "$tmp/moved.json" >/dev/null || fail "verify on the default page rejects d1 at 512"
    (cd "$tmp" && "$bin" verify moved.json --dram-page 1024) >"$tmp/out" 2>"$tmp/err"
    status=$?
    [ "$status" -eq 1 ] || fail "verify --dram-page 1024 of d1 at 512 exited with $status, expected 1"
    want='sballoc: moved.json: error: functions[0].allocations[3].memorylocations[0]: verify: DRAM location "d1" of tensor "d1": addr 512 is not a multiple of the DRAM page 1024'
    [ "$(cat "$tmp/err")" = "$want" ] || fail "verify --dram-page 1024 said: $(cat "$tmp/err")"
else
    fail "alloc --dram-page 1024: $(cat "$tmp/err")"
fi

# Usage errors: exit 2 and the message.
usage() { # want SUBCOMMAND ARGS...
    want=$1
    shift
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
    [ "$status" -eq 2 ] || fail "$* exited with $status, expected 2"
    [ "$(cat "$tmp/err")" = "$want" ] || fail "$*: said $(cat "$tmp/err")"
}
usage 'sballoc: alloc: --dram-page: expected a positive power of two, got "1000"' alloc "$tmp/k.json" --dram-page 1000
usage 'sballoc: alloc: --dram-page: expected a positive power of two, got "0"' alloc "$tmp/k.json" --dram-page 0
usage 'sballoc: alloc: --dram-page: expected a positive power of two, got "-512"' alloc "$tmp/k.json" --dram-page -512
usage 'sballoc: alloc: --dram-page: expected a positive power of two, got "4k"' alloc "$tmp/k.json" --dram-page 4k
usage 'sballoc: alloc: --dram-page needs a value' alloc "$tmp/k.json" --dram-page
usage 'sballoc: verify: --dram-page: expected a positive power of two, got "96"' verify "$tmp/k.json" --dram-page 96
usage 'sballoc: verify: --dram-page needs a value' verify "$tmp/k.json" --dram-page

# Both commands document the option.
"$bin" alloc --help | grep -q -- '--dram-page N' || fail "alloc --help does not describe --dram-page"
"$bin" verify --help | grep -q -- '--dram-page N' || fail "verify --help does not describe --dram-page"

finish

