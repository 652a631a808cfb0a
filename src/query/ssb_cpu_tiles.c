/*
 * parray — the 13 SSB queries on the CPU from the block-wide primitives (ssb_tile_host.h): the tile engine.
 *
 * From a plan (ssb_plan.c, the same as the reference's and the GPU's):
 *
 *   1. Each joined dimension becomes a perfect hash over its dense keys (the build): a bitmap of the keys whose
 *      row passes the dimension's filters, and for a dimension that gives a group column, each key's rank
 *      among the group values that pass (so that q3.2's c_city x s_city x d_year is 10 x 10 x 6 slots, not
 *      250 x 250 x 7).  Duplicate keys follow the reference: the last passing row of a key wins.
 *   2. The query becomes a list of steps, each a filter on one lineorder column: a range on lo_discount,
 *      lo_quantity, and for q1.x on lo_orderdate (the date filter's range of keys, a necessary condition), or a
 *      probe of a dimension's bitmap.  Their selectivities are measured on 4,096 rows spread over lineorder and
 *      the steps run most selective first (for q1.x the exact date probe after the range, on what is left).
 *   3. Every thread scans its own contiguous share of lineorder, a tile at a time: while the rows still selected
 *      are at least 1/16 of the tile (every 64-byte line of the next column holds one, so the whole column is
 *      read anyway) a step narrows a byte mask over the whole tile, vectorised; then the mask becomes a
 *      selection vector (a tile left empty ends here) and the later steps read their columns at the selected
 *      rows only.  The rows left add their aggregate into the thread's own array of slots (dense: the product
 *      of the group columns' ranks), merged on the calling thread at the end.
 *
 * The scan is compiled for AVX2 and for the baseline (GCC's target_clones: the loader picks by the CPU) where
 * the compiler supports it.  Data this engine does not handle as a perfect hash (a dimension whose keys spread
 * over more than 16 x its rows + 65,536 values, or over 2^28) or whose groups would take more than 2^20 slots
 * (or a group column with more than 65,536 ranks) are run by the reference implementation (pa_ssb_run_cpu) instead: same results, its speed.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ssb_cpu.h"
#include "ssb_tile_host.h"

#define MAX_RANGE (INT64_C(1) << 28)
#define MAX_SLOTS (INT64_C(1) << 20)
#define SAMPLE 4096
#define DENSE_VALUES (INT64_C(1) << 22)   /* group values ranked through an array over their range up to this */
#define MAX_STEPS 8
_Static_assert(PA__TH_TILE == PA__SSB_TILE_ROWS, "one tile size");

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define PA__TH_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PA__TH_CLONES
#endif

typedef struct tdim {
    pa__th_dim th;
    uint64_t *bits;
    int32_t *val;       /* the build's group values (rank, or -1), then narrowed: */
    uint8_t *val8;      /* one byte a key where the ranks fit, */
    uint16_t *val16;    /* else two */
    int32_t *decode;    /* rank -> the plan's value offset (attribute - vmin) */
    int64_t nranks;
} tdim;

typedef struct step {
    const int32_t *col;     /* the lineorder column it reads */
    int dim;                /* the dimension probed, or -1 for a predicate */
    pa__th_pred pred;
    double sel;             /* measured fraction passing (for ordering) */
} step;

typedef struct engine {
    const pa_ssb_db *db;
    const pa__ssb_plan *p;
    tdim dim[PA__SSB_NDIMS];
    step steps[MAX_STEPS];
    int nsteps, nmask;      /* the first nmask steps narrow the mask; the rest the selection vector */
    int gdim[3], ng;
    int64_t gmult[3], nslots;
    int64_t **sums;         /* per thread: nslots sums (q1.x: one) */
    int64_t nrows;
    int failed;
} engine;

/* ---- the build: a dimension as a perfect hash ---------------------------------------------------------------- */

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* 1: built; 0: its keys are too spread for a perfect hash (the caller falls back); < 0: an error. */
static int dim_build(engine *e, int d)
{
    const pa__ssb_dim *dm = &e->p->dim[d];
    const pa_ssb_db *db = e->db;
    tdim *t = &e->dim[d];
    pa_ssb_table tab = pa__ssb_cols[dm->keycol].table;
    const int32_t *key = db->col[dm->keycol];
    int64_t n = db->rows[tab];
    int32_t kmin = n ? key[0] : 0, kmax = n ? key[0] : 0;
    for (int64_t i = 1; i < n; i++) {
        kmin = key[i] < kmin ? key[i] : kmin;
        kmax = key[i] > kmax ? key[i] : kmax;
    }
    int64_t range = n ? (int64_t)kmax - kmin + 1 : 0;
    if (range > MAX_RANGE || range > 16 * n + 65536)
        return 0;
    size_t words = (size_t)(range + 1 + 63) / 64;
    t->bits = calloc(words, sizeof *t->bits);
    if (dm->valcol >= 0)
        t->val = malloc(((size_t)range + 1) * sizeof *t->val);
    int32_t *vals = dm->valcol >= 0 ? malloc(((size_t)n + 1) * sizeof *vals) : NULL;
    if (!t->bits || (dm->valcol >= 0 && (!t->val || !vals))) {
        free(vals);
        return pa__err(PA_ERR_NOMEM, "ssb: the lookup of %s over %lld keys", pa__ssb_cols[dm->keycol].name,
                       (long long)range);
    }
    int64_t nv = 0;
    for (int64_t i = 0; i < n; i++) {
        int ok = 1;
        for (int k = 0; k < 2; k++)
            ok = ok && pa__ssb_pred_ok(&dm->pred[k], dm->pred[k].col < 0 ? 0 : db->col[dm->pred[k].col][i]);
        if (!ok)
            continue;
        uint32_t u = (uint32_t)key[i] - (uint32_t)kmin;
        t->bits[u >> 6] |= UINT64_C(1) << (u & 63);
        if (vals)
            vals[nv++] = db->col[dm->valcol][i];
    }
    if (vals && dm->vcount <= DENSE_VALUES) {
        /* The values' offsets (attribute - vmin: a dictionary's codes, or years) mark an array over their range;
         * its prefix numbers the ranks (no sort: q4.2's 400,000 parts at SF 20 would take tens of ms). */
        int32_t *rank = calloc((size_t)dm->vcount, sizeof *rank), m = 0;
        if (!rank) {
            free(vals);
            return pa__err(PA_ERR_NOMEM, "ssb: the group values of %s", pa__ssb_cols[dm->valcol].name);
        }
        for (int64_t i = 0; i < nv; i++)
            rank[(int64_t)vals[i] - dm->vmin] = 1;
        for (int64_t x = 0; x < dm->vcount; x++)
            if (rank[x]) {
                vals[m] = (int32_t)x;   /* vals becomes the decode table: rank -> offset */
                rank[x] = m++;
            }
        t->nranks = m;
        for (int64_t u = 0; u <= range; u++)
            t->val[u] = -1;
        for (int64_t i = 0; i < n; i++) {
            int ok = 1;
            for (int k = 0; k < 2; k++)
                ok = ok && pa__ssb_pred_ok(&dm->pred[k], dm->pred[k].col < 0 ? 0 : db->col[dm->pred[k].col][i]);
            if (ok)   /* the last passing row of a key wins, as in the reference */
                t->val[(uint32_t)key[i] - (uint32_t)kmin] = rank[(int64_t)db->col[dm->valcol][i] - dm->vmin];
        }
        free(rank);
        t->decode = vals;
    } else if (vals) {
        /* The distinct values that pass, sorted: a value's rank numbers its group. */
        qsort(vals, (size_t)nv, sizeof *vals, cmp_i32);
        int64_t m = 0;
        for (int64_t i = 0; i < nv; i++)
            if (m == 0 || vals[i] != vals[m - 1])
                vals[m++] = vals[i];
        t->nranks = m;
        for (int64_t u = 0; u <= range; u++)
            t->val[u] = -1;
        for (int64_t i = 0; i < n; i++) {
            uint32_t u = (uint32_t)key[i] - (uint32_t)kmin;
            if (!(t->bits[u >> 6] >> (u & 63) & 1))
                continue;
            int ok = 1;
            for (int k = 0; k < 2; k++)
                ok = ok && pa__ssb_pred_ok(&dm->pred[k], dm->pred[k].col < 0 ? 0 : db->col[dm->pred[k].col][i]);
            if (!ok)
                continue;   /* a failing row of a key that passes elsewhere changes nothing (the reference) */
            int32_t v = db->col[dm->valcol][i];
            int32_t *at = bsearch(&v, vals, (size_t)m, sizeof *vals, cmp_i32);
            t->val[u] = (int32_t)(at - vals);
        }
        t->decode = vals;
        for (int64_t r = 0; r < m; r++)
            t->decode[r] = (int32_t)((int64_t)vals[r] - dm->vmin);
    }
    if (t->val) {
        /* The ranks narrowed to one byte or two (the scan's lookups stay in cache); more ranks: the fallback. */
        size_t m = (size_t)range + 1;
        if (t->nranks <= UINT8_MAX + 1 && (t->val8 = malloc(m)))
            for (size_t u = 0; u < m; u++)
                t->val8[u] = (uint8_t)t->val[u];
        else if (t->nranks <= UINT16_MAX + 1 && !t->val8 && (t->val16 = malloc(m * sizeof *t->val16)))
            for (size_t u = 0; u < m; u++)
                t->val16[u] = (uint16_t)t->val[u];
        else if (t->nranks <= UINT16_MAX + 1)
            return pa__err(PA_ERR_NOMEM, "ssb: the group values of %s", pa__ssb_cols[dm->valcol].name);
        else
            return 0;
        free(t->val);
        t->val = NULL;
    }
    t->th.bits = t->bits;
    t->th.val8 = t->val8;
    t->th.val16 = t->val16;
    t->th.kmin = (uint32_t)kmin;
    t->th.range = (uint32_t)range;
    return 1;
}

static void engine_free(engine *e, int nt)
{
    for (int d = 0; d < PA__SSB_NDIMS; d++) {
        free(e->dim[d].bits);
        free(e->dim[d].val);
        free(e->dim[d].val8);
        free(e->dim[d].val16);
        free(e->dim[d].decode);
    }
    for (int t = 0; e->sums && t < nt; t++)
        free(e->sums[t]);
    free(e->sums);
}

/* ---- the steps ------------------------------------------------------------------------------------------------ */

static pa__th_pred th_pred(const pa__ssb_pred *p)
{
    if (p->hi < p->lo)
        return (pa__th_pred){(uint32_t)p->alt, 0, (uint32_t)p->alt};
    return (pa__th_pred){(uint32_t)p->lo, (uint32_t)p->hi - (uint32_t)p->lo, (uint32_t)p->alt};
}

static int step_pass(const engine *e, const step *s, int64_t row)
{
    int32_t v = s->col[row];
    return s->dim < 0 ? (int)pa__th_pass(s->pred, v) : (int)pa__th_bit(&e->dim[s->dim].th, v);
}

static int cmp_step(const void *a, const void *b)
{
    double x = ((const step *)a)->sel, y = ((const step *)b)->sel;
    return x < y ? -1 : x > y;
}

static void make_steps(engine *e)
{
    const pa__ssb_plan *p = e->p;
    int32_t *const *c = e->db->col;
    int exact_date = -1;
    for (int k = 0; k < 2; k++)
        if (p->fpred[k].col >= 0)
            e->steps[e->nsteps++] = (step){c[p->fpred[k].col], -1, th_pred(&p->fpred[k]), 0};
    if (p->q < 3 && p->date_ok) {
        /* The date filter as its range of keys (cheap, vectorised); the exact probe follows on what is left. */
        pa__ssb_pred r = {PA__SSB_C_LO_ORDERDATE, p->date_lo, p->date_hi, INT32_MIN};
        pa__th_pred tr = th_pred(&r);
        tr.alt = tr.lo;     /* no alternative value: repeat one inside the range (or the empty range's own) */
        e->steps[e->nsteps++] = (step){c[PA__SSB_C_LO_ORDERDATE], -1, tr, 0};
    }
    for (int d = 0; d < PA__SSB_NDIMS; d++) {
        if (!p->dim[d].used)
            continue;
        if (d == PA__SSB_DDATE && p->q < 3 && p->date_ok)
            exact_date = e->nsteps;
        e->steps[e->nsteps++] = (step){c[p->dim[d].factcol], d, {0, 0, 0}, 0};
    }
    int64_t n = e->nrows, m = n < SAMPLE ? n : SAMPLE;
    for (int s = 0; s < e->nsteps; s++) {
        int64_t pass = 0;
        for (int64_t i = 0; i < m; i++)
            pass += step_pass(e, &e->steps[s], i * n / m);
        e->steps[s].sel = m ? (double)pass / (double)m : 1;
    }
    if (exact_date >= 0)
        e->steps[exact_date].sel = 2;   /* after every filter: it narrows the range's rows hardly at all */
    qsort(e->steps, (size_t)e->nsteps, sizeof e->steps[0], cmp_step);
    double left = 1;
    e->nmask = 0;
    for (int s = 0; s < e->nsteps && (s == 0 || left > 1.0 / 16); s++) {
        left *= e->steps[s].sel > 1 ? 1 : e->steps[s].sel;
        e->nmask = s + 1;
    }
}

/* ---- the scan --------------------------------------------------------------------------------------------------- */

PA__TH_CLONES
static void scan_range(const engine *e, int64_t lo, int64_t hi, int64_t *sums)
{
    const pa__ssb_plan *p = e->p;
    int32_t *const *c = e->db->col;
    const int32_t *ext = c[PA__SSB_C_LO_EXTENDEDPRICE], *disc = c[PA__SSB_C_LO_DISCOUNT];
    const int32_t *rev = c[PA__SSB_C_LO_REVENUE], *cost = c[PA__SSB_C_LO_SUPPLYCOST];
    const int32_t *gkey[3] = {0};
    const pa__th_dim *gd[3] = {0};
    for (int g = 0; g < e->ng; g++) {
        gkey[g] = c[p->dim[e->gdim[g]].factcol];
        gd[g] = &e->dim[e->gdim[g]].th;
    }
    uint8_t m[PA__TH_TILE];
    uint16_t sel[PA__TH_TILE];
    uint32_t slot[PA__TH_TILE];   /* the selected rows' group slots (below MAX_SLOTS: 32 bits) */
    int64_t val[PA__TH_TILE];     /* and their aggregates */
    uint64_t one = 0;
    for (int64_t base = lo; base < hi; base += PA__TH_TILE) {
        int n = (int)(hi - base < PA__TH_TILE ? hi - base : PA__TH_TILE);
        for (int s = 0; s < e->nmask; s++) {
            const step *st = &e->steps[s];
            if (st->dim < 0)
                pa__th_pred_mask(st->col + base, n, st->pred, m, s == 0);
            else
                pa__th_probe_mask(st->col + base, n, &e->dim[st->dim].th, m, s == 0);
        }
        for (int i = n; i < ((n + 7) & ~7); i++)
            m[i] = 0;
        int k = pa__th_compact(m, n, sel);
        for (int s = e->nmask; s < e->nsteps && k > 0; s++) {
            const step *st = &e->steps[s];
            k = st->dim < 0 ? pa__th_pred_sel(st->col + base, sel, k, st->pred)
                            : pa__th_probe_sel(st->col + base, sel, k, &e->dim[st->dim].th);
        }
        if (k == 0)
            continue;
        if (p->agg == PA__SSB_AGG_PRICE_DISC && e->ng == 0) {
            one += (uint64_t)pa__th_sum_product(ext + base, disc + base, sel, k);
            continue;
        }
        /* The groups a column at a time over the selected rows (each loop's loads are independent: gathers, many
         * misses in flight), then the values, then the adds into the slots. */
        for (int i = 0; i < k; i++)
            slot[i] = 0;
        for (int g = 0; g < e->ng; g++) {
            const int32_t *gk = gkey[g] + base;
            const pa__th_dim *d = gd[g];
            uint32_t mult = (uint32_t)e->gmult[g];
            if (d->val8)
                for (int i = 0; i < k; i++)
                    slot[i] += (uint32_t)d->val8[pa__th_slot(d, gk[sel[i]])] * mult;
            else
                for (int i = 0; i < k; i++)
                    slot[i] += (uint32_t)d->val16[pa__th_slot(d, gk[sel[i]])] * mult;
        }
        const int32_t *rv = rev + base, *cs = cost + base, *ex = ext + base, *dc = disc + base;
        if (p->agg == PA__SSB_AGG_REVENUE)
            for (int i = 0; i < k; i++)
                val[i] = rv[sel[i]];
        else if (p->agg == PA__SSB_AGG_PROFIT)
            for (int i = 0; i < k; i++)
                val[i] = (int64_t)rv[sel[i]] - cs[sel[i]];
        else
            for (int i = 0; i < k; i++)
                val[i] = (int64_t)ex[sel[i]] * dc[sel[i]];
        for (int i = 0; i < k; i++)
            sums[slot[i]] = (int64_t)((uint64_t)sums[slot[i]] + (uint64_t)val[i]);
    }
    sums[0] = (int64_t)((uint64_t)sums[0] + one);
}

static void scan_task(void *arg, int t, int nt)
{
    engine *e = arg;
    int64_t lo, hi;
    /* Allocated here, so that its pages are the thread's (first touch). */
    int64_t *sums = calloc((size_t)e->nslots, sizeof *sums);
    if (!sums) {
        __atomic_store_n(&e->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    e->sums[t] = sums;
    pa__ssb_share(e->nrows, t, nt, &lo, &hi);
    scan_range(e, lo, hi, sums);
}

/* ---- the query ---------------------------------------------------------------------------------------------------- */

int pa_ssb_run_cpu_tiles(const pa_ssb_db *db, int q, int nthreads, pa_ssb_result *out)
{
    pa__ssb_plan p;
    engine e;
    int rc, nt;
    int64_t *slots = NULL, *vals = NULL;
    if (!db || !out)
        return pa__err(PA_ERR_INVAL, "pa_ssb_run_cpu_tiles: NULL argument");
    if (nthreads < 0)
        return pa__err(PA_ERR_RANGE, "pa_ssb_run_cpu_tiles: %d threads (0: every core, or a positive count)",
                       nthreads);
    if ((rc = pa__ssb_plan_make(db, q, &p)) != PA_OK)
        return rc;
    nt = pa__ssb_threads(nthreads);
    memset(&e, 0, sizeof e);
    e.db = db;
    e.p = &p;
    e.nrows = db->rows[PA_SSB_LINEORDER];
    for (int d = 0; d < PA__SSB_NDIMS; d++) {
        if (!p.dim[d].used)
            continue;
        if ((rc = dim_build(&e, d)) <= 0) {
            engine_free(&e, nt);
            return rc < 0 ? rc : pa_ssb_run_cpu(db, q, nthreads, out);
        }
    }
    e.ng = p.ngroups;
    e.nslots = 1;
    for (int g = e.ng - 1; g >= 0; g--) {
        e.gdim[g] = p.gdim[g];
        e.gmult[g] = e.nslots;
        int64_t r = e.dim[p.gdim[g]].nranks;
        e.nslots *= r > 0 ? r : 1;
        if (e.nslots > MAX_SLOTS) {
            engine_free(&e, nt);
            return pa_ssb_run_cpu(db, q, nthreads, out);
        }
    }
    make_steps(&e);
    if (!(e.sums = calloc((size_t)nt, sizeof *e.sums))) {
        rc = pa__err(PA_ERR_NOMEM, "ssb: %d threads' sums", nt);
        goto done;
    }
    if ((rc = pa__ssb_parallel(nt, scan_task, &e)) != PA_OK)
        goto done;
    if (e.failed) {
        rc = pa__err(PA_ERR_NOMEM, "ssb: %s: a thread's %lld group sums", pa_ssb_query_name(q), (long long)e.nslots);
        goto done;
    }
    for (int t = 1; t < nt; t++)
        for (int64_t s = 0; s < e.nslots; s++)
            e.sums[0][s] = (int64_t)((uint64_t)e.sums[0][s] + (uint64_t)e.sums[t][s]);
    slots = malloc((size_t)e.nslots * sizeof *slots);
    vals = malloc((size_t)e.nslots * sizeof *vals);
    if (!slots || !vals) {
        rc = pa__err(PA_ERR_NOMEM, "ssb: %lld groups", (long long)e.nslots);
        goto done;
    }
    /* Compact slots back to the plan's: the mixed radix of the group values' offsets. */
    for (int64_t s = 0; s < e.nslots; s++) {
        int64_t ps = 0;
        for (int g = 0; g < e.ng; g++) {
            int64_t rank = s / e.gmult[g] % (e.dim[e.gdim[g]].nranks > 0 ? e.dim[e.gdim[g]].nranks : 1);
            int64_t off = e.dim[e.gdim[g]].nranks > 0 ? e.dim[e.gdim[g]].decode[rank] : 0;
            ps = ps * p.dim[e.gdim[g]].vcount + off;
        }
        slots[s] = ps;
        vals[s] = e.sums[0][s];
    }
    rc = pa__ssb_result_from_pairs(&p, slots, vals, e.nslots, out);
done:
    free(slots);
    free(vals);
    engine_free(&e, nt);
    return rc;
}
