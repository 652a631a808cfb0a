#!/usr/bin/env bash
# Checks that the C example in README.md is examples/readme_example.c, line for line, so that the code the
# README shows is the code the test suite compiles and runs.
#
#     scripts/check-readme-example.sh [REPOSITORY_ROOT]
set -euo pipefail

root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# The README's first fenced block marked ```c is the example.
if diff -u <(awk '/^```c$/ {on = 1; next} on && /^```$/ {exit} on' "$root/README.md") \
        "$root/examples/readme_example.c"; then
    echo "README.md's example and examples/readme_example.c agree"
else
    echo "README.md's C example differs from examples/readme_example.c (diff above)" >&2
    exit 1
fi
