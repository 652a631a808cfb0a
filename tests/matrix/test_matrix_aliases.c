/*
 * parray tests — the matrix module's names kept for one release after the API's renames (src/api_deprecated.c,
 * docs/api.md "The API's style"), each called beside its new name on the same input: the same status, the same
 * outputs, the same bytes written.  The deprecated calls are made from the wrappers below, the one place where
 * the deprecation warning (an error in this build) is silenced.  tests/core/test_api_aliases.c has the others.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <parray/matrix.h>

/* ---- the deprecated names, called with the warning silenced here only ---------------------------------- */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static pa_matrix *old_matrix_create(int elm, int64_t h, int64_t w)
{
    return pa_matrix_create(elm, h, w);
}
static int32_t old_matrix_height(const pa_matrix *m)
{
    return pa_matrix_height(m);
}
static int32_t old_matrix_width(const pa_matrix *m)
{
    return pa_matrix_width(m);
}
static int old_matrix_unnest(const pa_matrix *m, pa_matrix_row_fn fn, void *ctx)
{
    return pa_matrix_unnest(m, fn, ctx);
}
static int old_rbind_into(const pa_matrix *const *ms, int n, pa_matrix *out)
{
    return pa_matrix_rbind_into(ms, n, out);
}
static int old_cbind_into(const pa_matrix *const *ms, int n, pa_matrix *out)
{
    return pa_matrix_cbind_into(ms, n, out);
}
static int old_transpose_into(const pa_matrix *m, pa_matrix *t)
{
    return pa_matrix_transpose_into(m, t);
}
#pragma GCC diagnostic pop

static pa_matrix *matrix_new(int elm, int64_t h, int64_t w)
{
    pa_matrix *m = NULL;
    PA_CK_OK(pa_matrix_create_in(NULL, elm, h, w, &m));
    return m;
}

/* An h x w int matrix with element (i, j) = 10 i + j + seed. */
static pa_matrix *matrix_filled(int64_t h, int64_t w, int seed)
{
    pa_matrix *m = matrix_new(PA_MATRIX_INT, h, w);
    int *d = pa_matrix_data(m);
    for (int64_t j = 0; j < w; j++)
        for (int64_t i = 0; i < h; i++)
            d[j * h + i] = (int)(10 * i + j) + seed;
    return m;
}

START_TEST(matrix_create_and_sizes)
{
    pa_matrix *m_old = old_matrix_create(PA_MATRIX_DOUBLE, 3, 5), *m_new = matrix_new(PA_MATRIX_DOUBLE, 3, 5);
    ck_assert(m_old && m_new);
    ck_assert_int_eq(memcmp(m_old, m_new, sizeof *m_new), 0);   /* the same header */
    ck_assert_int_eq(memcmp(pa_matrix_data(m_old), pa_matrix_data(m_new), 15 * sizeof(double)), 0);   /* zeroed */
    ck_assert_int_eq(old_matrix_height(m_old), 3);
    ck_assert_int_eq(old_matrix_width(m_old), 5);
    ck_assert(pa_matrix_nrows(m_new) == 3 && pa_matrix_ncols(m_new) == 5);
    ck_assert(pa_matrix_nrows(m_old) == old_matrix_height(m_new) && pa_matrix_ncols(m_old) == old_matrix_width(m_new));
    pa_matrix_destroy(m_old);
    pa_matrix_destroy(m_new);

    /* a bad dimension: NULL from the old name, the status from the new, the same message */
    pa_error_clear();
    ck_assert_ptr_null(old_matrix_create(PA_MATRIX_INT, 1, -2));
    ck_assert(strstr(pa_last_error(), "bad dimensions") != NULL);
    pa_matrix *none = NULL;
    PA_CK_ERR(pa_matrix_create_in(NULL, PA_MATRIX_INT, 1, -2, &none), PA_ERR_INVAL);
    ck_assert_ptr_null(none);
    /* not a matrix: -1 from both */
    pa_matrix bad = {PA_MATRIX_INT, 2, 2, 0};
    ck_assert_int_eq(old_matrix_height(&bad), -1);
    ck_assert(pa_matrix_nrows(&bad) == -1 && pa_matrix_ncols(&bad) == -1);
    ck_assert_int_eq(old_matrix_width(&bad), -1);
}
END_TEST

/* The rows a walk saw: index, width and the row's first value, in order; stops (returns 7) at row stop. */
typedef struct seen {
    int n, stop;
    int64_t row[8], width[8];
    int first[8];
} seen;

static int see_new(int64_t row, const void *values, int64_t width, void *ctx)
{
    seen *s = ctx;
    s->row[s->n] = row, s->width[s->n] = width, s->first[s->n] = *(const int *)values;
    s->n++;
    return row == s->stop ? 7 : 0;
}

static int see_old(int64_t row, const void *values, int32_t width, void *ctx)
{
    return see_new(row, values, width, ctx);
}

START_TEST(matrix_unnest_rows)
{
    pa_matrix *m = matrix_filled(3, 5, 1);
    seen a = {.stop = -1}, b = {.stop = -1};
    PA_CK_OK(old_matrix_unnest(m, see_old, &a));
    PA_CK_OK(pa_matrix_unnest_rows(m, see_new, &b));
    ck_assert_int_eq(a.n, 3);
    ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
    ck_assert(b.width[2] == 5 && b.first[2] == 21 && b.row[2] == 2);
    seen c = {.stop = 1}, d = {.stop = 1};   /* a callback's nonzero value stops the walk and is returned */
    ck_assert_int_eq(old_matrix_unnest(m, see_old, &c), 7);
    ck_assert_int_eq(pa_matrix_unnest_rows(m, see_new, &d), 7);
    ck_assert_int_eq(c.n, 2);
    ck_assert_int_eq(memcmp(&c, &d, sizeof c), 0);
    PA_CK_ERR(old_matrix_unnest(m, NULL, NULL), PA_ERR_INVAL);
    PA_CK_ERR(pa_matrix_unnest_rows(m, NULL, NULL), PA_ERR_INVAL);
    pa_matrix_destroy(m);
}
END_TEST

/* dst (poisoned first) must hold exactly want's bytes. */
static void ck_same_matrix(const pa_matrix *dst, const pa_matrix *want)
{
    size_t bytes = pa_matrix_rawsize(want->elm, want->height, want->width);
    ck_assert_int_eq(memcmp(dst, want, bytes), 0);
}

static pa_matrix *poisoned(int64_t h, int64_t w)
{
    pa_matrix *m = matrix_new(PA_MATRIX_INT, h, w);
    memset(pa_matrix_data(m), 0xA5, (size_t)(h * w) * sizeof(int));
    return m;
}

START_TEST(matrix_store_destination_first)
{
    pa_matrix *x = matrix_filled(3, 5, 1), *y = matrix_filled(2, 5, 100), *z = matrix_filled(3, 2, 200);
    const pa_matrix *xy[2] = {x, y}, *xz[2] = {x, z};
    pa_matrix *want = NULL;

    PA_CK_OK(pa_matrix_rbind_n(xy, 2, &want));
    pa_matrix *d_old = poisoned(5, 5), *d_new = poisoned(5, 5);
    PA_CK_OK(old_rbind_into(xy, 2, d_old));
    PA_CK_OK(pa_matrix_store_rbind(d_new, xy, 2));
    ck_same_matrix(d_old, want);
    ck_same_matrix(d_new, want);
    PA_CK_ERR(old_rbind_into(xy, 2, x), PA_ERR_SIZE);   /* a destination of another shape */
    PA_CK_ERR(pa_matrix_store_rbind(x, xy, 2), PA_ERR_SIZE);
    pa_matrix_destroy(want);
    pa_matrix_destroy(d_old);
    pa_matrix_destroy(d_new);

    PA_CK_OK(pa_matrix_cbind_n(xz, 2, &want));
    d_old = poisoned(3, 7), d_new = poisoned(3, 7);
    PA_CK_OK(old_cbind_into(xz, 2, d_old));
    PA_CK_OK(pa_matrix_store_cbind(d_new, xz, 2));
    ck_same_matrix(d_old, want);
    ck_same_matrix(d_new, want);
    PA_CK_ERR(old_cbind_into(xz, 2, x), PA_ERR_SIZE);
    PA_CK_ERR(pa_matrix_store_cbind(x, xz, 2), PA_ERR_SIZE);
    pa_matrix_destroy(want);
    pa_matrix_destroy(d_old);
    pa_matrix_destroy(d_new);

    PA_CK_OK(pa_matrix_transpose(x, &want));
    d_old = poisoned(5, 3), d_new = poisoned(5, 3);
    PA_CK_OK(old_transpose_into(x, d_old));
    PA_CK_OK(pa_matrix_store_transpose(d_new, x));
    ck_same_matrix(d_old, want);
    ck_same_matrix(d_new, want);
    PA_CK_ERR(old_transpose_into(x, y), PA_ERR_SIZE);
    PA_CK_ERR(pa_matrix_store_transpose(y, x), PA_ERR_SIZE);
    pa_matrix_destroy(want);
    pa_matrix_destroy(d_old);
    pa_matrix_destroy(d_new);

    pa_matrix_destroy(x);
    pa_matrix_destroy(y);
    pa_matrix_destroy(z);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("matrix_api_aliases");
    TCase *tc = tcase_create("aliases");
    tcase_add_test(tc, matrix_create_and_sizes);
    tcase_add_test(tc, matrix_unnest_rows);
    tcase_add_test(tc, matrix_store_destination_first);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
