#!/bin/sh
# Runs a program that should fail, and checks its exit status and its message on standard error.
#
#     check_error.sh STATUS PATTERN PROGRAM [ARG...]
#
# Exits 0 when PROGRAM exits with STATUS and its standard error matches the extended regular expression
# PATTERN; otherwise prints what it got and exits 1.
set -u

if [ $# -lt 3 ]; then
    echo "usage: check_error.sh STATUS PATTERN PROGRAM [ARG...]" >&2
    exit 2
fi
want_status=$1
pattern=$2
shift 2

errors=$(mktemp "${TMPDIR:-/tmp}/parray-check.XXXXXX") || exit 2
trap 'rm -f "$errors"' EXIT HUP INT TERM

"$@" >/dev/null 2>"$errors"
status=$?
cat "$errors" >&2
if [ "$status" -ne "$want_status" ]; then
    echo "check_error: $1 exited with status $status, expected $want_status" >&2
    exit 1
fi
if ! grep -Eq -- "$pattern" "$errors"; then
    echo "check_error: the message of $1 does not match '$pattern'" >&2
    exit 1
fi
exit 0
