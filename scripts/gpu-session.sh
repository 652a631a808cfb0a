#!/usr/bin/env bash
# The checks run on the lent GPU machine, in one call (see docs/gpu-results.md for what they printed):
#
#   scripts/gpu-session.sh OUTDIR [tests|bench|sanitize]...   (default: all three)
#
# It expects .gpu/ prepared by shared/tools/gpu-prep (Check for the tests), builds in /tmp/b with the CUDA
# backend, and writes each step's log to OUTDIR: tests.log (every suite), bench.log (copy_gpu, map_gpu,
# kernels), sanitize.log (the GPU suites under compute-sanitizer memcheck).  Exits non-zero when a step fails.
set -uo pipefail
out=${1:?usage: gpu-session.sh OUTDIR [tests|bench|sanitize]...}
shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests bench sanitize)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 2
# shellcheck disable=SC1091
source .gpu/env.sh
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -2; } \
    > "$out/device.txt" 2>&1
if [ ! -f /tmp/b/build.ninja ]; then
    meson setup /tmp/b -Dcuda=enabled > "$out/setup.log" 2>&1 || { tail -30 "$out/setup.log"; exit 2; }
fi
ninja -C /tmp/b > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 2; }
status=0
for step in "${steps[@]}"; do
    case $step in
    tests)
        meson test -C /tmp/b --print-errorlogs --num-processes 4 > "$out/tests.log" 2>&1 || status=1
        grep -E "^(Ok|Fail|Skipped|Timeout):" "$out/tests.log"
        grep -E " (FAIL|TIMEOUT) " "$out/tests.log"
        ;;
    bench)
        {
            /tmp/b/bench/map_gpu 21
            /tmp/b/bench/kernels
            /tmp/b/bench/copy_gpu 15
        } > "$out/bench.log" 2>&1 || status=1
        ;;
    sanitize)
        # Fixed seeds; the cuda_for suite's deliberately faulting kernel is left out (CK_RUN_CASE=for).  Memory
        # errors only: the suites make CUDA calls that fail on purpose (a kernel entry that does not exist, for
        # one), which memcheck would count as API errors.
        for t in cuda_for plcuda_gpu cuda_copy cuda_devices; do
            case $t in cuda_for) export CK_RUN_CASE=for ;; *) unset CK_RUN_CASE ;; esac
            echo "== compute-sanitizer --tool memcheck tests/test_$t"
            PA_TEST_SEED=42 timeout 400 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
                "/tmp/b/tests/test_$t" 2>&1 | grep -v "seed\|copies$"
            echo "exit ${PIPESTATUS[0]}"
        done > "$out/sanitize.log" 2>&1
        grep -q "^exit [^0]" "$out/sanitize.log" && status=1
        ;;
    esac
done
exit $status
