/*
 * parray — the 13 SSB queries on the CPU (the reference for the GPU), on a pthd thread array.
 *
 * From a plan, each joined dimension becomes a lookup array over its key range: key -> the group attribute
 * (0 for a semi-join), or -1 when the row fails the dimension's filters.  The threads split lineorder into
 * contiguous ranges; a row probes the dimensions (date, customer, supplier, part), and a row that passes adds
 * its aggregate to its group's slot in the thread's own hash table (groups are few: at most a few thousand).
 * The tables are merged on the calling thread.  The selectivity check (pa_ssb_selectivity) is the same scan
 * counting rows instead of summing.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ssb_cpu.h"

/* ---- per-thread group tables: open addressing over slot numbers ------------------------------------------- */

static inline int64_t ghash(int64_t s, int64_t cap)
{
    return (int64_t)(((uint64_t)s * 0x9e3779b97f4a7c15ULL) >> 17) & (cap - 1);
}

typedef struct gtab {
    int64_t *slot, *sum;
    int64_t cap, n;
    int failed;
} gtab;

static int gtab_grow(gtab *t)
{
    int64_t cap = t->cap ? t->cap * 2 : 1024;
    int64_t *slot = malloc((size_t)cap * sizeof *slot), *sum = malloc((size_t)cap * sizeof *sum);
    if (!slot || !sum) {
        free(slot);
        free(sum);
        return -1;
    }
    memset(slot, 0xff, (size_t)cap * sizeof *slot);
    for (int64_t i = 0; i < t->cap; i++)
        if (t->slot[i] >= 0) {
            int64_t h = ghash(t->slot[i], cap);
            while (slot[h] >= 0)
                h = (h + 1) & (cap - 1);
            slot[h] = t->slot[i];
            sum[h] = t->sum[i];
        }
    free(t->slot);
    free(t->sum);
    t->slot = slot;
    t->sum = sum;
    t->cap = cap;
    return 0;
}

static void gtab_add(gtab *t, int64_t s, int64_t v)
{
    if (t->failed)
        return;
    if (2 * (t->n + 1) > t->cap && gtab_grow(t) < 0) {
        t->failed = 1;
        return;
    }
    int64_t h = ghash(s, t->cap);
    while (t->slot[h] >= 0 && t->slot[h] != s)
        h = (h + 1) & (t->cap - 1);
    if (t->slot[h] < 0) {
        t->slot[h] = s;
        t->sum[h] = 0;
        t->n++;
    }
    t->sum[h] += v;
}

static void gtab_free(gtab *t)
{
    free(t->slot);
    free(t->sum);
}

/* ---- lookups ------------------------------------------------------------------------------------------------ */

void pa__ssb_lookups_free(pa__ssb_lookups *l)
{
    for (int d = 0; d < PA__SSB_NDIMS; d++) {
        free(l->map[d]);
        free(l->keys[d]);
    }
    memset(l, 0, sizeof *l);
}

static inline uint64_t khash(int32_t key)
{
    return ((uint64_t)(uint32_t)key * 0x9e3779b97f4a7c15ULL) >> 20;
}

/* The slot of key in a hashed lookup: where it is, or the empty slot where it goes. */
static inline int64_t kslot(const pa__ssb_lookups *l, int d, int32_t key)
{
    int64_t mask = l->size[d] - 1, h = (int64_t)(khash(key) & (uint64_t)mask);
    while (l->map[d][h] != INT32_MIN && l->keys[d][h] != key)
        h = (h + 1) & mask;
    return h;
}

/* Dimension d's lookup over n rows with keys in [kmin, kmax]: dense or hashed (see ssb_cpu.h). */
static int lookup_alloc(pa__ssb_lookups *l, int d, int64_t n, int32_t kmin, int32_t kmax, const char *what)
{
    int64_t range = (int64_t)kmax - kmin + 1, size = 1;
    if (range <= PA__SSB_DENSE_FACTOR * n + PA__SSB_DENSE_SLACK) {
        size = range;
    } else {
        while (size < 2 * n)
            size *= 2;
        if (!(l->keys[d] = malloc((size_t)size * sizeof(int32_t))))
            return pa__err(PA_ERR_NOMEM, "ssb: a hash table of %lld keys of %s", (long long)size, what);
    }
    if (!(l->map[d] = malloc(((size_t)size + 1) * sizeof(int32_t))))
        return pa__err(PA_ERR_NOMEM, "ssb: a lookup over %lld keys of %s", (long long)size, what);
    /* Dense: -1 (no row); hashed: INT32_MIN marks an empty slot, which no value is (values are -1, 0 or more). */
    for (int64_t i = 0; i < size; i++)
        l->map[d][i] = l->keys[d] ? INT32_MIN : -1;
    l->kmin[d] = kmin;
    l->size[d] = size;
    return PA_OK;
}

int pa__ssb_lookups_make(const pa_ssb_db *db, const pa__ssb_plan *p, pa__ssb_lookups *l)
{
    memset(l, 0, sizeof *l);
    for (int d = 0; d < PA__SSB_NDIMS; d++) {
        const pa__ssb_dim *dm = &p->dim[d];
        if (!dm->used)
            continue;
        pa_ssb_table t = pa__ssb_cols[dm->keycol].table;
        const int32_t *key = db->col[dm->keycol];
        int64_t n = db->rows[t];
        int32_t kmin = n ? key[0] : 0, kmax = n ? key[0] : -1;
        for (int64_t i = 1; i < n; i++) {
            kmin = key[i] < kmin ? key[i] : kmin;
            kmax = key[i] > kmax ? key[i] : kmax;
        }
        int rc = lookup_alloc(l, d, n, kmin, kmax, pa__ssb_cols[dm->keycol].name);
        if (rc != PA_OK) {
            pa__ssb_lookups_free(l);
            return rc;
        }
        for (int64_t i = 0; i < n; i++) {
            int ok = 1;
            for (int k = 0; k < 2; k++)
                ok = ok && pa__ssb_pred_ok(&dm->pred[k], dm->pred[k].col < 0 ? 0 : db->col[dm->pred[k].col][i]);
            int32_t v = !ok ? -1 : dm->valcol < 0 ? 0 : db->col[dm->valcol][i];
            if (!l->keys[d]) {
                if (ok)
                    l->map[d][key[i] - kmin] = v;
                continue;
            }
            /* Hashed: a later row of the same key wins, as in the dense array. */
            int64_t h = kslot(l, d, key[i]);
            if (ok || l->map[d][h] == INT32_MIN) {
                l->keys[d][h] = key[i];
                l->map[d][h] = v;
            }
        }
    }
    return PA_OK;
}

/* ---- the scan ----------------------------------------------------------------------------------------------- */

typedef struct scan {
    const pa_ssb_db *db;
    const pa__ssb_plan *p;
    pa__ssb_lookups l;
    int count_only;
    gtab *tab;                  /* one per thread */
    int64_t *matches;           /* one per thread */
} scan;

static inline int32_t probe(const pa__ssb_lookups *l, int d, int32_t key)
{
    if (l->keys[d]) {
        int32_t v = l->map[d][kslot(l, d, key)];
        return v == INT32_MIN ? -1 : v;
    }
    int64_t k = (int64_t)key - l->kmin[d];
    return k >= 0 && k < l->size[d] ? l->map[d][k] : -1;
}

static void scan_task(void *arg, int t, int nt)
{
    scan *s = arg;
    const pa__ssb_plan *p = s->p;
    int32_t *const *c = s->db->col;
    int64_t n = s->db->rows[PA_SSB_LINEORDER], lo = n * t / nt, hi = n * (t + 1) / nt, matches = 0;
    const int32_t *f0 = p->fpred[0].col >= 0 ? c[p->fpred[0].col] : NULL;
    const int32_t *f1 = p->fpred[1].col >= 0 ? c[p->fpred[1].col] : NULL;
    const int32_t *fk[PA__SSB_NDIMS] = {0};
    for (int d = 0; d < PA__SSB_NDIMS; d++)
        fk[d] = p->dim[d].used ? c[p->dim[d].factcol] : NULL;
    const int32_t *ext = c[PA__SSB_C_LO_EXTENDEDPRICE], *disc = c[PA__SSB_C_LO_DISCOUNT];
    const int32_t *rev = c[PA__SSB_C_LO_REVENUE], *cost = c[PA__SSB_C_LO_SUPPLYCOST];
    for (int64_t i = lo; i < hi; i++) {
        if ((f0 && !pa__ssb_pred_ok(&p->fpred[0], f0[i])) || (f1 && !pa__ssb_pred_ok(&p->fpred[1], f1[i])))
            continue;
        int32_t val[PA__SSB_NDIMS] = {0};
        int ok = 1;
        for (int d = 0; d < PA__SSB_NDIMS && ok; d++)
            if (fk[d])
                ok = (val[d] = probe(&s->l, d, fk[d][i])) >= 0;
        if (!ok)
            continue;
        matches++;
        if (s->count_only)
            continue;
        int64_t slot = 0;
        for (int g = 0; g < p->ngroups; g++) {
            const pa__ssb_dim *dm = &p->dim[p->gdim[g]];
            slot = slot * dm->vcount + (val[p->gdim[g]] - dm->vmin);
        }
        int64_t v = p->agg == PA__SSB_AGG_PRICE_DISC ? (int64_t)ext[i] * disc[i]
                    : p->agg == PA__SSB_AGG_REVENUE  ? rev[i]
                                                     : (int64_t)rev[i] - cost[i];
        gtab_add(&s->tab[t], slot, v);
    }
    s->matches[t] = matches;
}

static int run_scan(const pa_ssb_db *db, const pa__ssb_plan *p, int nthreads, int count_only, scan *s)
{
    int nt = pa__ssb_threads(nthreads);
    memset(s, 0, sizeof *s);
    s->db = db;
    s->p = p;
    s->count_only = count_only;
    s->tab = calloc((size_t)nt, sizeof *s->tab);
    s->matches = calloc((size_t)nt, sizeof *s->matches);
    if (!s->tab || !s->matches)
        return pa__err(PA_ERR_NOMEM, "ssb: %d threads' tables", nt);
    int rc = pa__ssb_lookups_make(db, p, &s->l);
    if (rc == PA_OK)
        rc = pa__ssb_parallel(nt, scan_task, s);
    for (int t = 0; rc == PA_OK && t < nt; t++)
        if (s->tab[t].failed)
            rc = pa__err(PA_ERR_NOMEM, "ssb: %s: a thread's group table", pa_ssb_query_name(p->q));
    return rc;
}

static void scan_free(scan *s, int nt)
{
    for (int t = 0; s->tab && t < nt; t++)
        gtab_free(&s->tab[t]);
    free(s->tab);
    free(s->matches);
    pa__ssb_lookups_free(&s->l);
}

int pa_ssb_run_cpu(const pa_ssb_db *db, int q, int nthreads, pa_ssb_result *out)
{
    pa__ssb_plan p;
    scan s;
    int64_t *slots = NULL, *sums = NULL, n = 0;
    int nt = pa__ssb_threads(nthreads), rc;
    memset(&s, 0, sizeof s);
    if (!db || !out)
        return pa__err(PA_ERR_INVAL, "pa_ssb_run_cpu: NULL argument");
    if (nthreads < 0)
        return pa__err(PA_ERR_RANGE, "pa_ssb_run_cpu: %d threads (0: every core, or a positive count)", nthreads);
    if ((rc = pa__ssb_plan_make(db, q, &p)) != PA_OK)
        return rc;
    if ((rc = run_scan(db, &p, nt, 0, &s)) != PA_OK)
        goto done;
    /* Merge the threads' tables into the first one. */
    for (int t = 1; t < nt; t++)
        for (int64_t i = 0; i < s.tab[t].cap; i++)
            if (s.tab[t].slot[i] >= 0)
                gtab_add(&s.tab[0], s.tab[t].slot[i], s.tab[t].sum[i]);
    if (s.tab[0].failed) {
        rc = pa__err(PA_ERR_NOMEM, "ssb: merging the group tables");
        goto done;
    }
    slots = malloc(((size_t)s.tab[0].n + 1) * sizeof *slots);
    sums = malloc(((size_t)s.tab[0].n + 1) * sizeof *sums);
    if (!slots || !sums) {
        rc = pa__err(PA_ERR_NOMEM, "ssb: %lld groups", (long long)s.tab[0].n);
        goto done;
    }
    for (int64_t i = 0; i < s.tab[0].cap; i++)
        if (s.tab[0].slot[i] >= 0) {
            slots[n] = s.tab[0].slot[i];
            sums[n++] = s.tab[0].sum[i];
        }
    rc = pa__ssb_result_from_pairs(&p, slots, sums, n, out);
done:
    free(slots);
    free(sums);
    scan_free(&s, nt);
    return rc;
}

int pa__ssb_count_matches(const pa_ssb_db *db, const pa__ssb_plan *p, int nthreads, int64_t *matches)
{
    scan s;
    int nt = pa__ssb_threads(nthreads), rc = run_scan(db, p, nt, 1, &s);
    *matches = 0;
    for (int t = 0; rc == PA_OK && t < nt; t++)
        *matches += s.matches[t];
    scan_free(&s, nt);
    return rc;
}
