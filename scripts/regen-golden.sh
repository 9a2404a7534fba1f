#!/bin/sh
# Rewrites tests/golden/*.expect from the current behaviour of sballoc, for a
# deliberate change; review `git diff tests/golden` before committing.
#
# usage: sh scripts/regen-golden.sh [SBALLOC_BINARY]   (default: build/dev/sballoc)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$src/build/dev/sballoc}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
[ -x "$bin" ] || { echo "regen-golden: no executable $bin" >&2; exit 2; }
dir=$src/tests/golden
tmp=${TMPDIR:-/tmp}/sballoc-regen.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM

for json in "$dir"/*.json; do
    name=$(basename "$json" .json)
    args=$(cat "$dir/$name.args")
    set +e
    # shellcheck disable=SC2086
    (cd "$dir" && "$bin" $args "$name.json") >"$tmp/out" 2>"$tmp/err"
    status=$?
    set -e
    {
        grep -v '^  time:' "$tmp/out" || true
        echo "--- stderr"
        cat "$tmp/err"
        echo "--- exit $status"
    } >"$dir/$name.expect"
    echo "wrote tests/golden/$name.expect (exit $status)"
done
