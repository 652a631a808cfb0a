# shellcheck shell=bash
# Sourced by the scripts/gpu-*.sh that time their steps on the lent GPU machine (gpu-host, gpu-hostcopy, gpu-mpi,
# gpu-vmem).  run LIMIT_S TITLE COMMAND... runs one step under a time limit and appends a header (the title and
# the seconds since t0) and its output, or its exit status when it fails, to the file $log; the caller sets log
# and t0=$SECONDS before the first step.
# shellcheck disable=SC2154   # log and t0 are the caller's
run() {
    local lim=$1 title=$2
    shift 2
    printf '\n==== %s (at %d s)\n' "$title" "$((SECONDS - t0))" >> "$log"
    timeout "$lim" stdbuf -oL "$@" >> "$log" 2>&1 || echo "(exit $?)" >> "$log"
}
