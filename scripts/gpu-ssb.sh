#!/usr/bin/env bash
# The SSB run on the lent GPU, in one call (docs/gpu-results.md records what it printed):
#
#   scripts/gpu-ssb.sh OUTDIR [SF_BIG]     (run from the repository root, after `source .gpu/env.sh`)
#
# Builds only what it needs (release, CUDA) in /tmp/bssb with every core, then writes each step's log to OUTDIR:
# tests.log (query_ssb_nvrtc, query_ssb_gpu: the primitives and the 13 queries against the CPU at SF 0.05),
# run1.log (parray ssb run -s 1 --both: every GPU result against the CPU at SF 1), bench1.log (bench/ssb -s 1),
# bench20.log (bench/ssb -s SF_BIG, default 20: the P8 table; every result checked against the CPU), and
# bench20_<tile>.log for each tile shape in $TILES (PA_SSB_TILE), and sanitize.log (query_ssb_gpu under
# compute-sanitizer memcheck).  Each step has its own time limit.
set -uo pipefail
out=${1:?usage: gpu-ssb.sh OUTDIR [SF_BIG]}
big=${2:-20}
TILES=${TILES:-}
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader; nproc;
  nvcc --version | tail -1; } > "$out/device.txt" 2>&1
b=/tmp/bssb
if [ ! -f $b/build.ninja ]; then
    meson setup $b -Dcuda=enabled -Dmpi=disabled -Dglobalarrays=disabled -Dbuildtype=release > "$out/setup.log" 2>&1 \
        || { tail -30 "$out/setup.log"; exit 2; }
fi
ninja -C $b tools/parray bench/ssb tests/test_query_ssb_gpu tests/test_query_ssb_nvrtc tests/test_query_ssb \
    > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 2; }
export PA_KERNEL_CACHE=/tmp/pa_kernel_cache
status=0
step() {   # step NAME LIMIT COMMAND...
    local name=$1 limit=$2
    shift 2
    local t0=$SECONDS
    timeout "$limit" "$@" > "$out/$name.log" 2>&1 || { echo "$name: exit $?" >> "$out/$name.log"; status=1; }
    echo "$name: $((SECONDS - t0)) s" >> "$out/times.txt"
}
step tests 120 sh -c "$b/tests/test_query_ssb_nvrtc && $b/tests/test_query_ssb_gpu && $b/tests/test_query_ssb"
step run1 90 $b/tools/parray ssb run -s 1 --both --quiet
step bench1 90 $b/bench/ssb -s 1 -r 21 -c 3
step bench20 150 $b/bench/ssb -s "$big" -r 21 -c 1
for tile in $TILES; do   # tile shapes to compare (TILES="256x4 128x8" ...): GPU times, results checked once
    step "bench20_$tile" 60 env PA_SSB_TILE="$tile" $b/bench/ssb -s "$big" -r 21 -c 0
done
step sanitize 90 compute-sanitizer --tool memcheck --error-exitcode 1 $b/tests/test_query_ssb_gpu
tail -n 40 "$out"/tests.log "$out"/run1.log "$out"/bench1.log "$out"/bench20*.log | cut -c1-160
tail -n 5 "$out"/sanitize.log
cat "$out/times.txt"
exit $status
