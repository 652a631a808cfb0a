/*
 * parray — copies between a gamem array and an array distributed over mpi processes (manual section 4.12).
 *
 * A gamem array (Global Arrays) is reachable from every process of its group, so no message is needed: each
 * rank moves its own part of the distributed side to or from the gamem array one-sidedly — a host plan between
 * its local array and the gamem array restricted to its elements, which the Global Arrays backend runs as
 * NGA_Get64 / NGA_Put64 patches (copy_gamem.c).  The copy is collective over the copy's communicator: every rank
 * calls it (a rank that owns nothing only waits), and it starts and ends with a barrier, so that a get sees
 * every put made before the call on any rank, and the array is complete on every rank when it returns.
 * (Global Arrays over ARMCI-MPI completes each put at its target before returning, so a barrier is enough.)
 *
 * A rank's plan lists its elements in one O(size) pass; it is cached like the other distributed plans, so a
 * repeated copy only runs it.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lru.h"
#include "mpi_backend.h"

/*
 * A rank's plan, filed in a bounded, hashed cache (src/core/base/lru.h: 64 entries, the least recently used dropped)
 * by both splits' layouts, the types' serials where a split has tables or packing (else 0), the memory types,
 * the element size, the rank and the communicator's size.
 */
#define PLANS 64

typedef struct gplan {
    pa__lru_entry lru;
    pa__layout key[4];
    char dmem[32], smem[32];    /* the memory types (the gamem side's and the local arrays'), copied */
    uint64_t dser, sser;
    size_t elm;
    int rank, nprocs;
    int64_t count, dbase, sbase;
    pa__plan *plan;             /* NULL when the rank has nothing */
} gplan;

static int same(const pa__lru_entry *e, const void *kv)
{
    const gplan *c = (const gplan *)e, *k = kv;
    if (c->elm != k->elm || c->rank != k->rank || c->nprocs != k->nprocs || c->dser != k->dser ||
        c->sser != k->sser || strcmp(c->dmem, k->dmem) || strcmp(c->smem, k->smem))
        return 0;
    for (int i = 0; i < 4; i++)
        if (!pa__layout_key_same(&c->key[i], &k->key[i]))
            return 0;
    return 1;
}

static void destroy(pa__lru_entry *e)
{
    gplan *c = (gplan *)e;
    pa__plan_unref(c->plan);
    free(c);
}

static pa__lru cache = PA__LRU_INIT("gamem <-> mpi-distributed plans", PLANS, same, destroy, NULL);

static void free_cache(void)
{
    pa__lru_clear(&cache);
}

long pa_mpi__gamem_plans_made(void)
{
    pa__lru_stats st;
    pa__lru_stats_of(&cache, &st);
    return st.misses;
}

static uint64_t hash_of(const gplan *k)
{
    uint64_t h = pa__hash_mix(pa__hash_mix(k->dser, k->sser), (uint64_t)k->elm);
    h = pa__hash_mix(pa__hash_mix(h, (uint64_t)k->rank), (uint64_t)k->nprocs);
    for (const char *c = k->dmem; *c; c++)
        h = pa__hash_mix(h, (uint64_t)(unsigned char)*c);
    for (const char *c = k->smem; *c; c++)
        h = pa__hash_mix(h, (uint64_t)(unsigned char)*c);
    for (int i = 0; i < 4; i++)
        h = pa__layout_key_hash(h, &k->key[i]);
    return h;
}

static int is_gamem_local(const pa__dist_split *x)
{
    return !*x->thread_mtt && strcmp(x->memory_mtt, "gamem") == 0;
}

int pa_mpi__gamem_pair(const pa__dist_split *d, const pa__dist_split *s)
{
    return (is_gamem_local(d) && !strcmp(s->thread_mtt, "mpi")) || (is_gamem_local(s) && !strcmp(d->thread_mtt, "mpi"));
}

/* The layout of a list of n offsets (affine where it is; else a table, kept by the caller). */
static void as_layout(int64_t *t, int64_t n, pa__layout *out)
{
    if (n > 0 && pa__offsets_affine(t, n, out))
        return;
    memset(out, 0, sizeof *out);
    out->size = n;
    out->nmodes = n > 1 ? 1 : 0;
    out->base = n == 1 ? t[0] : 0;
    out->modes[0] = (pa__mode){.size = n, .table = t};
    out->affine = n <= 1;
}

/* This rank's plan: its elements' offsets on both sides as layouts, and a plan between them (NULL: none). */
static int rank_plan(const pa__dist_split *d, const pa__dist_split *s, size_t elm, pa__plan **plan, int64_t *count,
                     int64_t *dbase, int64_t *sbase, const char *names)
{
    const pa__dist_split *x = is_gamem_local(d) ? s : d;   /* the distributed side picks the elements */
    int64_t total = x->pid.size, n = 0, *td = NULL, *ts = NULL;
    int st = PA_OK, rank, nprocs;
    pa_mpi__where(&rank, &nprocs);
    *plan = NULL;
    *count = 0;
    for (int64_t k = 0; k < total; k++) {
        int64_t p = pa__layout_offset(&x->pid, k);
        if (p < 0 || p >= nprocs)
            return pa__err(PA_ERR_RANGE, "copy %s: element %lld lives on process %lld, but the process array has "
                           "%d process%s", names, (long long)k, (long long)p, nprocs, nprocs == 1 ? "" : "es");
        n += p == rank;
    }
    if (n == 0)
        return PA_OK;
    td = malloc((size_t)n * sizeof *td);
    ts = malloc((size_t)n * sizeof *ts);
    if (!td || !ts) {
        st = pa__err(PA_ERR_NOMEM, "copy %s: no memory to list %lld elements", names, (long long)n);
        goto done;
    }
    for (int64_t k = 0, i = 0; k < total; k++)
        if (pa__layout_offset(&x->pid, k) == rank) {
            td[i] = pa__dist_local(d, k);
            ts[i++] = pa__dist_local(s, k);
        }
    pa__layout ld, ls;
    as_layout(td, n, &ld);
    as_layout(ts, n, &ls);
    const pa__mem_ops *dm = strcmp(d->memory_mtt, "any") ? pa__mem_find(d->memory_mtt) : NULL;
    const pa__mem_ops *sm = strcmp(s->memory_mtt, "any") ? pa__mem_find(s->memory_mtt) : NULL;
    if ((is_gamem_local(d) && !dm) || (is_gamem_local(s) && !sm)) {
        st = pa__err(PA_ERR_NODEV, "copy %s: gamem needs the Global Arrays backend (the static library "
                     "libparray_gamem.a)", names);
        goto done;
    }
    *dbase = ld.base;
    *sbase = ls.base;
    *count = n;
    st = pa__plan_get(&ld, &ls, elm, dm, sm, plan);   /* the plan copies the tables */
done:
    free(td);
    free(ts);
    return st;
}

/* Copies a filed entry's plan (with a reference for the caller), count and bases out, and releases it. */
static void take(pa__lru_entry *e, pa__plan **plan, int64_t *count, int64_t *dbase, int64_t *sbase)
{
    const gplan *c = (const gplan *)e;
    *plan = c->plan;
    if (*plan)
        pa__plan_ref(*plan);
    *count = c->count;
    *dbase = c->dbase;
    *sbase = c->sbase;
    pa__lru_release(&cache, e);
}

/* The rank's plan from the cache, else made and filed (with a reference for the caller).  touch 0 (an
 * explanation) leaves the cache's order as it is. */
static int cached_plan(const pa__dist_split *d, const pa__dist_split *s, size_t elm, uint64_t dser, uint64_t sser,
                       int touch, pa__plan **plan, int64_t *count, int64_t *dbase, int64_t *sbase,
                       const char *names)
{
    int rank, nprocs, st;
    int gathered = !(d->pid.affine && d->local.affine && s->pid.affine && s->local.affine);
    pa_mpi__where(&rank, &nprocs);
    gplan k = {.key = {d->pid, d->local, s->pid, s->local}, .dser = gathered ? dser : 0,
               .sser = gathered ? sser : 0, .elm = elm, .rank = rank, .nprocs = nprocs};
    snprintf(k.dmem, sizeof k.dmem, "%s", d->memory_mtt);
    snprintf(k.smem, sizeof k.smem, "%s", s->memory_mtt);
    uint64_t h = hash_of(&k);
    pa__lru_entry *e = pa__lru_find(&cache, h, &k, touch);
    if (e) {
        take(e, plan, count, dbase, sbase);
        return PA_OK;
    }
    if ((st = rank_plan(d, s, elm, plan, count, dbase, sbase, names)) != PA_OK)
        return st;
    gplan *c = malloc(sizeof *c);
    if (!c)
        return PA_OK;   /* not cached: the next copy plans again */
    static atomic_int hooked;
    if (atomic_exchange(&hooked, 1) == 0)
        atexit(free_cache);
    *c = k;
    c->count = *count;
    c->dbase = *dbase;
    c->sbase = *sbase;
    c->plan = *plan;   /* the caller's reference moves into the entry; take() gives it one of its own */
    pa__lru_entry_init(&c->lru, h);
    take(pa__lru_add(&cache, &c->lru, &k), plan, count, dbase, sbase);
    return PA_OK;
}

int pa_mpi__gamem_copy(const pa__dist_split *d, void *dst, const pa__dist_split *s, const void *src, size_t elm,
                       uint64_t dser, uint64_t sser, const char *names)
{
    int rank, nprocs, st, bst;
    int64_t count = 0, dbase = 0, sbase = 0;
    pa__plan *plan = NULL;
    MPI_Comm comm = pa_mpi__comm();
    pa_mpi__where(&rank, &nprocs);
    st = cached_plan(d, s, elm, dser, sser, 1, &plan, &count, &dbase, &sbase, names);
    if (!pa_mpi__running()) {
        if (st == PA_OK && count)
            st = pa__plan_exec(plan, dst, dbase, src, sbase);
        pa__plan_unref(plan);
        return st;
    }
    bst = pa_mpi__check(MPI_Barrier(comm), "MPI_Barrier");
    if (st == PA_OK && count > 0 && (!dst || !src))
        st = pa__err(PA_ERR_INVAL, "copy %s: rank %d holds %lld elements but its %s pointer is NULL", names, rank,
                     (long long)count, !dst ? "destination" : "source");
    else if (st == PA_OK && count > 0)
        st = pa__plan_exec(plan, dst, dbase, src, sbase);
    pa__plan_unref(plan);
    int bst2 = pa_mpi__check(MPI_Barrier(comm), "MPI_Barrier");
    return st != PA_OK ? st : bst != PA_OK ? bst : bst2;
}

int pa_mpi__gamem_explain(const pa__dist_split *d, const pa__dist_split *s, size_t elm, char *buf, size_t len,
                          uint64_t dser, uint64_t sser, const char *names)
{
    int rank, nprocs;
    int64_t count = 0, dbase, sbase;
    pa__plan *plan = NULL;
    char how[400] = "nothing on this rank";
    pa_mpi__where(&rank, &nprocs);
    int st = cached_plan(d, s, elm, dser, sser, 0, &plan, &count, &dbase, &sbase, names);
    if (st != PA_OK)
        return st;
    if (plan)
        pa__plan_explain(plan, how, sizeof how);
    pa__plan_unref(plan);
    return snprintf(buf, len, "gamem <-> mpi-distributed copy over %d process%s: each rank moves its own part "
                    "one-sidedly between two barriers (its plan cached); rank %d: %lld elements: %s", nprocs,
                    nprocs == 1 ? "" : "es",
                    rank, (long long)count, how);
}
