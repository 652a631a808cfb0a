/*
 * parray MPI tests — process arrays under pa_mpi_main on 4 processes: rank 0 runs main and drafts the 3 idle
 * ranks; tasks see their tid, size, self and argument, synchronise, make a distributed copy on their own
 * communicator, and start nested arrays; too few idle ranks, a task that fails on one process and an
 * unregistered task are errors that reach rank 0 (and never hang).  Run with mpirun -np 4.
 */
#include "internal.h"
#include <parray/mpi.h>
#include "mpi_check.h"

typedef struct { int magic, n; } task_arg;

static int hello(pa_ctx *ctx, void *argp)
{
    task_arg *a = argp;
    const pa_type *self = pa_self(ctx);
    if (!a || a->magic != 42 || pa_ctx_size(ctx) != a->n || pa_tid(ctx) < 0 || pa_tid(ctx) >= a->n)
        return pa__err(PA_ERR_INVAL, "bad context or argument");
    if (!self || pa_size(self) != a->n)
        return pa__err(PA_ERR_INVAL, "pa_self is %s", self ? pa_type_name(self) : "NULL");
    if (pa_mpi_nprocs() != a->n || pa_mpi_rank() != pa_tid(ctx))
        return pa__err(PA_ERR_INVAL, "rank %d of %d in the array's communicator", pa_mpi_rank(), pa_mpi_nprocs());
    return pa_sync(ctx, "");
}

/* Inside the array: an alltoall (listing 34) on the array's communicator, checked here. */
static int exchange(pa_ctx *ctx, void *argp)
{
    pa_scope *s = NULL;
    int src[9], dst[9], st, me = (int)pa_tid(ctx);
    (void)argp;
    pa_scope_create(NULL, &s);
    st = pa_declare_text(s, "M = mpi [3]\nD = paged int [3][3]\nS = [#M][#D_0][#D_1]\nT = [#D_0][#M][#D_1]");
    for (int i = 0; i < 9; i++)
        src[i] = me * 100 + i, dst[i] = -1;
    if (st == PA_OK)
        st = pa_copy(pa_type_get(s, "T"), dst, pa_type_get(s, "S"), src);
    for (int i = 0; st == PA_OK && i < 9; i++)   /* row i of dst came from process i's row me */
        if (dst[i] != (i / 3) * 100 + me * 3 + i % 3)
            st = pa__err(PA_ERR_INVAL, "alltoall in the array: dst[%d] = %d", i, dst[i]);
    pa_scope_destroy(s);
    return st;
}

/* Types declared on every rank before pa_mpi_main, so that they outlive the arrays that copy them. */
static pa_scope *kept;

/* An alltoall over mpi [2] of the kept types, in arrays of 2 and of 3 processes one after the other: a plan a
 * process remembered for one array's communicator must not serve the next (process 2 of 3 takes no part). */
static int kept_exchange(pa_ctx *ctx, void *argp)
{
    int src[4], dst[4], me = (int)pa_tid(ctx), st;
    (void)argp;
    for (int i = 0; i < 4; i++)
        src[i] = me * 100 + i, dst[i] = -1;
    st = pa_copy(pa_type_get(kept, "T"), dst, pa_type_get(kept, "S"), src);
    for (int i = 0; st == PA_OK && i < 4; i++)   /* row i of dst came from process i's row me */
        if (dst[i] != (me < 2 ? (i / 2) * 100 + me * 2 + i % 2 : -1))
            st = pa__err(PA_ERR_INVAL, "kept alltoall on process %d of %lld: dst[%d] = %d", me,
                         (long long)pa_ctx_size(ctx), i, dst[i]);
    return st;
}

/* pa_sync over the whole array and over each dimension of mpi [3][1]; a missing dimension is PA_ERR_DIM. */
static int syncs(pa_ctx *ctx, void *argp)
{
    int st = PA_OK;
    (void)argp;
    if (pa_tid_path(ctx, "0") != pa_tid(ctx) || pa_tid_path(ctx, "1") != 0)
        return pa__err(PA_ERR_INVAL, "tid_path: %lld %lld", (long long)pa_tid_path(ctx, "0"),
                       (long long)pa_tid_path(ctx, "1"));
    for (int i = 0; i < 3 && st == PA_OK; i++)
        st = pa_sync(ctx, i == 0 ? "" : i == 1 ? "0" : "1");
    if (st == PA_OK && pa_sync(ctx, "2") != PA_ERR_DIM)
        st = pa__err(PA_ERR_INVAL, "pa_sync(\"2\") did not fail with PA_ERR_DIM");
    return st;
}

/* Nested arrays: a process of an array starts its own (ranks granted by rank 0, results sent to it). */
static int nested(pa_ctx *ctx, void *argp)
{
    int want = *(int *)argp;
    task_arg a = {42, want};
    pa_scope *s = NULL;
    (void)ctx;
    pa_scope_create(NULL, &s);
    int st = pa_for(pa_type_parse(s, want == 2 ? "mpi [2]" : "mpi [3]"), hello, &a, sizeof a);
    pa_scope_destroy(s);
    return st;
}

static int fail_on_one(pa_ctx *ctx, void *argp)
{
    (void)argp;
    return pa_tid(ctx) == 1 ? pa__err(PA_ERR_RANGE, "task failed on purpose") : PA_OK;
}

static int not_registered(pa_ctx *ctx, void *argp)
{
    (void)ctx;
    (void)argp;
    return PA_OK;
}

static int user_main(int argc, char **argv)
{
    pa_scope *s = NULL;
    (void)argc;
    (void)argv;
    pa_scope_create(NULL, &s);
    pa_declare_text(s, "P3 = mpi [3]\nP4 = mpi [4]\nP2 = mpi [2]");
    const pa_type *p3 = pa_type_get(s, "P3"), *p4 = pa_type_get(s, "P4"), *p2 = pa_type_get(s, "P2");
    task_arg a = {42, 3};
    MCK_OK(pa_for(p3, hello, &a, sizeof a));
    MCK_OK(pa_for(p3, exchange, NULL, 0));
    MCK_OK(pa_for(p2, kept_exchange, NULL, 0));
    MCK_OK(pa_for(p3, kept_exchange, NULL, 0));
    MCK_OK(pa_for(p2, kept_exchange, NULL, 0));
    MCK_OK(pa_for(pa_type_parse(s, "mpi [3][1]"), syncs, NULL, 0));
    int want = 2;
    MCK_OK(pa_for(pa_type_parse(s, "mpi [1]"), nested, &want, sizeof want));   /* 1 + 2 of the 3 idle ranks */
    MCK_OK(pa_for(pa_type_parse(s, "mpi [1]"), nested, &want, sizeof want));   /* and again: all given back */
    want = 3;
    MCK_ERR(pa_for(pa_type_parse(s, "mpi [1]"), nested, &want, sizeof want), PA_ERR_RANGE);
    MCK(strstr(pa_last_error(), "process 0 (rank 1) failed") && strstr(pa_last_error(), "idle"), "message: %s",
        pa_last_error());
    a.n = 2;
    MCK_OK(pa_for(p2, hello, &a, sizeof a));            /* ranks are idle again after each array */
    MCK_ERR(pa_for(p4, hello, &a, sizeof a), PA_ERR_RANGE);
    MCK(strstr(pa_last_error(), "idle") != NULL, "message: %s", pa_last_error());
    MCK_ERR(pa_for(p3, fail_on_one, NULL, 0), PA_ERR_RANGE);
    MCK(strstr(pa_last_error(), "process 1") && strstr(pa_last_error(), "on purpose"), "message: %s",
        pa_last_error());
    MCK_ERR(pa_for(p2, not_registered, NULL, 0), PA_ERR_NAME);
    a.n = 3;
    MCK_OK(pa_for(p3, hello, &a, sizeof a));            /* and nothing is left stuck after the failures */
    /* Rank 0's main is one process: a copy that stays on process 0 works, one over 3 processes does not. */
    int x[3] = {1, 2, 3}, y[3] = {0, 0, 0};
    pa_declare_text(s, "D = paged int [3]\nON0 = [1 # P3][#D]\nDIST = [#P3][1 # D]");
    MCK_OK(pa_copy(pa_type_get(s, "ON0"), y, pa_type_get(s, "D"), x));
    MCK(y[2] == 3, "y[2] = %d", y[2]);
    MCK_ERR(pa_copy(pa_type_get(s, "DIST"), y, pa_type_get(s, "D"), x), PA_ERR_RANGE);
    pa_scope_destroy(s);
    printf("process arrays: %s\n", mck_failures ? "FAILED" : "ok");
    return mck_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    pa_mpi_register("hello", hello);
    pa_mpi_register("exchange", exchange);
    pa_mpi_register("fail_on_one", fail_on_one);
    pa_mpi_register("syncs", syncs);
    pa_mpi_register("nested", nested);
    pa_mpi_register("kept_exchange", kept_exchange);
    pa_scope_create(NULL, &kept);
    pa_declare_text(kept, "M = mpi [2]\nD = paged int [2][2]\nS = [#M][#D_0][#D_1]\nT = [#D_0][#M][#D_1]");
    int rc = pa_mpi_main(argc, argv, user_main);
    pa_scope_destroy(kept);
    return rc;
}
