#!/usr/bin/env bash
# The host-side runs of issue 14 on the lent GPU machine's 16-core host, in one call:
#
#   scripts/gpu-host.sh OUTDIR [probe] [tables] [gpu] [mpi]   (default: all)
#
# It expects .gpu/ (shared/tools/gpu-prep), builds only the benchmarks in /tmp/bh with the CUDA backend and all
# cores, and writes OUTDIR/host.log: parray info, bench/host_probe (diagnosis), bench/copy_host (P4),
# bench/threads (P10), bench/mpi_copy at 2, 4, 8, 16 and 32 ranks (P9), bench/copy_gpu's P3 rows.
set -uo pipefail
out=${1:?usage: gpu-host.sh OUTDIR [probe] [tables] [gpu] [mpi]}
shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tables probe mpi gpu)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 2
if [ -f .gpu/env.sh ]; then
    # shellcheck disable=SC1091
    source .gpu/env.sh
elif [ -f ../../.gpu/env.sh ]; then   # a copy of the tree under .wt/NAME
    # shellcheck disable=SC1091
    cd ../.. && source .gpu/env.sh && cd "$here" || exit 2
fi
mkdir -p "$out"
log=$out/host.log
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } > "$log" 2>&1
t0=$SECONDS
meson setup /tmp/bh -Dcuda=enabled -Dtests=false -Dbuildtype=release > "$out/setup.log" 2>&1 ||
    { tail -30 "$out/setup.log"; exit 2; }
ninja -C /tmp/bh bench/copy_host bench/threads bench/host_probe bench/mpi_copy bench/copy_gpu tools/parray \
    > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 2; }
echo "build: $((SECONDS - t0)) s" >> "$log"
b=/tmp/bh
# shellcheck source=scripts/gpu-run.sh
source "$here/scripts/gpu-run.sh"   # run LIMIT_S TITLE COMMAND...: one step, its output in $log
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl 'self,vader' -np)
for step in "${steps[@]}"; do
    case $step in
    tables)
        run 10 "parray info" $b/tools/parray info
        run 70 "bench/copy_host 9" $b/bench/copy_host 9
        run 120 "bench/threads" $b/bench/threads
        ;;
    mpi)
        for n in 4 8 16; do run 40 "mpi_copy $n ranks" "${mpi[@]}" "$n" $b/bench/mpi_copy; done
        run 30 "mpi_copy 16 ranks, node share off (PA_NODE_RANKS=1: as before; 5 samples, a diagnosis)" \
            "${mpi[@]}" 16 -x PA_NODE_RANKS=1 $b/bench/mpi_copy --quick
        run 20 "mpi_copy 2 ranks" "${mpi[@]}" 2 $b/bench/mpi_copy
        run 120 "mpi_copy 32 ranks (oversubscribed)" "${mpi[@]}" 32 $b/bench/mpi_copy
        ;;
    gpu)
        run 40 "copy_gpu P3 (pipeline threads: default)" $b/bench/copy_gpu 15 P3
        run 40 "copy_gpu P3 (PA_CUDA_PIPELINE_THREADS=16)" env PA_CUDA_PIPELINE_THREADS=16 $b/bench/copy_gpu 15 P3
        ;;
    probe)
        run 100 "bench/host_probe 5 start window transpose" $b/bench/host_probe 5 start window transpose
        ;;
    esac
done
echo "total: $((SECONDS - t0)) s" >> "$log"
