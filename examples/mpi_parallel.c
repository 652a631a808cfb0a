/*
 * mpi_parallel — the MPI parts of the manual's listings 3 and 31, as process arrays under pa_mpi_main:
 *     mpirun -np 4 mpi_parallel hello      listing 3: 2 processes, each with 2 pthd threads, each with 2 sub
 *                                          threads; every thread prints the ids of the arrays above it
 *     mpirun -np 4 mpi_parallel parallel   listing 31: inside a parallel region, an mpi process array of 2 and
 *                                          a pthd array of 3 threads run at the same time (and say so)
 * The ids of outer arrays reach inner ones through the argument bytes, as PARRAY passes index variables into
 * inner loop bodies.  Lines come from several processes in any order; the test compares sorted lines.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <parray/parray.h>
#include <parray/mpi.h>

typedef struct { int pid, tid; } ids;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int sub(pa_ctx *ctx, void *arg)
{
    const ids *up = arg;
    printf("pid %d tid %d subtid %d\n", up->pid, up->tid, (int)pa_tid(ctx));
    fflush(stdout);
    return PA_OK;
}

static int thread(pa_ctx *ctx, void *arg)
{
    ids me = {*(int *)arg, (int)pa_tid(ctx)};
    pa_scope *s = NULL;
    pa_scope_create(NULL, &s);
    int st = pa_for(pa_type_parse(s, "pthd [2]"), sub, &me, sizeof me);
    pa_scope_destroy(s);
    return st;
}

static int process(pa_ctx *ctx, void *arg)
{
    int pid = (int)pa_tid(ctx);
    pa_scope *s = NULL;
    (void)arg;
    pa_scope_create(NULL, &s);
    int st = pa_for(pa_type_parse(s, "pthd [2]"), thread, &pid, sizeof pid);
    pa_scope_destroy(s);
    return st;
}

static int cpu_thread(pa_ctx *ctx, void *arg)
{
    (void)arg;
    printf("pthd thread %d begins\n", (int)pa_tid(ctx));
    fflush(stdout);
    usleep(300000);
    printf("pthd thread %d ends\n", (int)pa_tid(ctx));
    fflush(stdout);
    return PA_OK;
}

static int mpi_process(pa_ctx *ctx, void *arg)
{
    (void)arg;
    printf("mpi process %d begins\n", (int)pa_tid(ctx));
    fflush(stdout);
    usleep(300000);
    printf("mpi process %d ends\n", (int)pa_tid(ctx));
    fflush(stdout);
    return PA_OK;
}

static int run(int argc, char **argv)
{
    pa_scope *s = NULL;
    int st;
    pa_scope_create(NULL, &s);
    if (argc > 1 && strcmp(argv[1], "parallel") == 0) {
        /* The process array is started first: pa_for returns at once inside the region, so the pthd array
         * starts while the processes run, and each array's 0.3 s overlap. */
        double t0 = now();
        st = pa_parallel_begin();
        if (st == PA_OK)
            st = pa_for(pa_type_parse(s, "mpi [2]"), mpi_process, NULL, 0);
        if (st == PA_OK)
            st = pa_for(pa_type_parse(s, "pthd [3]"), cpu_thread, NULL, 0);
        int end = pa_parallel_end();
        st = st != PA_OK ? st : end;
        if (st == PA_OK)
            printf("the two arrays overlapped: %s\n", now() - t0 < 0.5 ? "yes" : "no");
    } else {
        st = pa_for(pa_type_parse(s, "mpi [2]"), process, NULL, 0);
    }
    if (st != PA_OK)
        fprintf(stderr, "mpi_parallel: %s\n", pa_last_error());
    pa_scope_destroy(s);
    return st == PA_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    pa_mpi_register("process", process);
    pa_mpi_register("mpi_process", mpi_process);
    return pa_mpi_main(argc, argv, run);
}
