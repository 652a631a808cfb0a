/*
 * parray — the gamem copy strategies: ga_put (host -> gamem), ga_get (gamem -> host) and ga_copy (gamem ->
 * gamem, the same array or two), all one-sided: any one process of an array's group may copy, and the others
 * need only a barrier before they read what it wrote.
 *
 * ga_put and ga_get hand the planner's loop nest to copy_box.c, which moves it in patches of the Global
 * Array's dimensions (NGA_Put64 / NGA_Get64, and the strided forms where a mode skips).  ga_copy gets the
 * source into a host buffer and puts it from there (Global Arrays' own NGA_Copy_patch is collective); a
 * large copy between two arrays goes a slice of its outermost mode at a time, so that the buffer stays near
 * 16 MiB, while a copy within one array reads everything before it writes anything.  Every side is checked
 * against its array's bounds before the first call, since Global Arrays aborts the program on an index out
 * of range.  The plans are made without the arrays, so their explanations say what kind of calls follow;
 * how many depends on the arrays' dimensions, which the copy learns when it runs.
 */
#include <ga.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ga_backend.h"

/* A Global Arrays call per patch, and bytes per ns through it (shared memory; only ranks matter here). */
#define T_CALL 2000.0
#define BW_GA 2.0

int64_t pa_ga__slice_bytes = (int64_t)16 << 20;

static int is_gamem(const pa__mem_ops *m)
{
    return m == &pa_ga__mem_ops;
}

static int is_host(const pa__mem_ops *m)
{
    return m == NULL || m->host_accessible;
}

/* Indices that loop outside every patch at least: modes gathered or not ascending on a gamem side. */
static int64_t looped(const pa__copy_shape *s, int dst, int src)
{
    int64_t n = 1;
    for (int m = 0; m < s->nmodes; m++)
        if ((dst && (s->dst_table[m] || s->dst_stride[m] <= 0)) ||
            (src && (s->src_table[m] || s->src_stride[m] <= 0)))
            n *= s->size[m];
    return n;
}

static int probe(const pa__copy_shape *s, int put, double *cost, char *why, size_t len)
{
    const pa__mem_ops *g = put ? s->dst_mem : s->src_mem, *h = put ? s->src_mem : s->dst_mem;
    if (!is_gamem(g) || !is_host(h))
        return 0;
    int64_t n = looped(s, put, !put);
    *cost = (double)n * T_CALL + (double)pa__bytes(s->total, s->elm) / BW_GA;
    snprintf(why, len, "patches of the Global Array's dimensions: %s, %s where a mode skips%s",
             put ? "NGA_Put64" : "NGA_Get64", put ? "NGA_Strided_put64" : "NGA_Strided_get64",
             n > 1 ? "; a gathered or reversed mode one patch per index" : "");
    return 1;
}

static int probe_put(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    return probe(s, 1, cost, why, len);
}

static int probe_get(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    return probe(s, 0, cost, why, len);
}

static int probe_copy(const pa__copy_shape *s, double *cost, char *why, size_t len)
{
    if (!is_gamem(s->dst_mem) || !is_gamem(s->src_mem))
        return 0;
    *cost = (double)(looped(s, 1, 0) + looped(s, 0, 1)) * T_CALL + 2.0 * (double)pa__bytes(s->total, s->elm) / BW_GA;
    snprintf(why, len, "through a host buffer: NGA_Get64 patches of the source, then NGA_Put64 patches of the "
             "destination");
    return 1;
}

/* The live array that holds p, checked against the copy.  \return PA_OK or an error. */
static int array_of(const char *p, const pa__copy_shape *s, pa_ga__array *a, int64_t *off)
{
    if (!pa_ga__find(p, a))
        return pa__err(PA_ERR_INVAL, "gamem: %p is not inside a live gamem array of this process", (const void *)p);
    if (a->elm != s->elm)
        return pa__err(PA_ERR_ELM, "gamem: a copy of %zu-byte elements through an array of %zu-byte elements",
                       s->elm, a->elm);
    if ((p - a->addr) % (ptrdiff_t)s->elm != 0)
        return pa__err(PA_ERR_INVAL, "gamem: %p is not at an element boundary of its array", (const void *)p);
    if (!GA_Initialized())
        return pa__err(PA_ERR_NODEV, "gamem: Global Arrays has been terminated");
    *off = (p - a->addr) / (ptrdiff_t)s->elm;
    return PA_OK;
}

/* The transfer of one side of a shape: gamem side dst (put) or src, the other side host memory at h. */
static void xfer_of(const pa__copy_shape *s, int gside_dst, int64_t goff, char *h, pa_ga__xfer *x)
{
    x->nmodes = s->nmodes;
    x->elm = s->elm;
    for (int m = 0; m < s->nmodes; m++) {
        x->size[m] = s->size[m];
        x->gstride[m] = gside_dst ? s->dst_stride[m] : s->src_stride[m];
        x->gtab[m] = gside_dst ? s->dst_table[m] : s->src_table[m];
        x->hstride[m] = gside_dst ? s->src_stride[m] : s->dst_stride[m];
        x->htab[m] = gside_dst ? s->src_table[m] : s->dst_table[m];
    }
    x->gbase = goff + (gside_dst ? s->dst_base : s->src_base);
    x->host = h + pa__bytes(gside_dst ? s->src_base : s->dst_base, s->elm);
}

static int exec_one(const pa__plan *p, int put, const char *gptr, char *h)
{
    pa_ga__array a;
    pa_ga__xfer x;
    int64_t off = 0;
    int rc;
    pa_ga__stats_reset();
    if ((rc = array_of(gptr, &p->shape, &a, &off)) != PA_OK)
        return rc;
    xfer_of(&p->shape, put, off, h, &x);
    if ((rc = pa_ga__xfer_check(&a, &x)) != PA_OK)
        return rc;
    return pa_ga__xfer_move(&a, &x, put);
}

static int exec_put(const pa__plan *p, void *dst, const void *src)
{
    return exec_one(p, 1, dst, (char *)src);
}

static int exec_get(const pa__plan *p, void *dst, const void *src)
{
    return exec_one(p, 0, (const char *)src, dst);
}

/* Restricts x to indices [from, from + n) of its outermost mode, the host side a buffer that starts there. */
static void slice(pa_ga__xfer *x, int64_t from, int64_t n)
{
    if (x->nmodes == 0)
        return;
    if (x->gtab[0])
        x->gtab[0] += from;
    else
        x->gbase += from * x->gstride[0];
    x->size[0] = n;
}

static int exec_copy(const pa__plan *p, void *dst, const void *src)
{
    const pa__copy_shape *s = &p->shape;
    pa_ga__array da, sa;
    pa_ga__xfer get, put;
    int64_t doff = 0, soff = 0, inner = 1, rows = 1, step;
    int rc;
    pa_ga__stats_reset();
    if ((rc = array_of(dst, s, &da, &doff)) != PA_OK || (rc = array_of(src, s, &sa, &soff)) != PA_OK)
        return rc;
    /* The buffer is the copy's flat order: row-major over the modes. */
    for (int m = s->nmodes - 1; m >= 1; m--)
        inner *= s->size[m];
    rows = s->nmodes ? s->size[0] : 1;
    step = da.handle == sa.handle ? rows : pa_ga__slice_bytes / pa__bytes(inner, s->elm);
    step = step < 1 ? 1 : step > rows ? rows : step;
    char *buf = malloc((size_t)pa__bytes(step * inner, s->elm));
    if (!buf)
        return pa__err(PA_ERR_NOMEM, "gamem: a buffer of %lld elements", (long long)(step * inner));
    xfer_of(s, 0, soff, buf, &get);
    xfer_of(s, 1, doff, buf, &put);
    int64_t stride = 1;
    for (int m = s->nmodes - 1; m >= 0; m--) {
        get.hstride[m] = put.hstride[m] = stride;
        get.htab[m] = put.htab[m] = NULL;
        stride *= s->size[m];
    }
    get.host = put.host = buf;
    if ((rc = pa_ga__xfer_check(&sa, &get)) != PA_OK || (rc = pa_ga__xfer_check(&da, &put)) != PA_OK) {
        free(buf);
        return rc;
    }
    for (int64_t from = 0; from < rows && rc == PA_OK; from += step) {
        int64_t n = rows - from < step ? rows - from : step;
        pa_ga__xfer g = get, q = put;
        slice(&g, from, n);
        slice(&q, from, n);
        if ((rc = pa_ga__xfer_move(&sa, &g, 0)) == PA_OK)
            rc = pa_ga__xfer_move(&da, &q, 1);
    }
    free(buf);
    return rc;
}

static const pa__strategy ga_put = {.name = "ga_put", .probe = probe_put, .exec = exec_put};
static const pa__strategy ga_get = {.name = "ga_get", .probe = probe_get, .exec = exec_get};
static const pa__strategy ga_copy = {.name = "ga_copy", .probe = probe_copy, .exec = exec_copy};

const pa__strategy *const pa_ga__strategies[] = {&ga_put, &ga_get, &ga_copy, NULL};
