#!/usr/bin/env bash
# The distributed FFT (examples/pkufft, bench/fft, the mpi_dmem suite) on the lent GPU machine, in one call:
#
#   scripts/gpu-fft.sh OUTDIR [check|short|p12|quick|bench|twogpu]...   (default: check)
#     BENCH_SIZES="256 512 1024" BENCH_PROCS="1 2 4" BENCH_REPEATS=5   (bench's defaults)
#
# It expects .gpu/ prepared by shared/tools/gpu-prep, builds only what it runs in /tmp/bf (CUDA backend, all
# cores), and writes each step's log to OUTDIR: check.log (the GPU path against cufftPlan3d at P = 1, 2, 4
# ranks over both routes, the plan printed, the bad input on the GPU, the mpi_dmem suite, compute-sanitizer on
# a small run), short.log (check's GPU path at P = 1, 2, 4 up to N = 512, the host suites' distributed copies),
# p12.log (bench/fft --alltoall-only at N = 512: the default routes against the plain pack + MPI + unpack run,
# PA_MPI_SELF=0 PA_MPI_SHM=0 PA_MPI_PEER=0; each plan's steps, PA_MPI_TIMES=1),
# quick.log (the device route's peer copies and their fallback), bench.log (bench/fft, each plan's steps),
# twogpu/ (scripts/gpu-fft-2gpu.sh at N = 512, as far as one GPU allows).
# Exits non-zero when a step fails.
set -uo pipefail
out=${1:?usage: gpu-fft.sh OUTDIR [check|bench|twogpu]...}
shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(check)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 2
# .gpu/ in this checkout, or in the main checkout when this one is a copy under .wt/ (see docs/gpu-results.md)
# shellcheck disable=SC1091
[ -f .gpu/env.sh ] && source .gpu/env.sh
# shellcheck disable=SC1091
[ -f ../../.gpu/env.sh ] && { pushd ../.. >/dev/null || exit 2; source .gpu/env.sh; popd >/dev/null || exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
mkdir -p "$out"
b=/tmp/bf
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -2;
  ompi_info --parsable --all 2>/dev/null | grep "mpi_built_with_cuda_support:value"; } > "$out/device.txt" 2>&1
if [ ! -f $b/build.ninja ]; then
    meson setup $b -Dcuda=enabled -Dfuzz=false > "$out/setup.log" 2>&1 || { tail -30 "$out/setup.log"; exit 2; }
fi
ninja -C $b examples/pkufft bench/fft tests/test_mpi_dmem tests/test_mpi_copy tests/test_mpi_random > "$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; exit 2; }
# --bind-to none: Open MPI binds each of 1 or 2 ranks to one core, and the library's copies use the rank's share
mpirun=(mpirun --oversubscribe --bind-to none)
status=0
run() {   # run NAME EXPECT(0|fail) COMMAND...: logs it, checks the exit status
    local name=$1 expect=$2
    shift 2
    echo "== $name: $*"
    timeout 240 "$@" 2>&1
    local rc=$?
    echo "exit $rc"
    if [ "$expect" = 0 ] && [ $rc -ne 0 ]; then echo "!! $name FAILED"; status=1; fi
    if [ "$expect" = fail ] && { [ $rc -eq 0 ] || [ $rc -eq 124 ]; }; then echo "!! $name should fail cleanly"; status=1; fi
}
for step in "${steps[@]}"; do
    case $step in
    check)
        {
            for p in 1 2 4; do
                run "pkufft gpu P=$p" 0 "${mpirun[@]}" -np $p $b/examples/pkufft --engine=gpu --route=both 8 16 32 64 128 256 512
            done
            run "pkufft plan info P=4" 0 env PA_PLAN_INFO=1 "${mpirun[@]}" -x PA_PLAN_INFO -np 4 $b/examples/pkufft --engine=gpu --route=both 32
            run "pkufft N=12 P=4 (not a power of two)" 0 "${mpirun[@]}" -np 4 $b/examples/pkufft --engine=gpu --route=both 12 24
            run "pkufft cpu engine P=4" 0 "${mpirun[@]}" -np 4 $b/examples/pkufft --engine=cpu --route=both 8 16 32
            run "pkufft a process without a GPU" fail "${mpirun[@]}" -np 1 env CUDA_VISIBLE_DEVICES= $b/examples/pkufft 16 : -np 1 $b/examples/pkufft 16
            run "pkufft plan failure on process 1" fail "${mpirun[@]}" -np 2 $b/examples/pkufft --engine=gpu --fail-plan=1 --route=both 16
            run "pkufft N not divisible" fail "${mpirun[@]}" -np 4 $b/examples/pkufft --engine=gpu 18
            run "pkufft too few processes" fail "${mpirun[@]}" -np 2 $b/examples/pkufft --engine=gpu --procs=4 16
            run "mpi_dmem (route this MPI allows)" 0 "${mpirun[@]}" -np 4 $b/tests/test_mpi_dmem
            run "mpi_dmem staged" 0 "${mpirun[@]}" -np 4 -x PA_MPI_CUDA_AWARE=0 $b/tests/test_mpi_dmem
            run "pkufft under compute-sanitizer" 0 "${mpirun[@]}" -np 2 compute-sanitizer --tool memcheck --error-exitcode 9 $b/examples/pkufft --engine=gpu --route=both 16
        } > "$out/check.log" 2>&1
        grep -E "^== |^exit |PASS|FAIL|^!!" "$out/check.log" | head -120
        ;;
    short)   # the GPU path and the host suites, in a minute
        {
            for p in 1 2 4; do
                run "pkufft gpu P=$p" 0 "${mpirun[@]}" -np $p $b/examples/pkufft --engine=gpu --route=both 16 64 256 512
            done
            run "pkufft plan info P=4" 0 env PA_PLAN_INFO=1 "${mpirun[@]}" -x PA_PLAN_INFO -np 4 $b/examples/pkufft --engine=gpu --route=both 32
            run "pkufft staged device route P=4" 0 "${mpirun[@]}" -np 4 -x PA_MPI_PEER=0 $b/examples/pkufft --engine=gpu --route=device 64 512
            run "mpi_dmem" 0 "${mpirun[@]}" -np 4 $b/tests/test_mpi_dmem
            run "mpi_dmem staged" 0 "${mpirun[@]}" -np 4 -x PA_MPI_PEER=0 $b/tests/test_mpi_dmem
            run "mpi_copy" 0 "${mpirun[@]}" -np 4 $b/tests/test_mpi_copy
            run "mpi_random" 0 "${mpirun[@]}" -np 4 $b/tests/test_mpi_random
        } > "$out/short.log" 2>&1
        grep -E "^== |^exit |PASS|FAIL|^!!" "$out/short.log" | grep -v "^parray" | head -60
        ;;
    p12)   # the all-to-all alone at N = 512: the routes taken now against the plain run
        {
            for p in 1 2 4; do
                run "p12 default P=$p" 0 "${mpirun[@]}" -np $p -x PA_MPI_TIMES=1 $b/bench/fft --alltoall-only --repeats=5 512
                [ $p = 1 ] && continue
                run "p12 plain (PA_MPI_SELF=0 PA_MPI_SHM=0 PA_MPI_PEER=0) P=$p" 0 "${mpirun[@]}" -np $p -x PA_MPI_TIMES=1 \
                    -x PA_MPI_SELF=0 -x PA_MPI_SHM=0 -x PA_MPI_PEER=0 $b/bench/fft --alltoall-only --repeats=5 512
            done
        } > "$out/p12.log" 2>&1
        grep -E "^== |^P12|^exit|^!!|times \(rank 0\).*Alltoall|times \(rank 0\).*local" "$out/p12.log" |
            sed 's/distributed copy [0-9]* x 8 B over [0-9] process[es]*: //'
        ;;
    quick)   # the device route's peer copies and its fallback, at small sizes
        {
            run "mpi_dmem (default: peer copies on one host)" 0 env PA_PLAN_INFO=1 "${mpirun[@]}" -x PA_PLAN_INFO -np 4 $b/tests/test_mpi_dmem
            run "mpi_dmem staged (PA_MPI_PEER=0)" 0 "${mpirun[@]}" -np 4 -x PA_MPI_PEER=0 $b/tests/test_mpi_dmem
            for p in 2 4; do
                run "pkufft device route P=$p" 0 "${mpirun[@]}" -np $p $b/examples/pkufft --engine=gpu --route=both 16 64 256 512
            done
            run "pkufft device route P=4 staged" 0 "${mpirun[@]}" -np 4 -x PA_MPI_PEER=0 $b/examples/pkufft --engine=gpu --route=device 64 512
        } > "$out/quick.log" 2>&1
        grep -E "^== |^exit |PASS|FAIL|^!!|ok$|FAILED$|route" "$out/quick.log" | grep -v "^parray plan" | head -60
        grep -E "^parray plan" "$out/quick.log" | sed 's/rank [0-9]*/rank R/g' | sort | uniq -c | head -20
        ;;
    bench)
        for n in ${BENCH_SIZES:-256 512 1024}; do   # the sizes outside: a run cut short keeps whole sizes
            for p in ${BENCH_PROCS:-1 2 4}; do
                run "bench/fft N=$n P=$p" 0 "${mpirun[@]}" -np "$p" -x PA_MPI_TIMES=1 $b/bench/fft \
                    --repeats="${BENCH_REPEATS:-5}" "$n"
            done
        done > "$out/bench.log" 2>&1
        grep -E "^P12|^N=|fft-total|all-to-all plan|phases|^!!|^exit" "$out/bench.log"
        ;;
    twogpu)
        FFT_SIZES=512 bash scripts/gpu-fft-2gpu.sh "$out/twogpu" || status=1
        ;;
    esac
done
exit $status
