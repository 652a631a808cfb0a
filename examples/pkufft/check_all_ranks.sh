#!/bin/sh
# Runs pkufft under mpirun with bad input and checks that it fails cleanly on every rank.
#
#     check_all_ranks.sh NP PATTERN MPIRUN [ARG...]
#
# Passes when the command exits with a non-zero status (and is not killed by the test's timeout: a rank left
# waiting in a collective would hang it), its standard error matches the extended regular expression PATTERN,
# and NP distinct ranks each printed their final line ("pkufft: rank R: N = ...").
set -u
if [ $# -lt 3 ]; then
    echo "usage: check_all_ranks.sh NP PATTERN MPIRUN [ARG...]" >&2
    exit 2
fi
np=$1
pattern=$2
shift 2
errors=$(mktemp "${TMPDIR:-/tmp}/pkufft-check.XXXXXX") || exit 2
trap 'rm -f "$errors"' EXIT HUP INT TERM
"$@" >/dev/null 2>"$errors"
status=$?
cat "$errors" >&2
if [ "$status" -eq 0 ]; then
    echo "check_all_ranks: the command succeeded; it should have failed" >&2
    exit 1
fi
if ! grep -Eq -- "$pattern" "$errors"; then
    echo "check_all_ranks: no message matches '$pattern'" >&2
    exit 1
fi
ranks=$(grep -Eo '^pkufft: rank [0-9]+: N = ' "$errors" | sort -u | wc -l)
if [ "$ranks" -ne "$np" ]; then
    echo "check_all_ranks: $ranks rank(s) reported the failure, expected $np" >&2
    exit 1
fi
exit 0
