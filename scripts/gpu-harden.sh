#!/usr/bin/env bash
# The GPU side of issue 15 (hardening), for one run on the lent GPU.  Builds with CUDA and NVTX, runs the GPU
# suites this work touched (copies with overlap and mistyped pointers on dmem, the NVTX ranges, the run-time
# compiler's FIFO test), a dmem in-place copy and a host array given as dmem through the public API, and records
# NVTX ranges of GPU calls with nsys when it is there.  Logs go to $OUT (or ./gpu-harden-out).
#
#     scripts/gpu-harden.sh [BUILD_DIR]
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
b=${1:-build-gpu-harden}
out=${OUT:-$root/gpu-harden-out}
mkdir -p "$out"
status=0
run() {
    local name=$1
    shift
    echo "== $name: $*" | tee -a "$out/summary.txt"
    if "$@" >"$out/$name.log" 2>&1; then
        echo "   ok" | tee -a "$out/summary.txt"
    else
        echo "   FAILED ($?)" | tee -a "$out/summary.txt"
        status=1
    fi
}

{ nvidia-smi -L; nvcc --version | tail -n 1; } >"$out/device.txt" 2>&1
if [ ! -f "$b/build.ninja" ]; then
    meson setup "$b" -Dcuda=enabled -Dnvtx=enabled -Dbench=false -Dmpi=disabled >"$out/setup.log" 2>&1 || status=1
fi
ninja -C "$b" -j16 >"$out/build.log" 2>&1 || { echo "build failed" | tee -a "$out/summary.txt"; exit 1; }

for t in host_copy_overlap core_stale nvtx cuda_rtc cuda_copy cuda_errors cuda_for plcuda_gpu plcuda_compile; do
    run "test-$t" meson test -C "$b" --no-rebuild --print-errorlogs "$t"
done
run test-all meson test -C "$b" --no-rebuild --print-errorlogs
if command -v nsys >/dev/null 2>&1; then
    run nsys-copy nsys profile --trace=nvtx,cuda -o "$out/copy" --force-overwrite true "$b/tests/test_cuda_copy"
    run nsys-stats nsys stats --report nvtx_sum "$out/copy.nsys-rep"
else
    echo "nsys is not installed on this machine: the NVTX ranges are shown by the nvtx suite instead" \
        | tee -a "$out/summary.txt"
fi
exit $status
