/*
 * parray — running an SSB query on the GPU: the launches of one query queued on a stream, and its result read
 * back into the same sorted form as the CPU's.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "ssb_gpu.h"

static int launch(pa_ssb_gpu *g, int k, const pa_dthreads *th, void **params, void *stream)
{
    return pa_cuda_for_async(th, g->fn[k], params, 0, stream);
}

static int fill(pa_ssb_gpu *g, void *p, long long n, int v, void *stream)
{
    void *params[] = {&p, &n, &v};
    return launch(g, PA__SSB_K_FILL, &g->fill, params, stream);
}

/* The fill and build of dimension d's hash table for plan p. */
static int build(pa_ssb_gpu *g, const pa__ssb_plan *p, int d, void *stream)
{
    const pa__ssb_dim *dm = &p->dim[d];
    const pa_ssb_db *db = g->db;
    long long n = db->rows[pa__ssb_cols[dm->keycol].table];
    const void *keys = g->col[dm->keycol].ptr, *f[2] = {NULL, NULL}, *vals = NULL;
    int lo[2] = {0, 0}, hi[2] = {0, 0}, alt[2] = {0, 0}, vmin = dm->vmin;
    for (int k = 0; k < 2; k++)
        if (dm->pred[k].col >= 0) {
            f[k] = g->col[dm->pred[k].col].ptr;
            lo[k] = dm->pred[k].lo;
            hi[k] = dm->pred[k].hi;
            alt[k] = dm->pred[k].alt;
        }
    if (dm->valcol >= 0)
        vals = g->col[dm->valcol].ptr;
    pa_qb_ht ht = g->hts[d];
    void *params[] = {&keys, &n, &f[0], &lo[0], &hi[0], &alt[0], &f[1], &lo[1], &hi[1], &alt[1], &vals, &vmin, &ht};
    int rc = fill(g, g->ht[d].ptr, g->ht_ints[d], PA_QB_EMPTY, stream);
    return rc != PA_OK || n == 0 ? rc : launch(g, PA__SSB_K_BUILD, &g->build[d], params, stream);
}

/* The slot multipliers: mult[d] for the dimension of each group column, the mixed radix of the ORDER BY. */
static void multipliers(const pa__ssb_plan *p, int mult[PA__SSB_NDIMS])
{
    int64_t m = 1;   /* at most nslots <= PA__SSB_GPU_MAX_SLOTS (checked at the launch): fits an int */
    memset(mult, 0, PA__SSB_NDIMS * sizeof *mult);
    for (int i = p->ngroups - 1; i >= 0; i--) {
        mult[p->gdim[i]] = (int)m;
        m *= p->dim[p->gdim[i]].vcount;
    }
}

int pa_ssb_gpu_launch(pa_ssb_gpu *g, int q, void *stream)
{
    if (!g)
        return pa__err(PA_ERR_INVAL, "pa_ssb_gpu_launch: NULL");
    if (q < 0 || q >= PA_SSB_NQUERIES)
        return pa__err(PA_ERR_RANGE, "ssb: query %d (there are %d)", q, PA_SSB_NQUERIES);
    const pa__ssb_plan *p = &g->plan[q];
    long long n = g->db->rows[PA_SSB_LINEORDER];
    if (p->nslots > PA__SSB_GPU_MAX_SLOTS)
        return pa__err(PA_ERR_RANGE, "ssb: %s on the GPU: %lld groups (the data's ranges of its group columns), more "
                       "than the GPU's dense group table holds (%lld); run it on the CPU", pa_ssb_query_name(q),
                       (long long)p->nslots, (long long)PA__SSB_GPU_MAX_SLOTS);
    void **c = (void **)malloc(PA__SSB_NCOLS * sizeof *c);
    int mult[PA__SSB_NDIMS], rc = PA_OK;
    if (!c)
        return pa__err(PA_ERR_NOMEM, "ssb: launch");
    for (int i = 0; i < PA__SSB_NCOLS; i++)
        c[i] = g->col[i].ptr;
    multipliers(p, mult);
    void *groups = g->groups.ptr;
    g->launched[q] = 0;
    if (q < 3) {
        int dlo = p->date_lo, dhi = p->date_hi, qlo = p->fpred[1].lo, qhi = p->fpred[1].hi;
        int clo = p->fpred[0].lo, chi = p->fpred[0].hi;
        if (!p->date_ok) {
            rc = pa__err(PA_ERR_UNSUPPORTED, "ssb: %s: the dates that pass the filter are not a range of keys",
                         pa_ssb_query_name(q));
            goto done;
        }
        void *params[] = {&c[PA__SSB_C_LO_ORDERDATE], &c[PA__SSB_C_LO_QUANTITY], &c[PA__SSB_C_LO_DISCOUNT],
                          &c[PA__SSB_C_LO_EXTENDEDPRICE], &n, &dlo, &dhi, &qlo, &qhi, &clo, &chi, &groups};
        if ((rc = fill(g, groups, 2, 0, stream)) == PA_OK && n > 0)
            rc = launch(g, PA__SSB_K_Q1, &g->fact, params, stream);
        goto done;
    }
    for (int d = 0; d < PA__SSB_NDIMS && rc == PA_OK; d++)
        if (p->dim[d].used)
            rc = build(g, p, d, stream);
    if (rc == PA_OK)
        rc = fill(g, groups, 2 * p->nslots, 0, stream);
    if (rc != PA_OK || n == 0)
        goto done;
    pa_qb_ht cu = g->hts[PA__SSB_DCUST], su = g->hts[PA__SSB_DSUPP], pt = g->hts[PA__SSB_DPART];
    pa_qb_ht dt = g->hts[PA__SSB_DDATE];
    int mc = mult[PA__SSB_DCUST], ms = mult[PA__SSB_DSUPP], mp = mult[PA__SSB_DPART], md = mult[PA__SSB_DDATE];
    if (q < 6) {
        void *params[] = {&c[PA__SSB_C_LO_SUPPKEY], &c[PA__SSB_C_LO_PARTKEY], &c[PA__SSB_C_LO_ORDERDATE],
                          &c[PA__SSB_C_LO_REVENUE], &n, &su, &pt, &dt, &mp, &md, &groups};
        rc = launch(g, PA__SSB_K_Q2, &g->fact, params, stream);
    } else if (q < 10) {
        void *params[] = {&c[PA__SSB_C_LO_CUSTKEY], &c[PA__SSB_C_LO_SUPPKEY], &c[PA__SSB_C_LO_ORDERDATE],
                          &c[PA__SSB_C_LO_REVENUE], &n, &cu, &su, &dt, &mc, &ms, &md, &groups};
        rc = launch(g, PA__SSB_K_Q3, &g->fact, params, stream);
    } else {
        void *params[] = {&c[PA__SSB_C_LO_CUSTKEY], &c[PA__SSB_C_LO_SUPPKEY], &c[PA__SSB_C_LO_PARTKEY],
                          &c[PA__SSB_C_LO_ORDERDATE], &c[PA__SSB_C_LO_REVENUE], &c[PA__SSB_C_LO_SUPPLYCOST],
                          &n, &cu, &su, &pt, &dt, &mc, &ms, &mp, &md, &groups};
        rc = launch(g, PA__SSB_K_Q4, &g->fact, params, stream);
    }
done:
    free(c);
    if (rc == PA_OK) {
        g->launched[q] = 1;
        g->stream[q] = stream;
    }
    return rc;
}

int pa_ssb_gpu_result(pa_ssb_gpu *g, int q, pa_ssb_result *out)
{
    if (!g || !out)
        return pa__err(PA_ERR_INVAL, "pa_ssb_gpu_result: NULL argument");
    if (q < 0 || q >= PA_SSB_NQUERIES || !g->launched[q])
        return pa__err(PA_ERR_RANGE, "ssb: query %d has not been launched", q);
    const pa__ssb_plan *p = &g->plan[q];
    int64_t n = p->nslots, m = 0;
    int64_t *sums = malloc((size_t)n * sizeof *sums), *slots = malloc((size_t)n * sizeof *slots);
    char hdecl[64], ddecl[64];
    int rc = pa__stream_wait(g->stream[q]);
    if (!sums || !slots) {
        rc = pa__err(PA_ERR_NOMEM, "ssb: %lld groups", (long long)n);
        goto done;
    }
    snprintf(hdecl, sizeof hdecl, "paged long [%lld]", (long long)n);
    snprintf(ddecl, sizeof ddecl, "dmem long [%lld]", (long long)n);
    const pa_type *ht = pa_type_parse(g->scope, hdecl), *dt = pa_type_parse(g->scope, ddecl);
    if (rc == PA_OK)
        rc = ht && dt ? pa_copy(ht, sums, dt, g->groups.ptr) : PA_ERR_NOMEM;
    if (rc != PA_OK) {
        rc = pa__err_wrap(rc, "ssb: %s: reading the result back", pa_ssb_query_name(q));
        goto done;
    }
    for (int64_t i = 0; i < n; i++)
        if (sums[i] != 0) {
            slots[m] = i;
            sums[m++] = sums[i];
        }
    rc = pa__ssb_result_from_pairs(p, slots, sums, m, out);
done:
    free(sums);
    free(slots);
    return rc;
}

int pa_ssb_gpu_run(pa_ssb_gpu *g, int q, pa_ssb_result *out, double *ms)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = pa_ssb_gpu_launch(g, q, NULL);
    /* The kernels are queued on the default stream: the clock stops when the last of them has finished. */
    if (rc == PA_OK && (rc = pa__stream_wait(NULL)) != PA_OK)
        rc = pa__err_wrap(rc, "ssb: %s on the GPU", pa_ssb_query_name(q));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (ms)
        *ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    return rc == PA_OK ? pa_ssb_gpu_result(g, q, out) : rc;
}
