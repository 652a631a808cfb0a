/* parray tests — matrix helpers shared by the host and GPU suites: element access by type, random fills,
 * element-by-element comparison of a matrix (any memory) with a host reference. */
#ifndef PARRAY_TEST_MATRIX_CHECK_H
#define PARRAY_TEST_MATRIX_CHECK_H

#include <string.h>

#include "testutil.h"
#include <parray/matrix.h>

/* A zeroed host matrix (pa_matrix_create_in in paged memory), or NULL with the error set. */
static inline pa_matrix *mx_new(int elm, int64_t h, int64_t w)
{
    pa_matrix *m = NULL;
    return pa_matrix_create_in(NULL, elm, h, w, &m) == PA_OK ? m : NULL;
}

static const int all_elms[] = {PA_MATRIX_SHORT, PA_MATRIX_INT, PA_MATRIX_LONG, PA_MATRIX_FLOAT, PA_MATRIX_DOUBLE};

/* Element (i, j) of a host matrix, as a double (every test value is a small integer or a float, exact there). */
static inline double mx_get(const pa_matrix *m, int64_t i, int64_t j)
{
    const char *d = (const char *)m + 16;
    int64_t k = j * m->height + i;
    switch (m->elm) {
    case PA_MATRIX_SHORT: return ((const int16_t *)d)[k];
    case PA_MATRIX_INT: return ((const int32_t *)d)[k];
    case PA_MATRIX_LONG: return (double)((const int64_t *)d)[k];
    case PA_MATRIX_FLOAT: return ((const float *)d)[k];
    default: return ((const double *)d)[k];
    }
}

static inline void mx_set(pa_matrix *m, int64_t i, int64_t j, double v)
{
    char *d = (char *)m + 16;
    int64_t k = j * m->height + i;
    switch (m->elm) {
    case PA_MATRIX_SHORT: ((int16_t *)d)[k] = (int16_t)v; break;
    case PA_MATRIX_INT: ((int32_t *)d)[k] = (int32_t)v; break;
    case PA_MATRIX_LONG: ((int64_t *)d)[k] = (int64_t)v; break;
    case PA_MATRIX_FLOAT: ((float *)d)[k] = (float)v; break;
    default: ((double *)d)[k] = v; break;
    }
}

/* Stores v (a double holding a value of the type) as one element at p. */
static inline void mx_put(int elm, void *p, double v)
{
    switch (elm) {
    case PA_MATRIX_SHORT: *(int16_t *)p = (int16_t)v; break;
    case PA_MATRIX_INT: *(int32_t *)p = (int32_t)v; break;
    case PA_MATRIX_LONG: *(int64_t *)p = (int64_t)v; break;
    case PA_MATRIX_FLOAT: *(float *)p = (float)v; break;
    default: *(double *)p = v; break;
    }
}

static inline double mx_load(int elm, const void *p)
{
    switch (elm) {
    case PA_MATRIX_SHORT: return *(const int16_t *)p;
    case PA_MATRIX_INT: return *(const int32_t *)p;
    case PA_MATRIX_LONG: return (double)*(const int64_t *)p;
    case PA_MATRIX_FLOAT: return *(const float *)p;
    default: return *(const double *)p;
    }
}

/* A malloc'd h x w matrix of random nonzero values (nonzero, so that a missing copy never reads as padding). */
static inline pa_matrix *mx_random(pa_rng *rng, int elm, int64_t h, int64_t w)
{
    pa_matrix *m = mx_new(elm, h, w);
    ck_assert_ptr_nonnull(m);
    for (int64_t j = 0; j < w; j++)
        for (int64_t i = 0; i < h; i++) {
            int64_t v = pa_rng_range(rng, 1, 30000);
            mx_set(m, i, j, (double)(pa_rng_range(rng, 0, 1) ? v : -v));
        }
    return m;
}

/* A host copy of a matrix in any memory (the caller frees it). */
static inline pa_matrix *mx_host(const pa_matrix *m)
{
    pa_matrix *c = NULL;
    PA_CK_OK(pa_matrix_copy_to(m, "paged", &c));
    return c;
}

/* Asserts that got (any memory) equals want (host) in header and in every element. */
static inline void mx_assert_equal(const pa_matrix *got, const pa_matrix *want, const char *what)
{
    pa_matrix *g = mx_host(got);
    ck_assert_msg(g->elm == want->elm && g->height == want->height && g->width == want->width,
                  "%s: got %d x %d elm %d, want %d x %d elm %d", what, g->height, g->width, g->elm, want->height,
                  want->width, want->elm);
    for (int64_t j = 0; j < want->width; j++)
        for (int64_t i = 0; i < want->height; i++)
            if (mx_get(g, i, j) != mx_get(want, i, j))   /* not ck_assert: Check records every passing one */
                ck_abort_msg("%s: (%lld, %lld) is %g, want %g", what, (long long)i, (long long)j, mx_get(g, i, j),
                             mx_get(want, i, j));
    pa_matrix_destroy(g);
}

/* The reference rbind / cbind of n host matrices: walk every output element and look up where it comes from. */
static inline pa_matrix *mx_ref_bind(const pa_matrix *const *ms, int n, int by_rows)
{
    int64_t H = 0, W = 0;
    for (int k = 0; k < n; k++) {
        if (by_rows) {
            H += ms[k]->height;
            W = ms[k]->width > W ? ms[k]->width : W;
        } else {
            W += ms[k]->width;
            H = ms[k]->height > H ? ms[k]->height : H;
        }
    }
    pa_matrix *r = mx_new(ms[0]->elm, H, W);
    for (int64_t i = 0; i < H; i++)
        for (int64_t j = 0; j < W; j++) {
            int64_t at = 0, ii = i, jj = j;
            int k = 0;
            for (; k < n; k++) {
                int64_t along = by_rows ? ms[k]->height : ms[k]->width;
                if ((by_rows ? i : j) < at + along)
                    break;
                at += along;
            }
            if (by_rows)
                ii = i - at;
            else
                jj = j - at;
            double v = ii < ms[k]->height && jj < ms[k]->width ? mx_get(ms[k], ii, jj) : 0.0;
            mx_set(r, i, j, v);
        }
    return r;
}

static inline pa_matrix *mx_ref_transpose(const pa_matrix *m)
{
    pa_matrix *t = mx_new(m->elm, m->width, m->height);
    for (int64_t i = 0; i < m->height; i++)
        for (int64_t j = 0; j < m->width; j++)
            mx_set(t, j, i, mx_get(m, i, j));
    return t;
}

#endif
