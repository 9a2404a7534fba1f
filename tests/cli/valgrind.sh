#!/bin/sh
# Memcheck over the command-line tool: `sballoc alloc` (which verifies what it
# allocated) on every example, and `sballoc check` and `sballoc fmt` on each,
# must run without a memory error or a definite leak. Skipped, with a note,
# when valgrind is not installed (scripts/install-deps.sh installs it with
# SBALLOC_WITH_VALGRIND=1) and for a sanitized binary, which valgrind cannot
# run.
#
# usage: sh valgrind.sh SBALLOC_BINARY SOURCE_DIR
set -u

name=valgrind
. "$2/tests/cli/lib/setup.sh"
if ! command -v valgrind >/dev/null 2>&1; then
    echo "skipped: valgrind is not installed (SBALLOC_WITH_VALGRIND=1 scripts/install-deps.sh)"
    exit 0
fi
case $bin in
    */asan/*) sanitized=yes ;;
    *) if grep -q __asan_init "$bin" 2>/dev/null; then sanitized=yes; else sanitized=no; fi ;;
esac
if [ "$sanitized" = yes ]; then
    echo "skipped: $bin is built with AddressSanitizer, which valgrind cannot run"
    exit 0
fi


total=0
failed=0

# run NAME ARGS...: one sballoc command under memcheck; it must exit 0.
run() {
    name=$1
    shift
    total=$((total + 1))
    valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
        --log-file="$tmp/vg.log" "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ "$status" -ne 0 ]; then
        if [ "$status" -eq 99 ]; then
            echo "FAIL $name: sballoc $*: memcheck found errors:"
        else
            echo "FAIL $name: sballoc $*: exit status $status"
            cat "$tmp/err"
        fi
        head -n 60 "$tmp/vg.log"
        failed=$((failed + 1))
    fi
}

for json in "$src"/examples/*.json; do
    [ -e "$json" ] || continue
    name=${json##*/}
    run "$name" alloc "$json" -o "$tmp/allocated.json"
    run "$name" check "$json"
    run "$name" fmt "$json" -o "$tmp/formatted.json"
done

if [ "$total" -lt 3 ]; then
    echo "FAIL: no examples in $src/examples"
    failed=$((failed + 1))
fi
echo "$total commands under valgrind, $failed failed"
[ "$failed" -eq 0 ]
