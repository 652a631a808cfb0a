#!/usr/bin/env bash
# The matrix module's checks on the lent GPU machine, in one call (docs/gpu-results.md records what they printed):
#
#   scripts/gpu-matrix.sh OUTDIR
#
# Builds only what the matrix module needs (with every core) in /tmp/bm, then runs: the suites matrix,
# matrix_gpu (gemm through pa_gemm_dmem included), plcuda_time_host, plcuda_libs_compile and plcuda_libs_gpu
# (dates, LIKE, dynamic parallelism on the GPU), cuda_copy (the permute kernel's tile order: random layouts
# against the reference walk), the examples matrix_knn and matrix_kmeans (CSV -> matrix -> PL/CUDA -> rows,
# checked against the CPU, and their output against examples/expected), bench/matrix (P11: transpose/rbind/cbind
# vs cudaMemcpy, CSV, k-NN vs cuBLAS) and bench/copy_gpu's P1 rows (the same permute kernel at 256 MiB).  Logs go
# to OUTDIR; the exit status is 0 when everything passed.
set -uo pipefail
out=${1:?usage: gpu-matrix.sh OUTDIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 2
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; nvcc --version | tail -2; } \
    > "$out/device.txt" 2>&1
cat "$out/device.txt"
export PA_KERNEL_CACHE=/tmp/bm-cache
build=${PA_MATRIX_BUILD:-/tmp/bm}
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" -Dcuda=enabled > "$out/setup.log" 2>&1 || { tail -30 "$out/setup.log"; exit 2; }
fi
targets="tests/test_matrix tests/test_matrix_gpu tests/test_plcuda_time_host tests/test_plcuda_libs_compile
         tests/test_plcuda_libs_gpu tests/test_cuda_copy examples/matrix_knn examples/matrix_kmeans bench/matrix
         bench/copy_gpu"
# shellcheck disable=SC2086
ninja -C "$build" $targets > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 2; }
status=0
# the suites and the examples at once (correctness only; the benchmarks run alone afterwards)
suites="matrix matrix_gpu plcuda_time_host plcuda_libs_compile plcuda_libs_gpu cuda_copy"
for t in $suites; do
    (CK_DEFAULT_TIMEOUT=120 timeout "${PA_MATRIX_TEST_TIMEOUT:-150}" "$build/tests/test_$t" > "$out/test_$t.log" 2>&1
     echo $? > "$out/test_$t.rc") &
done
for ex in matrix_knn matrix_kmeans; do
    (timeout 120 "$build/examples/$ex" > "$out/example_$ex.txt" 2> "$out/example_$ex.err"; echo $? > "$out/example_$ex.rc") &
done
wait
for t in $suites; do
    rc=$(cat "$out/test_$t.rc")
    echo "test $t: rc=$rc"; grep -v "^Running" "$out/test_$t.log" | tail -6
    [ "$rc" -eq 0 ] || status=1
done
for ex in matrix_knn matrix_kmeans; do
    rc=$(cat "$out/example_$ex.rc")
    if [ "$rc" -eq 0 ] && ! diff -u "examples/expected/$ex.txt" "$out/example_$ex.txt"; then rc=99; fi
    echo "example $ex: rc=$rc ($(cat "$out/example_$ex.err"))"
    [ "$rc" -eq 0 ] || status=1
done
timeout "${PA_MATRIX_BENCH_TIMEOUT:-180}" "$build/bench/matrix" > "$out/bench_matrix.log" 2>&1 || status=1
cat "$out/bench_matrix.log"
timeout "${PA_MATRIX_P1_TIMEOUT:-60}" "$build/bench/copy_gpu" 11 P1 > "$out/bench_copy_p1.log" 2>&1 || status=1
grep -E "^P1|cases meet" "$out/bench_copy_p1.log"
echo "gpu-matrix: status $status"
exit $status
