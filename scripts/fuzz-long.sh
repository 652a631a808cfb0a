#!/bin/sh
# fuzz-long.sh — long runs of the libFuzzer targets (issue 27: 10 million executions each), on every core, from a
# prebuilt fuzz build: no compiler is needed where it runs, so a build folder made elsewhere can be carried there.
#
#   scripts/fuzz-long.sh [-b BUILD] [-s SECONDS] [-j WORKERS] [-o OUT] [-c CORPUS] [TARGET...]
#   scripts/fuzz-long.sh -pack DIR [-b BUILD]
#
#   -b BUILD    the fuzz build: BUILD/fuzz/<target>_fuzz (default build-fuzz-fast, else build-fuzz)
#   -s SECONDS  time per target (default 60)
#   -j WORKERS  libFuzzer -fork=WORKERS processes (default: the cores less two, at least 1)
#   -o OUT      where each target's findings (OUT/<target>/crash-*, timeout-*, oom-*, leak-*), log (OUT/<target>.log)
#               and the table (OUT/summary.txt) go (default: a new /tmp/pa-fuzz-long.XXXXXX)
#   -c CORPUS   where each target's new inputs go, CORPUS/<target>/ (default OUT/corpus); a later run with the
#               same CORPUS starts from them
#   TARGET      parse copy tbl store csv dlpack plcuda (default: all seven)
#   -pack DIR   copies the targets of BUILD into DIR/fuzz/ (14 MiB without sanitizers), so that DIR alone
#               is carried and named with -b there.
#
# Each target runs from its checked-in corpus (fuzz/corpus, fuzz/<target>_corpus) under libFuzzer's fork mode
# with crashes, timeouts and out-of-memory inputs kept and ignored (-ignore_crashes=1 ...), so a run goes on
# after a finding and collects all of them.  At the end a table (also OUT/summary.txt): target, seconds,
# executions (the sum over the workers, from libFuzzer's last "#N: cov:" line in fork mode, else its
# "stat::number_of_executed_units"), executions a second, the CPU seconds of all workers and executions per CPU
# second (what one dedicated core would do), findings (files written under OUT/<target>/).  The exit status is 1
# when any target found something or did not run.  BUILD/lib, if present, is put first on LD_LIBRARY_PATH.  See fuzz/README.md.
set -eu

build=
seconds=60
workers=
out=
corpus=
pack=
all="parse copy tbl store csv dlpack plcuda"

usage() {
    sed -n '4,5p' "$0" | sed 's/^# *//' >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
    -b) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
    -s) [ $# -ge 2 ] || usage; seconds=$2; shift 2 ;;
    -j) [ $# -ge 2 ] || usage; workers=$2; shift 2 ;;
    -o) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    -c) [ $# -ge 2 ] || usage; corpus=$2; shift 2 ;;
    -pack) [ $# -ge 2 ] || usage; pack=$2; shift 2 ;;
    -h | --help) usage ;;
    -*) echo "fuzz-long.sh: unknown option $1" >&2; usage ;;
    *) break ;;
    esac
done

case $seconds in '' | *[!0-9]*) echo "fuzz-long.sh: -s wants whole seconds, not '$seconds'" >&2; exit 2 ;; esac
if [ -z "$build" ]; then
    build="build-fuzz-fast"
    [ -d "$build/fuzz" ] || build="build-fuzz"
fi
targets=${*:-$all}
for t in $targets; do
    case " $all " in *" $t "*) ;; *) echo "fuzz-long.sh: no target '$t' (one of: $all)" >&2; exit 2 ;; esac
done

if [ -n "$pack" ]; then
    mkdir -p "$pack/fuzz"
    for t in $targets; do
        cp "$build/fuzz/${t}_fuzz" "$pack/fuzz/"
    done
    du -sh "$pack"
    exit 0
fi

# The source tree (the corpora) is the script's parent folder.
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "$workers" ]; then
    cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
    workers=$((cores > 3 ? cores - 2 : 1))
fi
[ -n "$out" ] || out=$(mktemp -d /tmp/pa-fuzz-long.XXXXXX)
[ -n "$corpus" ] || corpus=$out/corpus
mkdir -p "$out"
if [ -d "$build/lib" ]; then
    LD_LIBRARY_PATH=$(cd "$build/lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH
fi

# corpus_of TARGET, max_len_of TARGET: the seeds and the input length each target reads (as .ci/run).
corpus_of() {
    case $1 in parse) echo "$root/fuzz/corpus" ;; *) echo "$root/fuzz/$1_corpus" ;; esac
}
max_len_of() {
    case $1 in parse) echo 512 ;; copy) echo 128 ;; *) echo 16384 ;; esac
}

# flags_of TARGET: libFuzzer flags of one target.  copy_fuzz runs without the entropic scheduler: with its ten
# thousand features the scheduler's bookkeeping took as long as the copies (6,000 executions from a corpus of 1,400
# inputs: 6.4 CPU-seconds with it, 3.3 without, 2026-11-29), and its input, a 128-byte stream of choices, gains
# little from it.
flags_of() {
    case $1 in copy) echo "-entropic=0" ;; *) echo "-entropic=1" ;; esac
}

# executions LOG: the executions the log reports (0 when none).
executions() {
    n=$(sed -n 's/^#\([0-9][0-9]*\): cov:.*/\1/p' "$1" | tail -n 1)
    [ -n "$n" ] || n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9][0-9]*\).*/\1/p' "$1" | tail -n 1)
    [ -n "$n" ] || n=$(sed -n 's/^#\([0-9][0-9]*\)[[:space:]]*DONE.*/\1/p' "$1" | tail -n 1)
    echo "${n:-0}"
}

# cpu_seconds FILE: the CPU time (user + system) of this shell's finished children so far, in whole seconds, from
# the output of `times` that the caller wrote to FILE (in this shell: a command substitution would time its own).
cpu_seconds() {
    sed -n 2p "$1" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] } printf "%d\n", t }'
}

table=$out/summary.txt
printf '%-8s %8s %14s %10s %8s %11s %9s\n' target seconds executions exec/s cpu-s exec/cpu-s findings >"$table"
failed=0
echo "fuzz-long.sh: $build, $seconds s a target, $workers workers, results in $out"
for t in $targets; do
    exe=$build/fuzz/${t}_fuzz
    dir=$out/$t
    log=$out/$t.log
    mkdir -p "$dir" "$corpus/$t"
    if [ ! -x "$exe" ]; then
        echo "fuzz-long.sh: $exe is missing (build it, or name the build with -b)" >&2
        printf '%-8s %8s %14s %10s %8s %11s %9s\n' "$t" - - - - - missing >>"$table"
        failed=1
        continue
    fi
    echo "fuzz-long.sh: $t for $seconds s ($log)"
    start=$(date +%s)
    times >"$out/.cpu-times"
    cpu0=$(cpu_seconds "$out/.cpu-times")
    rc=0
    # shellcheck disable=SC2046  # flags_of gives one word
    "$exe" $(flags_of "$t") -fork="$workers" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$seconds" \
        -max_len="$(max_len_of "$t")" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$dir/" "$corpus/$t" "$(corpus_of "$t")" >"$log" 2>&1 || rc=$?
    took=$(($(date +%s) - start))
    times >"$out/.cpu-times"
    cpu=$(($(cpu_seconds "$out/.cpu-times") - cpu0))
    runs=$(executions "$log")
    found=$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \
        -o -name 'leak-*' \) | wc -l)
    # A run that stopped with an error and left no finding is a failure of its own (an unreadable corpus, a
    # missing library): the log's last lines say why.
    if [ "$rc" -ne 0 ] && [ "$found" -eq 0 ]; then
        tail -n 5 "$log" >&2
        found="rc=$rc"
    fi
    [ "$found" = 0 ] || failed=1
    printf '%-8s %8d %14d %10d %8d %11d %9s\n' "$t" "$took" "$runs" "$((runs / (took > 0 ? took : 1)))" "$cpu" \
        "$((runs / (cpu > 0 ? cpu : 1)))" "$found" >>"$table"
done
cat "$table"
[ "$failed" -eq 0 ] || echo "fuzz-long.sh: findings or failures above; the inputs are in $out/<target>/" >&2
exit "$failed"
