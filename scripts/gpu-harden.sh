#!/usr/bin/env bash
# The GPU side of issue 15 (hardening), for one run on the lent GPU machine (16 cores, one GPU, no internet).
# harden has no device time of its own: the coordinator runs it, from a checkout with .gpu/ prepared
# (shared/tools/gpu-prep: Check), e.g.
#
#     ln -sfn ../../.gpu .gpu 2>/dev/null; source .gpu/env.sh && scripts/gpu-harden.sh
#
# In about 7 minutes (under run's 10; the build is most of the rest):
#   1. builds in /tmp/b-harden (CUDA, NVTX, no benchmarks) with 16 jobs;
#   2. starts the copy fuzzer in the background on FUZZ_JOBS cores (13) for FUZZ_SECONDS (220): the local copies
#      (the issue's copy target) on all jobs but two, by the driver of random and mutated inputs of this build
#      (copy_fuzz_random_local, fuzz/random_driver.c); the whole target (with copies between types distributed
#      over threads) on two, by libFuzzer's -fork where clang's fuzzer runtime links, else by copy_fuzz_random;
#   3. meanwhile runs the GPU suites this work added or changed (cuda_async: pa_cuda_for_async/map_async;
#      plcuda_gpu and plcuda_libs_gpu: the tile, math, time, text and dynpara device helpers; the split suites that
#      skip 77 where they cannot check; tiles_gpu's pa_gemm_dmem; query_ssb_gpu's launch/result), the DLPack round
#      trips (NumPy on the CPU, PyTorch and CuPy on the GPU: tests/python/dlpack_roundtrip.py) and records which
#      Python packages are there;
#   4. records NVTX ranges: the nvtx_gpu suite's text timeline, and nsys profile + nsys stats where an nsys that
#      writes reports is found (KINDS.md: none on the PATH so far);
#   5. waits for the fuzzer and prints its executions ("executions: N");
#   6. packs every log into $OUT/harden.tgz and prints summary.txt.
# HARDEN_ALL=1 also runs the whole test suite (a few minutes more).  HARDEN_FUZZ_ONLY=1 builds and fuzzes only, on all
# 16 cores for 360 s (about 7 minutes in all with a fresh build): a call of its own for the issue's 10 million executions if the
# combined run's share (13 jobs, 220 s) falls short.  FUZZ_JOBS and FUZZ_SECONDS override either.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
b=${HARDEN_BUILD:-/tmp/b-harden}
out=${OUT:-$root/gpu-harden-out}
logs=$(mktemp -d /tmp/harden-logs.XXXXXX)
fuzz_only=${HARDEN_FUZZ_ONLY:-0}
fuzz_jobs=${FUZZ_JOBS:-$([ "$fuzz_only" = 1 ] && echo 16 || echo 13)}
fuzz_seconds=${FUZZ_SECONDS:-$([ "$fuzz_only" = 1 ] && echo 360 || echo 220)}
mkdir -p "$out"
status=0
summary="$logs/summary.txt"

note() { echo "$*" | tee -a "$summary"; }
step() {
    local name=$1
    shift
    note "== $name: $*"
    if "$@" >"$logs/$name.log" 2>&1; then
        note "   ok"
    else
        note "   FAILED ($?)"
        status=1
    fi
}

{
    date -u
    nvidia-smi -L
    nvcc --version | tail -n 1
    nproc
} >"$logs/device.txt" 2>&1
note "device: $(head -n 3 "$logs/device.txt" | tail -n 2 | tr '\n' ' ')"

# 1. Build.
t=$SECONDS
if [ ! -f "$b/build.ninja" ]; then
    meson setup "$b" -Dcuda=enabled -Dnvtx=enabled -Dbench=false >"$logs/setup.log" 2>&1 || status=1
fi
if ! ninja -C "$b" -j16 >"$logs/build.log" 2>&1; then
    note "build failed (build.log)"
    tail -n 30 "$logs/build.log"
    tar -C "$logs" -czf "$out/harden.tgz" .
    exit 1
fi
note "build: $((SECONDS - t)) s"

# 2. The copy fuzzer, in the background.
fuzz_kind=random
if command -v clang >/dev/null 2>&1 && echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
    clang -x c - -fsanitize=fuzzer -o /tmp/harden-fuzz-probe >/dev/null 2>&1; then
    fuzz_kind=libfuzzer
    if [ ! -f /tmp/b-harden-fuzz/build.ninja ]; then
        CC=clang meson setup /tmp/b-harden-fuzz -Dfuzz=true -Dfuzz-sanitizers=false -Dtests=false -Dbench=false \
            -Dcuda=disabled -Dmpi=disabled >"$logs/fuzz-setup.log" 2>&1 || fuzz_kind=random
    fi
    if [ "$fuzz_kind" = libfuzzer ] && ! ninja -C /tmp/b-harden-fuzz fuzz/copy_fuzz >"$logs/fuzz-build.log" 2>&1; then
        fuzz_kind=random
    fi
fi
fuzz_dir=$(mktemp -d /tmp/harden-fuzz.XXXXXX)
# Local copies (the issue's copy target, the volume) on all jobs but two, by the random driver; the whole target
# (with the copies between types distributed over threads, several times slower: each starts threads) on the other
# two, by libFuzzer where it links (coverage-guided), else by the random driver.
note "fuzz: copy_fuzz_random_local -jobs=$((fuzz_jobs - 2)), and the whole target on 2 jobs ($fuzz_kind), $fuzz_seconds s"
"$b/tests/copy_fuzz_random_local" -jobs="$((fuzz_jobs - 2))" -seconds="$fuzz_seconds" -seed="$(date +%s)" \
    -artifact_prefix="$fuzz_dir/" fuzz/copy_corpus >"$logs/fuzz.log" 2>&1 &
fuzz_pid=$!
if [ "$fuzz_kind" = libfuzzer ]; then
    mkdir -p "$fuzz_dir/corpus"
    /tmp/b-harden-fuzz/fuzz/copy_fuzz -fork=2 -max_total_time="$fuzz_seconds" -max_len=128 -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$fuzz_dir/dist-" "$fuzz_dir/corpus" \
        fuzz/copy_corpus >"$logs/fuzz-dist.log" 2>&1 &
else
    "$b/tests/copy_fuzz_random" -jobs=2 -seconds="$fuzz_seconds" -seed="$(($(date +%s) + 7))" \
        -artifact_prefix="$fuzz_dir/dist-" fuzz/copy_corpus >"$logs/fuzz-dist.log" 2>&1 &
fi
fuzz_dist_pid=$!

# 3. The GPU suites of this work, the DLPack round trips, the Python packages.
if [ "$fuzz_only" != 1 ]; then
    {
        command -v python3
        python3 --version
        python3 -m pip list 2>/dev/null | grep -i -E '^(numpy|torch|cupy[a-z0-9-]*|jax|jaxlib) '
        python3 -c 'import numpy; print("numpy", numpy.__version__, "from_dlpack:", hasattr(numpy, "from_dlpack"))'
        python3 -c 'import torch; print("torch", torch.__version__, "cuda:", torch.cuda.is_available())'
        python3 -c 'import cupy; print("cupy", cupy.__version__, "GPUs:", cupy.cuda.runtime.getDeviceCount())'
    } >"$logs/python.txt" 2>&1
    note "python: $(grep -E '^(numpy|torch|cupy) ' "$logs/python.txt" | tr '\n' ';')"
    t=$SECONDS
    suites=(cuda_async plcuda_gpu plcuda_compile plcuda_compile_nogpu plcuda_libs_gpu plcuda_libs_compile tiles_gpu
        tiles_gen cuda_errors_gpu cuda_errors_nogpu cuda_rtc cuda_rtc_nogpu cuda_map_source cuda_devices cuda_devices_two
        cuda_for cuda_copy query_ssb_gpu query_ssb core_dlpack dlpack_numpy dlpack_torch_cuda dlpack_cupy nvtx nvtx_gpu
        host_copy_overlap core_stale fuzz_copy_random)
    meson test -C "$b" --no-rebuild --num-processes 4 --print-errorlogs "${suites[@]}" >"$logs/suites.log" 2>&1 ||
        status=1
    grep -E '^ *[0-9]+/[0-9]+ ' "$logs/suites.log" | tee -a "$summary"
    cp "$b/meson-logs/testlog.txt" "$logs/suites-testlog.txt" 2>/dev/null
    note "suites: $((SECONDS - t)) s"
    # The round trips' and the timeline's own output, for docs/dlpack.md and docs/nsight.md.
    for t in dlpack_numpy dlpack_torch_cuda dlpack_cupy nvtx_gpu; do
        meson test -C "$b" --no-rebuild --verbose "$t" >"$logs/out-$t.log" 2>&1 || true
    done
    if [ "${HARDEN_ALL:-0}" = 1 ]; then
        step test-all meson test -C "$b" --no-rebuild --num-processes 4 --print-errorlogs
    fi

    # 4. nsys, where one writes reports: the ranges of the async suite's GPU calls, as text.
    nsys_bin=$(command -v nsys || true)
    if [ -z "$nsys_bin" ]; then
        for c in /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys; do
            if [ -x "$c" ]; then
                nsys_bin=$c
                break
            fi
        done
    fi
    if [ -n "$nsys_bin" ]; then
        note "nsys: $nsys_bin"
        CK_FORK=no PA_KERNEL_CACHE=$(mktemp -d) step nsys-profile "$nsys_bin" profile --trace=nvtx,cuda \
            --output="$logs/cuda_async" --force-overwrite=true "$b/tests/test_cuda_async"
        step nsys-stats "$nsys_bin" stats --report nvtx_pushpop_trace,nvtx_sum --format csv,table \
            "$logs/cuda_async.nsys-rep"
    else
        note "nsys: not found on this machine; the timeline is nvtx_gpu's (out-nvtx_gpu.log)"
    fi
fi   # not fuzz_only

# 5. The fuzzer's executions.
wait "$fuzz_pid"
fuzz_status=$?
note "fuzz (random driver, local copies, $((fuzz_jobs - 2)) jobs): $(grep -E '^executions:' "$logs/fuzz.log"), status $fuzz_status"
wait "$fuzz_dist_pid" || fuzz_status=1
if [ "$fuzz_kind" = libfuzzer ]; then
    execs=$(grep -E '^#[0-9]+' "$logs/fuzz-dist.log" | tail -n 1 | sed -E 's/^#([0-9]+).*/\1/')
    note "fuzz (libFuzzer -fork=2, whole target): executions: ${execs:-unknown}"
else
    note "fuzz (random driver, whole target, 2 jobs): $(grep -E '^executions:' "$logs/fuzz-dist.log")"
fi
if [ "$fuzz_status" -ne 0 ] || ls "$fuzz_dir"/*crash-* "$fuzz_dir"/*timeout-* "$fuzz_dir"/*oom-* >/dev/null 2>&1; then
    note "fuzz: FINDINGS (fuzz.log; inputs under fuzz-findings/)"
    mkdir -p "$logs/fuzz-findings"
    cp "$fuzz_dir"/*crash-* "$fuzz_dir"/*timeout-* "$fuzz_dir"/*oom-* "$logs/fuzz-findings/" 2>/dev/null
    status=1
fi

# 6. Pack.
note "status: $status"
tar -C "$logs" -czf "$out/harden.tgz" .
cat "$summary"
exit $status
