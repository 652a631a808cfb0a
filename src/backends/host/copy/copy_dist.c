/*
 * parray — copies of arrays distributed over pthd threads (manual listing 41): DATA = [#PTHD][#HMEM_1] puts
 * row k of HMEM in thread k's own local array.  Every thread of a pthd array calls pa_copy with its own local
 * array and copies its part: the elements whose thread id is its own.  The other side is either a shared
 * (local) array, or distributed over the same threads in the same way (each thread then copies between its
 * own two arrays).  Threads share memory, so no messages are needed.  Between two arrays distributed over the
 * threads differently, elements move between threads: that all-to-all is collective (copy_exchange.c).
 *
 * The first call of each thread lists its elements (O(size)), turns both sides' lists into layouts and makes a
 * host plan between them; the plan is cached per thread, so later calls only run it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lru.h"
#include "copy_dist_key.h"
#include "copy_host.h"

static int same_pid(const pa__dist_split *a, const pa__dist_split *b)
{
    return !memcmp(&a->pid, &b->pid, sizeof a->pid);
}

/* 1 when both sides are distributed over the threads, differently: the all-to-all (copy_exchange.c). */
static int is_exchange(const pa__dist_split *d, const pa__dist_split *s)
{
    return *d->thread_mtt && *s->thread_mtt && !same_pid(d, s);
}

/* The checks; *sel is the process layout that chooses the elements.  The all-to-all may also move device
 * memory (each thread's arrays on its GPU); the other copies need host memory. */
static int check(const pa_type *dt, const pa__dist_split *d, const pa_type *st, const pa__dist_split *s,
                 const pa__layout **sel)
{
    if (pa_size(dt) != pa_size(st) || pa_elm_size(dt) == 0 || pa_elm_size(dt) != pa_elm_size(st))
        return pa__err(pa_size(dt) != pa_size(st) ? PA_ERR_SIZE : PA_ERR_ELM, "copy from %s (%lld x %zu B) to %s "
                       "(%lld x %zu B): sizes or element sizes differ", pa_type_name(st), (long long)pa_size(st),
                       pa_elm_size(st), pa_type_name(dt), (long long)pa_size(dt), pa_elm_size(dt));
    for (int i = 0; i < 2; i++) {
        const pa__dist_split *x = i ? s : d;
        const pa__mem_ops *ops = strcmp(x->memory_mtt, "any") ? pa__mem_find(x->memory_mtt) : NULL;
        if (!strcmp(x->memory_mtt, "any") || (ops && ops->host_accessible))
            continue;
        if (!is_exchange(d, s))
            return pa__err(PA_ERR_UNSUPPORTED, "copy from %s to %s: pthd-distributed copies need host memory, "
                           "not %s (device memory only in the all-to-all between threads)", pa_type_name(st),
                           pa_type_name(dt), x->memory_mtt);
        if (!ops)
            return pa__err(PA_ERR_NODEV, "copy from %s to %s: %s memory is not in this build", pa_type_name(st),
                           pa_type_name(dt), x->memory_mtt);
        if (ops->available && !ops->available())
            return pa__err(PA_ERR_NODEV, "copy from %s to %s: %s memory, but no usable GPU", pa_type_name(st),
                           pa_type_name(dt), x->memory_mtt);
    }
    *sel = *d->thread_mtt ? &d->pid : &s->pid;
    return PA_OK;
}

/* Lists the local offsets of both sides for the elements on thread tid (of n threads), walking the copy by its
 * runs (pa__dist_run: blocks on one thread, each side one affine sub-layout), so that a thread pays for the
 * blocks and its own elements, not for every element of the array. */
static int list(const pa__layout *sel, const pa__dist_split *d, const pa__dist_split *s, int64_t tid,
                int64_t nthreads, int64_t **td, int64_t **ts, int64_t *count)
{
    pa__layout dsub, ssub;
    int64_t n = 0, total = sel->size, run = pa__dist_run(d, s, &dsub, &ssub), mine = 0;
    for (int64_t k = 0; k < total; k += run) {
        int64_t p = pa__layout_offset(sel, k);
        if (p < 0 || p >= nthreads)
            return pa__err(PA_ERR_RANGE, "pthd-distributed copy: element %lld lives on thread %lld, but the "
                           "array has %lld threads", (long long)k, (long long)p, (long long)nthreads);
        mine += p == tid ? run : 0;
    }
    *td = malloc((size_t)(mine ? mine : 1) * sizeof **td);
    *ts = malloc((size_t)(mine ? mine : 1) * sizeof **ts);
    int64_t *din = malloc((size_t)run * sizeof *din), *sin = malloc((size_t)run * sizeof *sin);
    if (!*td || !*ts || !din || !sin) {
        free(din);
        free(sin);
        return pa__err(PA_ERR_NOMEM, "pthd-distributed copy: no memory to list %lld elements", (long long)mine);
    }
    for (int64_t i = 0; i < run; i++) {
        din[i] = pa__layout_offset(&dsub, i);
        sin[i] = pa__layout_offset(&ssub, i);
    }
    for (int64_t k = 0; k < total && mine; k += run) {
        if (pa__layout_offset(sel, k) != tid)
            continue;
        int64_t db = pa__dist_local(d, k), sb = pa__dist_local(s, k);
        for (int64_t i = 0; i < run; i++, n++) {
            (*td)[n] = db + din[i];
            (*ts)[n] = sb + sin[i];
        }
    }
    free(din);
    free(sin);
    *count = n;
    return PA_OK;
}

/*
 * Plans per thread, cached by the contents of both splits (and by the types' serials when a split has gather
 * tables, whose contents the key does not hold), the element size, the thread id and the array's size, hashed,
 * in a bounded cache (src/core/base/lru.h: 256 entries, the least recently used dropped); freed at exit.
 */
#define PLANS 256

typedef struct cached {
    pa__lru_entry lru;
    pa__pthd_key key;
    int64_t count, dbase, sbase;
    pa__plan *plan;
} cached;

static int same(const pa__lru_entry *e, const void *kv)
{
    return pa__pthd_key_same(&((const cached *)e)->key, kv);
}

static void destroy(pa__lru_entry *e)
{
    cached *c = (cached *)e;
    pa__plan_unref(c->plan);
    free(c);
}

static pa__lru cache = PA__LRU_INIT("pthd-distributed plans", PLANS, same, destroy, NULL);

static void free_cache(void)
{
    pa__lru_clear(&cache);
}

/* Copies a filed entry's plan (with a reference for the caller), count and bases out, and releases it. */
static void take(pa__lru_entry *e, pa__plan **plan, int64_t *count, pa__layout *ld, pa__layout *ls)
{
    const cached *c = (const cached *)e;
    *plan = c->plan;
    if (*plan)
        pa__plan_ref(*plan);
    *count = c->count;
    ld->base = c->dbase;
    ls->base = c->sbase;
    pa__lru_release(&cache, e);
}

/* Lists, lays out and plans the calling thread's part (count 0: nothing to copy, no plan). */
static int make_plan(const pa__layout *sel, const pa__dist_split *d, const pa__dist_split *s, size_t elm,
                     int64_t tid, int64_t n, pa__plan **plan, pa__layout *ld, pa__layout *ls, int64_t *count)
{
    int64_t *td = NULL, *ts = NULL;
    int rc = list(sel, d, s, tid, n, &td, &ts, count);
    if (rc == PA_OK && *count > 0) {
        pa__pthd_offsets_layout(td, *count, ld);
        pa__pthd_offsets_layout(ts, *count, ls);
        rc = pa__plan_get(ld, ls, elm, NULL, NULL, plan);   /* the plan copies the tables */
    }
    free(td);
    free(ts);
    return rc;
}

/* The calling thread's plan; *count is 0 when it has no elements. */
static int thread_plan(const pa_type *dt, const pa_type *st, pa__plan **plan, pa__layout *ld, pa__layout *ls,
                       int64_t *count, int64_t *tid)
{
    const pa__dist_split *d, *s;
    const pa__layout *sel = NULL;
    const pa_ctx *ctx = pa__current_ctx();
    int rc;
    *plan = NULL;
    if ((rc = pa__dist_split_get(dt, &d)) != PA_OK || (rc = pa__dist_split_get(st, &s)) != PA_OK)
        return rc;
    if ((rc = check(dt, d, st, s, &sel)) != PA_OK)
        return rc;
    if (!ctx)
        return pa__err(PA_ERR_UNSUPPORTED, "copy from %s to %s: arrays distributed over pthd threads are copied "
                       "by the threads themselves; call pa_copy inside pa_for over the thread type",
                       pa_type_name(st), pa_type_name(dt));
    *tid = pa_tid(ctx);
    int64_t n = pa_ctx_size(ctx);
    size_t elm = pa_elm_size(dt);
    pa__pthd_key k;
    pa__pthd_key_set(&k, d, s, elm, *tid, n, pa__type_serial(dt), pa__type_serial(st));
    uint64_t h = pa__pthd_key_hash(&k);
    pa__lru_entry *e = pa__lru_find(&cache, h, &k, 1);
    if (e) {
        take(e, plan, count, ld, ls);
        return PA_OK;
    }
    /* made outside the cache's lock; filed after, unless another thread filed the same meanwhile */
    rc = make_plan(sel, d, s, elm, *tid, n, plan, ld, ls, count);
    cached *c = rc == PA_OK ? malloc(sizeof *c) : NULL;
    if (!c)
        return rc;   /* not cached: the next call plans again */
    static atomic_int hooked;
    if (atomic_exchange(&hooked, 1) == 0)
        atexit(free_cache);
    c->key = k;
    c->count = *count;
    c->dbase = *count ? ld->base : 0;
    c->sbase = *count ? ls->base : 0;
    c->plan = *plan;   /* the caller's reference moves into the entry; take() gives it one of its own */
    pa__lru_entry_init(&c->lru, h);
    take(pa__lru_add(&cache, &c->lru, &k), plan, count, ld, ls);
    return PA_OK;
}

/* The all-to-all's splits and context, when the pair is one (*yes); PA_OK with *yes = 0 otherwise. */
static int exchange_of(const pa_type *dt, const pa_type *st, const pa__dist_split **d, const pa__dist_split **s,
                       const pa_ctx **ctx, int *yes)
{
    const pa__layout *sel;
    int rc;
    *yes = 0;
    if ((rc = pa__dist_split_get(dt, d)) != PA_OK || (rc = pa__dist_split_get(st, s)) != PA_OK)
        return rc;
    if (!is_exchange(*d, *s))
        return PA_OK;
    if ((rc = check(dt, *d, st, *s, &sel)) != PA_OK)
        return rc;
    if (!(*ctx = pa__current_ctx()))
        return pa__err(PA_ERR_UNSUPPORTED, "copy from %s to %s: arrays distributed over pthd threads are copied "
                       "by the threads themselves; call pa_copy inside pa_for over the thread type (every thread: "
                       "this copy moves elements between threads)", pa_type_name(st), pa_type_name(dt));
    *yes = 1;
    return PA_OK;
}

static int pthd_copy(const pa_type *dt, void *dst, const pa_type *st, const void *src)
{
    const pa__dist_split *d, *s;
    const pa_ctx *ctx;
    int yes, rc = exchange_of(dt, st, &d, &s, &ctx, &yes);
    if (rc != PA_OK)
        return rc;
    if (yes) {
        char names[256];
        snprintf(names, sizeof names, "from %s to %s", pa_type_name(st), pa_type_name(dt));
        return pa__pthd_exchange(d, s, pa_elm_size(dt), ctx, dst, src, names, pa__type_serial(dt),
                                 pa__type_serial(st));
    }
    pa__plan *p;
    pa__layout ld, ls;
    int64_t n, tid;
    rc = thread_plan(dt, st, &p, &ld, &ls, &n, &tid);
    if (rc != PA_OK || n == 0)
        return rc;
    if (!dst || !src)
        rc = pa__err(PA_ERR_INVAL, "copy from %s to %s: NULL %s on thread %lld", pa_type_name(st),
                     pa_type_name(dt), dst ? "source" : "destination", (long long)tid);
    else
        rc = pa__plan_exec(p, dst, ld.base, src, ls.base);
    pa__plan_unref(p);
    return rc;
}

static int pthd_explain(const pa_type *dt, const pa_type *st, char *buf, size_t len)
{
    pa__plan *p;
    pa__layout ld, ls;
    int64_t n, tid;
    char host[400] = "nothing to copy";
    const pa__dist_split *d, *s;
    const pa_ctx *ctx;
    int yes, rc = exchange_of(dt, st, &d, &s, &ctx, &yes);
    if (rc != PA_OK)
        return rc;
    if (yes)
        return pa__pthd_exchange_explain(d, s, pa_elm_size(dt), ctx, buf, len, pa__type_serial(dt),
                                         pa__type_serial(st));
    rc = thread_plan(dt, st, &p, &ld, &ls, &n, &tid);
    if (rc != PA_OK)
        return rc;
    if (p)
        pa__plan_explain(p, host, sizeof host);
    pa__plan_unref(p);
    return snprintf(buf, len, "pthd-distributed copy: each thread copies its own part; thread %lld: %s",
                    (long long)tid, host);
}

const pa__dist_ops pa__pthd_dist_ops = {
    .thread_mtt = "pthd",
    .copy = pthd_copy,
    .explain = pthd_explain,
};
