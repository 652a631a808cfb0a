#!/usr/bin/env bash
# Runs the whole test suite several times while the machine is loaded, and reports which tests failed in which
# run (issue 27: a test that fails only under load is a flaky test).  Not part of CI: run it by hand.
#
#     scripts/stress-tests.sh [-n RUNS] [-b BUILD_DIR] [-l stress-ng|build|none] [-j LOAD_JOBS] [-- MESON_TEST_ARGS]
#
#   -n RUNS       whole-suite runs (default 5)
#   -b BUILD_DIR  a configured build directory (default build; set up with scripts/build.sh when missing)
#   -l LOAD       what loads the machine meanwhile: stress-ng (CPU and memory workers; installed with apt-get when
#                 missing and this is root, else the build load is used), build (a parallel build of parray from
#                 scratch, again and again, in a directory of its own), or none (default: stress-ng)
#   -j LOAD_JOBS  workers or build jobs of the load (default: the number of CPUs)
#
# Each run's log is kept in the directory printed at the start; the summary lists every failing test with the
# runs it failed in.  Exit status: 0 when every run passed, 1 when a test failed, 2 on bad usage.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
runs=5
builddir=build
load=stress-ng
jobs=$(nproc)
while [ $# -gt 0 ]; do
    case $1 in
        -n) runs=$2; shift 2 ;;
        -b) builddir=$2; shift 2 ;;
        -l) load=$2; shift 2 ;;
        -j) jobs=$2; shift 2 ;;
        --) shift; break ;;
        *) sed -n '2,16p' "$0" >&2; exit 2 ;;
    esac
done
case $load in stress-ng|build|none) ;; *) echo "stress-tests: -l stress-ng|build|none, not $load" >&2; exit 2 ;; esac
[[ $runs =~ ^[1-9][0-9]*$ && $jobs =~ ^[1-9][0-9]*$ ]] || { echo "stress-tests: -n and -j take positive counts" >&2; exit 2; }

scripts/build.sh "$builddir" >/dev/null || { echo "stress-tests: the build in $builddir failed" >&2; exit 1; }
logs=$(mktemp -d /tmp/stress-tests.XXXXXX)
echo "stress-tests: $runs runs of the suite in $builddir under load '$load' ($jobs jobs); logs in $logs"

if [ "$load" = stress-ng ] && ! command -v stress-ng >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stress-ng >"$logs/apt.log" 2>&1; then
        echo "stress-tests: installed stress-ng"
    else
        echo "stress-tests: no stress-ng (and it could not be installed): the build load instead"
        load=build
    fi
fi

load_pid=
start_load() {
    case $load in
        stress-ng)
            # CPU workers on every CPU asked for, and one memory worker touching a quarter of the memory.
            stress-ng --cpu "$jobs" --vm 1 --vm-bytes 25% --timeout 0 >"$logs/load.log" 2>&1 &
            load_pid=$! ;;
        build)
            local dir="$logs/load-build"
            (meson setup "$dir" -Dbench=false -Dtests=false >"$logs/load.log" 2>&1 || exit 1
             while :; do ninja -C "$dir" -t clean >/dev/null 2>&1; ninja -C "$dir" -j "$jobs" >/dev/null 2>&1; done) &
            load_pid=$! ;;
    esac
}
stop_load() {
    if [ -n "$load_pid" ]; then
        # The load's own process group: started by this script (set -m below), ended by its id.
        kill -- -"$load_pid" 2>/dev/null || kill "$load_pid" 2>/dev/null
        wait "$load_pid" 2>/dev/null
        load_pid=
    fi
}
trap stop_load EXIT INT TERM
set -m   # background jobs get process groups of their own, so that stop_load ends the whole load
start_load
set +m
sleep 2

declare -A failed_in
bad_runs=0
for r in $(seq 1 "$runs"); do
    t0=$SECONDS
    meson test -C "$builddir" --no-rebuild --print-errorlogs "$@" >"$logs/run$r.log" 2>&1
    rc=$?
    summary=$(grep -E '^(Ok|Fail|Skipped|Timeout):' "$logs/run$r.log" | tr -s ' ' | tr '\n' ' ')
    echo "run $r: exit $rc, $((SECONDS - t0)) s: $summary"
    if [ $rc -ne 0 ]; then
        bad_runs=$((bad_runs + 1))
        # The failing tests, from meson's result lines ("12/190 parray / host_cost   FAIL ...").
        while read -r t; do
            [ -n "$t" ] && failed_in[$t]="${failed_in[$t]:-} $r"
        done < <(grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT) ' "$logs/run$r.log" |
                 sed -E 's/^ *[0-9]+\/[0-9]+ +//; s/ +(FAIL|TIMEOUT) .*//; s/ //g' | sort -u)
    fi
done
stop_load

echo
echo "stress-tests: $((runs - bad_runs)) of $runs runs passed under load '$load'"
for t in "${!failed_in[@]}"; do
    echo "  $t failed in run(s):${failed_in[$t]}"
done
[ $bad_runs -eq 0 ]
