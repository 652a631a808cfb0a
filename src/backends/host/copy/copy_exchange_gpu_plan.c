/*
 * parray — a thread's plan of the pthd all-to-all's NCCL route (copy_exchange_gpu.c says when it runs) and its
 * run.
 *
 * The plan lists, by peer thread, the elements the thread sends and receives in the order of their flat index
 * (so that the sender's k-th element to a peer is the receiver's k-th from it), as one layout per peer (affine
 * where the offsets are, else gathered).  Every block is cut into C chunks (slices of those layouts,
 * src/core/plan/layout_slice.h) and pipelined over three streams as the processes' route does
 * (src/backends/mpi/dist_nccl.c): the pack stream packs chunk c into the send buffer (nothing where the slice is
 * one contiguous run: NCCL then reads the array), the transfer stream (of the highest priority) runs chunk c's
 * sends and receives as one NCCL group, the unpack stream unpacks it; the own block is copied on a fourth
 * stream, or sent to itself in the first group where both its sides are contiguous.  All after the caller's
 * earlier work on the legacy default stream; the thread waits for them before pa_copy returns.  The plan also
 * holds what the threads agree on: the chunk counts its blocks can be cut into and the cost model's predictions
 * from the busiest thread's bytes (the same on every thread).  Plans are cached per thread and GPU (PLANS).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy_exchange_gpu_internal.h"

#define PLANS 64

const pa__mem_ops *pa__xg_memory(const pa__dist_split *x)
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
    pa__chunk_streams_free(&p->cs, p->dc);
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
    p->want = pa__chunks_wanted((double)p->busiest, (int)n);   /* PA_NCCL_CHUNKS forces it, as for processes */
    /* the same numbers on every thread (from the busiest thread's bytes), so that all choose alike */
    const pa__cost_model *cm = pa__cost();
    double b = (double)p->busiest;
    int chunks = (int)(b / (double)PA__CHUNK_BYTES) + 1;
    p->ns_nccl = cm->gpu_nccl_latency * (chunks < MAX_CHUNKS ? chunks : MAX_CHUNKS) + b / cm->gpu_nccl_bw;
    /* the pulls (copy_exchange.c): from 4 MiB all sources at once on streams made for the call, else a
     * synchronous copy per source */
    p->ns_pull = (b >= (double)(4 << 20) ? 3 * cm->gpu_call : (double)(n - 1) * cm->gpu_call) + b / cm->gpu_peer_bw;
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

static void at_exit(void)
{
    pa__lru_clear(&cache);
}

static void hook_exit(void)
{
    static atomic_int hooked;
    if (atomic_exchange(&hooked, 1) == 0)
        atexit(at_exit);
}

/* The calling thread's plan for its GPU, held for this run (busy); a plan another run holds is not shared: this
 * run makes its own, which pa__xg_plan_release frees. */
int pa__xg_plan_for(const pa__dist_split *d, const pa__dist_split *s, size_t elm, int64_t tid, int64_t n,
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

void pa__xg_plan_release(gplan *p)
{
    if (!p)
        return;
    atomic_store(&p->busy, 0);
    if (p->cached)
        pa__lru_release(&cache, &p->lru);
    else
        gplan_free(p);
}

/* ---- running ------------------------------------------------------------------------------------------------- */

/* Slices for C chunks, buffers and streams (once per plan and chunk count). */
int pa__xg_prepare(gplan *p, int C)
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
    return pa__chunk_streams_make(&p->cs, dc, C);
}

/* Chunks packed, sent and unpacked on three streams, the own block on a fourth; waits for them (the loop the
 * processes' route runs too, chunk_exchange.c). */
int pa__xg_run(gplan *p, void *comm, void *dst, const void *src)
{
    pa__chunk_exchange ex = {.dc = p->dc, .comm = comm, .st = &p->cs, .n = p->n, .me = p->me, .chunks = p->chunks,
                             .pair_first = -1, .elm = p->elm, .scnt = p->scnt, .rcnt = p->rcnt, .send = p->send,
                             .recv = p->recv, .sbuf = p->sbuf, .rbuf = p->rbuf, .self = p->self,
                             .self_direct = p->self_direct, .self_sbase = p->self_sbase,
                             .self_rbase = p->self_rbase, .xs = p->xs, .xr = p->xr};
    return pa__chunk_exchange_run(&ex, dst, src);
}

int pa__xg_route_of(const pa__dist_split *d, const pa__dist_split *s, size_t elm, int64_t tid, int64_t n,
                    uint64_t dser, uint64_t sser, int dev, char *buf, size_t len)
{
    gkey k;
    set_key(&k, d, s, elm, tid, n, dser, sser, dev);
    pa__lru_entry *e = pa__lru_find(&cache, key_hash(&k), &k, 0);
    int found = e && ((gplan *)e)->route[0];
    if (found)
        snprintf(buf, len, "%s", ((gplan *)e)->route);
    if (e)
        pa__lru_release(&cache, e);
    return found;
}
