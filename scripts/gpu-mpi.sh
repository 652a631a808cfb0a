#!/usr/bin/env bash
# Issue 14 item 4 (P9) on the lent GPU machine's 16-vCPU host, in one call:
#
#   scripts/gpu-mpi.sh OUTDIR [step...]     (default: runA runB)
#
# steps:
#   runA, runB  bench/mpi_copy at 2, 4, 8 and 16 ranks (three sizes) and 32 oversubscribed (1 KiB and 64 KiB):
#               two such runs one after the other are P9's "two consecutive runs"
#   floor       the method's noise floor (PA_BENCH_SELFTEST=1: the anchor against itself) at 2 and 32 ranks
#   base        main's tree (the repository root when this script runs from .wt/NAME) built beside and its
#               bench/mpi_copy run at 2 and 16 ranks: the "before" in the same call
#   yield       32 ranks with Open MPI told to yield when idle (--mca mpi_yield_when_idle 1), as the meson
#               benchmark runs it
# Builds only bench/mpi_copy and tools/parray (release, no CUDA: the benchmark moves host memory) in
# /tmp/b-mpi, and packs the logs into OUTDIR/mpi.tgz (also left in OUTDIR/mpi/).
set -uo pipefail
out=${1:?usage: gpu-mpi.sh OUTDIR [step...]}
shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(runA runB)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
root=$here
cd "$here" || exit 2
if [ -f .gpu/env.sh ]; then
    # shellcheck disable=SC1091
    source .gpu/env.sh
elif [ -f ../../.gpu/env.sh ]; then   # a copy of the tree under .wt/NAME
    root=$(cd ../.. && pwd)
    # shellcheck disable=SC1091
    cd "$root" && source .gpu/env.sh && cd "$here" || exit 2
fi
logs=$out/mpi
mkdir -p "$logs"
log=$logs/run.log
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; grep -m1 'model name' /proc/cpuinfo
  mpirun --version | head -1; git -C "$here" log --oneline -1 2>/dev/null; } > "$log" 2>&1
t0=$SECONDS
build() {   # build SRC DIR: the benchmark and the info tool of the tree at SRC in DIR
    { meson setup "$2" "$1" -Dcuda=disabled -Dtests=false -Dbuildtype=release > "$logs/setup-$(basename "$2").log" 2>&1 &&
      ninja -C "$2" bench/mpi_copy tools/parray > "$logs/build-$(basename "$2").log" 2>&1; } ||
        { tail -30 "$logs/setup-$(basename "$2").log" "$logs/build-$(basename "$2").log" >> "$log"; return 1; }
}
b=/tmp/b-mpi
build "$here" $b || exit 2
echo "build: $((SECONDS - t0)) s" >> "$log"
# shellcheck source=scripts/gpu-run.sh
source "$here/scripts/gpu-run.sh"   # run LIMIT_S TITLE COMMAND...: one step, its output in $log
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl 'self,vader' -np)
run 10 "parray info" $b/tools/parray info
for step in "${steps[@]}"; do
    case $step in
    runA | runB)
        for n in 2 4 8 16; do run 120 "$step: mpi_copy $n ranks" "${mpi[@]}" "$n" $b/bench/mpi_copy; done
        run 240 "$step: mpi_copy 32 ranks (oversubscribed)" "${mpi[@]}" 32 $b/bench/mpi_copy --sizes 2
        ;;
    floor)
        for n in 2 32; do
            run 240 "noise floor, $n ranks (PA_BENCH_SELFTEST=1)" "${mpi[@]}" "$n" -x PA_BENCH_SELFTEST=1 \
                $b/bench/mpi_copy --sizes 2
        done
        ;;
    base)
        if [ "$root" = "$here" ]; then
            echo "base: no main tree beside this one" >> "$log"
        elif build "$root" /tmp/b-mpi-base; then
            for n in 2 16; do run 120 "base (main): mpi_copy $n ranks" "${mpi[@]}" "$n" /tmp/b-mpi-base/bench/mpi_copy; done
        fi
        ;;
    yield)
        run 240 "mpi_copy 32 ranks, mpi_yield_when_idle 1" "${mpi[@]}" 32 --mca mpi_yield_when_idle 1 \
            $b/bench/mpi_copy --sizes 2
        ;;
    *)
        echo "unknown step $step" >> "$log"
        ;;
    esac
done
echo "total: $((SECONDS - t0)) s" >> "$log"
tar -C "$out" -czf "$out/mpi.tgz" mpi
