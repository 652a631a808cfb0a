#!/usr/bin/env bash
# Issue 14, items 1, 3 and 4 on the lent GPU machine's 16-vCPU host, in one call:
#
#   scripts/gpu-hostcopy.sh OUTDIR [step...]     (default: host p3 mpi)
#
# steps:
#   tests    tests/test_host_copy (the transposes' kernels on this CPU, AVX-512 included), built in /tmp/b-hostcopy-t
#   gputests tests/test_cuda_copy and test_cuda_staging (the pageable pipeline both ways), in /tmp/b-hostcopy-g
#   probe    bench/strip_probe (standalone transpose kernels against an OpenMP memcpy, 1 to 16 threads)
#   probe1   the same at 1, 2 and 16 threads only
#   strips   bench/host_probe 7 strips (the library's streamed float and 16-byte strips on one thread: rows, column
#            blocks, software prefetch, AVX2 or AVX-512 register transposes)
#   window   bench/host_probe 7 window (8000^2 of 8192^2 floats as rows, the one-thread kernel included)
#   host     bench/copy_host 9 (P4 at 1, 2, 4, 8 and 16 threads)
#   host2    bench/copy_host 9 twice in a row (without parray info)
#   hostx    bench/copy_host 9, transposes only
#   p3       bench/copy_gpu 15 P3 (P3 against the driver and the host limit), twice
#   p3sweep  bench/copy_gpu 9 P3 over pipeline threads and chunk sizes (PA_CUDA_PIPELINE_THREADS / _CHUNK_KB)
#   mpi      bench/mpi_copy at 2, 4, 8 and 16 ranks and 32 oversubscribed (--quick)
#   mpirep   bench/mpi_copy again at 2, 8 and 16 ranks (the rows near 0.95 move by a few per cent between runs)
#   floor    bench/mpi_copy's noise floor at 16 ranks (PA_BENCH_SELFTEST=1: the anchor against itself)
# It expects .gpu/ (shared/tools/gpu-prep), builds the benchmarks in /tmp/b-hostcopy (release, CUDA) and packs
# the logs into OUTDIR/hostcopy.tgz (also left in OUTDIR/hostcopy/).
set -uo pipefail
out=${1:?usage: gpu-hostcopy.sh OUTDIR [step...]}
shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(host p3 mpi)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 2
if [ -f .gpu/env.sh ]; then
    # shellcheck disable=SC1091
    source .gpu/env.sh
elif [ -f ../../.gpu/env.sh ]; then   # a copy of the tree under .wt/NAME
    # shellcheck disable=SC1091
    cd ../.. && source .gpu/env.sh && cd "$here" || exit 2
fi
logs=$out/hostcopy
mkdir -p "$logs"
log=$logs/run.log
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; grep -m1 'model name' /proc/cpuinfo
  echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
  git -C "$here" log --oneline -1 2>/dev/null; } > "$log" 2>&1
t0=$SECONDS
b=/tmp/b-hostcopy
need=(tools/parray)   # what the steps run
for step in "${steps[@]}"; do
    case $step in
    host|host2|hostx) need+=(bench/copy_host) ;;
    p3|p3sweep) need+=(bench/copy_gpu) ;;
    mpi|mpirep|floor) need+=(bench/mpi_copy) ;;
    esac
done
{ meson setup $b -Dcuda=enabled -Dtests=false -Dbuildtype=release > "$logs/setup.log" 2>&1 &&
  ninja -C $b "${need[@]}" > "$logs/build.log" 2>&1; } || { tail -30 "$logs/setup.log" "$logs/build.log"; exit 2; }
gcc -O2 -march=native -fopenmp bench/strip_probe.c -o $b/strip_probe > "$logs/probe-build.log" 2>&1
echo "build: $((SECONDS - t0)) s" >> "$log"
# shellcheck source=scripts/gpu-run.sh
source "$here/scripts/gpu-run.sh"   # run LIMIT_S TITLE COMMAND...: one step, its output in $log
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl 'self,vader' -np)
for step in "${steps[@]}"; do
    case $step in
    tests)
        { meson setup $b-t -Dcuda=disabled -Dtests=true -Dbuildtype=release > "$logs/setup-t.log" 2>&1 &&
          ninja -C $b-t tests/test_host_copy > "$logs/build-t.log" 2>&1; } || tail -20 "$logs/setup-t.log" "$logs/build-t.log" >> "$log"
        run 120 "tests/test_host_copy" $b-t/tests/test_host_copy
        ;;
    gputests)
        { meson setup $b-g -Dcuda=enabled -Dtests=true -Dbuildtype=release > "$logs/setup-g.log" 2>&1 &&
          ninja -C $b-g tests/test_cuda_copy tests/test_cuda_staging > "$logs/build-g.log" 2>&1; } ||
            tail -20 "$logs/setup-g.log" "$logs/build-g.log" >> "$log"
        for t in cuda_copy cuda_staging; do run 180 "tests/test_$t" $b-g/tests/test_$t; done
        ;;
    probe)
        run 120 "strip_probe 5" $b/strip_probe 5
        ;;
    probe1)
        run 90 "strip_probe 5 1 2 16" $b/strip_probe 5 1 2 16
        ;;
    strips|window)
        ninja -C $b bench/host_probe > "$logs/build-probe.log" 2>&1 || tail -20 "$logs/build-probe.log" >> "$log"
        run 90 "bench/host_probe 7 $step" $b/bench/host_probe 7 "$step"
        ;;
    host)
        run 10 "parray info" $b/tools/parray info
        run 90 "bench/copy_host 9" $b/bench/copy_host 9
        ;;
    host2)   # P4 twice in a row (every row must pass in both)
        for i in 1 2; do run 90 "bench/copy_host 9 (run $i)" $b/bench/copy_host 9; done
        ;;
    hostx)
        for c in "transpose" "[[n][n]]"; do run 60 "bench/copy_host 9 --case $c" $b/bench/copy_host 9 --case "$c"; done
        ;;
    p3)
        for i in 1 2; do run 60 "copy_gpu 15 P3 (run $i)" $b/bench/copy_gpu 15 P3; done
        ;;
    p3sweep)
        for cfg in 8:4096 12:4096 16:4096 16:2048; do
            run 40 "copy_gpu 9 P3, threads ${cfg%:*}, chunk ${cfg#*:} KiB" env PA_CUDA_PIPELINE_THREADS="${cfg%:*}" \
                PA_CUDA_PIPELINE_CHUNK_KB="${cfg#*:}" $b/bench/copy_gpu 9 P3
        done
        ;;
    mpi)
        for n in 2 4 8 16; do run 60 "mpi_copy $n ranks" "${mpi[@]}" "$n" $b/bench/mpi_copy; done
        run 60 "mpi_copy 32 ranks (oversubscribed)" "${mpi[@]}" 32 $b/bench/mpi_copy --quick
        ;;
    mpirep)
        for n in 2 8 16; do run 60 "mpi_copy $n ranks (again)" "${mpi[@]}" "$n" $b/bench/mpi_copy; done
        ;;
    floor)
        run 60 "mpi_copy 16 ranks, noise floor (PA_BENCH_SELFTEST=1)" "${mpi[@]}" 16 -x PA_BENCH_SELFTEST=1 \
            $b/bench/mpi_copy
        ;;
    *)
        echo "unknown step $step" >> "$log"
        ;;
    esac
done
echo "total: $((SECONDS - t0)) s" >> "$log"
tar -C "$out" -czf "$out/hostcopy.tgz" hostcopy
