# Sourced by the CLI tests, after `set -u` and setting $name:
#     name=csv
#     . "$2/tests/cli/lib/setup.sh"
# with $1 the sballoc binary and $2 the source tree. Sets $bin (absolute) and
# $src, a scratch directory $tmp removed on exit, fail MESSAGE (reports a
# failure and counts it in $failed) and finish (the summary line; its status
# is the script's when it ends the script).
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
tmp=${TMPDIR:-/tmp}/sballoc-$name.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
failed=0

fail() {
    echo "FAIL $*"
    failed=$((failed + 1))
}

finish() {
    echo "$name: $failed failed"
    [ "$failed" -eq 0 ]
}
