#!/bin/sh
# Runs a program and compares its standard output with an expected file.
#
#     check_lines.sh [--sorted] EXPECTED PROGRAM [ARG...]
#
# With --sorted both are compared as sorted lines, for programs whose threads print in an order the manual
# calls nondeterministic.  Exits 0 when they match; otherwise prints a diff and exits 1, or exits with the
# program's own status when it failed.
set -u
sorted=0
if [ "${1:-}" = "--sorted" ]; then
    sorted=1
    shift
fi
if [ $# -lt 2 ]; then
    echo "usage: check_lines.sh [--sorted] EXPECTED PROGRAM [ARG...]" >&2
    exit 2
fi
expected=$1
shift
dir=$(mktemp -d "${TMPDIR:-/tmp}/parray-lines.XXXXXX") || exit 2
trap 'rm -rf "$dir"' EXIT HUP INT TERM
"$@" >"$dir/actual"
status=$?
if [ $status -ne 0 ]; then
    echo "check_lines: $1 exited with status $status" >&2
    exit $status
fi
if [ $sorted -eq 1 ]; then
    LC_ALL=C sort "$expected" >"$dir/want"
    LC_ALL=C sort "$dir/actual" >"$dir/got"
else
    cp "$expected" "$dir/want"
    cp "$dir/actual" "$dir/got"
fi
if cmp -s "$dir/want" "$dir/got"; then
    exit 0
fi
echo "check_lines: the output of $1 differs from $expected" >&2
diff -u "$dir/want" "$dir/got" >&2 || true
exit 1
