#!/bin/sh
# Runs a program and compares its standard output with an expected file, byte for byte.
#
#     check_output.sh EXPECTED PROGRAM [ARG...]
#
# Exits 0 when they match.  Otherwise prints both and a diff (when diff is present) and exits 1, or exits
# with the program's own status when it failed.  Standard error is left alone so that the program's
# messages reach the test log.
set -u

if [ $# -lt 2 ]; then
    echo "usage: check_output.sh EXPECTED PROGRAM [ARG...]" >&2
    exit 2
fi
expected=$1
shift

actual=$(mktemp "${TMPDIR:-/tmp}/parray-check.XXXXXX") || exit 2
trap 'rm -f "$actual"' EXIT HUP INT TERM

"$@" >"$actual"
status=$?
if [ $status -ne 0 ]; then
    echo "check_output: $1 exited with status $status" >&2
    exit $status
fi

if cmp -s "$expected" "$actual"; then
    exit 0
fi

echo "check_output: the output of $1 differs from $expected" >&2
if command -v diff >/dev/null 2>&1; then
    diff -u "$expected" "$actual" >&2
else
    echo "--- expected" >&2
    cat "$expected" >&2
    echo "--- actual" >&2
    cat "$actual" >&2
fi
exit 1
