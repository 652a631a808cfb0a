#!/usr/bin/env bash
# Issue 14, items 2 and 5, on the lent GPU machine's host (its CPUs only): the thread arrays' fork/join and
# per-element map (bench/threads, P10) and the manual's CPU benchmark (bench/mictest, listings 26 and 47, P13),
# with listing 23 (examples/tiling) checked, each run a few times; then the logs packed into $OUT/pool.tgz (or
# ./gpu-pool-out/pool.tgz).
#
#     scripts/gpu-pool.sh [BASE_SRC]          (POOL_STEPS=mictest: only bench/mictest, three times)
#
# BASE_SRC, when given, is another source tree (say main's checkout) whose bench/threads and bench/mictest run
# beside this tree's in the same call, alternating, as the baseline.  Builds go to /tmp/b-pool (and
# /tmp/b-pool-base): release, without CUDA, MPI or Global Arrays, which these benchmarks do not use.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
if [ -f .gpu/env.sh ]; then   # made by shared/tools/gpu-prep, when the tree has it
    # shellcheck disable=SC1091
    source .gpu/env.sh
fi
base=${1:-}
out=${OUT:-$root/gpu-pool-out}
logs=$(mktemp -d)
t0=$SECONDS
mkdir -p "$out"
{ date -u; nproc; lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|MHz'; git -C "$root" log --oneline -1; } \
    >"$logs/device.txt" 2>&1

build() {   # build SRC DIR: the benchmarks and the tools of one tree
    local src=$1 dir=$2
    if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" "$src" -Dbuildtype=release -Dcuda=disabled -Dmpi=disabled -Dglobalarrays=disabled \
            -Dtests=false >"$logs/setup-$(basename "$dir").log" 2>&1 || return 1
    fi
    ninja -C "$dir" -j16 bench/threads bench/mictest tools/parray examples/tiling \
        >"$logs/build-$(basename "$dir").log" 2>&1
}
step() {    # step NAME LIMIT_S COMMAND...: one run with a time limit, appended to pool.log
    local name=$1 lim=$2
    shift 2
    printf '\n==== %s (at %d s): %s\n' "$name" "$((SECONDS - t0))" "$*" >>"$logs/pool.log"
    timeout "$lim" stdbuf -oL "$@" >>"$logs/pool.log" 2>&1 || echo "(exit $?)" >>"$logs/pool.log"
}

b=/tmp/b-pool
bb=/tmp/b-pool-base
if ! build "$root" "$b"; then
    echo "build failed" >>"$logs/pool.log"
    tail -30 "$logs"/build-*.log "$logs"/setup-*.log >>"$logs/pool.log" 2>/dev/null
else
    [ -n "$base" ] && { build "$base" "$bb" || { echo "baseline build failed" >>"$logs/pool.log"; base=""; }; }
    echo "builds: $((SECONDS - t0)) s" >>"$logs/pool.log"
    if [ "${POOL_STEPS:-all}" = mictest ]; then
        for r in 1 2 3; do
            step "bench/mictest, run $r" 60 "$b/bench/mictest"
        done
        steps_done=1
    fi
fi
if [ -z "${steps_done:-}" ] && [ -x "$b/bench/threads" ]; then
    step "parray info" 10 "$b/tools/parray" info
    step "listing 23: examples/tiling" 20 "$b/examples/tiling"
    step "bench/threads (full)" 90 "$b/bench/threads"
    [ -n "$base" ] && step "BASELINE bench/threads (full)" 90 "$bb/bench/threads"
    for r in 1 2; do
        step "bench/threads --launch, run $r" 30 "$b/bench/threads" --launch
    done
    for r in 1 2 3; do
        step "bench/mictest, run $r" 60 "$b/bench/mictest"
    done
    [ -n "$base" ] && step "BASELINE bench/mictest" 60 "$bb/bench/mictest"
    step "bench/threads --triad, run 2" 90 "$b/bench/threads" --triad
fi
echo "total: $((SECONDS - t0)) s" >>"$logs/pool.log"
tar -czf "$out/pool.tgz" -C "$logs" .
cp "$logs/pool.log" "$out/pool.log"
echo "logs in $out/pool.tgz"
