# Sourced by the error-catalogue runners: checks one case.
#
# expect_case DIR NAME EXPECT_FILE WANT_STATUS SUBCOMMAND [ARGS...]
#   runs `$bin SUBCOMMAND NAME ARGS...` in DIR and requires exit status
#   WANT_STATUS, nothing on standard output and exactly EXPECT_FILE on standard
#   error. Counts into $total and $failed; uses $bin and $tmp.
expect_case() {
    dir_=$1 name_=$2 expect_=$3 want_=$4 sub_=$5
    shift 5
    total=$((total + 1))
    if [ ! -f "$expect_" ]; then
        echo "FAIL $name_: missing ${expect_##*/}"
        failed=$((failed + 1))
        return
    fi
    (cd "$dir_" && "$bin" "$sub_" "$name_" "$@") >"$tmp/stdout" 2>"$tmp/stderr"
    status_=$?
    if [ "$status_" -ne "$want_" ]; then
        echo "FAIL $name_: exit status $status_, expected $want_"
        head -n 5 "$tmp/stderr"
        failed=$((failed + 1))
    elif [ -s "$tmp/stdout" ]; then
        echo "FAIL $name_: wrote to standard output"
        failed=$((failed + 1))
    elif ! cmp -s "$tmp/stderr" "$expect_"; then
        echo "FAIL $name_: standard error differs"
        echo "  expected: $(cat "$expect_")"
        echo "  got:      $(cat "$tmp/stderr")"
        failed=$((failed + 1))
    fi
}
