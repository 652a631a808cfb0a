#!/usr/bin/env bash
# P7 on the lent GPU machine in one call: builds only what the gemm needs (every core) in /tmp/bs, sweeps the
# kernel shapes in PA_SGEMM_SWEEP at n = 4096, reruns the best PA_SGEMM_TOP of them (and the default) at 8192,
# then, unless PA_SGEMM_TESTS=0, the suites tiles_gen and tiles_gpu.  Logs go into OUTDIR/sgemm.tgz.
#
#   PA_SGEMM_SWEEP="bm,bn,bk,tm,tn,threads,lanes_n,min_blocks,stages;..." scripts/gpu-sgemm.sh OUTDIR
set -uo pipefail
out=${1:?usage: gpu-sgemm.sh OUTDIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 2
logs=/tmp/sgemm-logs
b=/tmp/bs
mkdir -p "$out" "$logs"
pack() { tar czf "$out/sgemm.tgz" -C "$logs" . 2>/dev/null; }
t0=$SECONDS
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; nvcc --version | tail -1; } \
    | tee "$logs/device.txt"
export PA_KERNEL_CACHE=/tmp/bs-cache
if [ ! -f $b/build.ninja ]; then
    meson setup $b -Dcuda=enabled -Dfuzz=false > "$logs/setup.log" 2>&1 || { tail -30 "$logs/setup.log"; pack; exit 2; }
fi
ninja -C $b tests/test_tiles_gen tests/test_tiles_gpu bench/sgemm bench/gemm_source > "$logs/build.log" 2>&1 ||
    { tail -30 "$logs/build.log"; pack; exit 2; }
echo "build: $((SECONDS - t0)) s"
PA_SGEMM_CONFIGS=${PA_SGEMM_SWEEP:-} timeout "${PA_SGEMM_TIMEOUT:-150}" $b/bench/sgemm 4096 > "$logs/sgemm4096.log" 2>&1
echo "sgemm 4096: rc=$? ($((SECONDS - t0)) s)"
cat "$logs/sgemm4096.log"
pack
# the best sweep rows at 4096 (by the ratio of medians), as configs again
top=$(grep "^  sweep" "$logs/sgemm4096.log" | grep -v WRONG | sort -k5 -rn | head -n "${PA_SGEMM_TOP:-4}" |
    sed -E 's/.* ([0-9]+)x([0-9]+)x([0-9]+) ([0-9]+)x([0-9]+)\/([0-9]+) lanes ([0-9]+) min ([0-9]+) stages ([0-9]+).*/\1,\2,\3,\4,\5,\6,\7,\8,\9/' |
    paste -sd';')
echo "8192 with: $top"
PA_SGEMM_CONFIGS=$top timeout "${PA_SGEMM_TIMEOUT:-150}" $b/bench/sgemm 8192 > "$logs/sgemm8192.log" 2>&1
echo "sgemm 8192: rc=$? ($((SECONDS - t0)) s)"
cat "$logs/sgemm8192.log"
pack
$b/bench/gemm_source 4096 > "$logs/gemm4096.cu" 2>&1
nvcc -arch=sm_90 -std=c++17 -cubin -Xptxas -v -I include -o $b/g.cubin "$logs/gemm4096.cu" > "$logs/ptxas.txt" 2>&1
tail -3 "$logs/ptxas.txt"
if [ "${PA_SGEMM_TESTS:-1}" != 0 ]; then
    for t in tiles_gen tiles_gpu; do
        timeout "${PA_TILES_TEST_TIMEOUT:-150}" "$b/tests/test_$t" > "$logs/test_$t.log" 2>&1
        echo "test $t: rc=$? ($((SECONDS - t0)) s)"; tail -4 "$logs/test_$t.log"
    done
fi
pack
