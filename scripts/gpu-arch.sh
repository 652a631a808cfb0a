#!/usr/bin/env bash
# The GPU side of issue 18 (architecture), for the lent GPU machine: this tree ("after") and the commit before
# issue 18 ("before", a00e3b0: the parent of its first landing, 03575b0) built side by side in /tmp, the new GPU
# suites (cuda_staging: staged copies from 8 threads at once; cuda_cost: the GPU constants calibrated and the
# predictions within 2x) and the backends with and without PA_BACKENDS=-cuda, then the benchmarks of both
# builds in the same call, one after the other, each table printed: bench/copy_gpu (P1-P3), bench/copy_host
# (P4) and bench/mpi_copy --quick over 4 ranks (P9).
#
#   bash scripts/gpu-arch.sh [OUTDIR] [STEP...]
#   steps: build gputests suite bench-gpu bench-host bench-mpi   (default: build gputests bench-gpu bench-host
#          bench-mpi; suite runs the whole meson suite of the after build, which then builds everything)
#
# OUTDIR defaults to $OUT.  The baseline's source is ARCH_BEFORE (a directory or a tar file), default
# .wt/arch-before.tar (make it with `git archive -o .wt/arch-before.tar a00e3b0`); without it the before
# columns are skipped with a note.  Repeats: ARCH_GPU_REPS (copy_gpu, default 9), ARCH_HOST_REPS (copy_host,
# default 5).  Every log is packed into OUTDIR/arch.tgz after each step.
set -uo pipefail
out=${1:-${OUT:?usage: gpu-arch.sh [OUTDIR] [STEP...]}}
[ $# -gt 0 ] && shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build gputests bench-gpu bench-host bench-mpi)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 2
if [ -f .gpu/env.sh ]; then
    # shellcheck disable=SC1091
    source .gpu/env.sh
elif [ -f ../../.gpu/env.sh ]; then   # a copy of the tree under .wt/NAME
    # shellcheck disable=SC1091
    cd ../.. && source .gpu/env.sh && cd "$here" || exit 2
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
logs=/tmp/arch-logs
after=/tmp/b-arch
before=/tmp/b-arch-before
mkdir -p "$out" "$logs"
pack() { tar czf "$out/arch.tgz" -C "$logs" . 2>/dev/null; }
status=0
t0=$SECONDS
jobs=$(( $(nproc) / 2 > 1 ? $(nproc) / 2 : 1 ))
targets=(bench/copy_gpu bench/copy_host bench/mpi_copy tools/parray)
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; nproc
  nvcc --version | tail -1; git log --oneline -1 2>/dev/null; } > "$logs/device.txt" 2>&1

build_after() {
    meson setup $after -Dcuda=enabled -Dfuzz=false > "$logs/setup.log" 2>&1 &&
        ninja -C $after -j "$jobs" "${targets[@]}" tests/test_cuda_staging tests/test_cuda_cost \
            tests/test_core_backends > "$logs/build.log" 2>&1
}

build_before() {
    local src=${ARCH_BEFORE:-}
    [ -z "$src" ] && [ -f .wt/arch-before.tar ] && src=.wt/arch-before.tar
    if [ -z "$src" ]; then
        echo "no baseline (ARCH_BEFORE unset, no .wt/arch-before.tar)" > "$logs/before-build.log"
        return 1
    fi
    if [ -f "$src" ]; then
        rm -rf /tmp/src-arch-before && mkdir -p /tmp/src-arch-before && tar xf "$src" -C /tmp/src-arch-before
        src=/tmp/src-arch-before
    fi
    meson setup $before "$src" -Dcuda=enabled -Dtests=false -Dfuzz=false > "$logs/before-setup.log" 2>&1 &&
        ninja -C $before -j "$jobs" "${targets[@]}" > "$logs/before-build.log" 2>&1
}

# One benchmark of one build into logs/WHAT-TAG.log; prints its table.
run_bench() {   # tag dir what
    local tag=$1 dir=$2 what=$3
    case $what in
    gpu) timeout 200 "$dir/bench/copy_gpu" "${ARCH_GPU_REPS:-9}" ;;
    host) timeout 200 "$dir/bench/copy_host" "${ARCH_HOST_REPS:-5}" ;;
    mpi) timeout 200 mpirun --oversubscribe --mca btl self,vader -np 4 "$dir/bench/mpi_copy" --quick ;;
    esac > "$logs/$what-$tag.log" 2>&1 || echo "($what $tag: exit $?)" >> "$logs/$what-$tag.log"
    echo "== $what ($tag: $dir)"
    grep -E "^\||rows meet|^P[0-9]|^(case|alltoall|scatter|sendrecv|strided) " "$logs/$what-$tag.log"
}

for s in "${steps[@]}"; do
    t=$SECONDS
    case $s in
    build)
        build_after & pa=$!
        build_before & pb=$!
        wait $pa || { echo "after build failed"; tail -30 "$logs/build.log"; pack; exit 2; }
        wait $pb || { echo "baseline build failed or missing"; tail -20 "$logs/before-build.log"; status=1; } ;;
    gputests)
        for suite in cuda_staging cuda_cost core_backends; do
            timeout 200 "$after/tests/test_$suite" > "$logs/test-$suite.log" 2>&1
            rc=$?
            echo "test_$suite: exit $rc"
            grep -E "^cuda_|^[0-9]+%|F:|E:" "$logs/test-$suite.log" | head -20
            [ $rc -ne 0 ] && status=1
        done
        PA_BACKENDS=-cuda timeout 60 "$after/tests/test_core_backends" > "$logs/test-backends-nocuda.log" 2>&1 ||
            { echo "core_backends under PA_BACKENDS=-cuda failed"; status=1; }
        { echo "== parray info"; $after/tools/parray info
          echo "== parray calibrate"; PA_COST_FILE=$logs/cost $after/tools/parray calibrate; } > "$logs/info.log" 2>&1
        grep -A3 "calibrat" "$logs/info.log" ;;
    suite)
        ninja -C $after -j "$(nproc)" > "$logs/build-all.log" 2>&1 || { echo "full build failed"; status=1; }
        timeout 400 meson test -C $after --no-rebuild --print-errorlogs --num-processes 8 > "$logs/suite.log" 2>&1 ||
            status=1
        grep -E "^ *(Ok|Fail|Skipped|Timeout):" "$logs/suite.log"
        grep -E " FAIL | TIMEOUT " "$logs/suite.log" | head -20 ;;
    bench-gpu | bench-host | bench-mpi)
        what=${s#bench-}
        # ARCH_ROUNDS=2: before, after, before, after (the second round's logs are WHAT-TAG2.log)
        for round in $(seq 1 "${ARCH_ROUNDS:-1}"); do
            suffix=$([ "$round" -gt 1 ] && echo "$round")
            [ -x $before/bench/copy_gpu ] && run_bench "before$suffix" $before "$what"
            run_bench "after$suffix" $after "$what"
        done ;;
    *) echo "unknown step $s (build gputests suite bench-gpu bench-host bench-mpi)"; status=2 ;;
    esac
    echo "[$s: $((SECONDS - t)) s, total $((SECONDS - t0)) s]"
    pack
done
exit $status
