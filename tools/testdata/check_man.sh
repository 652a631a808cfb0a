#!/bin/sh
# Checks the manual page parray(1) against the tool it documents.
#
#     check_man.sh PAGE PARRAY
#
# The page must render with groff's man macros without a warning (skipped, exit 77, where groff is missing),
# carry the tool's version, and name every command and every option that `parray --help` lists, so that a
# command added to the tool without its page fails here.
set -u
page=$1
cli=$2
status=0

if ! command -v groff >/dev/null 2>&1; then
    echo "check_man: groff is not installed"
    exit 77
fi
warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
if [ -n "$warnings" ]; then
    printf 'check_man: groff warns about %s:\n%s\n' "$page" "$warnings" >&2
    status=1
fi
text=$(groff -man -Tutf8 -P-cbou "$page" 2>/dev/null)

version=$("$cli" --version | sed -n 's/^parray \([0-9.]*\) .*/\1/p')
if ! printf '%s\n' "$text" | grep -q "parray $version"; then
    echo "check_man: the page does not carry version $version" >&2
    status=1
fi

# Commands are the words after "parray" (or after "parray ssb") in the usage lines; options are the --help
# lines that begin with a dash.
help=$("$cli" --help)
commands=$(printf '%s\n' "$help" | sed -n 's/^\(usage:\)* *parray \(\[[^]]*\]\.*  *\)*\([a-z][a-z]*\).*/\3/p' | sort -u)
subcommands=$(printf '%s\n' "$help" | sed -n 's/.*parray ssb \([a-z|]*\) .*/\1/p' | tr '|' '\n')
options=$(printf '%s\n' "$help" | sed -n 's/^  \(-[-a-zA-Z]*\)\(, \(--[a-z]*\)\)*.*/\1 \3/p')
for c in $commands; do
    printf '%s\n' "$text" | grep -Eq "(^|[^a-z])$c([^a-z]|$)" || { echo "check_man: command '$c' is not in the page" >&2; status=1; }
done
for c in $subcommands; do
    printf '%s\n' "$text" | grep -Eq "ssb $c" || { echo "check_man: 'ssb $c' is not in the page" >&2; status=1; }
done
for o in $options; do
    printf '%s\n' "$text" | grep -q -- "$o" || { echo "check_man: option '$o' is not in the page" >&2; status=1; }
done
n=$(printf '%s\n' $commands $subcommands $options | grep -c .)
[ "$status" -eq 0 ] && echo "check_man: renders cleanly, version $version, $n commands and options documented"
exit $status
