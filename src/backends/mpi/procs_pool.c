/*
 * parray — the pool of idle ranks under pa_mpi_main (procs.h describes the protocol).
 *
 * Rank 0 owns the pool: busy[r] for every world rank, rank 0 itself always busy.  It drafts for its own arrays
 * directly, and grants ranks to processes that start nested arrays while it waits for an array's results.
 * Too few idle ranks is an error at once, on whichever process asked; nothing waits for ranks to come free.
 * The same loop answers world calls (procs_world.c), which need to know which ranks are idle.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "procs.h"

static pthread_mutex_t draft_mutex = PTHREAD_MUTEX_INITIALIZER;
static char *busy;
static int world;

void pa_mpi__draft_lock(void)
{
    pthread_mutex_lock(&draft_mutex);
}

void pa_mpi__draft_unlock(void)
{
    pthread_mutex_unlock(&draft_mutex);
}

int pa_mpi__draft_trylock(void)
{
    return pthread_mutex_trylock(&draft_mutex) == 0;
}

int pa_mpi__pool_others(const int32_t *members, int n, int32_t *idle, int *nidle)
{
    int busy_elsewhere = 0;
    *nidle = 0;
    for (int r = 1; busy && r < world; r++) {
        int member = 0;
        for (int i = 0; i < n && !member; i++)
            member = members[i] == r;
        if (member)
            continue;
        if (busy[r])
            busy_elsewhere++;
        else
            idle[(*nidle)++] = r;
    }
    return busy_elsewhere;
}

int pa_mpi__idle_init(int size)
{
    world = size;
    busy = calloc((size_t)size, 1);
    if (!busy)
        return pa__err(PA_ERR_NOMEM, "pa_mpi_main: no memory for the pool of %d ranks", size);
    busy[0] = 1;
    return PA_OK;
}

void pa_mpi__release_all(int size)
{
    pa_mpi__draft_head stop = {.cmd = PA_MPI__CMD_STOP};
    for (int r = 1; r < size; r++)
        MPI_Send(&stop, (int)sizeof stop, MPI_BYTE, r, PA_MPI__TAG_DRAFT, pa_mpi__proto());
    free(busy);
    busy = NULL;
}

/* Rank 0: picks n idle ranks, lowest first.  \return PA_OK, or the number idle (>= 0) when too few. */
static int pick(int n, int32_t *ranks)
{
    int idle = 0;
    for (int r = 0; r < world; r++)
        idle += !busy[r];
    if (idle < n)
        return idle;
    for (int r = 0, i = 0; i < n; r++)
        if (!busy[r])
            ranks[i++] = r;
    for (int i = 0; i < n; i++)
        busy[ranks[i]] = 1;
    return -1;
}

static int too_few(const pa_type *t, int n, int idle)
{
    return pa__err(PA_ERR_RANGE, "pa_for over %s: the process array needs %d processes but %d of the %d are idle "
                   "(rank 0 runs main and running arrays hold theirs; start more with mpirun -np)",
                   pa_type_name(t), n, idle, world);
}

/* Rank 0: answers a request for ranks from another process. */
static void grant(int from)
{
    int32_t n = 0;
    MPI_Recv(&n, 1, MPI_INT32_T, from, PA_MPI__TAG_REQ, pa_mpi__proto(), MPI_STATUS_IGNORE);
    int32_t *reply = calloc((size_t)(n > 0 ? n : 0) + 2, sizeof *reply);
    if (!reply) {
        int32_t fail[2] = {-1, 0};
        MPI_Send(fail, 2, MPI_INT32_T, from, PA_MPI__TAG_GRANT, pa_mpi__proto());
        return;
    }
    int idle = n > 0 && n <= world ? pick(n, reply + 2) : 0;
    reply[0] = idle < 0 ? 0 : 1;
    reply[1] = idle < 0 ? n : idle;
    MPI_Send(reply, idle < 0 ? n + 2 : 2, MPI_INT32_T, from, PA_MPI__TAG_GRANT, pa_mpi__proto());
    free(reply);
}

/* Rank 0: takes back ranks another process has finished with. */
static void take_back(int from, int count)
{
    int32_t *ranks = malloc((size_t)count * sizeof *ranks);
    MPI_Recv(ranks, count, MPI_INT32_T, from, PA_MPI__TAG_FREE, pa_mpi__proto(), MPI_STATUS_IGNORE);
    for (int i = 0; ranks && i < count; i++)
        busy[ranks[i]] = 0;
    free(ranks);
}

int pa_mpi__pool_take(const pa_type *t, int n, int32_t *ranks)
{
    int me = 0;
    MPI_Comm_rank(pa_mpi__proto(), &me);
    if (me == 0) {
        int idle = pick(n, ranks);
        return idle < 0 ? PA_OK : too_few(t, n, idle);
    }
    int32_t req = n, *reply = malloc(((size_t)n + 2) * sizeof *reply);
    if (!reply)
        return pa__err(PA_ERR_NOMEM, "pa_for over %s: no memory for %d ranks", pa_type_name(t), n);
    MPI_Send(&req, 1, MPI_INT32_T, 0, PA_MPI__TAG_REQ, pa_mpi__proto());
    MPI_Recv(reply, n + 2, MPI_INT32_T, 0, PA_MPI__TAG_GRANT, pa_mpi__proto(), MPI_STATUS_IGNORE);
    int st = reply[0] == 0 ? PA_OK : reply[0] < 0 ? pa__err(PA_ERR_NOMEM, "pa_for over %s: rank 0 is out of "
             "memory", pa_type_name(t)) : too_few(t, n, reply[1]);
    if (st == PA_OK)
        memcpy(ranks, reply + 2, (size_t)n * sizeof *ranks);
    free(reply);
    return st;
}

void pa_mpi__pool_give(const int32_t *ranks, int n)
{
    int me = 0;
    MPI_Comm_rank(pa_mpi__proto(), &me);
    if (me == 0) {
        for (int i = 0; i < n; i++)
            busy[ranks[i]] = 0;
        return;
    }
    /* Synchronous: when this returns, rank 0 has taken the ranks back, so a world call that this process's
     * array makes next (after its processes have met) never finds them still busy. */
    MPI_Ssend(ranks, n, MPI_INT32_T, 0, PA_MPI__TAG_FREE, pa_mpi__proto());
}

/* Records one drafted rank's result; the lowest tid that failed decides the status. */
static void result_of(const pa_type *t, const int32_t *ranks, int n, int from, int *st)
{
    pa_mpi__result res;
    MPI_Recv(&res, (int)sizeof res, MPI_BYTE, from, PA_MPI__TAG_DONE, pa_mpi__proto(), MPI_STATUS_IGNORE);
    int tid = 0;
    while (tid < n && ranks[tid] != from)
        tid++;
    if (res.status != PA_OK && *st == PA_OK) {
        res.msg[sizeof res.msg - 1] = '\0';
        const char *c = strstr(res.msg, ": ");
        *st = pa__err(res.status, "pa_for over %s: process %d (rank %d) failed: %s", pa_type_name(t), tid, from,
                      c ? c + 2 : res.msg);
    }
}

int pa_mpi__collect(const pa_type *t, const int32_t *ranks, int n)
{
    int st = PA_OK, me = 0, left = n;
    MPI_Comm_rank(pa_mpi__proto(), &me);
    if (me != 0) {   /* a nested array: only its own processes report here */
        for (int i = 0; i < n; i++)
            result_of(t, ranks, n, ranks[i], &st);
        return st;
    }
    while (left > 0) {   /* rank 0: results of its array, and other processes' requests meanwhile */
        MPI_Status s;
        int count = 0;
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, pa_mpi__proto(), &s);
        if (s.MPI_TAG == PA_MPI__TAG_DONE) {
            result_of(t, ranks, n, s.MPI_SOURCE, &st);
            left--;
        } else if (s.MPI_TAG == PA_MPI__TAG_REQ) {
            grant(s.MPI_SOURCE);
        } else if (s.MPI_TAG == PA_MPI__TAG_FREE) {
            MPI_Get_count(&s, MPI_INT32_T, &count);
            take_back(s.MPI_SOURCE, count);
        } else if (s.MPI_TAG == PA_MPI__TAG_WORLD) {
            pa_mpi__world_answer(s.MPI_SOURCE);
        }
    }
    return st;
}
