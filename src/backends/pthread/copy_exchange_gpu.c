/*
 * parray — the all-to-all between pthd threads whose arrays are on different GPUs (manual section 1.4 with the
 * local arrays in dmem, each thread on its own GPU), over NCCL: the route the processes' copies take
 * (src/backends/mpi/dist_nccl.c), with one communicator per thread in one process.
 *
 * Each thread's plan lists, by peer thread, the elements it sends and receives in the order of their flat index
 * (so that the sender's k-th element to a peer is the receiver's k-th from it), as one layout per peer (affine
 * where the offsets are, else gathered).  Every block is cut into C chunks (slices of those layouts,
 * src/core/layout_slice.h) and pipelined over three streams as the processes' route does: the pack stream packs
 * chunk c into the send buffer (nothing where the slice is one contiguous run: NCCL then reads the array), the
 * transfer stream (of the highest priority) runs chunk c's sends and receives as one NCCL group, the unpack
 * stream unpacks it; the own block is copied on a fourth stream.  All after the caller's earlier work on the
 * legacy default stream, and the thread waits for all four before pa_copy returns.
 *
 * The route is agreed on by all threads of the array: each publishes its current GPU, whether its arrays are
 * on it, the chunk counts it can cut its blocks into and whether the route is predicted cheaper than the pulls
 * (cost model: NCCL's latency per chunk and rate against a synchronous peer copy per source thread at the peer
 * rate), meets the others (a spinning barrier: a condition variable's wake-ups cost as much as a small
 * transfer), and every thread reaches the same answer.  Where a thread's arrays are not on its current GPU, two
 * threads share a GPU, NCCL cannot be loaded or the pulls are predicted cheaper, nothing has moved and the pulls
 * run (copy_exchange.c); the explanation says why.  PA_PTHD_ROUTE=nccl|peer names a route.
 *
 * Communicators: a set of one per thread (rank t of n on thread t's GPU: thread 0 makes the id, every thread
 * joins with its own GPU current) is borrowed by the thread array's launch at its first such copy and given back
 * when the launch ends; idle sets are kept for the next launch over the same GPUs (at most SETS of them) and
 * destroyed at exit.  Plans (slices, buffers, streams) are cached per thread and GPU (PLANS of them).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "copy_dist_key.h"
#include "copy_exchange_gpu.h"
#include "layout_slice.h"
#include "lru.h"

#define MAX_CHUNKS 16
#define CHUNK_BYTES (32LL << 20)   /* aim per peer and chunk, as the processes' route */
#define ID_MAX 256
#define PLANS 64
#define SETS 8
#define SPINS 20000           /* a meeting's polls before sleeping: some tens of microseconds */

enum { S_PACK, S_XFER, S_UNPACK, S_SELF, NSTREAMS };
enum { ROUTE_AUTO, ROUTE_NCCL, ROUTE_PEER };
static const char *const route_words[] = {"auto", "nccl", "peer"};

/* For tests (pa__pthd_exchange_gpu_test): device collectives in place of the backends', host memory allowed. */
static _Atomic(const pa__devcomm_ops *) test_ops;

void pa__pthd_exchange_gpu_test(const pa__devcomm_ops *ops)
{
    atomic_store(&test_ops, ops);
}

/* ---- a thread's plan --------------------------------------------------------------------------------------- */

typedef struct gkey {
    pa__pthd_key k;
    int dev;                     /* the thread's GPU: its buffers and streams are there */
} gkey;

typedef struct gplan {
    pa__lru_entry lru;
    gkey key;
    atomic_int busy;             /* a run holds it (a second, concurrent one makes its own) */
    int cached;
    const pa__devcomm_ops *dc;
    const pa__mem_ops *mem;      /* the arrays' (dmem; NULL: host memory, under test) */
    const pa__mem_ops *bufmem;   /* the buffers' */
    size_t elm;
    int n, me;
    int64_t *scnt, *sdsp, *rcnt, *rdsp;   /* elements per peer; dsp: the block's place in the buffer */
    pa__layout *sl, *rl;         /* per peer: the local offsets of the elements sent to it (received from it) */
    int64_t *stab, *rtab;        /* the offset lists that gathered ones among them point into */
    int64_t sent, recvd;         /* elements to and from the other threads */
    int64_t lo, hi, dlo, dhi;    /* the source's and the destination's offsets reached */
    int64_t busiest;             /* bytes the busiest thread sends to or receives from the others */
    unsigned feasible;           /* bit i: the blocks cut into 2^i chunks */
    int want, direct_only;
    double ns_nccl, ns_pull;
    int chunks;                  /* the slices below were made for; 0: none yet */
    pa__slice *send, *recv;      /* [q * chunks + c] */
    pa__plan *self;
    int self_direct;             /* both sides of the own block contiguous: a send to itself in the first group */
    int64_t self_sbase, self_rbase;
    void *sbuf, *rbuf, *scookie, *rcookie;
    size_t sbytes, rbytes;
    void *stream[NSTREAMS];
    void *ev_start, *ev_packed[MAX_CHUNKS], *ev_recvd[MAX_CHUNKS];
    pa__xfer *xs, *xr;
    char route[360];             /* the last run's route, for the explanation */
} gplan;

static const pa__mem_ops *device_ops(const pa__dist_split *x)
{
    const pa__mem_ops *ops = strcmp(x->memory_mtt, "any") ? pa__mem_find(x->memory_mtt) : NULL;
    return ops && !ops->host_accessible ? ops : NULL;
}

static void drop_slices(gplan *p)
{
    for (int64_t i = 0; i < (int64_t)p->n * p->chunks; i++) {
        pa__plan_unref(p->send[i].plan);
        pa__plan_unref(p->recv[i].plan);
    }
    free(p->send);
    free(p->recv);
    p->send = p->recv = NULL;
    p->chunks = 0;
}

static void gplan_free(gplan *p)
{
    if (!p)
        return;
    drop_slices(p);
    pa__plan_unref(p->self);
    if (p->dc) {
        for (int i = 0; i < NSTREAMS; i++)
            p->dc->stream_free(p->stream[i]);
        p->dc->event_free(p->ev_start);
        for (int c = 0; c < MAX_CHUNKS; c++) {
            p->dc->event_free(p->ev_packed[c]);
            p->dc->event_free(p->ev_recvd[c]);
        }
    }
    if (p->sbuf)
        p->bufmem->free(p->sbuf, p->sbytes, p->scookie);
    if (p->rbuf)
        p->bufmem->free(p->rbuf, p->rbytes, p->rcookie);
    free(p->scnt);
    free(p->sl);
    free(p->stab);
    free(p->rtab);
    free(p->xs);
    free(p);
}

/* The chunks wanted for the busiest thread's bytes per peer (PA_NCCL_CHUNKS forces a count, as for processes). */
static int chunks_for(int64_t busiest, int n)
{
    static atomic_int warned;
    int64_t want = busiest / (n > 1 ? n - 1 : 1) / CHUNK_BYTES;
    long forced = pa__env_int("PA_NCCL_CHUNKS", 1, MAX_CHUNKS, 0, "chosen by size", &warned);
    if (forced > 0)
        want = forced;
    return want < 1 ? 1 : want > MAX_CHUNKS ? MAX_CHUNKS : (int)want;
}

/* The counts between every pair of threads (m[from * n + to]) and the busiest thread's bytes to or from others. */
static int pair_counts(const pa__dist_split *d, const pa__dist_split *s, int64_t n, size_t elm, int64_t *m,
                       int64_t *busiest)
{
    int64_t total = d->pid.size;
    pa__pthd_walker wd, ws;
    pa__pthd_walk_start(&wd, &d->pid);
    pa__pthd_walk_start(&ws, &s->pid);
    for (int64_t k = 0; k < total; k++, pa__pthd_walk_next(&wd), pa__pthd_walk_next(&ws)) {
        int64_t pd = wd.off, ps = ws.off;
        if (pd < 0 || pd >= n || ps < 0 || ps >= n)
            return pa__err(PA_ERR_RANGE, "all-to-all between threads: element %lld lives on thread %lld, but the "
                           "array has %lld threads", (long long)k, (long long)(pd < 0 || pd >= n ? pd : ps),
                           (long long)n);
        m[ps * n + pd]++;
    }
    *busiest = 0;
    for (int64_t t = 0; t < n; t++) {
        int64_t out = 0, in = 0;
        for (int64_t q = 0; q < n; q++)
            if (q != t)
                out += m[t * n + q], in += m[q * n + t];
        int64_t b = pa__bytes(out > in ? out : in, elm);
        *busiest = b > *busiest ? b : *busiest;
    }
    return PA_OK;
}

/* Lists this thread's elements by peer (flat-index order) and makes the per-peer layouts. */
static int list_peers(gplan *p, const pa__dist_split *d, const pa__dist_split *s)
{
    int n = p->n, me = p->me;
    int64_t total = d->pid.size, ns = 0, nr = 0;
    int64_t *spos = calloc((size_t)n * 2, sizeof *spos), *rpos = spos ? spos + n : NULL;
    if (!spos)
        return pa__err(PA_ERR_NOMEM, "all-to-all between threads: no memory for %d positions", 2 * n);
    for (int q = 0; q < n; q++) {
        spos[q] = ns, ns += p->scnt[q];
        rpos[q] = nr, nr += p->rcnt[q];
    }
    p->stab = malloc((size_t)(ns ? ns : 1) * sizeof *p->stab);
    p->rtab = malloc((size_t)(nr ? nr : 1) * sizeof *p->rtab);
    if (!p->stab || !p->rtab) {
        free(spos);
        return pa__err(PA_ERR_NOMEM, "all-to-all between threads: no memory to list %lld elements",
                       (long long)(ns + nr));
    }
    int64_t *sstart = malloc((size_t)n * 2 * sizeof *sstart);
    if (!sstart) {
        free(spos);
        return pa__err(PA_ERR_NOMEM, "all-to-all between threads: no memory for %d positions", 2 * n);
    }
    memcpy(sstart, spos, (size_t)n * 2 * sizeof *sstart);
    p->lo = p->dlo = INT64_MAX;
    p->hi = p->dhi = INT64_MIN;
    pa__pthd_walker wd, ws, wld, wls;   /* the locals' walkers serve splits that do not pack */
    pa__pthd_walk_start(&wd, &d->pid);
    pa__pthd_walk_start(&ws, &s->pid);
    pa__pthd_walk_start(&wld, &d->local);
    pa__pthd_walk_start(&wls, &s->local);
    for (int64_t k = 0; k < total; k++, pa__pthd_walk_next(&wd), pa__pthd_walk_next(&ws), pa__pthd_walk_next(&wld),
                                       pa__pthd_walk_next(&wls)) {
        int64_t pd = wd.off, ps = ws.off;
        if (ps == me) {
            int64_t o = s->pack ? pa__dist_local(s, k) : wls.off;
            p->stab[spos[pd]++] = o;
            p->lo = o < p->lo ? o : p->lo;
            p->hi = o > p->hi ? o : p->hi;
        }
        if (pd == me) {
            int64_t o = d->pack ? pa__dist_local(d, k) : wld.off;
            p->rtab[rpos[ps]++] = o;
            p->dlo = o < p->dlo ? o : p->dlo;
            p->dhi = o > p->dhi ? o : p->dhi;
        }
    }
    int gathered = 0;
    for (int q = 0; q < n; q++) {
        if (p->scnt[q])
            pa__pthd_offsets_layout(p->stab + sstart[q], p->scnt[q], &p->sl[q]);
        if (p->rcnt[q])
            pa__pthd_offsets_layout(p->rtab + sstart[n + q], p->rcnt[q], &p->rl[q]);
        gathered |= (p->scnt[q] && !p->sl[q].affine) || (p->rcnt[q] && !p->rl[q].affine);
    }
    free(sstart);
    free(spos);
    if (!gathered) {   /* every layout affine: the lists are not needed any more */
        free(p->stab);
        free(p->rtab);
        p->stab = p->rtab = NULL;
    }
    return PA_OK;
}

/* Everything of thread tid's plan that does not depend on the agreement: lists, layouts, own block, chunks it can
 * cut its blocks into, predictions. */
static int make(const pa__dist_split *d, const pa__dist_split *s, size_t elm, int64_t tid, int64_t n,
                const pa__devcomm_ops *dc, const pa__mem_ops *mem, gplan **out)
{
    gplan *p = calloc(1, sizeof *p);
    int64_t *m = calloc((size_t)(n * n), sizeof *m);
    int st;
    *out = NULL;
    if (!p || !m || !(p->scnt = calloc((size_t)n * 4, sizeof(int64_t))) ||
        !(p->sl = calloc((size_t)n * 2, sizeof(pa__layout))) || !(p->xs = calloc((size_t)n * 2, sizeof(pa__xfer)))) {
        free(m);
        gplan_free(p);
        return pa__err(PA_ERR_NOMEM, "all-to-all between threads: no memory for a plan over %lld threads",
                       (long long)n);
    }
    p->dc = dc;
    p->mem = mem;
    p->bufmem = mem ? mem : pa__mem_find("paged");
    p->elm = elm;
    p->n = (int)n;
    p->me = (int)tid;
    p->sdsp = p->scnt + n;
    p->rcnt = p->scnt + 2 * n;
    p->rdsp = p->scnt + 3 * n;
    p->rl = p->sl + n;
    p->xr = p->xs + n;
    if ((st = pair_counts(d, s, n, elm, m, &p->busiest)) != PA_OK) {
        free(m);
        gplan_free(p);
        return st;
    }
    for (int64_t q = 0; q < n; q++) {
        p->scnt[q] = m[tid * n + q];
        p->rcnt[q] = m[q * n + tid];
        if (q != tid) {   /* the buffers hold the blocks to and from the others, in peer order */
            p->sdsp[q] = p->sent, p->sent += p->scnt[q];
            p->rdsp[q] = p->recvd, p->recvd += p->rcnt[q];
        }
    }
    free(m);
    if ((st = list_peers(p, d, s)) != PA_OK) {
        gplan_free(p);
        return st;
    }
    int me = (int)tid;
    if (p->scnt[me]) {   /* the own block: one copy plan between the two arrays */
        pa__layout sb = p->sl[me], rb = p->rl[me];
        p->self_sbase = sb.base;
        p->self_rbase = rb.base;
        p->self_direct = pa__layout_contiguous(&sb) && pa__layout_contiguous(&rb);
        sb.base = rb.base = 0;
        if ((st = pa__plan_get(&rb, &sb, elm, mem, mem, &p->self)) != PA_OK) {
            gplan_free(p);
            return st;
        }
    }
    p->direct_only = 1;
    for (int q = 0; q < n; q++)
        if (q != me)
            p->direct_only &= (!p->scnt[q] || pa__layout_contiguous(&p->sl[q])) &&
                              (!p->rcnt[q] || pa__layout_contiguous(&p->rl[q]));
    for (int c = 1, bit = 0; c <= MAX_CHUNKS; c *= 2, bit++) {
        int ok = 1;
        for (int q = 0; q < n && ok; q++)
            if (q != me)
                ok = (!p->scnt[q] || pa__layout_sliceable(&p->sl[q], 0, p->scnt[q], c)) &&
                     (!p->rcnt[q] || pa__layout_sliceable(&p->rl[q], 0, p->rcnt[q], c));
        p->feasible |= (unsigned)ok << bit;
    }
    p->want = chunks_for(p->busiest, (int)n);
    /* the same numbers on every thread (from the busiest thread's bytes), so that all choose alike */
    const pa__cost_model *cm = pa__cost();
    double b = (double)p->busiest;
    int chunks = (int)(b / (double)CHUNK_BYTES) + 1;
    p->ns_nccl = cm->gpu_nccl_latency * (chunks < MAX_CHUNKS ? chunks : MAX_CHUNKS) + b / cm->gpu_nccl_bw;
    p->ns_pull = (double)(n - 1) * cm->gpu_call + b / cm->gpu_peer_bw;   /* a synchronous copy per source */
    snprintf(p->route, sizeof p->route, "%s", "");
    *out = p;
    return PA_OK;
}

static int same(const pa__lru_entry *e, const void *kv)
{
    const gkey *a = &((const gplan *)e)->key, *b = kv;
    return a->dev == b->dev && pa__pthd_key_same(&a->k, &b->k);
}

static void destroy(pa__lru_entry *e)
{
    gplan_free((gplan *)e);
}

static pa__lru cache = PA__LRU_INIT("pthd all-to-all NCCL plans", PLANS, same, destroy, NULL);

static void set_key(gkey *k, const pa__dist_split *d, const pa__dist_split *s, size_t elm, int64_t tid, int64_t n,
                    uint64_t dser, uint64_t sser, int dev)
{
    memset(k, 0, sizeof *k);
    pa__pthd_key_set(&k->k, d, s, elm, tid, n, dser, sser);
    k->dev = dev;
}

static uint64_t key_hash(const gkey *k)
{
    return pa__hash_mix(pa__pthd_key_hash(&k->k), (uint64_t)(int64_t)k->dev + 0x9e3779b97f4a7c15ULL);
}

static void free_sets(void);

static void at_exit(void)
{
    pa__lru_clear(&cache);
    free_sets();
}

static void hook_exit(void)
{
    static atomic_int hooked;
    if (atomic_exchange(&hooked, 1) == 0)
        atexit(at_exit);
}

/* The calling thread's plan for its GPU, held for this run (busy); a plan another run holds is not shared: this
 * run makes its own, which gplan_release frees. */
static int plan_for(const pa__dist_split *d, const pa__dist_split *s, size_t elm, int64_t tid, int64_t n,
                    uint64_t dser, uint64_t sser, int dev, const pa__devcomm_ops *dc, const pa__mem_ops *mem,
                    gplan **out)
{
    gkey k;
    int st;
    set_key(&k, d, s, elm, tid, n, dser, sser, dev);
    uint64_t h = key_hash(&k);
    pa__lru_entry *e = pa__lru_find(&cache, h, &k, 1);
    if (e && atomic_exchange(&((gplan *)e)->busy, 1) == 0) {
        *out = (gplan *)e;
        return PA_OK;
    }
    if (e)
        pa__lru_release(&cache, e);
    if ((st = make(d, s, elm, tid, n, dc, mem, out)) != PA_OK)
        return st;
    (*out)->key = k;
    atomic_store(&(*out)->busy, 1);
    if (e)   /* the cached one is busy: this one stays private */
        return PA_OK;
    hook_exit();
    pa__lru_entry_init(&(*out)->lru, h);
    (*out)->cached = 1;
    e = pa__lru_add(&cache, &(*out)->lru, &k);
    if (e != &(*out)->lru) {   /* a racing twin was filed first (ours is gone): use it when free */
        if (atomic_exchange(&((gplan *)e)->busy, 1) != 0) {
            pa__lru_release(&cache, e);
            if ((st = make(d, s, elm, tid, n, dc, mem, out)) != PA_OK)
                return st;
            (*out)->key = k;
            atomic_store(&(*out)->busy, 1);
            return PA_OK;
        }
        *out = (gplan *)e;
    }
    return PA_OK;
}

static void gplan_release(gplan *p)
{
    if (!p)
        return;
    atomic_store(&p->busy, 0);
    if (p->cached)
        pa__lru_release(&cache, &p->lru);
    else
        gplan_free(p);
}

/* ---- communicators: one set per group of GPUs, borrowed by a launch ------------------------------------------ */

typedef struct cset {
    struct cset *next;
    int n, busy, fresh, bad;
    int *dev;                    /* rank t's GPU */
    void **comm;                 /* rank t's communicator, made by thread t */
    unsigned char id[ID_MAX];
    const pa__devcomm_ops *dc;
    unsigned long used;
} cset;

static pthread_mutex_t sets_mu = PTHREAD_MUTEX_INITIALIZER;
static cset *sets;
static int nsets;
static unsigned long set_clock;

static void cset_free(cset *c)
{
    for (int i = 0; c && c->comm && i < c->n; i++)
        if (c->comm[i])
            c->dc->comm_free(c->comm[i]);
    if (c) {
        free(c->comm);
        free(c->dev);
    }
    free(c);
}

/* Unlinks c from the list (under sets_mu). */
static void unlink_set(cset *c)
{
    for (cset **pp = &sets; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            nsets--;
            return;
        }
}

/* An idle set over these GPUs, or a new one (fresh: its communicators are made by the threads, its id here).
 * NULL: no memory (the message set). */
static cset *acquire(const pa__devcomm_ops *dc, const int *dev, int n)
{
    cset *c, *old = NULL;
    pthread_mutex_lock(&sets_mu);
    for (c = sets; c; c = c->next)
        if (!c->busy && !c->bad && c->n == n && memcmp(c->dev, dev, (size_t)n * sizeof *dev) == 0)
            break;
    if (c) {
        c->busy = 1;
        c->used = ++set_clock;
        pthread_mutex_unlock(&sets_mu);
        return c;
    }
    if (nsets >= SETS) {   /* the least recently used idle set goes */
        for (cset *e = sets; e; e = e->next)
            if (!e->busy && (!old || e->used < old->used))
                old = e;
        if (old)
            unlink_set(old);
    }
    pthread_mutex_unlock(&sets_mu);
    cset_free(old);
    c = calloc(1, sizeof *c);
    if (!c || !(c->dev = malloc((size_t)n * sizeof *c->dev)) || !(c->comm = calloc((size_t)n, sizeof *c->comm))) {
        cset_free(c);
        pa__err(PA_ERR_NOMEM, "NCCL route: no memory for the communicators of %d GPUs", n);
        return NULL;
    }
    memcpy(c->dev, dev, (size_t)n * sizeof *dev);
    c->n = n;
    c->dc = dc;
    c->busy = c->fresh = 1;
    if (dc->make_id(c->id) != PA_OK)
        c->bad = 1;
    hook_exit();
    pthread_mutex_lock(&sets_mu);
    c->used = ++set_clock;
    c->next = sets;
    sets = c;
    nsets++;
    pthread_mutex_unlock(&sets_mu);
    return c;
}

/* Gives a set back; a bad one (its communicators could not all be made) is destroyed. */
static void give_back(cset *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&sets_mu);
    c->busy = 0;
    int bad = c->bad;
    if (bad)
        unlink_set(c);
    pthread_mutex_unlock(&sets_mu);
    if (bad)
        cset_free(c);
}

static void free_sets(void)
{
    pthread_mutex_lock(&sets_mu);
    cset *c = sets;
    sets = NULL;
    nsets = 0;
    pthread_mutex_unlock(&sets_mu);
    for (cset *next; c; c = next) {
        next = c->next;
        cset_free(c);
    }
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
    give_back(x->set);
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

/* ---- running -------------------------------------------------------------------------------------------------- */

/* Slices for C chunks, buffers and streams (once per plan and chunk count). */
static int prepare(gplan *p, int C)
{
    const pa__devcomm_ops *dc = p->dc;
    int st = PA_OK, n = p->n, me = p->me;
    if (p->chunks != C) {
        drop_slices(p);
        p->send = calloc((size_t)n * (size_t)C, sizeof *p->send);
        p->recv = calloc((size_t)n * (size_t)C, sizeof *p->recv);
        if (!p->send || !p->recv) {
            free(p->send), free(p->recv);
            p->send = p->recv = NULL;
            return pa__err(PA_ERR_NOMEM, "NCCL route: no memory for %d x %d slices", n, C);
        }
        p->chunks = C;
        for (int q = 0; q < n && st == PA_OK; q++) {
            if (q == me)
                continue;
            for (int w = 0; w < 2 && st == PA_OK; w++) {
                int64_t cnt = w ? p->rcnt[q] : p->scnt[q], dsp = w ? p->rdsp[q] : p->sdsp[q], len = cnt / C;
                for (int c = 0; c < C && cnt && st == PA_OK; c++) {
                    int one = 0;
                    st = pa__slice_make(w ? &p->rl[q] : &p->sl[q], c * len, len, dsp + c * len, p->elm, p->mem, w,
                                        w ? &p->recv[q * C + c] : &p->send[q * C + c], &one);
                    if (st == PA_OK && !one)
                        st = pa__err(PA_ERR_SYS, "NCCL route: a slice that was feasible is not (internal)");
                }
            }
        }
        if (st != PA_OK) {
            drop_slices(p);
            return st;
        }
    }
    int pack = 0, unpack = 0;
    for (int64_t i = 0; i < (int64_t)n * C; i++)
        pack |= p->send[i].n && !p->send[i].direct, unpack |= p->recv[i].n && !p->recv[i].direct;
    pa_mem_opts o;
    pa_mem_opts_init(&o);
    if (pack && !p->sbuf) {
        p->sbytes = (size_t)pa__bytes(p->sent, p->elm);
        if ((st = p->bufmem->alloc(p->sbytes, &o, &p->sbuf, &p->scookie)) != PA_OK)
            return pa__err_wrap(st, "NCCL route: a send buffer of %zu bytes", p->sbytes);
    }
    if (unpack && !p->rbuf) {
        p->rbytes = (size_t)pa__bytes(p->recvd, p->elm);
        if ((st = p->bufmem->alloc(p->rbytes, &o, &p->rbuf, &p->rcookie)) != PA_OK)
            return pa__err_wrap(st, "NCCL route: a receive buffer of %zu bytes", p->rbytes);
    }
    for (int i = 0; i < NSTREAMS && st == PA_OK; i++)
        if (!p->stream[i])
            st = dc->stream_new(&p->stream[i], i == S_XFER);
    if (st == PA_OK && !p->ev_start)
        st = dc->event_new(&p->ev_start);
    for (int c = 0; c < C && st == PA_OK; c++) {
        if (!p->ev_packed[c])
            st = dc->event_new(&p->ev_packed[c]);
        if (st == PA_OK && !p->ev_recvd[c])
            st = dc->event_new(&p->ev_recvd[c]);
    }
    return st;
}

/* Chunks packed, sent and unpacked on three streams, the own block on a fourth; waits for all four. */
static int run(gplan *p, void *comm, void *dst, const void *src)
{
    const pa__devcomm_ops *dc = p->dc;
    int st, me = p->me, C = p->chunks;
    size_t e = p->elm;
    char *sb = p->sbuf, *rb = p->rbuf;
    st = dc->record(p->ev_start, NULL);   /* after the caller's earlier work on the legacy default stream */
    for (int i = 0; i < NSTREAMS && st == PA_OK; i++)
        st = dc->wait(p->stream[i], p->ev_start);
    if (st == PA_OK && p->self && !p->self_direct)
        st = pa__plan_exec_async(p->self, dst, p->self_rbase, src, p->self_sbase, p->stream[S_SELF]);
    for (int c = 0; c < C && st == PA_OK; c++) {
        int ns = 0, nr = 0;
        if (c == 0 && p->self && p->self_direct) {   /* as NCCL's own all-to-all does: a send to itself */
            size_t bytes = (size_t)pa__bytes(p->scnt[me], e);
            p->xs[ns++] = (pa__xfer){me, (char *)src + pa__bytes(p->self_sbase, e), bytes};
            p->xr[nr++] = (pa__xfer){me, (char *)dst + pa__bytes(p->self_rbase, e), bytes};
        }
        for (int q = 0; q < p->n && st == PA_OK; q++) {
            if (q == me)
                continue;
            const pa__slice *s = p->scnt[q] ? &p->send[q * C + c] : NULL, *r = p->rcnt[q] ? &p->recv[q * C + c] : NULL;
            if (s && s->plan)
                st = pa__plan_exec_async(s->plan, sb, s->pos, src, s->base, p->stream[S_PACK]);
            if (s)
                p->xs[ns++] = (pa__xfer){q, s->direct ? (char *)src + pa__bytes(s->base, e) : sb + pa__bytes(s->pos, e),
                                         (size_t)pa__bytes(s->n, e)};
            if (r)
                p->xr[nr++] = (pa__xfer){q, r->direct ? (char *)dst + pa__bytes(r->base, e) : rb + pa__bytes(r->pos, e),
                                         (size_t)pa__bytes(r->n, e)};
        }
        if (st == PA_OK)
            st = dc->record(p->ev_packed[c], p->stream[S_PACK]);
        if (st == PA_OK)
            st = dc->wait(p->stream[S_XFER], p->ev_packed[c]);
        if (st == PA_OK)
            st = dc->group(comm, p->xs, ns, p->xr, nr, p->stream[S_XFER]);
        if (st == PA_OK)
            st = dc->record(p->ev_recvd[c], p->stream[S_XFER]);
        if (st == PA_OK)
            st = dc->wait(p->stream[S_UNPACK], p->ev_recvd[c]);
        for (int q = 0; q < p->n && st == PA_OK; q++) {
            const pa__slice *r = q != me && p->rcnt[q] ? &p->recv[q * C + c] : NULL;
            if (r && r->plan)
                st = pa__plan_exec_async(r->plan, dst, r->base, rb, r->pos, p->stream[S_UNPACK]);
        }
    }
    /* the unpack stream waited for the last group, which waited for the last packing: it and the own block's
     * stream are all there is to wait for, unless something failed on the way (then every stream) */
    for (int i = 0; i < NSTREAMS; i++) {
        if (st == PA_OK && i != S_UNPACK && i != S_SELF)
            continue;
        int sst = p->stream[i] ? dc->sync(p->stream[i]) : PA_OK;
        st = st != PA_OK ? st : sst;
    }
    return st;
}

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
    const pa__mem_ops *mem = device_ops(d);
    const pa__devcomm_ops *dc = atomic_load(&test_ops);
    int64_t n = pa_ctx_size(ctx), tid = pa_tid(ctx);
    if (route == ROUTE_PEER || (!mem && !dc) || mem != device_ops(s) || n < 2 || !ctx->launch)
        return PA_OK;
    if (!dc)
        dc = pa__backends_devcomm(&nowhy);
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
    if (mine->ok && plan_for(d, s, elm, tid, n, dser, sser, mine->dev, dc, mem, &p) != PA_OK)
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
        gplan_release(p);
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
            give_back(x->set);
            x->set = NULL;
            for (int64_t t = 0; devs && t < n; t++)
                devs[t] = all[t].dev;
            x->set = devs ? acquire(dc, devs, (int)n) : NULL;
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
        st = prepare(p, C);
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
        gplan_release(p);
        return st;
    }
    st = run(p, set->comm[tid], dst, src);
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
    gplan_release(p);
    return st;
}

int pa__pthd_exchange_gpu_explain(const pa__dist_split *d, const pa__dist_split *s, size_t elm, const pa_ctx *ctx,
                                  char *buf, size_t len, uint64_t dser, uint64_t sser)
{
    static atomic_int warned;
    const char *why = NULL;
    int route = pa__env_choice("PA_PTHD_ROUTE", route_words, 3, ROUTE_AUTO, &warned);
    const pa__mem_ops *mem = device_ops(d);
    const pa__devcomm_ops *dc = atomic_load(&test_ops);
    int64_t n = pa_ctx_size(ctx);
    if ((!mem && !dc) || mem != device_ops(s))
        return snprintf(buf, len, "; route: pulls (the NCCL route needs both sides in device memory)");
    if (route == ROUTE_PEER)
        return snprintf(buf, len, "; route: pulls (PA_PTHD_ROUTE=peer)");
    if (n < 2)
        return snprintf(buf, len, "; route: pulls (one thread)");
    if (!dc)
        dc = pa__backends_devcomm(&why);
    if (!dc)
        return snprintf(buf, len, "; route: pulls (the NCCL route is not possible: %s)", why);
    gkey k;
    int dev = -1;
    if (dc->current(&dev) != PA_OK)
        return snprintf(buf, len, "; route: pulls (no GPU is current on this thread)");
    set_key(&k, d, s, elm, pa_tid(ctx), n, dser, sser, dev);
    pa__lru_entry *e = pa__lru_find(&cache, key_hash(&k), &k, 0);
    int r;
    if (e && ((gplan *)e)->route[0])
        r = snprintf(buf, len, "; route: %s", ((gplan *)e)->route);
    else
        r = snprintf(buf, len, "; route: NCCL or pulls, agreed on at the first run (every thread's GPU is "
                     "compared)%s", route == ROUTE_NCCL ? ", NCCL asked for (PA_PTHD_ROUTE=nccl)" : "");
    if (e)
        pa__lru_release(&cache, e);
    return r;
}
