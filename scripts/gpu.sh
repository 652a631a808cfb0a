#!/usr/bin/env bash
# The one runner for the lent GPU machine: builds what the named steps need (one build folder per
# configuration), runs each step under its time limit, keeps every log and packs them after each step, so a
# call cut short still returns what it did.
#
#   scripts/gpu.sh OUTDIR STEP...       (no STEP: the closing run, tests sanitize bench-copy bench-map
#                                        bench-kernels bench-sgemm bench-ssb bench-fft)
#   scripts/gpu.sh --list               the step table
#
# OUTDIR receives logs/ (one STEP.log per step, device.txt, the build logs), summary.txt (one line per step:
# name, ok / FAILED / skipped, seconds) and gpu.tgz (logs/ and summary.txt packed).  The exit status is 0 when
# no step failed (a skipped step is not a failure), 1 otherwise, 2 for bad usage or a failed build.
#
# Environment:
#   GPU_BUILD=/tmp/pa-gpu   where the build folders go (GPU_BUILD/gpu, GPU_BUILD/host, GPU_BUILD/nvtx)
#   GPU_BASE=SRC            a baseline source tree (a folder or a tar file): every bench-* and probe-* step also
#                           runs the baseline's build of the same configuration, in the same call ("before")
#   GPU_COUNT=N             the GPUs to assume (default: what nvidia-smi lists)
#   DRY=1                   build nothing, run nothing: print each step's commands (checks the logic anywhere)
#   step knobs: TESTS (suites for tests), SANITIZE_TESTS, FFT_SIZES, FFT_REPEATS, FFT_GROUPS, SANITIZE_TOOLS, GPU_DIST_ARGS, DIST_PROCS, MPI_RANKS, SSB_SF, SSB_TILES,
#   HOST_CASES, PA_SGEMM_SWEEP, FUZZ_SECONDS, FUZZ_JOBS; see the step functions below.
#
# On a machine without a GPU the steps that need one print "STEP: skipped (no GPU here)" and the others run.
# Start on the GPU machine from the repository root with .gpu/ prepared by shared/tools/gpu-prep (Check); the
# runner sources .gpu/env.sh itself (from this tree, or from the main checkout when this is a copy under .wt/).
# The step functions are called by name (step_${s//-/_}) and the Open MPI options hold commas:
# shellcheck disable=SC2317,SC2054
set -uo pipefail

# The step table: name, build configuration, time limit (s), what it needs (- nothing, gpu one GPU, gpu2 two,
# mpi mpirun), the ninja targets (comma-separated; "all" for everything, a trailing ? for one that may be absent
# from this build) and the target it measures.
STEP_TABLE='
info            gpu   120 -    tools/parray                                   device, parray info and calibrate
tests           gpu   540 gpu  all                                            every suite (TESTS="a b": those)
sanitize        gpu   900 gpu  tests/test_cuda_for,tests/test_plcuda_gpu,tests/test_cuda_copy,tests/test_cuda_devices,tests/test_query_ssb_gpu,tests/test_tiles_gpu,tests/test_tiles_mma_gpu,tests/test_cuda_map_source,tests/test_matrix_gpu,tests/test_matrix_knn_gpu,examples/pkufft?  compute-sanitizer memcheck, racecheck, synccheck, initcheck
bench-copy      gpu   240 gpu  bench/copy_gpu                                 P1 P2 P3 (GPU1 rows with 2 GPUs)
bench-map       gpu   120 gpu  bench/map_gpu                                  P5
bench-kernels   gpu   120 gpu  bench/kernels                                  P6
bench-sgemm     gpu   360 gpu  bench/sgemm,bench/gemm_source,examples/subprog_gemm?,examples/sgemm_types?  P7
probe-wgmma     gpu   900 gpu  bench/wgmma_probe,tests/test_tiles_mma_gpu,tests/test_tiles_wgmma  issue 29: the Hopper gemm read element by element, then timed
bench-matrix    gpu   300 gpu  bench/matrix,examples/matrix_knn,examples/matrix_kmeans  P11
bench-ssb       gpu   480 gpu  bench/ssb,tools/parray                         P8
bench-ssb-big   gpu   600 gpu  bench/ssb,tools/parray                         issue 31: streaming at SF 100, the split over GPUs
bench-fft       gpu   420 gpu  bench/fft,examples/pkufft                      P12 at P = 1 2 4 on the GPUs there are
check-fft       gpu   360 gpu  examples/pkufft,tests/test_mpi_dmem            PKUFFT against cuFFT, bad input
bench-gpu-dist  gpu   800 gpu2 bench/mpi_copy,bench/fft,bench/gpu_dist?,bench/gpu_threads?,tools/parray  P12 P18, one rank (or thread) per GPU, P = 2 4
demo            gpu   150 gpu  examples/demo                                  the README main job
nvtx            nvtx  420 gpu  all                                            NVTX, DLPack, nsys (docs/nsight.md)
bench-host      host  300 -    bench/copy_host,tools/parray                   P4
probe-host      host  240 -    bench/host_probe                               host copies diagnosis
bench-threads   host  300 -    bench/threads,examples/tiling                  P10
bench-cpu       host  360 -    bench/mictest,bench/tiling,examples/tiling     P13, listing 23
bench-mpi       host  560 mpi  bench/mpi_copy,tools/parray                    P9
fuzz            host  420 -    tests/copy_fuzz_random_local,tests/copy_fuzz_random  the copy fuzzer
'
DEFAULT_STEPS=(tests sanitize bench-copy bench-map bench-kernels bench-sgemm bench-ssb bench-fft)

usage() {
    echo "usage: scripts/gpu.sh OUTDIR STEP...   (scripts/gpu.sh --list: the steps)" >&2
    exit 2
}
table_row() {   # table_row STEP: prints "config limit needs targets what" or fails
    awk -v s="$1" '$1 == s { $1 = ""; sub(/^ /, ""); print; found = 1 } END { exit !found }' <<< "$STEP_TABLE"
}
[ $# -ge 1 ] || usage
if [ "$1" = --list ] || [ "$1" = -h ] || [ "$1" = --help ]; then
    printf '%-15s %-5s %5s %-5s %s\n' step build limit needs "targets, what"
    grep -v '^$' <<< "$STEP_TABLE"
    exit 0
fi
out=$1
shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=("${DEFAULT_STEPS[@]}")
for s in "${steps[@]}"; do
    table_row "$s" > /dev/null || { echo "unknown step $s (scripts/gpu.sh --list)" >&2; exit 2; }
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 2
if [ -f .gpu/env.sh ]; then
    # shellcheck disable=SC1091
    source .gpu/env.sh
elif [ -f ../../.gpu/env.sh ]; then   # a copy of the tree under .wt/NAME: the main checkout's .gpu/
    # shellcheck disable=SC1091
    { pushd ../.. > /dev/null && source .gpu/env.sh && popd > /dev/null; } || exit 2
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0   # no NVLink multicast objects on the lent machines (the tests' NCCL suites included)
export PA_KERNEL_CACHE=${PA_KERNEL_CACHE:-/tmp/pa-gpu-kernel-cache}
dry=${DRY:-0}
ngpu=${GPU_COUNT:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')}
jobs=$(nproc)
builds=${GPU_BUILD:-/tmp/pa-gpu}
mkdir -p "$out/logs" || exit 2
out=$(cd "$out" && pwd)
logs=$out/logs
summary=$out/summary.txt
: > "$summary"
t0=$SECONDS
status=0
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
  nvidia-smi topo -m; nvcc --version | tail -1; mpirun --version | head -1; nproc
  grep -m1 'model name' /proc/cpuinfo; git -C "$here" log --oneline -1; } > "$logs/device.txt" 2>&1
echo "GPUs: $ngpu, cores: $jobs, commit: $(git -C "$here" log --oneline -1 2>/dev/null | cut -c1-60)"

# ---- the helpers: pack, build, run ------------------------------------------------------------------------

pack() { tar czf "$out/gpu.tgz" -C "$out" logs summary.txt 2>/dev/null; }

config_options() {   # the meson options of one configuration
    local cuda=enabled
    [ "$ngpu" -eq 0 ] && cuda=auto   # info and the host steps still build on a machine without a GPU
    case $1 in
    gpu) echo "-Dcuda=$cuda -Dfuzz=false" ;;
    host) echo "-Dcuda=disabled -Dfuzz=false" ;;
    nvtx) echo "-Dcuda=$cuda -Dnvtx=enabled -Dbench=false -Dfuzz=false" ;;
    esac
}

base_source() {   # the baseline's source folder (GPU_BASE unpacked when it is a tar file), or nothing
    local src=${GPU_BASE:-}
    [ -z "$src" ] && return 1
    if [ -f "$src" ]; then
        rm -rf "$builds/base-src" && mkdir -p "$builds/base-src" && tar xf "$src" -C "$builds/base-src" || return 1
        src=$builds/base-src
        GPU_BASE=$src
    fi
    [ -d "$src" ] && echo "$src"
}

build() {   # build SRC DIR CONFIG TARGETS: configure DIR once, then build the targets (optional ones if known)
    local src=$1 dir=$2 cfg=$3 targets=$4 name t list want=()
    name=$(basename "$dir")
    if [ "$dry" = 1 ]; then
        echo "   (dry) build $dir ($cfg: $(config_options "$cfg")): $targets"
        return 0
    fi
    if [ ! -f "$dir/build.ninja" ]; then
        # shellcheck disable=SC2046   # the options are words
        meson setup "$dir" "$src" $(config_options "$cfg") > "$logs/setup-$name.log" 2>&1 ||
            { tail -30 "$logs/setup-$name.log"; return 1; }
    fi
    if [ "$targets" != all ]; then
        IFS=, read -r -a list <<< "$targets"
        for t in "${list[@]}"; do
            if [ "${t%\?}" != "$t" ]; then   # optional: only where this build defines it
                ninja -C "$dir" -t query "${t%\?}" > /dev/null 2>&1 && want+=("${t%\?}")
            else
                want+=("$t")
            fi
        done
    fi
    ninja -C "$dir" -j "$jobs" "${want[@]}" >> "$logs/build-$name.log" 2>&1 ||
        { tail -30 "$logs/build-$name.log"; return 1; }
}

# run LIMIT TITLE COMMAND...: one command under min(LIMIT, what the step has left), its output appended to the
# step's log after a header; a failure (not 77, the skip code) marks the step failed.  Returns the exit status.
run() {
    local lim=$1 title=$2 left rc
    shift 2
    left=$((deadline - SECONDS))
    [ "$left" -lt "$lim" ] && lim=$left
    printf '\n==== %s%s (at %d s): %s\n' "$tag" "$title" "$((SECONDS - t0))" "$*" >> "$log"
    if [ "$dry" = 1 ]; then
        echo "   (dry) $tag$title: $*"
        return 0
    fi
    if [ "$lim" -le 0 ]; then
        echo "(not run: the step's time limit is spent)" >> "$log"
        step_failed=1
        return 124
    fi
    timeout "$lim" stdbuf -oL "$@" >> "$log" 2>&1
    rc=$?
    echo "(exit $rc)" >> "$log"
    case $rc in
    0 | 77) ;;
    *) step_failed=1 ;;
    esac
    return "$rc"
}
run_fails() {   # run_fails LIMIT TITLE COMMAND...: the command must fail cleanly (non-zero, not a timeout)
    local before=$step_failed rc
    run "$@"
    rc=$?
    [ "$dry" = 1 ] && return 0
    step_failed=$before   # its failure is the point
    if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ]; then
        echo "!! should have failed cleanly (exit $rc)" >> "$log"
        step_failed=1
    fi
}

mpi=(mpirun --oversubscribe --mca btl self,vader)
mpi_gpu=(mpirun --oversubscribe --bind-to none --mca btl self,vader)   # ranks unbound: the copies use threads

# ---- the steps: each runs with b (the build folder) and writes through run ---------------------------------

step_info() {
    run 20 "parray info" "$b/tools/parray" info
    run 90 "parray calibrate" env PA_COST_FILE="$logs/cost" "$b/tools/parray" calibrate
}

step_tests() {
    local suites=()
    read -r -a suites <<< "${TESTS:-}"
    run 480 "meson test ${suites[*]:-(all)}" meson test -C "$b" --no-rebuild --print-errorlogs \
        --num-processes 8 "${suites[@]}"
    cp "$b/meson-logs/testlog.txt" "$logs/testlog.txt" 2>/dev/null
    [ ${#suites[@]} -eq 0 ] && run 60 "core_backends under PA_BACKENDS=-cuda" env PA_BACKENDS=-cuda \
        meson test -C "$b" --no-rebuild core_backends
}

step_sanitize() {
    # SANITIZE_TOOLS (default: all four) picks the tools; SANITIZE_TESTS the suites of the three kernel tools.
    local t tool sz tools=" ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck} "
    if [[ $tools == *" memcheck "* ]]; then
        # Memory errors only (--report-api-errors no): the suites make CUDA calls that fail on purpose.  The
        # cuda_for suite's deliberately faulting kernel is left out (CK_RUN_CASE=for).  Fixed seeds.
        sz=(compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9)
        run 200 "test_cuda_for (case for)" env CK_RUN_CASE=for PA_TEST_SEED=42 "${sz[@]}" "$b/tests/test_cuda_for"
        for t in plcuda_gpu cuda_copy cuda_devices query_ssb_gpu; do
            run 200 "test_$t" env PA_TEST_SEED=42 "${sz[@]}" "$b/tests/test_$t"
        done
        [ "$ngpu" -ge 2 ] && run 60 "test_cuda_devices two" env PA_TEST_SEED=42 "${sz[@]}" "$b/tests/test_cuda_devices" two
        [ -x "$b/examples/pkufft" ] || [ "$dry" = 1 ] &&
            run 120 "pkufft P=2" "${mpi_gpu[@]}" -np 2 "${sz[@]}" "$b/examples/pkufft" --engine=gpu --route=both 16
    fi
    # Shared-memory races and barriers in the kernels that tile through shared memory (the tiles' gemm in fp32
    # and on the tensor cores, the SSB engine's block-wide primitives, the tiled permute, the map kernels), and
    # reads of uninitialised device memory by the copies.
    for tool in racecheck synccheck initcheck; do
        [[ $tools == *" $tool "* ]] || continue
        sz=(compute-sanitizer --tool "$tool" --error-exitcode 9)
        [ "$tool" = racecheck ] && sz+=(--racecheck-report hazard)
        for t in ${SANITIZE_TESTS:-tiles_gpu tiles_mma_gpu query_ssb_gpu cuda_copy cuda_map_source matrix_gpu matrix_knn_gpu}; do
            run 200 "$tool test_$t" env PA_TEST_SEED=42 CK_FORK=no "${sz[@]}" "$b/tests/test_$t"
        done
    done
}

step_bench_copy() {
    run 200 "copy_gpu 15 (P1 P2 P3)" "$b/bench/copy_gpu" 15
    [ "$ngpu" -ge 2 ] && run 60 "copy_gpu 10 GPU1 (GPU 1 -> GPU 0)" "$b/bench/copy_gpu" 10 GPU1
}

step_bench_map() { run 100 "map_gpu 21 (P5)" "$b/bench/map_gpu" 21; }

step_bench_kernels() { run 100 "kernels (P6)" "$b/bench/kernels"; }

# The wgmma strategy's first runs: the probe's selectors and exact gemms (quick: no timing) first, so that a wrong
# descriptor shows before anything else; the GPU suite; then the probe's timing rows.
step_probe_wgmma() {
    run 200 "wgmma probe, correctness" "$b/bench/wgmma_probe" quick
    run 400 "tiles_wgmma_gpu (wgmma, mma.sync and kmajor cases)" "$b/tests/test_tiles_mma_gpu" wgmma
    run 250 "wgmma probe, timing" "$b/bench/wgmma_probe"
}

step_bench_sgemm() {
    local top
    if [ -n "${PA_SGEMM_SWEEP:-}" ]; then   # a sweep of shapes at 4096, the best PA_SGEMM_TOP of them at 8192
        run 150 "sgemm 4096, sweep" env PA_SGEMM_CONFIGS="$PA_SGEMM_SWEEP" "$b/bench/sgemm" 4096
        top=$(grep "^  sweep" "$log" | grep -v WRONG | sort -k5 -rn | head -n "${PA_SGEMM_TOP:-4}" |
            sed -E 's/.* ([0-9]+)x([0-9]+)x([0-9]+) ([0-9]+)x([0-9]+)\/([0-9]+) lanes ([0-9]+) min ([0-9]+) stages ([0-9]+).*/\1,\2,\3,\4,\5,\6,\7,\8,\9/' |
            paste -sd';')
        run 150 "sgemm 8192, the best of the sweep" env PA_SGEMM_CONFIGS="$top" "$b/bench/sgemm" 8192
    else
        run 200 "sgemm 4096 8192 (P7)" "$b/bench/sgemm" 4096 8192
    fi
    # the default kernel's resources, as the compiler reports them
    run 60 "the generated gemm kernel through ptxas -v" bash -c "'$b/bench/gemm_source' 4096 > '$logs/gemm4096.cu' &&
        nvcc -arch=sm_90 -std=c++17 -cubin -Xptxas -v -I include -o '$b/g.cubin' '$logs/gemm4096.cu' 2>&1 | tail -3"
    for ex in subprog_gemm sgemm_types; do
        [ -x "$b/examples/$ex" ] || [ "$dry" = 1 ] && run 60 "example $ex" "$b/examples/$ex"
    done
}

step_bench_matrix() {
    run 180 "matrix (P11)" "$b/bench/matrix"
    for ex in matrix_knn matrix_kmeans; do
        run 120 "example $ex against examples/expected" bash -c \
            "'$b/examples/$ex' > '$logs/$tag$ex.txt' && diff -u examples/expected/$ex.txt '$logs/$tag$ex.txt'"
    done
}

step_bench_ssb() {
    local sf=${SSB_SF:-20} csv=()
    [ -z "$tag" ] && csv=(--csv "$logs/ssb-sf$sf.csv")   # docs/data/ssb_sf20.csv's form
    run 90 "parray ssb run -s 1 --both (every GPU result against the CPU)" "$b/tools/parray" ssb run -s 1 --both --quiet
    run 90 "ssb -s 1" "$b/bench/ssb" -s 1 -r 21 -c 3
    run 200 "ssb -s $sf (P8)" "$b/bench/ssb" -s "$sf" -r 21 -c 1 "${csv[@]}"
    for tile in ${SSB_TILES:-}; do   # tile shapes to compare ("256x4 128x8"): GPU times, results checked once
        run 60 "ssb -s $sf, PA_SSB_TILE=$tile" env PA_SSB_TILE="$tile" "$b/bench/ssb" -s "$sf" -r 21 -c 0
    done
}

# Issue 31: lineorder streamed from page-locked host memory (target 0.80 of the pinned host->device rate) and split
# over GPUs (every GPU where there are several, target 0.8 x N; on one GPU, GPU 0 twice: results only).  Only the
# query columns are generated: about 22 GB of host memory at SF 100, 22 GB page-locked.
step_bench_ssb_big() {
    local sf=${SSB_BIG_SF:-100} gpus=()
    [ "$ngpu" -lt 2 ] && gpus=(--gpus 2)
    run 120 "ssb -s 1, small chunks and the split (results)" "$b/bench/ssb" -s 1 -r 3 --stream --chunk 100000 \
        --gpus 2 --no-cpu --no-duckdb
    run 480 "ssb -s $sf --stream (streaming, multi-GPU)" "$b/bench/ssb" -s "$sf" -r 5 --stream "${gpus[@]}" \
        --no-cpu --no-duckdb
}

step_bench_fft() {   # on the GPUs of this machine (several ranks share one GPU when there are fewer GPUs)
    local sizes=()
    read -r -a sizes <<< "${FFT_SIZES:-512 1024}"
    # scripts/plots.py fft-log logs/bench-fft.log turns the fft-total lines into docs/data/fft_scaling.csv rows
    for n in "${sizes[@]}"; do   # the sizes outside: a run cut short keeps whole sizes
        for p in 1 2 4; do
            run 120 "fft N=$n P=$p" "${mpi_gpu[@]}" -np "$p" -x PA_MPI_TIMES=1 "$b/bench/fft" \
                --repeats="${FFT_REPEATS:-5}" "$n"
        done
    done
}

step_check_fft() {
    local pk=$b/examples/pkufft
    for p in 1 2 4; do
        run 60 "pkufft gpu P=$p" "${mpi_gpu[@]}" -np "$p" "$pk" --engine=gpu --route=both 8 16 32 64 128 256 512
    done
    run 30 "pkufft plan info P=4" env PA_PLAN_INFO=1 "${mpi_gpu[@]}" -x PA_PLAN_INFO -np 4 "$pk" --engine=gpu \
        --route=both 32
    run 30 "pkufft N=12 P=4 (not a power of two)" "${mpi_gpu[@]}" -np 4 "$pk" --engine=gpu --route=both 12 24
    run 30 "pkufft cpu engine P=4" "${mpi_gpu[@]}" -np 4 "$pk" --engine=cpu --route=both 8 16 32
    run_fails 30 "pkufft, a process without a GPU (must fail)" "${mpi_gpu[@]}" -np 1 env CUDA_VISIBLE_DEVICES= \
        "$pk" 16 : -np 1 "$pk" 16
    run_fails 30 "pkufft, plan failure on process 1 (must fail)" "${mpi_gpu[@]}" -np 2 "$pk" --engine=gpu \
        --fail-plan=1 --route=both 16
    run_fails 30 "pkufft, N not divisible (must fail)" "${mpi_gpu[@]}" -np 4 "$pk" --engine=gpu 18
    run 60 "mpi_dmem" "${mpi_gpu[@]}" -np 4 "$b/tests/test_mpi_dmem"
    run 60 "mpi_dmem staged (PA_MPI_PEER=0)" "${mpi_gpu[@]}" -np 4 -x PA_MPI_PEER=0 "$b/tests/test_mpi_dmem"
}

# Across the GPUs of the machine, one rank per GPU: P = 2 and 4 where there are that many GPUs, and P = the GPU
# count above 4 (the NCCL route needs a GPU per process).  NVLink multicast stays off (NCCL_NVLS_ENABLE=0,
# exported above and passed to every rank).
step_bench_gpu_dist() {
    local procs=() sizes=() extra=()
    read -r -a sizes <<< "${FFT_SIZES:-512 1024}"
    read -r -a extra <<< "${GPU_DIST_ARGS:-}"   # e.g. "--reps 7 --fft 1024"
    for p in ${DIST_PROCS:-2 4}; do [ "$p" -le "$ngpu" ] && procs+=("$p"); done   # DIST_PROCS=4: one count only
    [ -z "${DIST_PROCS:-}" ] && [ "$ngpu" -gt 4 ] && procs+=("$ngpu")
    # the NCCL route's constants measured between every GPU (rank 0 runs the tool, one drafted rank per GPU)
    run 120 "parray calibrate, $ngpu GPUs" "${mpi_gpu[@]}" -np $((ngpu + 1)) -x NCCL_NVLS_ENABLE \
        -x PA_COST_FILE="$logs/cost-nccl" "$b/tools/parray" calibrate
    # the same exchanges between the threads of one process, one thread per GPU, against NCCL in that process
    # (the route the cost model takes, then the pulls for comparison), at every GPU and at 2
    if [ -x "$b/bench/gpu_threads" ] || [ "$dry" = 1 ]; then
        run 240 "gpu_threads, $ngpu threads (P18)" "$b/bench/gpu_threads" "${extra[@]}"
        run 90 "gpu_threads, the pulls (PA_PTHD_ROUTE=peer)" env PA_PTHD_ROUTE=peer "$b/bench/gpu_threads" --quick
        [ "$ngpu" -gt 2 ] && run 90 "gpu_threads, 2 threads" "$b/bench/gpu_threads" --quick --gpus 2
    fi
    # the benchmarks below choose their routes from the constants just measured, or name one
    local cost=(-x PA_COST_FILE="$logs/cost-nccl")
    for p in "${procs[@]}"; do
        # every row on the NCCL route, then on the peer route's pulls (each process reads its blocks where they
        # are in the others' arrays), each against NCCL's own transfers of the same bytes
        for route in nccl peer; do
            [ -x "$b/bench/gpu_dist" ] || [ "$dry" = 1 ] &&
                run 150 "gpu_dist P=$p, PA_MPI_ROUTE=$route (P18)" "${mpi_gpu[@]}" -np "$p" -x NCCL_NVLS_ENABLE \
                    -x PA_MPI_ROUTE="$route" "$b/bench/gpu_dist" "${extra[@]}"
        done
        run 120 "mpi_copy P=$p" "${mpi_gpu[@]}" -np "$p" -x NCCL_NVLS_ENABLE "$b/bench/mpi_copy"
        run 200 "fft --route=device N=${sizes[*]} P=$p, routes by the calibrated cost (P12)" "${mpi_gpu[@]}" \
            -np "$p" -x NCCL_NVLS_ENABLE "${cost[@]}" -x PA_MPI_TIMES=1 "$b/bench/fft" --route=device \
            --repeats="${FFT_REPEATS:-5}" "${sizes[@]}"
        for g in ${FFT_GROUPS:-4 8}; do   # the fast form alone, pipelined in g plane groups
            run 120 "fft --fast-only --groups=$g N=${sizes[*]} P=$p (P12)" "${mpi_gpu[@]}" -np "$p" \
                -x NCCL_NVLS_ENABLE "${cost[@]}" "$b/bench/fft" --fast-only --groups="$g" \
                --repeats="${FFT_REPEATS:-5}" "${sizes[@]}"
        done
        for route in nccl peer; do   # the fast form on each route by name
            run 120 "fft --fast-only N=${sizes[*]} P=$p, PA_MPI_ROUTE=$route (P12)" "${mpi_gpu[@]}" -np "$p" \
                -x NCCL_NVLS_ENABLE -x PA_MPI_ROUTE="$route" "$b/bench/fft" --fast-only \
                --repeats="${FFT_REPEATS:-5}" "${sizes[@]}"
        done
    done
}

step_demo() { run 120 "examples/demo" "$b/examples/demo"; }

step_nvtx() {
    local t
    run 30 "python packages" bash -c 'python3 -m pip list 2>/dev/null | grep -i -E "^(numpy|torch|cupy[a-z0-9-]*) "'
    for t in nvtx_gpu cuda_async dlpack_numpy dlpack_torch_cuda dlpack_cupy; do
        run 120 "$t (its output kept)" meson test -C "$b" --no-rebuild --verbose "$t"
    done
    local nsys
    nsys=$(command -v nsys || find /usr/local/cuda/bin /opt/nvidia -name nsys -type f 2>/dev/null | head -1)
    if [ -n "$nsys" ]; then
        run 120 "nsys profile test_cuda_async" env CK_FORK=no "$nsys" profile --trace=nvtx,cuda \
            --output="$logs/cuda_async" --force-overwrite=true "$b/tests/test_cuda_async"
        run 60 "nsys stats" "$nsys" stats --report nvtx_sum --format table "$logs/cuda_async.nsys-rep"
    else
        echo "nsys: not found on this machine; the timeline is nvtx_gpu's" >> "$log"
    fi
}

step_bench_host() {
    run 20 "parray info" "$b/tools/parray" info
    local csv=()   # this tree's rows also as CSV (docs/data/host_copies.csv's form); a baseline may lack --csv
    [ -z "$tag" ] && csv=(--csv "$logs/copy_host.csv")
    run 120 "copy_host ${HOST_REPS:-9} (P4)" "$b/bench/copy_host" "${HOST_REPS:-9}" "${csv[@]}"
    local cases=()
    IFS=, read -r -a cases <<< "${HOST_CASES:-}"   # "cyclic shift,reversal": those rows alone, 11 repeats
    for c in "${cases[@]}"; do run 120 "copy_host 11 --case $c" "$b/bench/copy_host" 11 --case "$c"; done
}

step_probe_host() {
    run 100 "host_probe 5 start window transpose" "$b/bench/host_probe" 5 start window transpose
    run 30 "strip_probe build" gcc -O2 -march=native -fopenmp bench/probe/strip_probe.c -o "$b/strip_probe"
    run 100 "strip_probe 5 1 2 16" "$b/strip_probe" 5 1 2 16
}

step_bench_threads() {
    run 20 "listing 23: examples/tiling" "$b/examples/tiling"
    run 120 "threads (P10)" "$b/bench/threads"
    run 40 "threads --launch" "$b/bench/threads" --launch
    run 100 "threads --triad" "$b/bench/threads" --triad
}

step_bench_cpu() {
    run 20 "listing 23: examples/tiling" "$b/examples/tiling"
    for r in 1 2; do run 60 "tiling, run $r" "$b/bench/tiling"; done
    run 60 "tiling, PA_VMEM_ISA=avx2 (information)" env PA_VMEM_ISA=avx2 "$b/bench/tiling"
    for r in 1 2; do run 60 "mictest (P13), run $r" "$b/bench/mictest"; done
}

step_bench_mpi() {
    run 20 "parray info" "$b/tools/parray" info
    for n in ${MPI_RANKS:-2 4 8 16}; do run 120 "mpi_copy $n ranks (P9)" "${mpi[@]}" -np "$n" "$b/bench/mpi_copy"; done
    for n in ${MPI_OVERSUBSCRIBED-32}; do   # MPI_OVERSUBSCRIBED= (empty) leaves it out
        run 200 "mpi_copy $n ranks (oversubscribed)" "${mpi[@]}" -np "$n" "$b/bench/mpi_copy" --sizes 2
    done
    [ "${MPI_FLOOR:-0}" = 1 ] && run 120 "mpi_copy 16 ranks, noise floor (PA_BENCH_SELFTEST=1)" "${mpi[@]}" \
        -np 16 -x PA_BENCH_SELFTEST=1 "$b/bench/mpi_copy" --sizes 2
}

step_fuzz() {   # the copy fuzzer's random driver: local copies on all cores but two, the whole target on two
    local secs=${FUZZ_SECONDS:-300} jobs_l=$(( ${FUZZ_JOBS:-$jobs} > 3 ? ${FUZZ_JOBS:-$jobs} - 2 : 1 )) dir pid
    dir=$(mktemp -d /tmp/pa-gpu-fuzz.XXXXXX)
    log=$logs/fuzz-local.log run $((secs + 60)) "copy_fuzz_random_local -jobs=$jobs_l -seconds=$secs" \
        "$b/tests/copy_fuzz_random_local" -jobs="$jobs_l" -seconds="$secs" -seed="$(date +%s)" \
        -artifact_prefix="$dir/" fuzz/copy_corpus &
    pid=$!
    run $((secs + 60)) "copy_fuzz_random -jobs=2 -seconds=$secs" "$b/tests/copy_fuzz_random" -jobs=2 \
        -seconds="$secs" -seed="$(($(date +%s) + 7))" -artifact_prefix="$dir/dist-" fuzz/copy_corpus
    wait "$pid" || step_failed=1
    grep -h '^executions:' "$logs/fuzz-local.log" >> "$log"
    if ls "$dir"/*crash-* "$dir"/*timeout-* "$dir"/*oom-* > /dev/null 2>&1; then
        mkdir -p "$logs/fuzz-findings" && cp "$dir"/* "$logs/fuzz-findings/"
        echo "!! fuzz: findings in logs/fuzz-findings" >> "$log"
        step_failed=1
    fi
    rm -rf "$dir"
}

# ---- the driver -----------------------------------------------------------------------------------------------

base_src=$(base_source) || base_src=
for s in "${steps[@]}"; do
    read -r cfg lim needs targets _ <<< "$(table_row "$s")"
    started=$SECONDS
    log=$logs/$s.log
    : > "$log"
    skip=
    case $needs in
    gpu) [ "$ngpu" -ge 1 ] || skip="no GPU here" ;;
    gpu2) [ "$ngpu" -ge 2 ] || skip="fewer than two GPUs here ($ngpu)" ;;
    mpi) command -v mpirun > /dev/null || [ "$dry" = 1 ] || skip="no mpirun here" ;;
    esac
    if [ -n "$skip" ]; then
        echo "$s: skipped ($skip)" | tee -a "$log"
        printf '%-15s skipped  %4d s  (%s)\n' "$s" 0 "$skip" >> "$summary"
        pack
        continue
    fi
    echo "== $s ($cfg build, limit $lim s after the build)"
    step_failed=0
    tags=("")
    dirs=("$builds/$cfg")
    if [ -n "$base_src" ] && [[ $s == bench-* || $s == probe-* ]]; then   # the baseline first, then this tree
        tags=("base: " "")
        dirs=("$builds/base-$cfg" "$builds/$cfg")
    fi
    for i in "${!dirs[@]}"; do
        tag=${tags[$i]}
        b=${dirs[$i]}
        src=$here
        [ -n "$tag" ] && src=$base_src
        if ! build "$src" "$b" "$cfg" "$targets"; then
            echo "!! ${tag}build of $b failed (logs/build-$(basename "$b").log)" | tee -a "$log"
            step_failed=1
            [ -z "$tag" ] && { printf '%-15s FAILED   %4d s  (build)\n' "$s" $((SECONDS - started)) >> "$summary"; pack
                               exit 2; }
            continue
        fi
        deadline=$((SECONDS + lim))
        "step_${s//-/_}"
    done
    [ "$dry" = 1 ] || grep -E '^==== |^P[0-9]+|meet|PASS|FAIL|^ *(Ok|Fail|Skipped|Timeout):|^\(exit [1-9]|^!!' \
        "$log" | grep -v '^(exit 77' | cut -c1-160 | head -60
    verdict=ok
    [ "$step_failed" = 1 ] && verdict=FAILED && status=1
    printf '%-15s %-7s  %4d s\n' "$s" "$verdict" $((SECONDS - started)) | tee -a "$summary"
    pack
done
echo "total: $((SECONDS - t0)) s; logs in $out/gpu.tgz"
exit $status
