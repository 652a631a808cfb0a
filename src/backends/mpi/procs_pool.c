/*
 * parray — the pool of idle ranks under pa_mpi_main (procs.h describes the protocol).
 *
 * Rank 0 owns the pool: state[r] for every world rank (idle, busy, or kept free in a reserve), rank 0 itself
 * always busy, and home[r], the reserve a rank belongs to (0: the idle pool).  A reserve is set aside for an
 * array by pa_mpi_reserve_procs and known by the world rank of the array's process 0; its ranks are drafted
 * only by processes of that array that call pa_mpi_use_reserved_procs, go back to it when their nested array
 * ends, and all go back to the idle pool with the array's own ranks.  Rank 0 drafts for its own arrays
 * directly, and grants ranks to processes that start nested arrays while it waits for an array's results.
 * Too few idle ranks is an error at once, on whichever process asked; nothing waits for ranks to come free.
 * The same loop answers world calls (procs_world.c), which need to know which ranks are idle.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "procs.h"

enum { IDLE = 0, BUSY = 1, KEPT = 2 };   /* KEPT: free, in the reserve of array home[r] */

static pthread_mutex_t draft_mutex = PTHREAD_MUTEX_INITIALIZER;
static char *state;
static int32_t *home;
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
    for (int r = 1; state && r < world; r++) {
        int member = 0;
        for (int i = 0; i < n && !member; i++)
            member = members[i] == r;
        if (member)
            continue;
        if (state[r] == BUSY)   /* ranks kept in a reserve wait in the idle loop: they take part */
            busy_elsewhere++;
        else
            idle[(*nidle)++] = r;
    }
    return busy_elsewhere;
}

int pa_mpi__idle_init(int size)
{
    world = size;
    state = calloc((size_t)size, 1);
    home = calloc((size_t)size, sizeof *home);
    if (!state || !home) {
        free(state);
        free(home);
        state = NULL;
        home = NULL;
        return pa__err(PA_ERR_NOMEM, "pa_mpi_main: no memory for the pool of %d ranks", size);
    }
    state[0] = BUSY;
    return PA_OK;
}

void pa_mpi__release_all(int size)
{
    pa_mpi__draft_head stop = {.cmd = PA_MPI__CMD_STOP};
    for (int r = 1; r < size; r++)
        MPI_Send(&stop, (int)sizeof stop, MPI_BYTE, r, PA_MPI__TAG_DRAFT, pa_mpi__proto());
    free(state);
    free(home);
    state = NULL;
    home = NULL;
}

/* Whether rank r is free to draft from the idle pool (from 0) or from the reserve of array `from`. */
static int free_in(int r, int from)
{
    return from > 0 ? state[r] == KEPT && home[r] == from : state[r] == IDLE;
}

/* Rank 0: picks n ranks, lowest first, from the idle pool or from reserve `from`, and sets aside `reserve`
 * more idle ranks for the new array (known by ranks[0]).  \return -1, or (nothing taken) the number free. */
static int pick(int n, int reserve, int from, int32_t *ranks)
{
    int avail = 0;
    for (int r = 1; r < world; r++)
        avail += free_in(r, from);
    if (n < 1 || reserve < 0 || avail < n + reserve || (from > 0 && reserve > 0))
        return avail;
    for (int r = 1, i = 0; i < n; r++)
        if (free_in(r, from))
            ranks[i++] = r;
    for (int i = 0; i < n; i++)
        state[ranks[i]] = BUSY;   /* home stays: the idle pool, or the reserve they go back to */
    for (int r = 1, k = 0; k < reserve; r++)
        if (state[r] == IDLE) {
            state[r] = KEPT;
            home[r] = ranks[0];
            k++;
        }
    return -1;
}

/* Rank 0: ranks of an array back (to the pool, or to the reserve they came from), and the array's reserve to
 * the pool.  A reserved rank still busy (a nested array that outlives its parent's) goes to the pool later. */
static void give_back(const int32_t *ranks, int n)
{
    for (int r = 1; n > 0 && r < world; r++)
        if (home[r] == ranks[0]) {
            home[r] = 0;
            if (state[r] == KEPT)
                state[r] = IDLE;
        }
    for (int i = 0; i < n; i++)
        if (ranks[i] > 0 && ranks[i] < world)
            state[ranks[i]] = home[ranks[i]] > 0 ? KEPT : IDLE;
}

static int too_few(const pa_type *t, int n, int reserve, int from, int avail)
{
    int size = 0;   /* the world's size: `world` is known on rank 0 only */
    MPI_Comm_size(pa_mpi__proto(), &size);
    if (from > 0)
        return pa__err(PA_ERR_RANGE, "pa_for over %s: the process array needs %d processes from the reserve of its "
                       "parent array (pa_mpi_use_reserved_procs), which holds %d free now", pa_type_name(t), n,
                       avail);
    if (reserve > 0)
        return pa__err(PA_ERR_RANGE, "pa_for over %s: the process array needs %d processes and %d reserved for it "
                       "(pa_mpi_reserve_procs), %d in all, but %d of the %d are idle (rank 0 runs main and running "
                       "arrays hold theirs; start more with mpirun -np)", pa_type_name(t), n, reserve, n + reserve,
                       avail, size);
    return pa__err(PA_ERR_RANGE, "pa_for over %s: the process array needs %d processes but %d of the %d are idle "
                   "(rank 0 runs main and running arrays hold theirs; start more with mpirun -np)",
                   pa_type_name(t), n, avail, size);
}

/* Rank 0: answers a request for ranks from another process. */
static void grant(int from)
{
    int32_t req[3] = {0, 0, 0};
    MPI_Recv(req, 3, MPI_INT32_T, from, PA_MPI__TAG_REQ, pa_mpi__proto(), MPI_STATUS_IGNORE);
    int n = req[0];
    int32_t *reply = calloc((size_t)(n > 0 ? n : 0) + 2, sizeof *reply);
    if (!reply) {
        int32_t fail[2] = {-1, 0};
        MPI_Send(fail, 2, MPI_INT32_T, from, PA_MPI__TAG_GRANT, pa_mpi__proto());
        return;
    }
    int ok = n > 0 && n <= world && req[1] >= 0 && req[1] <= world && req[2] >= 0 && req[2] < world;
    int avail = ok ? pick(n, req[1], req[2], reply + 2) : 0;
    reply[0] = avail < 0 ? 0 : 1;
    reply[1] = avail < 0 ? n : avail;
    MPI_Send(reply, avail < 0 ? n + 2 : 2, MPI_INT32_T, from, PA_MPI__TAG_GRANT, pa_mpi__proto());
    free(reply);
}

/* Rank 0: takes back ranks another process has finished with. */
static void take_back(int from, int count)
{
    int32_t *ranks = malloc((size_t)count * sizeof *ranks);
    MPI_Recv(ranks, count, MPI_INT32_T, from, PA_MPI__TAG_FREE, pa_mpi__proto(), MPI_STATUS_IGNORE);
    if (ranks)
        give_back(ranks, count);
    free(ranks);
}

int pa_mpi__pool_take(const pa_type *t, int n, int reserve, int from, int32_t *ranks)
{
    int me = 0;
    MPI_Comm_rank(pa_mpi__proto(), &me);
    if (me == 0) {
        int avail = pick(n, reserve, from, ranks);
        return avail < 0 ? PA_OK : too_few(t, n, reserve, from, avail);
    }
    int32_t req[3] = {n, reserve, from}, *reply = malloc(((size_t)n + 2) * sizeof *reply);
    if (!reply)
        return pa__err(PA_ERR_NOMEM, "pa_for over %s: no memory for %d ranks", pa_type_name(t), n);
    MPI_Send(req, 3, MPI_INT32_T, 0, PA_MPI__TAG_REQ, pa_mpi__proto());
    MPI_Recv(reply, n + 2, MPI_INT32_T, 0, PA_MPI__TAG_GRANT, pa_mpi__proto(), MPI_STATUS_IGNORE);
    int st = reply[0] == 0 ? PA_OK : reply[0] < 0 ? pa__err(PA_ERR_NOMEM, "pa_for over %s: rank 0 is out of "
             "memory", pa_type_name(t)) : too_few(t, n, reserve, from, reply[1]);
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
        give_back(ranks, n);
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
