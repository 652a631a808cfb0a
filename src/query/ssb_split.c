/*
 * parray — SSB work in parts: a view of some of lineorder's rows (pa_ssb_slice), and the results of parts
 * combined into the whole's (pa_ssb_result_combine).  Group values go back to the dense slot numbers of the
 * plan (the mixed radix of ssb_plan.c), equal slots are added, and pa__ssb_result_from_pairs sorts the rest.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ssb_internal.h"

int pa_ssb_slice(const pa_ssb_db *db, int64_t lo, int64_t hi, pa_ssb_db **out)
{
    if (!db || !out)
        return pa__err(PA_ERR_INVAL, "pa_ssb_slice: NULL argument");
    int64_t n = db->rows[PA_SSB_LINEORDER];
    if (lo < 0 || hi < lo || hi > n)
        return pa__err(PA_ERR_RANGE, "pa_ssb_slice: rows [%lld, %lld) of lineorder's %lld", (long long)lo,
                       (long long)hi, (long long)n);
    pa_ssb_db *v = pa__ssb_db_new();
    if (!v)
        return pa__err(PA_ERR_NOMEM, "pa_ssb_slice: out of memory");
    *v = *db;
    v->view = 1;
    v->rows[PA_SSB_LINEORDER] = hi - lo;
    for (int c = 0; c < PA__SSB_NCOLS; c++)
        if (pa__ssb_cols[c].table == PA_SSB_LINEORDER && db->col[c])
            v->col[c] = db->col[c] + lo;
    *out = v;
    return PA_OK;
}

typedef struct pair {
    int64_t slot, sum;
} pair;

static int cmp_pair(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* Part k's rows as (slot, sum) pairs appended at *m. */
static int encode(const pa__ssb_plan *p, const pa_ssb_result *r, int k, pair *out, int64_t *m)
{
    for (int64_t i = 0; i < r->nrows; i++) {
        int64_t slot = 0;
        for (int g = 0; g < p->ngroups; g++) {
            const pa__ssb_dim *d = &p->dim[p->gdim[g]];
            int64_t v = (int64_t)r->groups[i * 3 + g] - d->vmin;
            if (v < 0 || v >= d->vcount)
                return pa__err(PA_ERR_RANGE, "pa_ssb_result_combine: part %d row %lld: %s %d outside its range in the "
                               "database (%lld values from %d)", k, (long long)i, pa_ssb_result_column(p->q, g),
                               r->groups[i * 3 + g], (long long)d->vcount, d->vmin);
            slot = slot * d->vcount + v;
        }
        out[(*m)++] = (pair){slot, r->values[i]};
    }
    return PA_OK;
}

int pa_ssb_result_combine(const pa_ssb_db *db, int q, const pa_ssb_result *parts, int n, pa_ssb_result *out)
{
    pa__ssb_plan p;
    int64_t total = 0, m = 0, k = 0;
    int rc;
    if (!db || !parts || !out || n < 1)
        return pa__err(PA_ERR_INVAL, "pa_ssb_result_combine: %s", n < 1 && db && parts && out ? "no parts"
                       : "NULL argument");
    if ((rc = pa__ssb_plan_make(db, q, &p)) != PA_OK)
        return rc;
    for (int i = 0; i < n; i++) {
        const pa_ssb_result *r = &parts[i];
        if (r->query != q || r->ngroups != p.ngroups || r->nrows < 0 || (r->nrows > 0 && (!r->values ||
            (p.ngroups > 0 && !r->groups))))
            return pa__err(PA_ERR_INVAL, "pa_ssb_result_combine: part %d is not a result of %s (query %d, %d groups, "
                           "%lld rows)", i, pa_ssb_query_name(q), r->query, r->ngroups, (long long)r->nrows);
        total += r->nrows;
    }
    pair *pr = malloc(((size_t)total + 1) * sizeof *pr);
    int64_t *slots = malloc(((size_t)total + 1) * sizeof *slots), *sums = malloc(((size_t)total + 1) * sizeof *sums);
    if (!pr || !slots || !sums) {
        rc = pa__err(PA_ERR_NOMEM, "pa_ssb_result_combine: %lld rows", (long long)total);
        goto done;
    }
    for (int i = 0; i < n && rc == PA_OK; i++)
        rc = encode(&p, &parts[i], i, pr, &m);
    if (rc != PA_OK)
        goto done;
    qsort(pr, (size_t)m, sizeof *pr, cmp_pair);
    for (int64_t i = 0; i < m; i++) {
        if (k > 0 && slots[k - 1] == pr[i].slot) {   /* wrapping, as the engines' sums */
            sums[k - 1] = (int64_t)((uint64_t)sums[k - 1] + (uint64_t)pr[i].sum);
            continue;
        }
        slots[k] = pr[i].slot;
        sums[k++] = pr[i].sum;
    }
    rc = pa__ssb_result_from_pairs(&p, slots, sums, k, out);
done:
    free(pr);
    free(slots);
    free(sums);
    return rc;
}
