#!/bin/sh
# Golden-file tests of the command-line tools.
#
# Each line of cases.txt is "NAME<TAB>COMMAND ARGS..." (words split on spaces, no quoting;
# '#' lines and blank lines are skipped). The command runs in the source tree, with the first
# word taken from the build tree when a program of that name was built there; its standard
# output, followed by standard error and the exit status when either is not clean, must equal
# tests/golden/NAME.txt. To accept new output:  SF_UPDATE_GOLDEN=1 make check TESTS=tests/golden/run_golden.sh
# (or run this script directly with SF_SRCDIR and SF_BUILDDIR set).
set -u
set -f  # case commands are split on spaces but never globbed

here=$(cd "$(dirname "$0")" && pwd)
srcdir=${SF_SRCDIR:-$(cd "$here/../.." && pwd)}
builddir=${SF_BUILDDIR:-$(pwd)}
cases="$srcdir/tests/golden/cases.txt"
tab=$(printf '\t')
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sf-golden.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

[ -r "$cases" ] || { echo "spiderflow: golden: no $cases" >&2; exit 99; }

failed=0
ran=0
while IFS="$tab" read -r name cmd || [ -n "$name" ]; do
    case "$name" in ''|'#'*) continue ;; esac
    if [ -z "$cmd" ]; then
        echo "spiderflow: golden: case '$name' has no command (NAME<TAB>COMMAND)" >&2
        failed=1
        continue
    fi
    set -- $cmd
    prog=$1
    shift
    if [ -x "$builddir/$prog" ]; then
        prog="$builddir/$prog"
    elif ! command -v "$prog" >/dev/null 2>&1; then
        echo "FAIL $name: program '$prog' not built in $builddir nor on PATH"
        failed=1
        continue
    fi
    (cd "$srcdir" && "$prog" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null)
    rc=$?
    if [ -s "$tmp/err" ] || [ "$rc" -ne 0 ]; then
        { echo "--- stderr ---"; cat "$tmp/err"; echo "--- exit $rc ---"; } >>"$tmp/out"
    fi
    want="$srcdir/tests/golden/$name.txt"
    ran=$((ran + 1))
    if [ "${SF_UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$tmp/out" "$want" && echo "updated $want"
    elif [ ! -f "$want" ]; then
        echo "FAIL $name: no golden file $want (run with SF_UPDATE_GOLDEN=1 to create it)"
        failed=1
    elif diff -u "$want" "$tmp/out" >"$tmp/diff"; then
        echo "PASS $name"
    else
        echo "FAIL $name: output differs from $want:"
        cat "$tmp/diff"
        failed=1
    fi
done <"$cases"

echo "golden: $ran case(s) run"
[ "$ran" -gt 0 ] || exit 99
exit $failed
