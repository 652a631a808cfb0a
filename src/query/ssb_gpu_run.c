/*
 * parray — running an SSB query on the GPU: the launches of one query queued on streams, and its result read
 * back into the same sorted form as the CPU's.
 *
 * One resident part queues everything on the caller's stream.  Otherwise an event recorded on the caller's
 * stream starts each part's streams, and the caller's stream then waits for an event at the end of each: the
 * caller sees one stream whichever the mode.  A part's stream 0 fills and builds its hash tables and clears its
 * group table; streaming, the other streams wait for that, then chunk i's copies and kernel go on stream
 * i mod streams, into that stream's buffer.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "ssb_gpu.h"

static int launch(pa__ssb_part *pt, int k, const pa_dthreads *th, void **params, void *stream)
{
    return pa_cuda_for_async(th, pt->fn[k], params, 0, stream);
}

static int fill(pa__ssb_part *pt, void *p, long long n, int v, void *stream)
{
    void *params[] = {&p, &n, &v};
    return launch(pt, PA__SSB_K_FILL, &pt->fill, params, stream);
}

/* The fill and build of dimension d's hash table for plan p. */
static int build(const pa_ssb_gpu *g, pa__ssb_part *pt, const pa__ssb_plan *p, int d, void *stream)
{
    const pa__ssb_dim *dm = &p->dim[d];
    long long n = g->db->rows[pa__ssb_cols[dm->keycol].table];
    const void *keys = pt->col[dm->keycol].ptr, *f[2] = {NULL, NULL}, *vals = NULL;
    int lo[2] = {0, 0}, hi[2] = {0, 0}, alt[2] = {0, 0}, vmin = dm->vmin;
    for (int k = 0; k < 2; k++)
        if (dm->pred[k].col >= 0) {
            f[k] = pt->col[dm->pred[k].col].ptr;
            lo[k] = dm->pred[k].lo;
            hi[k] = dm->pred[k].hi;
            alt[k] = dm->pred[k].alt;
        }
    if (dm->valcol >= 0)
        vals = pt->col[dm->valcol].ptr;
    pa_qb_ht ht = pt->hts[d];
    void *params[] = {&keys, &n, &f[0], &lo[0], &hi[0], &alt[0], &f[1], &lo[1], &hi[1], &alt[1], &vals, &vmin, &ht};
    int rc = fill(pt, pt->ht[d].ptr, pt->ht_ints[d], PA_QB_EMPTY, stream);
    return rc != PA_OK || n == 0 ? rc : launch(pt, PA__SSB_K_BUILD, &pt->build[d], params, stream);
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

static int kind_of(int q)
{
    return q < 3 ? 0 : q < 6 ? 1 : q < 10 ? 2 : 3;
}

/* Queues the lineorder kernel of plan p over n rows whose columns (in the kernel's order) are at c. */
static int fact(pa__ssb_part *pt, const pa__ssb_plan *p, const pa_dthreads *th, void *c[PA__SSB_MAX_FACT],
                long long n, void *stream)
{
    int mult[PA__SSB_NDIMS];
    void *groups = pt->groups.ptr;
    multipliers(p, mult);
    if (p->q < 3) {
        int dlo = p->date_lo, dhi = p->date_hi, qlo = p->fpred[1].lo, qhi = p->fpred[1].hi;
        int clo = p->fpred[0].lo, chi = p->fpred[0].hi;
        void *params[] = {&c[0], &c[1], &c[2], &c[3], &n, &dlo, &dhi, &qlo, &qhi, &clo, &chi, &groups};
        return launch(pt, PA__SSB_K_Q1, th, params, stream);
    }
    pa_qb_ht cu = pt->hts[PA__SSB_DCUST], su = pt->hts[PA__SSB_DSUPP], pa = pt->hts[PA__SSB_DPART];
    pa_qb_ht dt = pt->hts[PA__SSB_DDATE];
    int mc = mult[PA__SSB_DCUST], ms = mult[PA__SSB_DSUPP], mp = mult[PA__SSB_DPART], md = mult[PA__SSB_DDATE];
    if (p->q < 6) {
        void *params[] = {&c[0], &c[1], &c[2], &c[3], &n, &su, &pa, &dt, &mp, &md, &groups};
        return launch(pt, PA__SSB_K_Q2, th, params, stream);
    }
    if (p->q < 10) {
        void *params[] = {&c[0], &c[1], &c[2], &c[3], &n, &cu, &su, &dt, &mc, &ms, &md, &groups};
        return launch(pt, PA__SSB_K_Q3, th, params, stream);
    }
    void *params[] = {&c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &n, &cu, &su, &pa, &dt, &mc, &ms, &mp, &md, &groups};
    return launch(pt, PA__SSB_K_Q4, th, params, stream);
}

/* Streaming: chunk i's columns copied into stream i mod streams' buffer, then its kernel, on that stream. */
static int chunks(const pa_ssb_gpu *g, pa__ssb_part *pt, const pa__ssb_plan *p)
{
    int ncol, rc = g->as->record(pt->built, pt->streams[0]);
    const int *cols = pa__ssb_fact_cols(kind_of(p->q), &ncol);
    for (int s = 1; s < g->nstreams && rc == PA_OK; s++)
        rc = g->as->wait(pt->streams[s], pt->built);
    for (int64_t i = 0; i < pt->nchunks && rc == PA_OK; i++) {
        int s = (int)(i % g->nstreams);
        int64_t r0 = pt->lo + i * g->chunk, m = pt->hi - r0 < g->chunk ? pt->hi - r0 : g->chunk;
        void *c[PA__SSB_MAX_FACT] = {NULL};
        for (int k = 0; k < ncol && rc == PA_OK; k++) {
            c[k] = (char *)pt->buf[s].ptr + (size_t)k * (size_t)g->chunk * 4;
            rc = g->as->copy(c[k], g->db->col[cols[k]] + r0, (size_t)m * 4, pt->streams[s]);
        }
        if (rc == PA_OK)
            rc = fact(pt, p, i == pt->nchunks - 1 ? &pt->fact_last : &pt->fact, c, m, pt->streams[s]);
    }
    return rc;
}

/* Queues plan p on part pt: its hash tables, its cleared group table, its rows. */
static int launch_part(const pa_ssb_gpu *g, pa__ssb_part *pt, const pa__ssb_plan *p, void *stream)
{
    void *s0 = g->as ? pt->streams[0] : stream;
    int rc = g->as ? g->as->wait(s0, g->start) : PA_OK;
    for (int d = 0; d < PA__SSB_NDIMS && rc == PA_OK && p->q >= 3; d++)
        if (p->dim[d].used)
            rc = build(g, pt, p, d, s0);
    if (rc == PA_OK)
        rc = fill(pt, pt->groups.ptr, 2 * p->nslots, 0, s0);
    if (rc != PA_OK || pt->hi == pt->lo)
        return rc;
    if (g->mode == PA_SSB_GPU_STREAM)
        return chunks(g, pt, p);
    int ncol;
    const int *cols = pa__ssb_fact_cols(kind_of(p->q), &ncol);
    void *c[PA__SSB_MAX_FACT] = {NULL};
    for (int k = 0; k < ncol; k++)
        c[k] = pt->col[cols[k]].ptr;
    return fact(pt, p, &pt->fact, c, pt->hi - pt->lo, s0);
}

static int part_streams(const pa_ssb_gpu *g)
{
    return g->mode == PA_SSB_GPU_STREAM ? g->nstreams : 1;
}

int pa_ssb_gpu_launch(pa_ssb_gpu *g, int q, void *stream)
{
    if (!g)
        return pa__err(PA_ERR_INVAL, "pa_ssb_gpu_launch: NULL");
    if (q < 0 || q >= PA_SSB_NQUERIES)
        return pa__err(PA_ERR_RANGE, "ssb: query %d (there are %d)", q, PA_SSB_NQUERIES);
    const pa__ssb_plan *p = &g->plan[q];
    if (p->nslots > PA__SSB_GPU_MAX_SLOTS)
        return pa__err(PA_ERR_RANGE, "ssb: %s on the GPU: %lld groups (the data's ranges of its group columns), more "
                       "than the GPU's dense group table holds (%lld); run it on the CPU", pa_ssb_query_name(q),
                       (long long)p->nslots, (long long)PA__SSB_GPU_MAX_SLOTS);
    if (q < 3 && !p->date_ok)
        return pa__err(PA_ERR_UNSUPPORTED, "ssb: %s: the dates that pass the filter are not a range of keys",
                       pa_ssb_query_name(q));
    int caller = pa_cuda_get_device(), rc = PA_OK;
    if (caller < 0)
        return caller;
    g->launched[q] = 0;
    if (g->as && (rc = pa_cuda_set_device(g->home)) == PA_OK)
        rc = g->as->record(g->start, stream);
    for (int i = 0; i < g->nparts && rc == PA_OK; i++)
        if ((rc = pa_cuda_set_device(g->part[i].device)) == PA_OK)
            rc = launch_part(g, &g->part[i], p, stream);
    if (g->as && rc == PA_OK && (rc = pa_cuda_set_device(g->home)) == PA_OK)
        for (int i = 0; i < g->nparts && rc == PA_OK; i++)
            for (int s = 0; s < part_streams(g) && rc == PA_OK; s++)
                if ((rc = pa_cuda_set_device(g->part[i].device)) == PA_OK &&
                    (rc = g->as->record(g->part[i].done[s], g->part[i].streams[s])) == PA_OK &&
                    (rc = pa_cuda_set_device(g->home)) == PA_OK)
                    rc = g->as->wait(stream, g->part[i].done[s]);
    int back = pa_cuda_set_device(caller);
    rc = rc != PA_OK ? rc : back;
    if (rc == PA_OK) {
        g->launched[q] = 1;
        g->stream[q] = stream;
    }
    return rc;
}

/* Waits for the caller's stream of the last launch of q, on the engine's home GPU. */
static int wait_home(const pa_ssb_gpu *g, void *stream)
{
    int caller = pa_cuda_get_device();
    if (caller < 0)
        return caller;
    int rc = pa_cuda_set_device(g->home);
    if (rc == PA_OK)
        rc = pa__stream_wait(stream);
    int back = pa_cuda_set_device(caller);
    return rc != PA_OK ? rc : back;
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
    int64_t *part = g->nparts > 1 ? malloc((size_t)n * sizeof *part) : NULL;
    char hdecl[64], ddecl[64];
    int rc = wait_home(g, g->stream[q]);
    if (!sums || !slots || (g->nparts > 1 && !part)) {
        rc = pa__err(PA_ERR_NOMEM, "ssb: %lld groups", (long long)n);
        goto done;
    }
    snprintf(hdecl, sizeof hdecl, "paged long [%lld]", (long long)n);
    snprintf(ddecl, sizeof ddecl, "dmem long [%lld]", (long long)n);
    const pa_type *ht = pa_type_parse(g->scope, hdecl), *dt = pa_type_parse(g->scope, ddecl);
    /* The parts' partial sums added (wrapping, as the GPU's atomics add). */
    for (int i = 0; i < g->nparts && rc == PA_OK; i++) {
        int64_t *into = i == 0 ? sums : part;
        rc = ht && dt ? pa_copy(ht, into, dt, g->part[i].groups.ptr) : PA_ERR_NOMEM;
        for (int64_t k = 0; i > 0 && rc == PA_OK && k < n; k++)
            sums[k] = (int64_t)((uint64_t)sums[k] + (uint64_t)part[k]);
    }
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
    free(part);
    return rc;
}

int pa_ssb_gpu_run(pa_ssb_gpu *g, int q, pa_ssb_result *out, double *ms)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = pa_ssb_gpu_launch(g, q, NULL);
    /* The kernels are queued on (or joined into) the default stream: the clock stops when the last has finished. */
    if (rc == PA_OK && (rc = wait_home(g, NULL)) != PA_OK)
        rc = pa__err_wrap(rc, "ssb: %s on the GPU", pa_ssb_query_name(q));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (ms)
        *ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    return rc == PA_OK ? pa_ssb_gpu_result(g, q, out) : rc;
}
