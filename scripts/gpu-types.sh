#!/usr/bin/env bash
# The GPU side of issue 19 (the type model), for one run on the lent machine, meant for one with two GPUs
# (nvidia-h100-x2): builds with CUDA and MPI, records the GPU count (summary.txt: "GPUs: N"), runs the all-to-all
# between threads over device memory (section 1.4: each pthd thread's arrays on GPU tid mod the GPU count, so
# with several GPUs the pulls are copies between GPUs; the suite checks that the arrays spanned min(threads,
# GPUs) GPUs and its lines "threads' arrays on N of M GPU(s)" are copied into summary.txt), the cross-GPU
# executor's suite, the uneven distributions (host, pthd and MPI on 1-6 processes, 2-D and 3-D packed as darray),
# gamem <-> MPI copies and the distributed dmem copies, and the host bench rows of the cyclic shift and the
# reversal against memcpy on all of the host's cores (target 0.70), then packs the logs into $OUT/types.tgz (or
# ./gpu-types-out/types.tgz).  With fewer than two GPUs it still runs everything and says so in summary.txt.
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
        if grep -q " SKIP " "$logs/$name.log"; then
            echo "   skipped (77: no GPU or backend for it)" | tee -a "$logs/summary.txt"
        else
            echo "   ok" | tee -a "$logs/summary.txt"
        fi
    else
        echo "   FAILED ($?)" | tee -a "$logs/summary.txt"
        status=1
    fi
}

mkdir -p "$out"
{ nvidia-smi -L; nvidia-smi topo -m; nvcc --version | tail -n 1; git -C "$root" log --oneline -1; } >"$logs/device.txt" 2>&1
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
echo "GPUs: $ngpu" | tee -a "$logs/summary.txt"
if [ "$ngpu" -lt 2 ]; then
    echo "   (fewer than two GPUs: the all-to-all's pulls stay on one GPU; run this on nvidia-h100-x2)" |
        tee -a "$logs/summary.txt"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ ! -f "$b/build.ninja" ]; then
    meson setup "$b" -Dcuda=enabled -Dbuildtype=release >"$logs/setup.log" 2>&1 || status=1
fi
if ninja -C "$b" -j16 >"$logs/build.log" 2>&1; then
    for t in dist_threads_dmem cuda_devices threads_dist threads_uneven core_uneven mpi_uneven mpi_uneven_np1 \
             mpi_uneven_np2 mpi_uneven_np3 mpi_uneven_np5 mpi_uneven_np6 mpi_gamem_dist mpi_gamem_dist_np3 mpi_dmem \
             mpi_dmem_staged; do
        if ! meson test -C "$b" --list 2>/dev/null | grep -Eq "(^| / |:)$t\$"; then
            echo "== test-$t: not in this build (no MPI or no Global Arrays here), not run" | tee -a "$logs/summary.txt"
            continue
        fi
        run "test-$t" meson test -C "$b" --no-rebuild --print-errorlogs "$t"
        cp "$b/meson-logs/testlog.txt" "$logs/testlog-$t.txt" 2>/dev/null
    done
    grep -h "dist_threads_dmem:" "$logs/testlog-dist_threads_dmem.txt" 2>/dev/null | sort -u |
        sed 's/^/   /' | tee -a "$logs/summary.txt"
    run bench-shift timeout 300 "$b/bench/copy_host" 11 --case "cyclic shift"
    run bench-reversal timeout 300 "$b/bench/copy_host" 11 --case "reversal"
else
    echo "build failed" | tee -a "$logs/summary.txt"
    status=1
fi
tar -C "$logs" -czf "$out/types.tgz" . && rm -rf "$logs"
exit $status
