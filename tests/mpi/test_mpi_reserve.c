/*
 * parray MPI tests — reserved processes (pa_mpi_reserve_procs / pa_mpi_use_reserved_procs, the manual's
 * _PA_RESERVE_PROCS and _PA_USE_RESERVED_PROCS) under pa_mpi_main on 6 processes: rank 0 runs main, 5 ranks are
 * idle.  An array of 2 with a reserve of 2 leaves 1 idle rank; a process of the array takes that one in a
 * nested array that waits, and then its sibling finds the idle pool empty but drafts 2 ranks from the reserve.
 * Too large a reserve, too many ranks asked of the reserve and a reserve where there is none are errors at once;
 * reserves go back to the pool when their array ends (a following array of all 5 idle ranks runs), also when a
 * task fails.  Run with mpirun -np 6.
 */
#include "internal.h"
#include <parray/mpi.h>
#include "mpi_backend.h"
#include "mpi_check.h"

enum { TAG_HOLDING = 901, TAG_RELEASE = 902 };

static int hello(pa_ctx *ctx, void *argp)
{
    (void)argp;
    return pa_sync(ctx, "");
}

static int fail_on_one(pa_ctx *ctx, void *argp)
{
    (void)argp;
    return pa_tid(ctx) == 1 ? pa__err(PA_ERR_RANGE, "task failed on purpose") : PA_OK;
}

/* A nested array of one that holds the last idle rank until the process of world rank *argp says so. */
static int hold(pa_ctx *ctx, void *argp)
{
    int to = *(int *)argp, go = 0;
    (void)ctx;
    MPI_Send(&go, 1, MPI_INT, to, TAG_HOLDING, MPI_COMM_WORLD);
    MPI_Recv(&go, 1, MPI_INT, to, TAG_RELEASE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return PA_OK;
}

/* pa_for over `decl` (after use_reserved when asked), expecting `want`. */
static int nested_for(const char *decl, int use_reserved, int want, const char *needle)
{
    pa_scope *s = NULL;
    int st = pa_scope_create(NULL, &s);
    if (st == PA_OK && use_reserved)
        st = pa_mpi_use_reserved_procs();
    if (st == PA_OK)
        st = pa_for(pa_type_parse(s, decl), hello, NULL, 0);
    char msg[512];
    pa_scope_destroy(s);
    snprintf(msg, sizeof msg, "%s", pa_last_error());   /* pa__err writes where pa_last_error points */
    if (st != want)
        return pa__err(PA_ERR_INVAL, "nested pa_for over %s%s: %s, expected %s (%s)", decl, use_reserved ?
                       " with the reserve" : "", pa_status_name(st), pa_status_name(want), msg);
    if (needle && !strstr(msg, needle))
        return pa__err(PA_ERR_INVAL, "nested pa_for over %s: message without \"%s\": %s", decl, needle, msg);
    return PA_OK;
}

/* mpi [2] with a reserve of 2 on 6 ranks: process 1 takes the last idle rank in a nested array that waits for
 * process 0, which then finds no idle rank but drafts from the reserve, twice, and asks it for too many. */
static int reserving(pa_ctx *ctx, void *argp)
{
    int me = 0, st = PA_OK, go = 0, holder = 0;
    pa_scope *s = NULL;
    MPI_Status status;
    (void)argp;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int peer = me;   /* process 0's world rank, for process 1's nested array */
    MPI_Bcast(&peer, 1, MPI_INT, 0, pa_mpi__comm());
    if (pa_tid(ctx) == 1) {
        pa_scope_create(NULL, &s);
        st = pa_for(pa_type_parse(s, "mpi [1]"), hold, &peer, sizeof peer);
        pa_scope_destroy(s);
        return st;
    }
    MPI_Recv(&go, 1, MPI_INT, MPI_ANY_SOURCE, TAG_HOLDING, MPI_COMM_WORLD, &status);   /* the pool is empty now */
    holder = status.MPI_SOURCE;
    if (st == PA_OK)   /* the reserve is not in the idle pool */
        st = nested_for("mpi [1]", 0, PA_ERR_RANGE, "0 of the 6 are idle");
    if (st == PA_OK)
        st = nested_for("mpi [2]", 1, PA_OK, NULL);
    if (st == PA_OK)   /* back in the reserve after the nested array */
        st = nested_for("mpi [2]", 1, PA_OK, NULL);
    if (st == PA_OK)
        st = nested_for("mpi [3]", 1, PA_ERR_RANGE, "holds 2 free");
    if (st == PA_OK)   /* one-shot: the failed pa_for used the flag up */
        st = nested_for("mpi [1]", 0, PA_ERR_RANGE, "0 of the 6 are idle");
    if (st == PA_OK && pa_mpi_reserve_procs(1) == PA_OK)   /* not both */
        st = nested_for("mpi [1]", 1, PA_ERR_INVAL, "both");
    MPI_Send(&go, 1, MPI_INT, holder, TAG_RELEASE, MPI_COMM_WORLD);
    return st;
}

/* An array with a reserve of 2 whose process 0 drafts one of them for a nested array that fails. */
static int reserve_fails(pa_ctx *ctx, void *argp)
{
    pa_scope *s = NULL;
    int st = PA_OK;
    (void)argp;
    if (pa_tid(ctx) != 0)
        return PA_OK;
    pa_scope_create(NULL, &s);
    if ((st = pa_mpi_use_reserved_procs()) == PA_OK)
        st = pa_for(pa_type_parse(s, "mpi [2]"), fail_on_one, NULL, 0);
    pa_scope_destroy(s);
    return st;
}

/* A task of an array without a reserve: use_reserved is an error there. */
static int no_reserve(pa_ctx *ctx, void *argp)
{
    (void)ctx;
    (void)argp;
    char msg[512];
    int st = pa_mpi_use_reserved_procs();
    snprintf(msg, sizeof msg, "%s", pa_last_error());
    if (st != PA_ERR_RANGE || !strstr(msg, "no reserve"))
        return pa__err(PA_ERR_INVAL, "use_reserved without a reserve: %s (%s)", pa_status_name(st), msg);
    return nested_for("mpi [1]", 0, PA_OK, NULL);   /* the failed call set no flag */
}

/* A task that takes one rank of its reserve (for an array started inside a parallel region). */
static int uses_one(pa_ctx *ctx, void *argp)
{
    (void)argp;
    return pa_tid(ctx) == 0 ? nested_for("mpi [1]", 1, PA_OK, NULL) : PA_OK;
}

static int user_main(int argc, char **argv)
{
    pa_scope *s = NULL;
    (void)argc;
    (void)argv;
    pa_scope_create(NULL, &s);
    pa_declare_text(s, "P2 = mpi [2]\nP5 = mpi [5]");
    const pa_type *p2 = pa_type_get(s, "P2"), *p5 = pa_type_get(s, "P5");
    /* (1), (3): the reserve serves a nested array when the idle pool is empty, and no more than it holds. */
    MCK_OK(pa_mpi_reserve_procs(2));
    MCK_OK(pa_for(p2, reserving, NULL, 0));
    /* (4): the reserve went back with the array. */
    MCK_OK(pa_for(p5, hello, NULL, 0));
    /* (2): 2 + 4 of 5 idle ranks: an error at once, nothing taken, and the flag is used up. */
    MCK_OK(pa_mpi_reserve_procs(4));
    MCK_ERR(pa_for(p2, hello, NULL, 0), PA_ERR_RANGE);
    MCK(strstr(pa_last_error(), "2 processes and 4 reserved") && strstr(pa_last_error(), "5 of the 6 are idle"),
        "message: %s", pa_last_error());
    MCK_OK(pa_for(p5, hello, NULL, 0));
    MCK_OK(pa_mpi_reserve_procs(1));
    MCK_ERR(pa_for(p5, hello, NULL, 0), PA_ERR_RANGE);
    MCK_OK(pa_for(p5, hello, NULL, 0));
    /* (4): a failing task, in the array or in a nested array drafted from its reserve, gives everything back. */
    MCK_OK(pa_mpi_reserve_procs(2));
    MCK_ERR(pa_for(p2, fail_on_one, NULL, 0), PA_ERR_RANGE);
    MCK_OK(pa_for(p5, hello, NULL, 0));
    MCK_OK(pa_mpi_reserve_procs(2));
    MCK_ERR(pa_for(p2, reserve_fails, NULL, 0), PA_ERR_RANGE);
    MCK(strstr(pa_last_error(), "on purpose") != NULL, "message: %s", pa_last_error());
    MCK_OK(pa_for(p5, hello, NULL, 0));
    /* (5): no reserve on rank 0's main, nor in an array created without one. */
    MCK_ERR(pa_mpi_use_reserved_procs(), PA_ERR_RANGE);
    MCK(strstr(pa_last_error(), "rank 0") != NULL, "message: %s", pa_last_error());
    MCK_OK(pa_for(p2, no_reserve, NULL, 0));
    MCK_ERR(pa_mpi_reserve_procs(-1), PA_ERR_RANGE);
    /* The flags travel with an array started in a parallel region. */
    MCK_OK(pa_parallel_begin());
    MCK_OK(pa_mpi_reserve_procs(1));
    MCK_OK(pa_for(p2, uses_one, NULL, 0));
    MCK_OK(pa_parallel_end());
    MCK_OK(pa_for(p5, hello, NULL, 0));
    pa_scope_destroy(s);
    printf("reserved processes: %s\n", mck_failures ? "FAILED" : "ok");
    return mck_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    /* Outside pa_mpi_main there is no pool to reserve from. */
    MCK_ERR(pa_mpi_reserve_procs(1), PA_ERR_RANGE);
    MCK_ERR(pa_mpi_use_reserved_procs(), PA_ERR_RANGE);
    MCK_OK(pa_mpi_reserve_procs(0));
    pa_mpi_register("hello", hello);
    pa_mpi_register("fail_on_one", fail_on_one);
    pa_mpi_register("hold", hold);
    pa_mpi_register("reserving", reserving);
    pa_mpi_register("reserve_fails", reserve_fails);
    pa_mpi_register("no_reserve", no_reserve);
    pa_mpi_register("uses_one", uses_one);
    int rc = pa_mpi_main(argc, argv, user_main);
    return rc || mck_failures ? 1 : 0;
}
