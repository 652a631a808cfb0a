/*
 * parray — the SSB queries on the GPU, through the library's public CUDA calls: dmem arrays (pa_create) filled
 * by pa_copy, the kernels of <parray/query/ssb_kernels.h> compiled by NVRTC (pa_cuda_compile, cached in memory
 * and on disk) and launched as cuda thread arrays (pa_cuda_for_async).  Without the CUDA backend or a GPU,
 * pa_ssb_gpu_create fails with PA_ERR_NODEV like those calls.
 *
 * pa_ssb_gpu_create copies the nine lineorder columns the queries read and every dimension column their plans
 * name, allocates one hash table per dimension (perfect hashing when the keys' range is at most four times the
 * rows plus 4096, the CPU's rule, else open addressing at twice the rows, a power of two) and one dense group
 * table for the largest query.  The group attributes' ranges come from the data (the plan's: d_year spans the
 * years the date table holds); a query with more than PA__SSB_GPU_MAX_SLOTS groups is refused at its launch.  A query then queues: for each joined dimension, a fill of its table and a build; a clear of the group
 * slots it uses; the lineorder kernel.  Launch shapes are made once, so a query costs its launches only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "parray/query/block.h"
#include "ssb_gpu.h"

#define SRC_(bt, ipt) "#define PA_SSB_BT " #bt "\n#define PA_SSB_IPT " #ipt "\n#include <parray/query/ssb_kernels.h>\n"
#define SRC(bt, ipt) SRC_(bt, ipt)

static const char *const entries[PA__SSB_NK] = {"pa_ssb_fill", "pa_ssb_build", "pa_ssb_q1", "pa_ssb_q2", "pa_ssb_q3",
                                                  "pa_ssb_q4"};

const char *pa_ssb_gpu_source(int q)
{
    static const char src[] = SRC(PA_SSB_BLOCK, PA_SSB_ITEMS);
    return q >= 0 && q < PA_SSB_NQUERIES ? src : NULL;
}

static int dalloc(pa_ssb_gpu *g, pa__ssb_dbuf *b, const char *elm, int64_t n, const char *what)
{
    char decl[96];
    snprintf(decl, sizeof decl, "dmem %s [%lld]", elm, (long long)(n > 0 ? n : 1));
    if (!(b->type = pa_type_parse(g->scope, decl)))
        return pa__err_wrap(PA_ERR_NOMEM, "ssb: %s", what);
    if (!(b->ptr = pa_create(b->type)))
        return pa__err_wrap(PA_ERR_NOMEM, "ssb: %s on the GPU (%lld bytes; the data may not fit in the GPU's memory)", what,
                            (long long)(n * (elm[0] == 'l' ? 8 : 4)));
    return PA_OK;
}

/* A cuda thread type of blocks x threads in the grid convention, as launch shape. */
static int shape(pa_ssb_gpu *g, int64_t blocks, int threads, pa_dthreads *out)
{
    char decl[96];
    snprintf(decl, sizeof decl, "cuda [[%lld][%d]]", (long long)(blocks > 0 ? blocks : 1), threads);
    const pa_type *t = pa_type_parse(g->scope, decl);
    return t ? pa_cuda_threads(t, PA_CUDA_GRID, out) : pa__err_wrap(PA_ERR_RANGE, "ssb: launch shape %s", decl);
}

static int copy_column(pa_ssb_gpu *g, int c)
{
    const pa_ssb_db *db = g->db;
    int64_t n = db->rows[pa__ssb_cols[c].table];
    char decl[64];
    int rc = dalloc(g, &g->col[c], "int", n, pa__ssb_cols[c].name);
    if (rc != PA_OK || n == 0)
        return rc;
    snprintf(decl, sizeof decl, "paged int [%lld]", (long long)n);
    const pa_type *h = pa_type_parse(g->scope, decl);
    rc = h ? pa_copy(g->col[c].type, g->col[c].ptr, h, db->col[c]) : PA_ERR_NOMEM;
    return rc == PA_OK ? rc : pa__err_wrap(rc, "ssb: copying %s to the GPU", pa__ssb_cols[c].name);
}

/* The hash table of dimension d: perfect over the keys' range when dense enough, else open addressing. */
/* The tile shape: PA_SSB_BLOCK x PA_SSB_ITEMS, or $PA_SSB_TILE ("256x8": threads x items) for tuning. */
static int tile_shape(pa_ssb_gpu *g)
{
    const char *e = getenv("PA_SSB_TILE");
    g->bt = PA_SSB_BLOCK;
    g->ipt = PA_SSB_ITEMS;
    if (e && *e && (sscanf(e, "%dx%d", &g->bt, &g->ipt) != 2 || g->bt < 32 || g->bt > 1024 || g->bt % 32 ||
                    g->ipt < 1 || g->ipt > 32))
        return pa__err(PA_ERR_RANGE, "ssb: PA_SSB_TILE=%s (wanted THREADSxITEMS, threads a multiple of 32 up to 1024, "
                       "items 1 to 32)", e);
    snprintf(g->source, sizeof g->source, "#define PA_SSB_BT %d\n#define PA_SSB_IPT %d\n"
             "#include <parray/query/ssb_kernels.h>\n", g->bt, g->ipt);
    return PA_OK;
}

static int make_table(pa_ssb_gpu *g, int d, int keycol)
{
    const pa_ssb_db *db = g->db;
    int64_t n = db->rows[pa__ssb_cols[keycol].table];
    const int32_t *key = db->col[keycol];
    int32_t kmin = n ? key[0] : 0, kmax = n ? key[0] : 0;
    for (int64_t i = 1; i < n; i++) {
        kmin = key[i] < kmin ? key[i] : kmin;
        kmax = key[i] > kmax ? key[i] : kmax;
    }
    int64_t range = (int64_t)kmax - kmin + 1, size = 1;
    pa_qb_ht *ht = &g->hts[d];
    ht->kmin = kmin;
    ht->open = range > PA__SSB_DENSE_FACTOR * n + PA__SSB_DENSE_SLACK;   /* the CPU's rule (ssb_cpu.h) */
    if (ht->open) {
        while (size < 2 * n)
            size *= 2;
    } else {
        size = range;
    }
    if (size > INT32_MAX / 2)
        return pa__err(PA_ERR_RANGE, "ssb: a hash table of %lld slots for %s", (long long)size,
                       pa__ssb_cols[keycol].name);
    ht->size = (int)size;
    g->ht_ints[d] = ht->open ? 2 * size : size;
    int rc = dalloc(g, &g->ht[d], "int", g->ht_ints[d], "a dimension's hash table");
    ht->slots = g->ht[d].ptr;
    if (rc == PA_OK)
        rc = shape(g, (n + g->bt * g->ipt - 1) / (g->bt * g->ipt), g->bt, &g->build[d]);
    return rc;
}

int pa_ssb_gpu_create(const pa_ssb_db *db, pa_ssb_gpu **out)
{
    static const int fact_cols[] = {PA__SSB_C_LO_ORDERDATE,   PA__SSB_C_LO_QUANTITY, PA__SSB_C_LO_DISCOUNT,
                                    PA__SSB_C_LO_EXTENDEDPRICE, PA__SSB_C_LO_CUSTKEY,  PA__SSB_C_LO_PARTKEY,
                                    PA__SSB_C_LO_SUPPKEY,     PA__SSB_C_LO_REVENUE,  PA__SSB_C_LO_SUPPLYCOST};
    pa_ssb_gpu *g = NULL;
    int rc;
    if (!db || !out)
        return pa__err(PA_ERR_INVAL, "pa_ssb_gpu_create: NULL argument");
    if ((rc = pa_cuda_device_count()) < 0)
        return rc;
    if (!(g = calloc(1, sizeof *g))) {
        rc = pa__err(PA_ERR_NOMEM, "pa_ssb_gpu_create: out of memory");
        goto fail;
    }
    g->db = db;
    if ((rc = pa_scope_create(NULL, &g->scope)) != PA_OK || (rc = tile_shape(g)) != PA_OK)
        goto fail;
    for (int k = 0; k < PA__SSB_NK; k++)
        if ((rc = pa_cuda_compile("ssb_kernels", g->source, entries[k], &g->fn[k])) != PA_OK)
            goto fail;
    int need[PA__SSB_NCOLS] = {0}, dimkey[PA__SSB_NDIMS] = {-1, -1, -1, -1};
    for (size_t i = 0; i < sizeof fact_cols / sizeof fact_cols[0]; i++)
        need[fact_cols[i]] = 1;
    g->gslots = 1;
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa__ssb_plan *p = &g->plan[q];
        if ((rc = pa__ssb_plan_make(db, q, p)) != PA_OK)
            goto fail;
        /* A query whose groups do not fit the dense table is refused at its launch, not here. */
        if (p->nslots <= PA__SSB_GPU_MAX_SLOTS)
            g->gslots = p->nslots > g->gslots ? p->nslots : g->gslots;
        for (int d = 0; d < PA__SSB_NDIMS; d++) {
            if (!p->dim[d].used || q < 3)
                continue;
            dimkey[d] = p->dim[d].keycol;
            need[p->dim[d].keycol] = 1;
            for (int k = 0; k < 2; k++)
                if (p->dim[d].pred[k].col >= 0)
                    need[p->dim[d].pred[k].col] = 1;
            if (p->dim[d].valcol >= 0)
                need[p->dim[d].valcol] = 1;
        }
    }
    for (int c = 0; c < PA__SSB_NCOLS; c++)
        if (need[c] && (rc = copy_column(g, c)) != PA_OK)
            goto fail;
    for (int d = 0; d < PA__SSB_NDIMS; d++)
        if (dimkey[d] >= 0 && (rc = make_table(g, d, dimkey[d])) != PA_OK)
            goto fail;
    if ((rc = dalloc(g, &g->groups, "long", g->gslots, "the group table")) != PA_OK)
        goto fail;
    int64_t n = db->rows[PA_SSB_LINEORDER];
    if ((rc = shape(g, (n + g->bt * g->ipt - 1) / (g->bt * g->ipt), g->bt, &g->fact)) != PA_OK ||
        (rc = shape(g, 264, 256, &g->fill)) != PA_OK)
        goto fail;
    *out = g;
    return PA_OK;
fail:
    pa_ssb_gpu_destroy(g);
    return rc;
}

void pa_ssb_gpu_destroy(pa_ssb_gpu *g)
{
    if (!g)
        return;
    for (int c = 0; c < PA__SSB_NCOLS; c++)
        if (g->col[c].ptr)
            pa_destroy(g->col[c].type, g->col[c].ptr);
    for (int d = 0; d < PA__SSB_NDIMS; d++)
        if (g->ht[d].ptr)
            pa_destroy(g->ht[d].type, g->ht[d].ptr);
    if (g->groups.ptr)
        pa_destroy(g->groups.type, g->groups.ptr);
    pa_scope_destroy(g->scope);
    free(g);
}
