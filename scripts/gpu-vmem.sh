#!/usr/bin/env bash
# Issue 14, item 5 on the lent GPU machine's host (its CPUs only): the manual's tiled transposition (listing 23)
# timed by bench/tiling, with the vmem tile suites and the listing's example checked on this CPU (AVX-512
# where it has it), in one call:
#
#     scripts/gpu-vmem.sh [step...]      (default: tests tiling)
#
# steps:
#   tests    tests/test_threads_tile_vmem (as it is, and under PA_VMEM_ISA=avx2), test_threads_map_tile,
#            test_host_mem, examples/tiling
#   tiling   bench/tiling twice in a row (two consecutive runs, all CPUs and one thread), then once with
#            PA_VMEM_ISA=avx2 (information)
#   mictest  bench/mictest (listings 26 and 47, whose bandwidth row also moves through vmem tiles)
# Builds in /tmp/b-vmem (release, without CUDA, MPI or Global Arrays, with the tests); the logs are packed into
# $OUT/vmem.tgz (or ./gpu-vmem-out/vmem.tgz), the main log also left as vmem.log beside it.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
if [ -f .gpu/env.sh ]; then   # made by shared/tools/gpu-prep
    # shellcheck disable=SC1091
    source .gpu/env.sh
fi
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests tiling)
out=${OUT:-$root/gpu-vmem-out}
logs=$(mktemp -d)
log=$logs/vmem.log
mkdir -p "$out"
t0=$SECONDS
{ date -u; nproc; lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|MHz|Flags' | cut -c1-200
  echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
  git -C "$root" log --oneline -1 2>/dev/null; } >"$log" 2>&1

b=/tmp/b-vmem
need=(bench/tiling examples/tiling)
for step in "${steps[@]}"; do
    case $step in
    tests) need+=(tests/test_threads_tile_vmem tests/test_threads_map_tile tests/test_host_mem) ;;
    mictest) need+=(bench/mictest) ;;
    esac
done
if ! { [ -f $b/build.ninja ] || meson setup $b -Dbuildtype=release -Dcuda=disabled -Dmpi=disabled \
        -Dglobalarrays=disabled -Dtests=true >"$logs/setup.log" 2>&1; } ||
   ! ninja -C $b -j16 "${need[@]}" >"$logs/build.log" 2>&1; then
    echo "build failed" >>"$log"
    tail -40 "$logs/setup.log" "$logs/build.log" >>"$log" 2>/dev/null
    steps=()
fi
echo "build: $((SECONDS - t0)) s" >>"$log"

# shellcheck source=scripts/gpu-run.sh
source "$root/scripts/gpu-run.sh"   # run LIMIT_S TITLE COMMAND...: one step, its output in $log
for step in "${steps[@]}"; do
    case $step in
    tests)
        run 60 "tests/test_threads_tile_vmem" env CK_DEFAULT_TIMEOUT=60 $b/tests/test_threads_tile_vmem
        run 60 "tests/test_threads_tile_vmem, PA_VMEM_ISA=avx2" env CK_DEFAULT_TIMEOUT=60 PA_VMEM_ISA=avx2 \
            $b/tests/test_threads_tile_vmem
        run 60 "tests/test_threads_map_tile" env CK_DEFAULT_TIMEOUT=60 $b/tests/test_threads_map_tile
        run 60 "tests/test_host_mem" env CK_DEFAULT_TIMEOUT=60 $b/tests/test_host_mem
        run 20 "listing 23: examples/tiling" $b/examples/tiling
        ;;
    tiling)
        for r in 1 2; do
            run 60 "bench/tiling, run $r" $b/bench/tiling
        done
        run 60 "bench/tiling, PA_VMEM_ISA=avx2 (information)" env PA_VMEM_ISA=avx2 $b/bench/tiling
        ;;
    mictest)
        run 60 "bench/mictest" $b/bench/mictest
        ;;
    *)
        echo "unknown step $step" >>"$log"
        ;;
    esac
done
echo "total: $((SECONDS - t0)) s" >>"$log"
tar -czf "$out/vmem.tgz" -C "$logs" .
cp "$log" "$out/vmem.log"
echo "logs in $out/vmem.tgz"
