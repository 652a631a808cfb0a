#!/bin/sh
# Runs a program that should succeed, and checks that its standard output matches every pattern given.
#
#     check_stdout.sh PATTERN... -- PROGRAM [ARG...]
#
# Exits 0 when PROGRAM exits with 0 and each extended regular expression PATTERN matches a line of its standard
# output; otherwise prints what it got and exits 1.
set -u

patterns=$(mktemp "${TMPDIR:-/tmp}/parray-check.XXXXXX") || exit 2
out=$(mktemp "${TMPDIR:-/tmp}/parray-check.XXXXXX") || exit 2
trap 'rm -f "$patterns" "$out"' EXIT HUP INT TERM
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    printf '%s\n' "$1" >>"$patterns"
    shift
done
if [ $# -lt 2 ]; then
    echo "usage: check_stdout.sh PATTERN... -- PROGRAM [ARG...]" >&2
    exit 2
fi
shift

"$@" >"$out"
status=$?
cat "$out"
if [ "$status" -ne 0 ]; then
    echo "check_stdout: $1 exited with status $status" >&2
    exit 1
fi
while IFS= read -r p; do
    if ! grep -Eq -- "$p" "$out"; then
        echo "check_stdout: no line of the output of $1 matches '$p'" >&2
        exit 1
    fi
done <"$patterns"
exit 0
