#!/usr/bin/env bash
# Checks scripts/gpu.sh on a machine without a GPU (CI): every step of its table, run dry with four GPUs
# assumed, prints at least one command and ends "ok"; with no GPU the GPU steps say they are skipped and the
# call still succeeds; an unknown step is refused (exit 2) before anything runs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mapfile -t steps < <(scripts/gpu.sh --list | awk 'NR > 1 { print $1 }')
[ ${#steps[@]} -ge 10 ] || { echo "check-gpu-runner: the step table has ${#steps[@]} steps" >&2; exit 1; }
DRY=1 GPU_COUNT=4 GPU_BUILD=$tmp/b scripts/gpu.sh "$tmp/dry" "${steps[@]}" > "$tmp/dry.txt"
for s in "${steps[@]}"; do
    grep -q "^== $s " "$tmp/dry.txt" || { echo "check-gpu-runner: step $s did not start" >&2; exit 1; }
    # the lines between this step's header and its verdict hold at least one command
    awk -v s="$s" '$0 ~ "^== " s " " { on = 1; next } on && $1 == s { exit !(n > 0) } on && /\(dry\) .*: / { n++ }' \
        "$tmp/dry.txt" || { echo "check-gpu-runner: step $s ran no command" >&2; exit 1; }
    grep -Eq "^$s +ok " "$tmp/dry/summary.txt" || { echo "check-gpu-runner: step $s not ok" >&2; exit 1; }
done
DRY=1 GPU_COUNT=0 GPU_BUILD=$tmp/b scripts/gpu.sh "$tmp/nogpu" tests bench-gpu-dist > "$tmp/nogpu.txt"
grep -q '^tests: skipped (no GPU here)' "$tmp/nogpu.txt"
grep -q '^bench-gpu-dist: skipped (fewer than two GPUs here (0))' "$tmp/nogpu.txt"
[ -s "$tmp/nogpu/gpu.tgz" ]
rc=0
scripts/gpu.sh "$tmp/bad" no-such-step 2> /dev/null || rc=$?
[ "$rc" -eq 2 ] || { echo "check-gpu-runner: an unknown step gave exit $rc, not 2" >&2; exit 1; }
[ ! -e "$tmp/bad" ] || { echo "check-gpu-runner: an unknown step left $tmp/bad behind" >&2; exit 1; }
echo "check-gpu-runner: ${#steps[@]} steps ok"
