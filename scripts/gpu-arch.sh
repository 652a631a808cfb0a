#!/usr/bin/env bash
# The GPU side of issue 18 (one backend interface, PA_BACKENDS, strategies' real threads in explain), for the
# lent GPU machine: a full build with CUDA and MPI, the whole meson suite, the backends with and without
# PA_BACKENDS=-cuda, and the copy benchmarks (bench/copy_gpu P1-P3, bench/copy_host P4) after the change and,
# when a source tree of the commit before it is given, before it, built and run on the same machine.
#
#   scripts/gpu-arch.sh [OUTDIR] [STEP...]      steps: build tests info bench before (default: all, in order)
#
# OUTDIR defaults to $OUT.  The baseline is ARCH_BEFORE: a directory or a tar file of the source tree before
# issue 18 (make one with `git archive -o .wt/arch-before.tar a00e3b0`); default .wt/arch-before.tar when it
# exists, else the step is skipped with a note.  Every log is packed into OUTDIR/arch.tgz after each step.
set -uo pipefail
out=${1:-${OUT:?usage: gpu-arch.sh [OUTDIR] [STEP...]}}
[ $# -gt 0 ] && shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build tests info bench before)
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
b=/tmp/b-arch
mkdir -p "$out" "$logs"
pack() { tar czf "$out/arch.tgz" -C "$logs" . 2>/dev/null; }
status=0
t0=$SECONDS
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; nproc
  nvcc --version | tail -1; } > "$logs/device.txt" 2>&1

# The copy benchmarks of one build into logs/bench-TAG.log: the GPU table (P1-P3) and the host table (P4).
benches() {
    local dir=$1 tag=$2
    {
        echo "== copy_gpu 9 ($tag)"
        timeout 150 "$dir/bench/copy_gpu" 9 2>&1 || echo "(exit $?)"
        echo "== copy_host 5 ($tag)"
        timeout 150 "$dir/bench/copy_host" 5 2>&1 || echo "(exit $?)"
    } > "$logs/bench-$tag.log" 2>&1
}

for s in "${steps[@]}"; do
    t=$SECONDS
    case $s in
    build)
        { meson setup $b -Dcuda=enabled -Dfuzz=false > "$logs/setup.log" 2>&1 &&
          ninja -C $b > "$logs/build.log" 2>&1; } || { echo "build failed"; tail -30 "$logs/build.log"; pack; exit 2; } ;;
    tests)
        timeout 300 meson test -C $b --no-rebuild --print-errorlogs --num-processes 8 -t 2 > "$logs/tests.log" 2>&1 ||
            status=1
        grep -E "^ *(Ok|Fail|Skipped|Timeout):" "$logs/tests.log"
        grep -E " FAIL | TIMEOUT " "$logs/tests.log" | head -20
        # The CUDA suites again with the backend switched off: each must skip (77) or pass, never fail.
        for t in cuda_copy cuda_errors cuda_for; do
            PA_BACKENDS=-cuda timeout 60 meson test -C $b --no-rebuild "$t" > "$logs/nocuda-$t.log" 2>&1 ||
                { echo "PA_BACKENDS=-cuda $t: failed"; status=1; }
        done ;;
    info)
        {
            echo "== parray info"; $b/tools/parray info
            echo "== PA_BACKENDS=-cuda parray info"; PA_BACKENDS=-cuda $b/tools/parray info
            echo "== parray calibrate (host constants measured on this machine)"
            PA_COST_FILE=$logs/cost $b/tools/parray calibrate
            echo "== the prediction test on this machine"; $b/tests/test_host_cost
            echo "== explain: paged -> dmem (the pageable pipeline's threads)"
            $b/tools/parray -e 'H = paged float [4096][4096]' -e 'D = dmem float [4096][4096]' explain D H
            echo "== explain: pinned -> dmem transposed"
            $b/tools/parray -e 'P = pinned float [[1024][1024]]' -e 'D = dmem float [[#P_1][#P_0]]' explain D P
            echo "== explain: paged transpose 64 MiB (host threads)"
            $b/tools/parray -e 'A = paged float [[4096][4096]]' -e 'B = paged float [[#A_1][#A_0]]' explain B A
        } > "$logs/info.log" 2>&1
        cat "$logs/info.log" ;;
    bench)
        benches $b after
        grep -E "^\|" "$logs/bench-after.log" ;;
    before)
        src=${ARCH_BEFORE:-}
        [ -z "$src" ] && [ -f .wt/arch-before.tar ] && src=.wt/arch-before.tar
        if [ -z "$src" ]; then
            echo "no baseline (ARCH_BEFORE unset, no .wt/arch-before.tar): compare with docs/gpu-results.md" |
                tee "$logs/bench-before.log"
        else
            if [ -f "$src" ]; then
                rm -rf /tmp/src-arch-before && mkdir -p /tmp/src-arch-before && tar xf "$src" -C /tmp/src-arch-before
                src=/tmp/src-arch-before
            fi
            { meson setup /tmp/b-arch-before "$src" -Dcuda=enabled -Dtests=false -Dfuzz=false \
                  > "$logs/before-setup.log" 2>&1 &&
              ninja -C /tmp/b-arch-before bench/copy_gpu bench/copy_host > "$logs/before-build.log" 2>&1; } ||
                { echo "baseline build failed"; tail -20 "$logs/before-build.log"; status=1; }
            [ -x /tmp/b-arch-before/bench/copy_gpu ] && benches /tmp/b-arch-before before
            grep -E "^\|" "$logs/bench-before.log"
        fi ;;
    *) echo "unknown step $s (build tests info bench before)"; status=2 ;;
    esac
    echo "[$s: $((SECONDS - t)) s, total $((SECONDS - t0)) s]"
    pack
done
exit $status
