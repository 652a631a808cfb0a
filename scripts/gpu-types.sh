#!/usr/bin/env bash
# The GPU side of issue 19 (the type model), for one run on the lent machine (one GPU or several): builds with
# CUDA and MPI, runs the all-to-all between threads over device memory (section 1.4: each pthd thread's arrays on
# GPU tid mod the GPU count, so with several GPUs the pulls are copies between GPUs), the cross-GPU executor's
# suite, the uneven distributions (host and MPI) and the distributed dmem copies, and the host bench rows of the
# cyclic shift and the reversal against memcpy on all of the host's cores (target 0.70), then packs the logs into
# $OUT/types.tgz (or ./gpu-types-out/types.tgz).
#
#     scripts/gpu-types.sh [BUILD_DIR]      (default /tmp/b-types)
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
if [ -f .gpu/env.sh ]; then   # made by shared/tools/gpu-prep, when the tree has it
    # shellcheck disable=SC1091
    source .gpu/env.sh
fi
b=${1:-/tmp/b-types}
out=${OUT:-$root/gpu-types-out}
logs=$(mktemp -d)
status=0
run() {
    local name=$1
    shift
    echo "== $name: $*" | tee -a "$logs/summary.txt"
    if "$@" >"$logs/$name.log" 2>&1; then
        echo "   ok" | tee -a "$logs/summary.txt"
    else
        echo "   FAILED ($?)" | tee -a "$logs/summary.txt"
        status=1
    fi
}

mkdir -p "$out"
{ nvidia-smi -L; nvcc --version | tail -n 1; git -C "$root" log --oneline -1; } >"$logs/device.txt" 2>&1
if [ ! -f "$b/build.ninja" ]; then
    meson setup "$b" -Dcuda=enabled -Dbuildtype=release >"$logs/setup.log" 2>&1 || status=1
fi
if ninja -C "$b" -j16 >"$logs/build.log" 2>&1; then
    for t in dist_threads_dmem cuda_devices threads_dist threads_uneven core_uneven mpi_uneven mpi_uneven_np3 \
             mpi_uneven_np6 mpi_dmem; do
        run "test-$t" meson test -C "$b" --no-rebuild --print-errorlogs "$t"
    done
    cp "$b/meson-logs/testlog.txt" "$logs/" 2>/dev/null
    run bench-shift timeout 300 "$b/bench/copy_host" 11 --case "cyclic shift"
    run bench-reversal timeout 300 "$b/bench/copy_host" 11 --case "reversal"
else
    echo "build failed" | tee -a "$logs/summary.txt"
    status=1
fi
tar -C "$logs" -czf "$out/types.tgz" . && rm -rf "$logs"
exit $status
