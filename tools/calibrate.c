/*
 * parray calibrate — the cost model's constants measured on this machine (pa_cost_calibrate).
 *
 * Run alone, one process measures what one process can: the host's copies, its GPU's, and nothing between
 * processes.  Started by an MPI launcher (`mpirun -np K parray calibrate`), the tool enters the library's main
 * (pa_mpi_main): rank 0 runs the tool and drafts the other K - 1 ranks into a process array that calibrates
 * collectively, process k on GPU k mod the GPUs it sees, so that the MPI constants and, where every process has
 * a GPU of its own, the NCCL route's (NVLink or the network between the GPUs) are measured too.  Every process
 * writes the same file (renamed into place), and process 0 of the array prints what was measured.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/cuda.h>
#include <parray/mpi.h>
#include <parray/parray.h>

#include "tool_calibrate.h"

static const char *cal_file;   /* NULL: pa_cost_path's */
static int launched;           /* the processes the launcher started (its environment says) */

static int calibrate_task(pa_ctx *ctx, void *arg)
{
    int gpus = pa_cuda_device_count(), st = PA_OK;
    (void)arg;
    if (gpus > 0)
        st = pa_cuda_set_device((int)(pa_tid(ctx) % gpus));
    if (st == PA_OK)
        st = pa_cost_calibrate(cal_file, pa_tid(ctx) == 0 ? stdout : NULL);
    if (st != PA_OK)
        fprintf(stderr, "parray: calibrate: process %d: %s\n", (int)pa_tid(ctx), pa_last_error());
    return st;
}

/* Rank 0's main under pa_mpi_main: the other ranks as one process array. */
static int calibrate_main(int argc, char **argv)
{
    pa_scope *s = NULL;
    char decl[32];
    int n = launched - 1, st;
    (void)argc, (void)argv;
    if (n < 2) {   /* nothing between processes to measure: this process alone */
        printf("calibrate: %d process%s to draft (mpirun -np K with K >= 3 measures between K - 1 processes); "
               "this process alone\n", n, n == 1 ? "" : "es");
        st = pa_cost_calibrate(cal_file, stdout);
        if (st != PA_OK)
            fprintf(stderr, "parray: calibrate: %s\n", pa_last_error());
        return st == PA_OK ? 0 : 1;
    }
    snprintf(decl, sizeof decl, "mpi [%d]", n);
    printf("calibrate: a process array of %d (rank 0 runs the tool)\n", n);
    fflush(stdout);
    st = pa_scope_create(NULL, &s);
    const pa_type *T = st == PA_OK ? pa_type_parse(s, decl) : NULL;
    st = st != PA_OK ? st : T ? pa_for(T, calibrate_task, NULL, 0) : PA_ERR_INVAL;
    if (st != PA_OK)
        fprintf(stderr, "parray: calibrate: %s\n", pa_last_error());
    pa_scope_destroy(s);
    return st == PA_OK ? 0 : 1;
}

/* The processes an MPI launcher started with this one (Open MPI, MPICH/Hydra, Slurm's PMI), or 1. */
static int launched_processes(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 1)
            return atoi(v);
    }
    return 1;
}

int pa_tool_calibrate(int argc, char **argv, const char *file)
{
    cal_file = file;
    launched = launched_processes();
    if (pa_mpi_available() && launched > 1) {
        int st = pa_mpi_register("parray-calibrate", calibrate_task);
        if (st != PA_OK) {
            fprintf(stderr, "parray: calibrate: %s\n", pa_last_error());
            return 1;
        }
        return pa_mpi_main(argc, argv, calibrate_main);   /* 0 on the drafted ranks */
    }
    if (pa_cost_calibrate(file, stdout) != PA_OK) {
        fprintf(stderr, "parray: calibrate: %s\n", pa_last_error());
        return 1;
    }
    return 0;
}
