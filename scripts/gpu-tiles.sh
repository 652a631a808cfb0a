#!/usr/bin/env bash
# The GPU tiles' checks on the lent GPU machine, in one call (docs/gpu-results.md records what they printed):
#
#   scripts/gpu-tiles.sh OUTDIR
#
# Builds only what the tiles need (with every core) in /tmp/bt, runs bench/sgemm with a sweep of kernel shapes
# (PA_SGEMM_CONFIGS, sizes PA_SGEMM_SIZES), keeps the generated gemm kernel's resource report and instruction
# counts (ptxas -v, cuobjdump -sass), then runs the suites tiles_gen and tiles_gpu and the examples of listings
# 42 and 43 (subprog_gemm, sgemm_types).
set -uo pipefail
out=${1:?usage: gpu-tiles.sh OUTDIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 2
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; nvcc --version | tail -2; } \
    > "$out/device.txt" 2>&1
cat "$out/device.txt"
export PA_KERNEL_CACHE=/tmp/bt-cache
if [ ! -f /tmp/bt/build.ninja ]; then
    meson setup /tmp/bt -Dcuda=enabled > "$out/setup.log" 2>&1 || { tail -30 "$out/setup.log"; exit 2; }
fi
targets=(tests/test_tiles_gen tests/test_tiles_gpu bench/sgemm bench/gemm_source examples/subprog_gemm examples/sgemm_types)
ninja -C /tmp/bt "${targets[@]}" > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 2; }
status=0
read -r -a sizes <<< "${PA_SGEMM_SIZES:-4096 8192}"
PA_SGEMM_CONFIGS=${PA_SGEMM_CONFIGS:-} timeout "${PA_SGEMM_TIMEOUT:-120}" /tmp/bt/bench/sgemm "${sizes[@]}" \
    > "$out/sgemm.log" 2>&1 || status=1
cat "$out/sgemm.log"
# the default kernel's resources, as the compiler reports them
if [ -x /tmp/bt/bench/gemm_source ]; then
    /tmp/bt/bench/gemm_source 4096 > "$out/gemm4096.cu" 2>&1
    nvcc -arch=sm_90 -std=c++17 -cubin -Xptxas -v -I include -o /tmp/bt/g.cubin "$out/gemm4096.cu" > "$out/ptxas.txt" 2>&1
    cuobjdump -sass /tmp/bt/g.cubin > /tmp/bt/g.sass 2>&1
    for p in FFMA LDS.128 "LDS " LDG.E.128 "LDG.E " STS.128 "STS " BAR.SYNC; do
        printf '%s %s\n' "$p" "$(grep -c "$p" /tmp/bt/g.sass)"; done > "$out/sass_counts.txt"
    cat "$out/ptxas.txt" "$out/sass_counts.txt"
fi
for t in tiles_gen tiles_gpu; do
    timeout "${PA_TILES_TEST_TIMEOUT:-90}" "/tmp/bt/tests/test_$t" > "$out/test_$t.log" 2>&1; rc=$?
    echo "test $t: rc=$rc"; tail -5 "$out/test_$t.log"
    [ $rc -eq 0 ] || status=1
done
for ex in subprog_gemm sgemm_types; do
    [ -x /tmp/bt/examples/$ex ] || continue
    timeout 60 /tmp/bt/examples/$ex > "$out/example_$ex.log" 2>&1; rc=$?
    echo "example $ex: rc=$rc"; cat "$out/example_$ex.log"
    [ $rc -eq 0 ] || status=1
done
exit $status
