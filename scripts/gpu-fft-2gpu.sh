#!/usr/bin/env bash
# The distributed FFT on a machine with two GPUs (issue 17), in one call of about 400 s at most:
#
#   scripts/gpu-fft-2gpu.sh OUTDIR      FFT_SIZES="512 1024" (default)  FFT_REPEATS=3
#                                       B=/tmp/b2: the build to reuse (gpu-final.sh's; made here when absent)
#
# Expects .gpu/ prepared by shared/tools/gpu-prep (Check, for the cuda_devices suite).  Builds only what it runs
# in $B (CUDA backend, all cores; nothing to do when gpu-final.sh built it already) and writes to OUTDIR:
#   pkufft.log    examples/pkufft over both routes at each N with P = 2 (one rank per GPU) and P = 4 (two per
#                 GPU), each rank on GPU rank mod 2, checked against cufftPlan3d (PASS/FAIL), the plans printed
#                 (PA_PLAN_INFO=1) for the first run;
#   bench.log     bench/fft at P = 1 and P = 2 (each plan's steps, PA_MPI_TIMES=1) and scaling.txt: the
#                 strong-scaling efficiency of the total, T(P=1) / (2 T(P=2)), per N and route;
#   copy_gpu.log  bench/copy_gpu's GPU1->GPU0 rows (against cudaMemcpyPeer);
#   sanitize.log  both cuda_devices suites (one GPU, two GPUs) under compute-sanitizer memcheck.
# Every step has its own time limit (about 400 s in all, judged from the one-GPU run; 550 s at most); the logs
# are packed into $TGZ (default $OUT/fft2.tgz where $OUT is set, else OUTDIR.tgz) after each step, so a call cut
# short still returns them.
# It runs on one GPU too (every rank on GPU 0; the GPU1 rows and the cross-GPU tests then skip): the device
# line in device.txt says what it ran on.  Exits non-zero when something fails.
set -uo pipefail
out=${1:?usage: gpu-fft-2gpu.sh OUTDIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 2
# .gpu/ in this checkout, or in the main checkout when this one is a copy under .wt/ (see docs/gpu-results.md)
# shellcheck disable=SC1091
[ -f .gpu/env.sh ] && source .gpu/env.sh
# shellcheck disable=SC1091
[ -f ../../.gpu/env.sh ] && { pushd ../.. >/dev/null || exit 2; source .gpu/env.sh; popd >/dev/null || exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
read -r -a sizes <<< "${FFT_SIZES:-512 1024}"
repeats=${FFT_REPEATS:-3}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tgz=${TGZ:-${OUT:+$OUT/fft2.tgz}}
tgz=${tgz:-$out.tgz}
pack() { tar czf "$tgz" -C "$(dirname "$out")" "$(basename "$out")" 2>/dev/null; }
b=${B:-/tmp/b2}
t0=$SECONDS
step() { echo "[$1: $((SECONDS - t)) s, total $((SECONDS - t0)) s]"; pack; }
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; nvidia-smi topo -m;
  nvcc --version | tail -2; nproc; } > "$out/device.txt" 2>&1
ngpu=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
echo "GPUs: $ngpu"
t=$SECONDS
if [ ! -f "$b/build.ninja" ]; then
    meson setup "$b" -Dcuda=enabled -Dfuzz=false > "$out/setup.log" 2>&1 || { tail -30 "$out/setup.log"; pack; exit 2; }
fi
timeout 150 ninja -C "$b" examples/pkufft bench/fft bench/copy_gpu tests/test_cuda_devices > "$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; pack; exit 2; }
step build
# --bind-to none: Open MPI binds each of 1 or 2 ranks to one core, and the library's copies use the rank's share
mpirun=(mpirun --oversubscribe --bind-to none)
status=0
t=$SECONDS
{
    first=1
    for n in "${sizes[@]}"; do
        for p in 2 4; do
            info=(env PA_PLAN_INFO=0)
            [ $first = 1 ] && info=(env PA_PLAN_INFO=1) && first=0
            echo "== pkufft N=$n P=$p ($(( (p + ngpu - 1) / ngpu )) rank(s) per GPU)"
            timeout $((n >= 1024 ? 60 : 30)) "${info[@]}" "${mpirun[@]}" -x PA_PLAN_INFO -np "$p" \
                "$b/examples/pkufft" --engine=gpu --route=both "$n" 2>&1
            rc=$?
            echo "exit $rc"
            [ $rc -ne 0 ] && status=1
        done
    done
} > "$out/pkufft.log" 2>&1
grep -E "^== |PASS|FAIL|^exit" "$out/pkufft.log" | grep -v "all-to-all:"
step pkufft
t=$SECONDS
for p in 1 2; do
    echo "== bench/fft P=$p"
    timeout 110 "${mpirun[@]}" -np "$p" -x PA_MPI_TIMES=1 "$b/bench/fft" --repeats="$repeats" "${sizes[@]}" 2>&1
    echo "exit $?"
done > "$out/bench.log" 2>&1
grep -qE "^exit (124|137)" "$out/bench.log" && status=1
# strong scaling of the total: T(1) / (P T(P)) with P = 2
awk '/^fft-total/ { split($2, n, "="); split($3, p, "="); split($4, r, "="); split($5, t, "=");
                    T[n[2] " " r[2] " " p[2]] = t[2]; key[n[2] " " r[2]] = 1 }
     END { printf "%-8s %-7s %12s %12s %10s\n", "N", "route", "P=1 ms", "P=2 ms", "efficiency";
           for (k in key) { t1 = T[k " 1"]; t2 = T[k " 2"];
             if (t1 > 0 && t2 > 0) { split(k, f, " "); printf "%-8s %-7s %12.2f %12.2f %10.3f\n", f[1], f[2], t1, t2, t1 / (2 * t2) } } }' \
    "$out/bench.log" | tee "$out/scaling.txt"
grep -E "^P12|^N=" "$out/bench.log"
step bench
t=$SECONDS
timeout 45 "$b/bench/copy_gpu" 10 GPU1 > "$out/copy_gpu.log" 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 77 ] && status=1
grep -E "GPU1|device" "$out/copy_gpu.log"
step copy_gpu
t=$SECONDS
# test_cuda_devices is two suites: no argument, the executors on one GPU; "two", the copies between two GPUs.
: > "$out/sanitize.log"
for member in "" two; do
    echo "== compute-sanitizer --tool memcheck tests/test_cuda_devices $member" >> "$out/sanitize.log"
    # shellcheck disable=SC2086  # the empty member is no argument
    PA_TEST_SEED=42 timeout 60 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
        "$b/tests/test_cuda_devices" $member >> "$out/sanitize.log" 2>&1
    rc=$?
    echo "exit $rc" >> "$out/sanitize.log"
    [ $rc -ne 0 ] && [ $rc -ne 77 ] && status=1
done
tail -5 "$out/sanitize.log"
step sanitize
exit $status
