/*
 * parray — copies between gamem arrays and host memory: ga_put (host -> gamem) and ga_get (gamem -> host).
 *
 * The planner's loop nest is run with one Global Arrays call per iteration of the outer modes: the innermost
 * mode becomes one patch of the one-dimensional Global Array, NGA_Put64 / NGA_Get64 when it is contiguous
 * there, NGA_Strided_put64 / NGA_Strided_get64 with the stride as the skip otherwise.  The host side of the
 * patch is used in place when it is contiguous too, else packed into (or unpacked from) a buffer of one patch.
 * An innermost mode that is gathered or runs backwards on the gamem side moves element by element.  Every
 * patch is checked against the array's bounds before the first call, since Global Arrays aborts the program
 * on an index out of range.  Puts are fenced (GA_Init_fence / GA_Fence): when pa_copy returns, the data is
 * in place on its owner, and a barrier is all other ranks need before reading it.
 */
#include <ga.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ga_backend.h"

/* A Global Arrays call per patch, and bytes per ns through it (shared memory; only ranks matter here). */
#define T_CALL 2000.0
#define BW_GA 2.0

static int is_gamem(const pa__mem_ops *m)
{
    return m == &pa_ga__mem_ops;
}

static int is_host(const pa__mem_ops *m)
{
    return m == NULL || m->host_accessible;
}

/* How the innermost mode moves: the patch count, elements per patch, and whether it is strided, packed or
 * element by element. */
typedef struct ga_how {
    int put;
    int64_t calls, per_call, skip;     /* skip 0: element by element */
    int packed;
} ga_how;

static void how_of(const pa__copy_shape *s, int put, ga_how *h)
{
    int in = s->nmodes - 1;
    int64_t gs = put ? s->dst_stride[in] : s->src_stride[in], hs = put ? s->src_stride[in] : s->dst_stride[in];
    const int64_t *gt = put ? s->dst_table[in] : s->src_table[in], *ht = put ? s->src_table[in] : s->dst_table[in];
    h->put = put;
    h->skip = !gt && gs > 0 ? gs : 0;
    h->per_call = h->skip ? s->size[in] : 1;
    h->calls = s->total / h->per_call;
    h->packed = h->skip && (ht || hs != 1);
}

static int probe(const pa__copy_shape *s, int put, double *cost, char *why, size_t len)
{
    const pa__mem_ops *g = put ? s->dst_mem : s->src_mem, *h = put ? s->src_mem : s->dst_mem;
    ga_how how;
    if (!is_gamem(g) || !is_host(h))
        return 0;
    how_of(s, put, &how);
    *cost = (double)how.calls * T_CALL + (double)pa__bytes(s->total, s->elm) / BW_GA;
    const char *call = put ? "Put" : "Get";
    if (!how.skip)
        snprintf(why, len, "%lld NGA_%s64 calls of one element (the gamem side is gathered or reversed)",
                 (long long)how.calls, call);
    else if (how.skip == 1)
        snprintf(why, len, "%lld NGA_%s64 call%s of %lld elements, host side %s", (long long)how.calls, call,
                 how.calls == 1 ? "" : "s", (long long)how.per_call,
                 how.packed ? (put ? "packed into a buffer" : "unpacked from a buffer") : "in place");
    else
        snprintf(why, len, "%lld NGA_Strided_%s64 call%s of %lld elements (skip %lld), host side %s",
                 (long long)how.calls, put ? "put" : "get", how.calls == 1 ? "" : "s", (long long)how.per_call,
                 (long long)how.skip,
                 how.packed ? (put ? "packed into a buffer" : "unpacked from a buffer") : "in place");
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

/* Offset of element j of the innermost mode on one side, in bytes. */
static int64_t inner(const int64_t *table, int64_t stride, int64_t j, size_t elm)
{
    return pa__bytes(table ? table[j] : j * stride, elm);
}

/* One pass over the patches: check (bounds only) or move.  g is the gamem side's element offset of the
 * plan's pointer in the array, h the host side's pointer. */
static int pass(const pa__copy_shape *s, const ga_how *how, const pa_ga__array *a, int64_t g, char *h,
                char *buf, int move)
{
    int in = s->nmodes - 1, outer[PA__MAX_MODES];
    size_t e = s->elm;
    for (int m = 0; m < in; m++)
        outer[m] = m;
    const int64_t *gt = how->put ? s->dst_table[in] : s->src_table[in];
    const int64_t *ht = how->put ? s->src_table[in] : s->dst_table[in];
    int64_t gs = how->put ? s->dst_stride[in] : s->src_stride[in];
    int64_t hs = how->put ? s->src_stride[in] : s->dst_stride[in];
    int64_t ld[1] = {1}, n = s->size[in];
    pa__odo o;
    pa__odo_init(&o, s, outer, in);
    do {
        int64_t goff = g + (how->put ? o.doff : o.soff) / (int64_t)e;
        char *hp = h + (how->put ? o.soff : o.doff);
        if (how->skip) {
            int64_t lo[1] = {goff}, hi[1] = {goff + (n - 1) * how->skip}, skip[1] = {how->skip};
            if (!move) {
                if (lo[0] < 0 || hi[0] >= a->n)
                    return pa__err(PA_ERR_RANGE, "gamem: a copy reaches elements %lld..%lld of an array of %lld",
                                   (long long)lo[0], (long long)hi[0], (long long)a->n);
                continue;
            }
            char *p = how->packed ? buf : hp;
            if (how->put && how->packed)
                for (int64_t j = 0; j < n; j++)
                    memcpy(buf + pa__bytes(j, e), hp + inner(ht, hs, j, e), e);
            if (how->put && how->skip == 1) NGA_Put64(a->handle, lo, hi, p, ld);
            else if (how->put) NGA_Strided_put64(a->handle, lo, hi, skip, p, ld);
            else if (how->skip == 1) NGA_Get64(a->handle, lo, hi, p, ld);
            else NGA_Strided_get64(a->handle, lo, hi, skip, p, ld);
            if (!how->put && how->packed)
                for (int64_t j = 0; j < n; j++)
                    memcpy(hp + inner(ht, hs, j, e), buf + pa__bytes(j, e), e);
            continue;
        }
        for (int64_t j = 0; j < n; j++) {
            int64_t x[1] = {goff + inner(gt, gs, j, e) / (int64_t)e};
            if (!move && (x[0] < 0 || x[0] >= a->n))
                return pa__err(PA_ERR_RANGE, "gamem: a copy reaches element %lld of an array of %lld",
                               (long long)x[0], (long long)a->n);
            if (move && how->put) NGA_Put64(a->handle, x, x, hp + inner(ht, hs, j, e), ld);
            else if (move) NGA_Get64(a->handle, x, x, hp + inner(ht, hs, j, e), ld);
        }
    } while (pa__odo_next(&o));
    return PA_OK;
}

static int exec(const pa__plan *p, int put, char *gptr, char *h)
{
    const pa__copy_shape *s = &p->shape;
    pa_ga__array a;
    ga_how how;
    char *buf = NULL;
    int rc;
    if (!pa_ga__find(gptr, &a))
        return pa__err(PA_ERR_INVAL, "gamem: %p is not inside a live gamem array", (void *)gptr);
    if (a.elm != s->elm)
        return pa__err(PA_ERR_ELM, "gamem: a copy of %zu-byte elements through an array of %zu-byte elements",
                       s->elm, a.elm);
    if (!GA_Initialized())
        return pa__err(PA_ERR_NODEV, "gamem: Global Arrays has been terminated");
    how_of(s, put, &how);
    int64_t g = (gptr - a.addr) / (int64_t)s->elm;
    if ((rc = pass(s, &how, &a, g, h, NULL, 0)) != PA_OK)
        return rc;
    if (how.packed && !(buf = malloc((size_t)pa__bytes(how.per_call, s->elm))))
        return pa__err(PA_ERR_NOMEM, "gamem: a buffer of %lld elements", (long long)how.per_call);
    if (put)
        GA_Init_fence();
    rc = pass(s, &how, &a, g, h, buf, 1);
    if (put)
        GA_Fence();
    free(buf);
    return rc;
}

static int exec_put(const pa__plan *p, void *dst, const void *src)
{
    return exec(p, 1, dst, (char *)src);
}

static int exec_get(const pa__plan *p, void *dst, const void *src)
{
    return exec(p, 0, (char *)src, dst);
}

static const pa__strategy ga_put = {"ga_put", probe_put, exec_put, NULL};
static const pa__strategy ga_get = {"ga_get", probe_get, exec_get, NULL};

const pa__strategy *const pa_ga__strategies[] = {&ga_put, &ga_get, NULL};
