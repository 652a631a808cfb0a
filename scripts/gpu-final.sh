#!/usr/bin/env bash
# The session's closing run on the lent GPU machine, in one call: one full build, then the steps below in
# order of priority, each under its own time limit; every log is packed into OUTDIR/final.tgz after each step.
#
#   scripts/gpu-final.sh OUTDIR [STEP...]
#   steps: tests sgemm fft2 matrix fftbench harden types demo archhost (default: tests sgemm fft2 matrix fftbench)
#   types runs scripts/gpu-types.sh on this build; archhost runs scripts/gpu-arch.sh's before/after bench/copy_host
#   (it needs .wt/arch-before.tar carried); demo runs examples/demo, the README's main job.
set -uo pipefail
out=${1:?usage: gpu-final.sh OUTDIR [STEP...]}
shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests sgemm fft2 matrix fftbench)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 2
# shellcheck disable=SC1091
source .gpu/env.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
logs=/tmp/final-logs
mkdir -p "$out" "$logs"
b=/tmp/b2
pack() { tar czf "$out/final.tgz" -C "$logs" . 2>/dev/null; }
t0=$SECONDS
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; nproc; nvcc --version | tail -1; } \
    | tee "$logs/device.txt"
meson setup $b -Dcuda=enabled -Dfuzz=false > "$logs/setup.log" 2>&1 || { tail -30 "$logs/setup.log"; pack; exit 2; }
ninja -C $b > "$logs/build.log" 2>&1 || { tail -40 "$logs/build.log"; pack; exit 2; }
echo "build: $((SECONDS - t0)) s"
pack
for s in "${steps[@]}"; do
    t=$SECONDS
    case $s in
    tests)
        timeout 200 meson test -C $b --print-errorlogs --num-processes 8 -t 2 > "$logs/tests.log" 2>&1
        echo "tests: rc=$?"; grep -E "^ *(Ok|Fail|Skipped|Timeout):" "$logs/tests.log"
        grep -E "FAIL|TIMEOUT" "$logs/tests.log" | grep -v "^ *Fail:" | head -20 ;;
    sgemm)
        PA_SGEMM_CONFIGS=${SGEMM_CONFIGS:-} timeout 90 $b/bench/sgemm 4096 8192 > "$logs/sgemm.log" 2>&1
        echo "sgemm: rc=$?"; grep -E "P7|sgemm|transposed|blocks" "$logs/sgemm.log" | head -20 ;;
    fft2)
        B=$b FFT_SIZES="512 1024" FFT_REPEATS=3 timeout 560 scripts/gpu-fft-2gpu.sh "$logs/fft2" \
            > "$logs/fft2.log" 2>&1
        echo "fft2: rc=$?"; tail -25 "$logs/fft2.log" ;;
    matrix)
        PA_MATRIX_BUILD=$b PA_MATRIX_TEST_TIMEOUT=60 PA_MATRIX_BENCH_TIMEOUT=60 timeout 150 \
            scripts/gpu-matrix.sh "$logs/matrix" > "$logs/matrix.log" 2>&1
        echo "matrix: rc=$?"; grep -E "rc=|P11|ratio|pass|FAIL|status" "$logs/matrix.log" | head -30 ;;
    harden)
        if [ -x scripts/gpu-harden.sh ]; then
            PA_HARDEN_BUILD=$b timeout 90 scripts/gpu-harden.sh "$logs/harden" > "$logs/harden.log" 2>&1
            echo "harden: rc=$?"; tail -15 "$logs/harden.log"
        fi ;;
    types)
        OUT="$logs" timeout 400 scripts/gpu-types.sh "$b" > "$logs/types.log" 2>&1
        echo "types: rc=$?"; tail -30 "$logs/types.log" ;;
    demo)
        timeout 120 "$b/examples/demo" > "$logs/demo.log" 2>&1
        echo "demo: rc=$?"; tail -15 "$logs/demo.log" ;;
    archhost)
        ARCH_HOST_REPS=${ARCH_HOST_REPS:-11} timeout 400 bash scripts/gpu-arch.sh "$logs/arch" build bench-host \
            > "$logs/archhost.log" 2>&1
        echo "archhost: rc=$?"; tail -40 "$logs/archhost.log" ;;
    fftbench)
        for p in 1 2 4; do
            echo "== bench/fft P=$p"
            timeout 100 mpirun --oversubscribe --bind-to none -np $p $b/bench/fft --repeats=3 256 512 1024 2>&1
            echo "exit $?"
        done > "$logs/fftbench.log" 2>&1
        grep -E "^==|^P12|^N=|fft-total|alltoall|exit" "$logs/fftbench.log" | head -40 ;;
    esac
    echo "[$s: $((SECONDS - t)) s, total $((SECONDS - t0)) s]"
    pack
done
