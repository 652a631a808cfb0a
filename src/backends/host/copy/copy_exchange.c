/*
 * parray — the all-to-all between threads (manual section 1.4): a copy between two arrays distributed over
 * the same pthd threads in different ways, each thread holding its own local array of each.  Such a copy is
 * collective: every thread of the array calls pa_copy with its own two local arrays.  Each thread publishes
 * its source array in a table of the thread array, all wait at a barrier, then each thread pulls the elements
 * it receives from every source thread's array into its own destination, and all wait again (so that no
 * source is changed while another thread still reads it).  The local arrays may be host memory or, with the
 * CUDA backend, device memory (dmem: each thread's arrays on its GPU; the copies between GPUs are peer copies
 * or staged, as pa_copy between two GPUs is).  Where every thread's arrays are on a GPU of its own, the exchange
 * is first offered to the NCCL route (copy_exchange_gpu.c), which takes it when NCCL is usable and predicted
 * cheaper; else the pulls below run: into device memory, from 4 MiB up, all sources at once on up to four streams
 * of the thread's GPU (each plan's kernel reading its source's GPU directly), else one source after another.
 *
 * A thread's plan is one host (or CUDA) plan per source thread it receives from, made from the lists of its
 * elements' local offsets (O(size) the first time), cached per thread (keyed by the splits, and by the types'
 * serials when a split has gather tables) in a bounded cache (src/core/base/lru.h: 256 plans, the least recently
 * used dropped; a thread holds a reference to its plan while it copies).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lru.h"
#include "copy_dist_key.h"
#include "copy_exchange_gpu.h"
#include "copy_host.h"

/* One source thread's part of a receiving thread's plan. */
typedef struct xpart {
    int64_t from, count, dbase, sbase;
    pa__plan *plan;
} xpart;

typedef struct xplan {
    pa__lru_entry lru;
    pa__pthd_key key;
    int nparts;
    xpart part[];
} xplan;

#define PLANS 256

static void xplan_free(xplan *p)
{
    for (int i = 0; p && i < p->nparts; i++)
        pa__plan_unref(p->part[i].plan);
    free(p);
}

static int same(const pa__lru_entry *e, const void *kv)
{
    return pa__pthd_key_same(&((const xplan *)e)->key, kv);
}

static void destroy(pa__lru_entry *e)
{
    xplan_free((xplan *)e);
}

static pa__lru cache = PA__LRU_INIT("pthd all-to-all plans", PLANS, same, destroy, NULL);

static void free_cache(void)
{
    pa__lru_clear(&cache);
}

static const pa__mem_ops *device_ops(const pa__dist_split *x)
{
    const pa__mem_ops *ops = strcmp(x->memory_mtt, "any") ? pa__mem_find(x->memory_mtt) : NULL;
    return ops && !ops->host_accessible ? ops : NULL;
}

/* Lists, by source thread, the elements thread tid receives and makes one plan per source thread. */
static int make(const pa__dist_split *d, const pa__dist_split *s, size_t elm, int64_t tid, int64_t n, xplan **out)
{
    int64_t total = d->pid.size, *cnt = calloc((size_t)n, sizeof *cnt), *td = NULL, *ts = NULL;
    xplan *p = NULL;
    int st = PA_OK, nparts = 0;
    if (!cnt)
        return pa__err(PA_ERR_NOMEM, "all-to-all between threads: no memory for %lld counts", (long long)n);
    pa__pthd_walker wd, ws;
    pa__pthd_walk_start(&wd, &d->pid);
    pa__pthd_walk_start(&ws, &s->pid);
    for (int64_t k = 0; k < total; k++, pa__pthd_walk_next(&wd), pa__pthd_walk_next(&ws)) {
        int64_t pd = wd.off, ps = ws.off;
        if (pd < 0 || pd >= n || ps < 0 || ps >= n) {
            st = pa__err(PA_ERR_RANGE, "all-to-all between threads: element %lld lives on thread %lld, but the "
                         "array has %lld threads", (long long)k, (long long)(pd < 0 || pd >= n ? pd : ps),
                         (long long)n);
            goto done;
        }
        if (pd == tid)
            nparts += cnt[ps]++ == 0;
    }
    p = calloc(1, sizeof *p + (size_t)nparts * sizeof(xpart));
    td = malloc((size_t)(total ? total : 1) * sizeof *td);
    ts = malloc((size_t)(total ? total : 1) * sizeof *ts);
    if (!p || !td || !ts) {
        st = pa__err(PA_ERR_NOMEM, "all-to-all between threads: no memory to list %lld elements", (long long)total);
        goto done;
    }
    /* one pass: part i's lists start where part i - 1's end */
    int64_t *start = cnt, at = 0;
    for (int64_t q = 0; q < n; q++) {
        int64_t c = cnt[q];
        if (c)
            p->part[p->nparts++] = (xpart){.from = q, .count = c};
        start[q] = at;
        at += c;
    }
    pa__pthd_walk_start(&wd, &d->pid);
    pa__pthd_walk_start(&ws, &s->pid);
    for (int64_t k = 0; k < total; k++, pa__pthd_walk_next(&wd), pa__pthd_walk_next(&ws))
        if (wd.off == tid) {
            int64_t q = ws.off, i = start[q]++;
            td[i] = pa__dist_local(d, k);
            ts[i] = pa__dist_local(s, k);
        }
    for (int i = 0, off = 0; i < p->nparts && st == PA_OK; off += (int)p->part[i].count, i++) {
        xpart *x = &p->part[i];
        pa__layout ld, ls;
        pa__pthd_offsets_layout(td + off, x->count, &ld);
        pa__pthd_offsets_layout(ts + off, x->count, &ls);
        x->dbase = ld.base;
        x->sbase = ls.base;
        st = pa__plan_get(&ld, &ls, elm, device_ops(d), device_ops(s), &x->plan);   /* copies the tables */
    }
done:
    free(cnt);
    free(td);
    free(ts);
    if (st != PA_OK)
        xplan_free(p), p = NULL;
    *out = p;
    return st;
}

/* The calling thread's plan, with a reference for it (pa__lru_release); cached, the serials counting only for
 * splits with gather tables.  Made outside the cache's lock and filed after (a racing twin is dropped). */
static int plan_for(const pa__dist_split *d, const pa__dist_split *s, size_t elm, int64_t tid, int64_t n,
                    uint64_t dser, uint64_t sser, xplan **out)
{
    static atomic_int hooked;
    pa__pthd_key k;
    int st;
    pa__pthd_key_set(&k, d, s, elm, tid, n, dser, sser);
    uint64_t h = pa__pthd_key_hash(&k);
    pa__lru_entry *e = pa__lru_find(&cache, h, &k, 1);
    if (!e) {
        if ((st = make(d, s, elm, tid, n, out)) != PA_OK)
            return st;
        (*out)->key = k;
        pa__lru_entry_init(&(*out)->lru, h);
        if (atomic_exchange(&hooked, 1) == 0)
            atexit(free_cache);
        e = pa__lru_add(&cache, &(*out)->lru, &k);
    }
    *out = (xplan *)e;
    return PA_OK;
}

#define PULL_STREAMS 4
#define PULL_QUEUED_BYTES (4 << 20)   /* below this a thread's pulls run one after another (no streams made) */

/* One source thread's part, or why it cannot be pulled. */
static int part_source(const xpart *x, const void *const *table, const void *dst, const char *names, int64_t tid,
                       const void **from)
{
    *from = table[x->from];
    if (dst && *from)
        return PA_OK;
    return pa__err(PA_ERR_INVAL, "copy %s: thread %lld receives %lld elements from thread %lld, but %s array is "
                   "NULL", names, (long long)tid, (long long)x->count, (long long)x->from,
                   !dst ? "its destination" : "that thread's source");
}

/* A device destination's pulls of at least PULL_QUEUED_BYTES from several threads: every part queued at once on
 * up to PULL_STREAMS streams of this thread's GPU (after its earlier work on the legacy default stream), each
 * reading its source's GPU over the link, then waited for.  \return PA_OK, the first error, or 1 when no streams
 * could be had (nothing queued: the caller pulls one part after another). */
static int pull_queued(const xplan *p, void *dst, const void *const *table, size_t elm, const char *names,
                       int64_t tid)
{
    int64_t bytes = 0;
    for (int i = 0; i < p->nparts; i++)
        bytes += p->part[i].count * (int64_t)elm;
    if (p->nparts < 2 || bytes < PULL_QUEUED_BYTES)
        return 1;
    const pa__async_ops *as = pa__backends_async("all-to-all between threads: queued pulls");
    void *stream[PULL_STREAMS] = {NULL}, *start = NULL;
    int n = p->nparts < PULL_STREAMS ? p->nparts : PULL_STREAMS, st = as ? as->event_new(&start) : 1;
    for (int i = 0; i < n && st == PA_OK; i++)
        st = as->stream_new(&stream[i]);
    if (st == PA_OK)
        st = as->record(start, NULL);
    for (int i = 0; i < n && st == PA_OK; i++)
        st = as->wait(stream[i], start);
    if (st != PA_OK) {   /* no streams here: nothing was queued */
        st = 1;
        goto done;
    }
    for (int i = 0; i < p->nparts && st == PA_OK; i++) {
        const xpart *x = &p->part[i];
        const void *from;
        if ((st = part_source(x, table, dst, names, tid, &from)) == PA_OK)
            st = pa__plan_exec_async(x->plan, dst, x->dbase, from, x->sbase, stream[i % n]);
    }
    for (int i = 0; i < n; i++) {   /* every stream, failed or not: nothing may still run after the barrier */
        int wst = pa__stream_wait(stream[i]);
        st = st != PA_OK ? st : wst;
    }
done:
    for (int i = 0; i < n; i++)
        if (stream[i])
            as->stream_free(stream[i]);
    if (start)
        as->event_free(start);
    return st;
}

/* The thread array's table of published source arrays (one slot per thread), made on first use. */
static const void **slots(pa__launch *l)
{
    pthread_mutex_lock(&l->mu);
    if (!l->exchange)
        l->exchange = calloc((size_t)l->shape.n, sizeof *l->exchange);
    const void **t = l->exchange;
    pthread_mutex_unlock(&l->mu);
    return t;
}

int pa__pthd_exchange(const pa__dist_split *d, const pa__dist_split *s, size_t elm, const pa_ctx *ctx,
                      void *dst, const void *src, const char *names, uint64_t dser, uint64_t sser)
{
    xplan *p = NULL;
    int st;
    int64_t tid = pa_tid(ctx), n = pa_ctx_size(ctx);
    const void **table;
    if (!ctx->launch)
        return pa__err(PA_ERR_UNSUPPORTED, "copy %s: an all-to-all between threads runs inside pa_for over a "
                       "pthd thread type", names);
    if (!(table = slots(ctx->launch)))
        return pa__err(PA_ERR_NOMEM, "copy %s: no memory for the table of %lld threads' arrays", names,
                       (long long)n);
    int taken = 0;
    st = pa__pthd_exchange_gpu(d, s, elm, ctx, dst, src, names, dser, sser, &taken);
    if (taken)   /* on every thread alike */
        return st;
    /* Every thread reaches both barriers, whatever fails on the way, so that none is left waiting. */
    st = plan_for(d, s, elm, tid, n, dser, sser, &p);
    table[tid] = src;
    pa_sync((pa_ctx *)ctx, "");
    int queued = st == PA_OK && device_ops(d) ? pull_queued(p, dst, table, elm, names, tid) : 1;
    st = queued != 1 ? queued : st;
    for (int i = 0; st == PA_OK && queued == 1 && i < p->nparts; i++) {
        const xpart *x = &p->part[i];
        const void *from;
        if ((st = part_source(x, table, dst, names, tid, &from)) == PA_OK)
            st = pa__plan_exec(x->plan, dst, x->dbase, from, x->sbase);
    }
    pa_sync((pa_ctx *)ctx, "");
    if (p)
        pa__lru_release(&cache, &p->lru);
    return st;
}

int pa__pthd_exchange_explain(const pa__dist_split *d, const pa__dist_split *s, size_t elm, const pa_ctx *ctx,
                              char *buf, size_t len, uint64_t dser, uint64_t sser)
{
    xplan *p = NULL;
    int st = plan_for(d, s, elm, pa_tid(ctx), pa_ctx_size(ctx), dser, sser, &p);
    char first[400] = "nothing to receive";
    int64_t count = 0;
    if (st != PA_OK)
        return st;
    for (int i = 0; i < p->nparts; i++)
        count += p->part[i].count;
    if (p->nparts)
        pa__plan_explain(p->part[0].plan, first, sizeof first);
    int nparts = p->nparts;
    pa__lru_release(&cache, &p->lru);
    char route[480];
    if ((st = pa__pthd_exchange_gpu_explain(d, s, elm, ctx, route, sizeof route, dser, sser)) < 0)
        return st;
    int r = snprintf(buf, len, "all-to-all between pthd threads (collective: every thread calls pa_copy; source "
                     "arrays published, barrier, each thread pulls its part, barrier); thread %lld receives %lld "
                     "elements from %d thread%s; first: %s%s", (long long)pa_tid(ctx), (long long)count, nparts,
                     nparts == 1 ? "" : "s", first, route);
    return r;
}
