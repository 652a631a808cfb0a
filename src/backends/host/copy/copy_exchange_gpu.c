/*
 * parray — the all-to-all between pthd threads whose arrays are on different GPUs (manual section 1.4 with the
 * local arrays in dmem, each thread on its own GPU), over NCCL: the route the processes' copies take
 * (src/backends/mpi/dist_nccl.c), with one communicator per thread in one process.
 *
 * Each thread's plan (copy_exchange_gpu_plan.c) lists what it sends to and receives from every peer thread, cut
 * into chunks that are packed, sent as one NCCL group and unpacked on three streams.
 *
 * The route is agreed on by all threads of the array: each publishes its current GPU, whether its arrays are
 * on it, the chunk counts it can cut its blocks into and whether the route is predicted cheaper than the pulls
 * (cost model: NCCL's latency per chunk and rate against a synchronous peer copy per source thread at the peer
 * rate), meets the others (spinning some tens of microseconds, then asleep: a condition variable's wake-up costs
 * as much as a small transfer), and every thread reaches the same answer.  Where a thread's arrays are not on its current GPU, two
 * threads share a GPU, NCCL cannot be loaded or the pulls are predicted cheaper, nothing has moved and the pulls
 * run (copy_exchange.c); the explanation says why.  PA_PTHD_ROUTE=nccl|peer names a route.
 *
 * Communicators (copy_exchange_gpu_comms.c): a set of one per thread, borrowed by the thread array's launch at its
 * first such copy (thread 0 borrows it, every thread joins a fresh one with its GPU current), given back when
 * the launch ends (pa__pthd_exchange_gpu_end).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy_exchange_gpu.h"
#include "copy_exchange_gpu_internal.h"

#define SPINS 20000                /* a meeting's polls before sleeping: some tens of microseconds */

enum { ROUTE_AUTO, ROUTE_NCCL, ROUTE_PEER };
static const char *const route_words[] = {"auto", "nccl", "peer"};

/* For tests (pa__pthd_exchange_gpu_test): device collectives in place of the backends', host memory allowed. */
static _Atomic(const pa__devcomm_ops *) test_ops;

void pa__pthd_exchange_gpu_test(const pa__devcomm_ops *ops)
{
    atomic_store(&test_ops, ops);
}

/* The backends' device collectives, asked once they are found (the probe formats NCCL's version each time). */
static const pa__devcomm_ops *devcomm(const char **why)
{
    static _Atomic(const pa__devcomm_ops *) found;
    const pa__devcomm_ops *dc = atomic_load(&found);
    if (!dc && (dc = pa__backends_devcomm(why)))
        atomic_store(&found, dc);
    return dc;
}

/* ---- what the threads of a launch share ------------------------------------------------------------------------ */

typedef struct xslot {
    int dev, ok, cheaper, direct_only, status;
    unsigned feasible;
    const char *why;
    cset *set;                   /* thread 0's: the set its launch holds */
} xslot;

typedef struct xshared {
    int64_t n;
    atomic_long arrived, gen;
    pthread_mutex_t mu;          /* for the threads that stop spinning */
    pthread_cond_t cv;
    int sleepers;
    cset *set;                   /* the communicators the launch holds (thread 0 changes it) */
    int *calls;                  /* per thread: its all-to-alls so far (slots alternate) */
    xslot *slot[2];
} xshared;

static xshared no_memory;        /* a launch whose shared state could not be made: the pulls run */

static xshared *shared_of(pa__launch *l)
{
    pthread_mutex_lock(&l->mu);
    if (!l->xgpu) {
        int64_t n = l->shape.n;
        xshared *x = calloc(1, sizeof *x);
        if (x && (x->calls = calloc((size_t)n, sizeof *x->calls)) &&
            (x->slot[0] = calloc((size_t)n * 2, sizeof(xslot)))) {
            x->slot[1] = x->slot[0] + n;
            x->n = n;
            pthread_mutex_init(&x->mu, NULL);
            pthread_cond_init(&x->cv, NULL);
            l->xgpu = x;
        } else {
            if (x)
                free(x->calls);
            free(x);
            l->xgpu = &no_memory;
        }
    }
    xshared *x = l->xgpu;
    pthread_mutex_unlock(&l->mu);
    return x;
}

void pa__pthd_exchange_gpu_end(void *xgpu)
{
    xshared *x = xgpu;
    if (!x || x == &no_memory)
        return;
    pa__xg_give_back(x->set);
    pthread_cond_destroy(&x->cv);
    pthread_mutex_destroy(&x->mu);
    free(x->calls);
    free(x->slot[0]);
    free(x);
}

/* Every thread of the array meets here: spinning a while (the threads of a GPU exchange run on cores of their
 * own, and a condition variable's wake-up costs as much as a small transfer), then asleep. */
static void meet(xshared *x)
{
    long g = atomic_load(&x->gen);
    if (atomic_fetch_add(&x->arrived, 1) + 1 == x->n) {
        atomic_store(&x->arrived, 0);
        pthread_mutex_lock(&x->mu);
        atomic_fetch_add(&x->gen, 1);
        if (x->sleepers)
            pthread_cond_broadcast(&x->cv);
        pthread_mutex_unlock(&x->mu);
        return;
    }
    for (int i = 0; i < SPINS; i++)
        if (atomic_load_explicit(&x->gen, memory_order_acquire) != g)
            return;
    pthread_mutex_lock(&x->mu);
    x->sleepers++;
    while (atomic_load(&x->gen) == g)
        pthread_cond_wait(&x->cv, &x->mu);
    x->sleepers--;
    pthread_mutex_unlock(&x->mu);
}

/* ---- the agreement ---------------------------------------------------------------------------------------------- */

/* The calling thread's own checks, published for the others. */
static void check_mine(xslot *me, const pa__devcomm_ops *dc, const void *dst, const void *src, int host)
{
    int sd = -1, dd = -1;
    me->ok = 0;
    if (dc->current(&me->dev) != PA_OK) {
        me->dev = -1;
        me->why = "no GPU is current on it";
    } else if (host) {   /* under test: host memory, the devices the test's collectives say */
        me->ok = 1;
    } else if ((src && pa__backends_pointer_device(src, "the all-to-all's source", &sd) != PA_OK) ||
               (dst && pa__backends_pointer_device(dst, "the all-to-all's destination", &dd) != PA_OK)) {
        me->why = "an array is not device memory that CUDA knows";
    } else if ((src && sd != me->dev) || (dst && dd != me->dev)) {
        me->why = "its arrays are not on its current GPU (pa_cuda_set_device before pa_create)";
    } else {
        me->ok = 1;
    }
}

/* The agreement: every thread reads the same slots, so every thread gets the same answer.  \return 1 for NCCL,
 * else 0 with the reason in why. */
static int agree(const xslot *all, int64_t n, const gplan *p, int forced, char *why, size_t len)
{
    for (int64_t t = 0; t < n; t++)
        if (!all[t].ok) {
            snprintf(why, len, "thread %lld: %s", (long long)t, all[t].why);
            return 0;
        }
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i + 1; j < n; j++)
            if (all[i].dev == all[j].dev) {
                snprintf(why, len, "threads %lld and %lld share GPU %d (NCCL needs one GPU per thread)", (long long)i,
                         (long long)j, all[i].dev);
                return 0;
            }
    int cheaper = 1;
    for (int64_t t = 0; t < n; t++)
        cheaper &= all[t].cheaper;
    if (!cheaper && !forced) {
        snprintf(why, len, "the pulls are predicted cheaper: %.1f us against NCCL's %.1f us", p->ns_pull / 1e3,
                 p->ns_nccl / 1e3);
        return 0;
    }
    return 1;
}

int pa__pthd_exchange_gpu(const pa__dist_split *d, const pa__dist_split *s, size_t elm, const pa_ctx *ctx,
                          void *dst, const void *src, const char *names, uint64_t dser, uint64_t sser, int *taken)
{
    static atomic_int warned, forced_warned;
    const char *nowhy = NULL;
    char why[240];
    *taken = 0;
    int route = pa__env_choice("PA_PTHD_ROUTE", route_words, 3, ROUTE_AUTO, &warned);
    const pa__mem_ops *mem = pa__xg_memory(d);
    const pa__devcomm_ops *dc = atomic_load(&test_ops);
    int64_t n = pa_ctx_size(ctx), tid = pa_tid(ctx);
    if (route == ROUTE_PEER || (!mem && !dc) || mem != pa__xg_memory(s) || n < 2 || !ctx->launch)
        return PA_OK;
    if (!dc)
        dc = devcomm(&nowhy);
    if (!dc) {   /* the same answer on every thread of the process */
        if (route == ROUTE_NCCL && atomic_exchange(&forced_warned, 1) == 0)
            fprintf(stderr, "parray: PA_PTHD_ROUTE=nccl is not possible here (%s); the pulls run\n", nowhy);
        return PA_OK;
    }
    xshared *x = shared_of(ctx->launch);
    if (x == &no_memory || x->n != n || tid < 0 || tid >= n)
        return PA_OK;
    int g = x->calls[tid]++ & 1;
    xslot *all = x->slot[g], *mine = &all[tid];
    gplan *p = NULL;
    memset(mine, 0, sizeof *mine);
    check_mine(mine, dc, dst, src, mem == NULL);
    if (mine->ok && pa__xg_plan_for(d, s, elm, tid, n, dser, sser, mine->dev, dc, mem, &p) != PA_OK)
        mine->ok = 0, mine->why = "its plan could not be made";
    if (mine->ok && ((!src && p->sent + p->scnt[tid] > 0) || (!dst && p->recvd + p->rcnt[tid] > 0)))
        mine->ok = 0, mine->why = "an array it needs is NULL";
    if (mine->ok && src && dst && p->lo <= p->hi && p->dlo <= p->dhi &&
        (const char *)src + pa__bytes(p->lo, elm) < (char *)dst + pa__bytes(p->dhi + 1, elm) &&
        (char *)dst + pa__bytes(p->dlo, elm) < (const char *)src + pa__bytes(p->hi + 1, elm))
        mine->ok = 0, mine->why = "its source and destination overlap";
    if (p) {
        mine->feasible = p->feasible;
        mine->direct_only = p->direct_only;
        mine->cheaper = p->ns_nccl <= p->ns_pull;
    }
    if (tid == 0)
        mine->set = x->set;
    meet(x);
    if (!agree(all, n, p, route == ROUTE_NCCL, why, sizeof why)) {
        if (p)
            snprintf(p->route, sizeof p->route, "pulls (the NCCL route is not taken: %s)", why);
        if (route == ROUTE_NCCL && tid == 0 && atomic_exchange(&forced_warned, 1) == 0)
            fprintf(stderr, "parray: PA_PTHD_ROUTE=nccl is not possible for this copy (%s); the pulls run\n", why);
        pa__xg_plan_release(p);
        return PA_OK;
    }
    /* NCCL: the chunk count every thread can cut its blocks into, at most the wanted one */
    *taken = 1;
    unsigned feasible = ~0u;
    int direct = 1, C = 1;
    for (int64_t t = 0; t < n; t++)
        feasible &= all[t].feasible, direct &= all[t].direct_only;
    for (int c = 1, bit = 0; c <= (direct ? 1 : p->want); c *= 2, bit++)
        if (feasible & (1u << bit))
            C = c;
    cset *set = all[0].set;
    int need = !set || set->bad || set->n != n;
    for (int64_t t = 0; t < n && !need; t++)
        need = set->dev[t] != all[t].dev;
    if (need) {   /* thread 0 borrows the set for these GPUs (made fresh when none is idle) */
        if (tid == 0) {
            int *devs = malloc((size_t)n * sizeof *devs);
            pa__xg_give_back(x->set);
            x->set = NULL;
            for (int64_t t = 0; devs && t < n; t++)
                devs[t] = all[t].dev;
            x->set = devs ? pa__xg_acquire(dc, devs, (int)n) : NULL;
            free(devs);
        }
        meet(x);
        set = x->set;
    }
    int st = PA_OK, fresh = set && !set->bad && set->fresh;
    if (!set || set->bad)
        st = pa__err(PA_ERR_SYS, "copy %s: NCCL route: the communicators of %lld GPUs could not be made (no "
                     "memory, or ncclGetUniqueId failed)", names, (long long)n);
    if (st == PA_OK)
        st = pa__xg_prepare(p, C);
    if (fresh) {   /* every thread joins, whatever failed before, so that none waits for it in NCCL */
        int ist = dc->comm_init(set->id, (int)tid, (int)n, &set->comm[tid]);
        st = st != PA_OK ? st : ist;
    }
    mine->status = st;
    meet(x);
    int64_t failed = -1;
    for (int64_t t = 0; t < n && failed < 0; t++)
        if (all[t].status != PA_OK)
            failed = t;
    if (fresh && tid == 0) {   /* read again only after the next meeting */
        set->fresh = 0;
        set->bad = failed >= 0;
    }
    if (failed >= 0) {
        if (st == PA_OK)
            st = pa__err(PA_ERR_SYS, "copy %s: NCCL route: thread %lld could not set up its part (its error says "
                         "why)", names, (long long)failed);
        pa__xg_plan_release(p);
        return st;
    }
    st = pa__xg_run(p, set->comm[tid], dst, src);
    int direct_n = 0, all_n = 0;
    for (int64_t i = 0; i < (int64_t)n * C; i++) {
        if (p->send[i].n)
            all_n++, direct_n += p->send[i].direct;
        if (p->recv[i].n)
            all_n++, direct_n += p->recv[i].direct;
    }
    snprintf(p->route, sizeof p->route, "NCCL (one communicator per thread's GPU; %d chunk%s per peer, packing, "
             "transfers and unpacking overlapped; %d of %d slices sent or received in place%s; predicted %.1f us, "
             "the pulls %.1f us)", C, C == 1 ? "" : "s", direct_n, all_n, !p->self ? "" : p->self_direct ?
             "; own block sent to itself in the first group" : "; own block copied on the GPU", p->ns_nccl / 1e3,
             p->ns_pull / 1e3);
    pa__xg_plan_release(p);
    return st;
}

int pa__pthd_exchange_gpu_explain(const pa__dist_split *d, const pa__dist_split *s, size_t elm, const pa_ctx *ctx,
                                  char *buf, size_t len, uint64_t dser, uint64_t sser)
{
    static atomic_int warned;
    const char *why = NULL;
    int route = pa__env_choice("PA_PTHD_ROUTE", route_words, 3, ROUTE_AUTO, &warned);
    const pa__mem_ops *mem = pa__xg_memory(d);
    const pa__devcomm_ops *dc = atomic_load(&test_ops);
    int64_t n = pa_ctx_size(ctx);
    if ((!mem && !dc) || mem != pa__xg_memory(s))
        return snprintf(buf, len, "; route: pulls (the NCCL route needs both sides in device memory)");
    if (route == ROUTE_PEER)
        return snprintf(buf, len, "; route: pulls (PA_PTHD_ROUTE=peer)");
    if (n < 2)
        return snprintf(buf, len, "; route: pulls (one thread)");
    if (!dc)
        dc = devcomm(&why);
    if (!dc)
        return snprintf(buf, len, "; route: pulls (the NCCL route is not possible: %s)", why);
    int dev = -1;
    char route_text[400];
    if (dc->current(&dev) != PA_OK)
        return snprintf(buf, len, "; route: pulls (no GPU is current on this thread)");
    if (pa__xg_route_of(d, s, elm, pa_tid(ctx), n, dser, sser, dev, route_text, sizeof route_text))
        return snprintf(buf, len, "; route: %s", route_text);
    return snprintf(buf, len, "; route: NCCL or pulls, agreed on at the first run (every thread's GPU is "
                    "compared)%s", route == ROUTE_NCCL ? ", NCCL asked for (PA_PTHD_ROUTE=nccl)" : "");
}
