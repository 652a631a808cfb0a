/*
 * parray — pa_for over an mpi thread type: the three ways a process array runs.
 *  - Under pa_mpi_main: draft n idle ranks (from rank 0's pool, asked of rank 0 by a process of an array that
 *    starts a nested one), send them the task, wait for their statuses.  Too few idle ranks is an error at
 *    once (never a wait).  Arrays started from several threads of rank 0 run one after the other.
 *  - Plain SPMD (MPI initialised by the program, every rank calls pa_for): the first n ranks of the current
 *    communicator run the task on their own communicator; every rank returns the same status.
 *  - Without MPI: a single process, so mpi [1] runs the task here and anything larger is an error.
 * pa_mpi_reserve_procs and pa_mpi_use_reserved_procs (the manual's _PA_RESERVE_PROCS and _PA_USE_RESERVED_PROCS)
 * set one-shot flags of the calling thread that the next pa_for over an mpi type takes along to the pool.
 * Inside a task, pa_tid is the process's place in the array, pa_ctx_size the array's size, pa_sync an
 * MPI_Barrier of the array (or of a group split off by dimension), and distributed copies use the array's
 * communicator.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "procs.h"

/* The calling thread's flags for its next process array (one-shot). */
static _Thread_local int tl_reserve;        /* ranks to reserve for it */
static _Thread_local int tl_use_reserved;   /* 1: its ranks come from this process's array's reserve */

/* The array this process runs a task of (a drafted rank: one at a time, set before the task's threads start):
 * the world rank of its process 0, which names its reserve, and how many ranks were reserved for it. */
static int32_t array_first, array_reserve;

/* pa_sync in a process array: a barrier of the whole array, or of one group (split off for the call, so every
 * process of the array must call it with the same path, as PARRAY's sync is called by every thread). */
static int sync_array(const pa__ext_ctx *x, int64_t tid, int64_t group, const char *path)
{
    MPI_Comm comm = *(MPI_Comm *)x->data, part = MPI_COMM_NULL;
    int st;
    if (comm == MPI_COMM_NULL)
        return PA_OK;
    if (group < 0)
        return pa_mpi__check(MPI_Barrier(comm), "pa_sync: MPI_Barrier");
    st = pa_mpi__check(MPI_Comm_split(comm, (int)group, (int)tid, &part), "pa_sync: MPI_Comm_split");
    if (st == PA_OK)
        st = pa_mpi__check(MPI_Barrier(part), "pa_sync: MPI_Barrier");
    if (part != MPI_COMM_NULL)
        MPI_Comm_free(&part);
    (void)path;
    return st;
}

/* Runs fn as process tid of an array of n on comm, with its own copy of the argument bytes. */
static int run_task(pa_thread_fn fn, int64_t tid, int64_t n, const pa_type *self, MPI_Comm comm,
                    const void *arg, size_t arg_size)
{
    void *copy = NULL;
    if (arg_size > 0 && !(copy = malloc(arg_size)))
        return pa__err(PA_ERR_NOMEM, "mpi process array: no memory for %zu argument bytes", arg_size);
    if (copy)
        memcpy(copy, arg, arg_size);
    pa__ext_ctx x = {.size = n, .self = self, .sync = sync_array, .data = &comm};
    pa_ctx ctx = {.launch = NULL, .tid = tid, .parent = NULL, .ext = &x};
    MPI_Comm prev = pa_mpi__set_comm(comm);
    int st = fn(&ctx, copy);
    pa_mpi__task_ended();   /* still on the array's communicator: the hook may need it */
    pa_mpi__set_comm(prev);
    free(copy);
    return st;
}

/* ---- drafted side --------------------------------------------------------------------------------------- */

int pa_mpi__run_drafted(const char *msg, int len)
{
    pa_mpi__draft_head h;
    MPI_Group world = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
    MPI_Comm comm = MPI_COMM_NULL;
    pa_scope *scope = NULL;
    char name[64], decl[256];
    int me = 0, tid = -1, st;
    memcpy(&h, msg, sizeof h);
    const int32_t *ranks = (const int32_t *)(msg + sizeof h);
    const char *p = msg + sizeof h + (size_t)h.n * sizeof(int32_t);
    snprintf(name, sizeof name, "%.*s", (int)h.namelen, p);
    snprintf(decl, sizeof decl, "%.*s", (int)h.decllen, p + h.namelen);
    const char *arg = p + h.namelen + h.decllen;
    (void)len;
    MPI_Comm_rank(pa_mpi__proto(), &me);
    for (int i = 0; i < h.n; i++)
        if (ranks[i] == me)
            tid = i;
    MPI_Comm_group(pa_mpi__proto(), &world);
    MPI_Group_incl(world, h.n, ranks, &group);
    st = pa_mpi__check(MPI_Comm_create_group(pa_mpi__proto(), group, PA_MPI__TAG_GROUP, &comm),
                       "mpi process array: MPI_Comm_create_group");
    pa_thread_fn fn = pa_mpi__task_fn(name);
    if (st == PA_OK && !fn)
        st = pa__err(PA_ERR_NAME, "mpi process array: task \"%s\" is not registered on rank %d (call "
                     "pa_mpi_register on every process before pa_mpi_main)", name, me);
    const pa_type *self = NULL;
    if (st == PA_OK && pa_scope_create(NULL, &scope) == PA_OK)
        self = pa_type_parse(scope, decl);
    array_first = ranks[0];
    array_reserve = h.reserve;
    if (st == PA_OK)
        st = run_task(fn, tid, h.n, self, comm, arg, (size_t)h.argsize);
    array_first = array_reserve = 0;
    pa_scope_destroy(scope);
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    return st;
}

/* ---- rank 0 under pa_mpi_main ---------------------------------------------------------------------------- */

/* The draft message for one array.  \return its length, or -1 (no memory). */
static int draft_message(const int32_t *ranks, int n, int reserve, const char *name, const char *decl,
                         const void *arg, size_t arg_size, char **out)
{
    pa_mpi__draft_head h = {.cmd = PA_MPI__CMD_RUN, .n = n, .reserve = reserve, .namelen = (int32_t)strlen(name),
                            .decllen = (int32_t)strlen(decl), .argsize = (int64_t)arg_size};
    MPI_Comm_rank(pa_mpi__proto(), &h.parent);
    size_t len = sizeof h + (size_t)n * sizeof(int32_t) + strlen(name) + strlen(decl) + arg_size;
    char *m = malloc(len);
    if (!m || len > INT32_MAX)
        return free(m), -1;
    memcpy(m, &h, sizeof h);
    memcpy(m + sizeof h, ranks, (size_t)n * sizeof(int32_t));
    char *p = m + sizeof h + (size_t)n * sizeof(int32_t);
    memcpy(p, name, strlen(name));
    memcpy(p + strlen(name), decl, strlen(decl));
    if (arg_size)
        memcpy(p + strlen(name) + strlen(decl), arg, arg_size);
    *out = m;
    return (int)len;
}

/* Drafts n idle ranks for an array started on this process (rank 0, or a process of an array: nesting), with
 * `reserve` more set aside for it, or n ranks of the reserve of array `from` (pa_mpi__pool_take). */
static int draft(const pa_type *t, int n, int reserve, int from, pa_thread_fn fn, const void *arg,
                 size_t arg_size)
{
    char decl[256], *msg = NULL;
    int32_t *ranks = malloc((size_t)n * sizeof *ranks);
    const char *name = pa_mpi__task_name(fn);
    int st = PA_OK, len, me = 0;
    if (!ranks)
        return pa__err(PA_ERR_NOMEM, "pa_for over %s: no memory for %d ranks", pa_type_name(t), n);
    if (!name) {
        free(ranks);
        return pa__err(PA_ERR_NAME, "pa_for over %s: the task function is not registered; register it with "
                       "pa_mpi_register on every process before pa_mpi_main", pa_type_name(t));
    }
    if (pa_type_format(t, decl, sizeof decl) >= (int)sizeof decl)
        decl[0] = '\0';   /* too long to send: the processes then see pa_self() NULL */
    MPI_Comm_rank(pa_mpi__proto(), &me);
    if (me == 0)
        pa_mpi__draft_lock();
    if ((st = pa_mpi__pool_take(t, n, reserve, from, ranks)) != PA_OK)
        goto done;
    if ((len = draft_message(ranks, n, reserve, name, decl, arg, arg_size, &msg)) < 0) {
        pa_mpi__pool_give(ranks, n);
        st = pa__err(PA_ERR_NOMEM, "pa_for over %s: no memory for the draft message", pa_type_name(t));
        goto done;
    }
    for (int i = 0; i < n; i++)
        MPI_Send(msg, len, MPI_BYTE, ranks[i], PA_MPI__TAG_DRAFT, pa_mpi__proto());
    st = pa_mpi__collect(t, ranks, n);
    pa_mpi__pool_give(ranks, n);
done:
    if (me == 0)
        pa_mpi__draft_unlock();
    free(msg);
    free(ranks);
    return st;
}

/* ---- SPMD and single process ---------------------------------------------------------------------------- */

static int spmd(const pa_type *t, int n, pa_thread_fn fn, const void *arg, size_t arg_size)
{
    int rank, size, st = PA_OK;
    MPI_Comm parent = pa_mpi__comm(), comm = MPI_COMM_NULL;
    MPI_Comm_rank(parent, &rank);
    MPI_Comm_size(parent, &size);
    if (n > size)
        return pa__err(PA_ERR_RANGE, "pa_for over %s: the process array needs %d processes, the communicator "
                       "has %d", pa_type_name(t), n, size);
    MPI_Comm_split(parent, rank < n ? 0 : MPI_UNDEFINED, rank, &comm);
    if (rank < n)
        st = run_task(fn, rank, n, t, comm, arg, arg_size);
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
    struct { int status, rank; } mine = {st, rank}, first;
    MPI_Allreduce(&mine, &first, 1, MPI_2INT, MPI_MINLOC, parent);
    if (first.status != PA_OK && st == PA_OK)
        st = pa__err(first.status, "pa_for over %s: process %d failed with %s", pa_type_name(t), first.rank,
                     pa_status_name(first.status));
    return st;
}

/*
 * Parallel regions: a process array is drafted and waited for by a pthd [1] array, which pa_for runs on the
 * calling thread outside a region and starts in the background inside one (pa_parallel_end then joins it and
 * reports its status).  The type, the task and a copy of the argument bytes travel in the runner's argument.
 */
typedef struct async_head {
    const pa_type *t;
    pa_thread_fn fn;
    size_t arg_size;
    int reserve, from;   /* the caller's flags, taken when it called pa_for */
} async_head;

static pthread_once_t runner_once = PTHREAD_ONCE_INIT;
static pa_scope *runner_scope;
static const pa_type *runner_type;

static void make_runner(void)
{
    if (pa_scope_create(NULL, &runner_scope) == PA_OK)
        runner_type = pa_type_parse(runner_scope, "pthd [1]");
}

static int runner(pa_ctx *ctx, void *argp)
{
    async_head h;
    (void)ctx;
    memcpy(&h, argp, sizeof h);
    return draft(h.t, (int)pa_size(h.t), h.reserve, h.from, h.fn, (char *)argp + sizeof h, h.arg_size);
}

static int draft_in_region(const pa_type *t, pa_thread_fn fn, const void *arg, size_t arg_size, int reserve,
                           int from)
{
    async_head h = {t, fn, arg_size, reserve, from};
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    if (level < MPI_THREAD_MULTIPLE)   /* the program initialised MPI for one thread: no background arrays */
        return draft(t, (int)pa_size(t), reserve, from, fn, arg, arg_size);
    pthread_once(&runner_once, make_runner);
    char *buf = runner_type ? malloc(sizeof h + arg_size) : NULL;
    if (!buf)
        return draft(t, (int)pa_size(t), reserve, from, fn, arg, arg_size);   /* no runner: it runs synchronously */
    memcpy(buf, &h, sizeof h);
    if (arg_size)
        memcpy(buf + sizeof h, arg, arg_size);
    int st = pa_for(runner_type, runner, buf, sizeof h + arg_size);
    free(buf);
    return st;
}

static int launch(const pa_type *t, pa_thread_fn fn, const void *arg, size_t arg_size)
{
    int64_t n = pa_size(t);
    int reserve = tl_reserve, from = tl_use_reserved ? array_first : 0;
    tl_reserve = tl_use_reserved = 0;   /* one-shot, whatever happens next */
    if (reserve > 0 && from > 0)
        return pa__err(PA_ERR_INVAL, "pa_for over %s: pa_mpi_reserve_procs and pa_mpi_use_reserved_procs were both "
                       "called for this array; an array drafted from a reserve cannot have a reserve of its own",
                       pa_type_name(t));
    if (n < 1 || n > PA_MAX_THREADS)
        return pa__err(PA_ERR_RANGE, "pa_for over %s: %lld processes, outside 1..%d", pa_type_name(t),
                       (long long)n, PA_MAX_THREADS);
    if (!pa_mpi__running()) {
        if (n > 1)
            return pa__err(PA_ERR_RANGE, "pa_for over %s: the process array needs %lld processes but MPI is not "
                           "running (start the program with mpirun and enter through pa_mpi_main)",
                           pa_type_name(t), (long long)n);
        return run_task(fn, 0, 1, t, MPI_COMM_NULL, arg, arg_size);
    }
    if (!pa_mpi__served())
        return spmd(t, (int)n, fn, arg, arg_size);
    return draft_in_region(t, fn, arg, arg_size, reserve, from);
}

/* Flags set where no pool of idle ranks is: outside pa_mpi_main (or without MPI running). */
static int no_pool(const char *call)
{
    return pa__err(PA_ERR_RANGE, "%s: there are no idle processes to reserve outside pa_mpi_main (start the "
                   "program with mpirun and enter through pa_mpi_main)", call);
}

int pa_mpi_reserve_procs(int n)
{
    if (n < 0 || n > PA_MAX_THREADS)
        return pa__err(PA_ERR_RANGE, "pa_mpi_reserve_procs(%d): outside 0..%d", n, PA_MAX_THREADS);
    if (n > 0 && (!pa_mpi__running() || !pa_mpi__served()))
        return no_pool("pa_mpi_reserve_procs");
    tl_reserve = n;
    return PA_OK;
}

int pa_mpi_use_reserved_procs(void)
{
    if (!pa_mpi__running() || !pa_mpi__served())
        return no_pool("pa_mpi_use_reserved_procs");
    if (array_reserve <= 0)
        return pa__err(PA_ERR_RANGE, "pa_mpi_use_reserved_procs: %s", array_first > 0 ? "this process's array has "
                       "no reserve (call pa_mpi_reserve_procs before the pa_for that creates it)" : "the calling "
                       "process runs no task of a process array, so it has no reserve (rank 0's main never has one)");
    tl_use_reserved = 1;
    return PA_OK;
}

const pa__launcher pa__mpi_launcher = {
    .mtt = "mpi",
    .launch = launch,
};
