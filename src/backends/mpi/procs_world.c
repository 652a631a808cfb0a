/*
 * parray — world calls: a process array asks every rank of MPI_COMM_WORLD to run a handler together (procs.h
 * describes the messages).  The Global Arrays backend needs this where Global Arrays itself is collective over
 * the whole world (GA_Initialize; GA_Pgroup_create unless ARMCI-MPI makes groups noncollectively) but only
 * the processes of one array are running its code.
 *
 * Under pa_mpi_main every rank outside the array is either idle (in its idle loop, which runs what rank 0
 * sends it) or busy in another array; rank 0 is either in the loop where it waits for its array's results
 * (which answers requests) or, when the caller is rank 0's own main, the caller itself.  Rank 0 grants a world
 * call only when every rank outside the array is idle, so that all of them take part: then it sends each
 * idle rank the call, answers the array, and runs the handler itself; the array's first process passes the
 * answer on to the others (MPI_Bcast on the array's communicator) and all of them run the handler.  A rank
 * busy elsewhere (a nested array, or an array beside it) makes the call fail at once on every process of
 * the array, with a message that says why, rather than wait.  Rank 0's arrays run one at a time, so at most
 * one world call is under way.
 *
 * Also here: the hooks run when a task ends and when pa_mpi_main ends (set before main by the backend that
 * needs them), and the list of a communicator's world ranks.
 */
#include <stdlib.h>
#include <string.h>

#include "procs.h"

#define MAX_HANDLERS 8

static struct handler { char name[32]; pa_mpi__world_fn fn; } handlers[MAX_HANDLERS];
static int nhandlers;                       /* set before main, read-only afterwards */
static void (*task_end_hook)(void);
static void (*main_end_hook)(void);

int pa_mpi__world_register(const char *name, pa_mpi__world_fn fn)
{
    if (!name || !fn || !name[0] || strlen(name) >= sizeof handlers[0].name)
        return pa__err(PA_ERR_INVAL, "world call handler: a name of 1 to 31 characters and a function");
    for (int i = 0; i < nhandlers; i++)
        if (strcmp(handlers[i].name, name) == 0) {
            handlers[i].fn = fn;
            return PA_OK;
        }
    if (nhandlers == MAX_HANDLERS)
        return pa__err(PA_ERR_RANGE, "world call handler \"%s\": more than %d handlers", name, MAX_HANDLERS);
    snprintf(handlers[nhandlers].name, sizeof handlers[0].name, "%s", name);
    handlers[nhandlers++].fn = fn;
    return PA_OK;
}

static pa_mpi__world_fn handler_of(const char *name)
{
    for (int i = 0; i < nhandlers; i++)
        if (strncmp(handlers[i].name, name, sizeof handlers[0].name) == 0)
            return handlers[i].fn;
    return NULL;
}

void pa_mpi__on_task_end(void (*fn)(void))
{
    task_end_hook = fn;
}

void pa_mpi__on_main_end(void (*fn)(void))
{
    main_end_hook = fn;
}

void pa_mpi__task_ended(void)
{
    if (task_end_hook)
        task_end_hook();
}

void pa_mpi__main_ended(void)
{
    if (main_end_hook)
        main_end_hook();
}

int pa_mpi__members(MPI_Comm comm, int32_t **out, int *n)
{
    MPI_Group world = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
    int size = 0;
    MPI_Comm_size(comm, &size);
    int *in = malloc((size_t)size * sizeof *in), *ranks = malloc((size_t)size * sizeof *ranks);
    int32_t *res = malloc((size_t)size * sizeof *res);
    if (!in || !ranks || !res) {
        free(in);
        free(ranks);
        free(res);
        return pa__err(PA_ERR_NOMEM, "the world ranks of a communicator of %d processes", size);
    }
    for (int i = 0; i < size; i++)
        in[i] = i;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Comm_group(comm, &group);
    MPI_Group_translate_ranks(group, size, in, world, ranks);
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    for (int i = 0; i < size; i++)
        res[i] = ranks[i];
    free(in);
    free(ranks);
    *out = res;
    *n = size;
    return PA_OK;
}

/* The message of a call: head, the members' world ranks, the argument bytes.  \return its length or -1. */
static int message(const char *name, const int32_t *members, int n, const void *arg, size_t len, char **out)
{
    pa_mpi__world_head h = {.cmd = PA_MPI__CMD_WORLD, .nmembers = n, .argsize = (int64_t)len};
    snprintf(h.name, sizeof h.name, "%s", name);
    size_t total = sizeof h + (size_t)n * sizeof *members + len;
    char *m = total <= INT32_MAX ? malloc(total) : NULL;
    if (!m)
        return -1;
    memcpy(m, &h, sizeof h);
    memcpy(m + sizeof h, members, (size_t)n * sizeof *members);
    if (len)
        memcpy(m + sizeof h + (size_t)n * sizeof *members, arg, len);
    *out = m;
    return (int)total;
}

/* Runs the handler of a call message on this rank. */
static int run_message(const char *msg)
{
    pa_mpi__world_head h;
    memcpy(&h, msg, sizeof h);
    pa_mpi__world_fn fn = handler_of(h.name);
    if (!fn)
        return pa__err(PA_ERR_NAME, "world call: no handler \"%.31s\" on this rank", h.name);
    const int32_t *members = (const int32_t *)(msg + sizeof h);
    return fn(members, h.nmembers, msg + sizeof h + (size_t)h.nmembers * sizeof *members, (size_t)h.argsize);
}

void pa_mpi__world_run(const char *msg, int len)
{
    (void)len;
    (void)run_message(msg);   /* collective: a failure shows on the array's processes, which run it too */
}

/*
 * Rank 0: grants (sends the call to every idle rank, answers OK) or refuses a call for members, and returns
 * the answer.  The caller holds the draft lock or is the loop that holds it.
 */
static void grant_or_refuse(const char *msg, int len, pa_mpi__result *res)
{
    pa_mpi__world_head h;
    int world = 1, nidle = 0;
    memcpy(&h, msg, sizeof h);
    MPI_Comm_size(pa_mpi__proto(), &world);
    int32_t *idle = malloc((size_t)world * sizeof *idle);
    memset(res, 0, sizeof *res);
    if (!idle) {
        res->status = PA_ERR_NOMEM;
        snprintf(res->msg, sizeof res->msg, "world call: rank 0 is out of memory");
        return;
    }
    if (!handler_of(h.name)) {
        res->status = PA_ERR_NAME;
        snprintf(res->msg, sizeof res->msg, "world call: no handler \"%.31s\" on rank 0", h.name);
    } else {
        int busy = pa_mpi__pool_others((const int32_t *)(msg + sizeof h), h.nmembers, idle, &nidle);
        if (busy > 0) {
            res->status = PA_ERR_UNSUPPORTED;
            snprintf(res->msg, sizeof res->msg, "%.31s needs all %d ranks, but %d outside this process array %s "
                     "busy in other arrays (nested, or beside it)", h.name, world, busy, busy == 1 ? "is" : "are");
        }
    }
    for (int i = 0; res->status == PA_OK && i < nidle; i++)
        MPI_Send(msg, len, MPI_BYTE, idle[i], PA_MPI__TAG_DRAFT, pa_mpi__proto());
    free(idle);
}

void pa_mpi__world_answer(int from)
{
    MPI_Status st;
    pa_mpi__result res;
    int len = 0;
    MPI_Probe(from, PA_MPI__TAG_WORLD, pa_mpi__proto(), &st);
    MPI_Get_count(&st, MPI_BYTE, &len);
    char *msg = malloc(len > (int)sizeof(pa_mpi__world_head) ? (size_t)len : sizeof(pa_mpi__world_head));
    if (!msg)
        abort();   /* the array waits for this answer: failing loudly beats a hang */
    MPI_Recv(msg, len, MPI_BYTE, from, PA_MPI__TAG_WORLD, pa_mpi__proto(), MPI_STATUS_IGNORE);
    grant_or_refuse(msg, len, &res);
    MPI_Send(&res, (int)sizeof res, MPI_BYTE, from, PA_MPI__TAG_WORLD_REPLY, pa_mpi__proto());
    if (res.status == PA_OK)
        (void)run_message(msg);
    free(msg);
}

/* The first process of the array: gets the answer for msg (from rank 0, or as rank 0 itself). */
static void ask(const char *msg, int len, int me, pa_mpi__result *res)
{
    if (me != 0) {
        MPI_Send(msg, len, MPI_BYTE, 0, PA_MPI__TAG_WORLD, pa_mpi__proto());
        MPI_Recv(res, (int)sizeof *res, MPI_BYTE, 0, PA_MPI__TAG_WORLD_REPLY, pa_mpi__proto(), MPI_STATUS_IGNORE);
        return;
    }
    /* Rank 0's own main: no array of its runs unless a background array (a parallel region) holds the lock. */
    if (!pa_mpi__draft_trylock()) {
        memset(res, 0, sizeof *res);
        res->status = PA_ERR_UNSUPPORTED;
        snprintf(res->msg, sizeof res->msg, "world call: a process array started in a parallel region is running, "
                 "so its ranks cannot take part; do this after pa_parallel_end");
        return;
    }
    grant_or_refuse(msg, len, res);
    pa_mpi__draft_unlock();
}

int pa_mpi__world_call(const char *name, const void *arg, size_t len)
{
    pa_mpi__result res;
    int32_t *members = NULL;
    char *msg = NULL;
    int n = 0, here = 0, me = 0, mlen = -1, ready = 0, all = 0, st;
    if (!pa_mpi__running() || !pa_mpi__served())
        return pa__err(PA_ERR_UNSUPPORTED, "%s needs every rank of MPI_COMM_WORLD, and outside pa_mpi_main the "
                       "ranks that do not run this code cannot be asked to take part", name);
    if (!handler_of(name))
        return pa__err(PA_ERR_NAME, "world call: no handler \"%s\"", name);
    MPI_Comm comm = pa_mpi__comm();
    MPI_Comm_rank(comm, &here);
    MPI_Comm_rank(pa_mpi__proto(), &me);
    /* Every process must be ready before rank 0 is asked: once it grants, all of them have to run the call. */
    if (pa_mpi__members(comm, &members, &n) == PA_OK)
        mlen = message(name, members, n, arg, len, &msg);
    ready = mlen >= 0;
    MPI_Allreduce(&ready, &all, 1, MPI_INT, MPI_LAND, comm);
    if (!all) {
        free(msg);
        free(members);
        return pa__err(PA_ERR_NOMEM, "world call %s: a process of the array is out of memory", name);
    }
    memset(&res, 0, sizeof res);
    if (here == 0)
        ask(msg, mlen, me, &res);
    MPI_Bcast(&res, (int)sizeof res, MPI_BYTE, 0, comm);
    res.msg[sizeof res.msg - 1] = '\0';
    if (res.status == PA_OK)
        st = run_message(msg);
    else
        st = pa__err(res.status, "%s", res.msg[0] ? res.msg : "world call refused");
    free(msg);
    free(members);
    return st;
}
