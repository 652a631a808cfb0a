/*
 * parray — the plan cache: plans keyed by the contents of the two layouts (bases aside), the element size and
 * the memory types.
 *
 * The cache is set-associative: 64 sets of 4 plans, least recently used replaced within a set, 256 plans in
 * all.  A lookup hashes the two layouts (a few dozen words for affine layouts; gathered tables are hashed in
 * full, which costs less than the copy that reads them) and compares the candidates' contents.  One mutex
 * guards it: the critical section is a handful of compares, and plans are made outside it.  Users hold their
 * own reference, so a plan evicted while it runs stays alive until that copy ends.  Every plan is released
 * at exit, which keeps the leak checker quiet.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

#define PA__CACHE_SETS 64
#define PA__CACHE_WAYS 4

typedef struct slot {
    pa__plan *plan;
    uint64_t stamp;
} slot;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static slot cache[PA__CACHE_SETS][PA__CACHE_WAYS];
static uint64_t cache_clock;
static atomic_long cache_misses;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

static uint64_t hash_layout(uint64_t h, const pa__layout *l)
{
    h = mix(h, (uint64_t)l->size);
    h = mix(h, (uint64_t)l->nmodes);
    for (int m = 0; m < l->nmodes; m++) {
        const pa__mode *md = &l->modes[m];
        h = mix(h, (uint64_t)md->size);
        if (!md->table) {
            h = mix(h, (uint64_t)md->stride);
            continue;
        }
        h = mix(h, 0x7ab1e);
        for (int64_t i = 0; i < md->size; i++)
            h = mix(h, (uint64_t)md->table[i]);
    }
    return h;
}

uint64_t pa__plan_hash(const pa__layout *dst, const pa__layout *src, size_t elm, const pa__mem_ops *dst_mem,
                       const pa__mem_ops *src_mem)
{
    uint64_t h = mix(0, (uint64_t)elm);
    h = mix(h, (uint64_t)(uintptr_t)dst_mem);
    h = mix(h, (uint64_t)(uintptr_t)src_mem);
    return hash_layout(hash_layout(h, dst), src);
}

static int same_layout(const pa__layout *a, const pa__layout *b)
{
    if (a->size != b->size || a->nmodes != b->nmodes)
        return 0;
    for (int m = 0; m < a->nmodes; m++) {
        const pa__mode *x = &a->modes[m], *y = &b->modes[m];
        if (x->size != y->size || !x->table != !y->table)
            return 0;
        if (!x->table ? x->stride != y->stride
                      : memcmp(x->table, y->table, (size_t)x->size * sizeof *x->table) != 0)
            return 0;
    }
    return 1;
}

int pa__plan_matches(const pa__plan *p, const pa__layout *dst, const pa__layout *src, size_t elm,
                     const pa__mem_ops *dst_mem, const pa__mem_ops *src_mem)
{
    return p->shape.elm == elm && p->shape.dst_mem == dst_mem && p->shape.src_mem == src_mem &&
           same_layout(&p->key_dst, dst) && same_layout(&p->key_src, src);
}

/* Looks a plan up under the lock; returns it with a reference for the caller, or NULL. */
static pa__plan *lookup_locked(uint64_t h, const pa__layout *dst, const pa__layout *src, size_t elm,
                               const pa__mem_ops *dm, const pa__mem_ops *sm)
{
    slot *set = cache[h % PA__CACHE_SETS];
    for (int w = 0; w < PA__CACHE_WAYS; w++) {
        pa__plan *p = set[w].plan;
        if (p && p->hash == h && pa__plan_matches(p, dst, src, elm, dm, sm)) {
            set[w].stamp = ++cache_clock;
            pa__plan_ref(p);
            return p;
        }
    }
    return NULL;
}

/* Files a new plan (the cache takes its own reference), evicting the set's least recently used. */
static void insert_locked(pa__plan *p)
{
    slot *set = cache[p->hash % PA__CACHE_SETS];
    int victim = 0;
    for (int w = 0; w < PA__CACHE_WAYS; w++) {
        if (!set[w].plan) {
            victim = w;
            break;
        }
        if (set[w].stamp < set[victim].stamp)
            victim = w;
    }
    pa__plan_unref(set[victim].plan);
    pa__plan_ref(p);
    set[victim].plan = p;
    set[victim].stamp = ++cache_clock;
}

static void announce(const pa__plan *p)
{
    static atomic_int warned;
    if (!pa__env_flag("PA_PLAN_INFO", &warned))
        return;
    char line[1536];
    pa__plan_explain(p, line, sizeof line);
    fprintf(stderr, "parray: %s\n", line);
}

int pa__plan_get(const pa__layout *dst, const pa__layout *src, size_t elm, const pa__mem_ops *dst_mem,
                 const pa__mem_ops *src_mem, pa__plan **out)
{
    uint64_t h = pa__plan_hash(dst, src, elm, dst_mem, src_mem);
    pthread_mutex_lock(&cache_lock);
    pa__plan *p = lookup_locked(h, dst, src, elm, dst_mem, src_mem);
    pthread_mutex_unlock(&cache_lock);
    if (p) {
        *out = p;
        return PA_OK;
    }
    int st = pa__plan_make(dst, src, elm, dst_mem, src_mem, &p);
    if (st != PA_OK)
        return st;
    atomic_fetch_add_explicit(&cache_misses, 1, memory_order_relaxed);
    /* Another thread may have made the same plan meanwhile: keep the first one filed. */
    pthread_mutex_lock(&cache_lock);
    pa__plan *first = lookup_locked(h, dst, src, elm, dst_mem, src_mem);
    if (!first)
        insert_locked(p);
    pthread_mutex_unlock(&cache_lock);
    if (first) {
        pa__plan_unref(p);
        p = first;
    } else {
        announce(p);
    }
    *out = p;
    return PA_OK;
}

void pa__plan_cache_clear(void)
{
    pthread_mutex_lock(&cache_lock);
    for (int s = 0; s < PA__CACHE_SETS; s++)
        for (int w = 0; w < PA__CACHE_WAYS; w++) {
            pa__plan_unref(cache[s][w].plan);
            cache[s][w].plan = NULL;
        }
    pthread_mutex_unlock(&cache_lock);
}

long pa__plan_cache_misses(void)
{
    return atomic_load_explicit(&cache_misses, memory_order_relaxed);
}

__attribute__((destructor)) static void plan_cache_fini(void)
{
    pa__plan_cache_clear();
}
