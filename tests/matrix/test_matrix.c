/* parray tests — the matrix module on the host: format, type view, rows, columns, CSV, unnest, rbind/cbind,
 * transpose, gemm, the identities on random shapes, and bad input (with nothing left allocated). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include <parray/matrix.h>
#include "matrix_check.h"
#include "mem_internal.h"

START_TEST(test_format)
{
    ck_assert_uint_eq(pa_matrix_rawsize(PA_MATRIX_FLOAT, 3, 2), 16 + 24);
    ck_assert_uint_eq(pa_matrix_rawsize(PA_MATRIX_DOUBLE, 0, 5), 16);
    ck_assert_uint_eq(pa_matrix_rawsize(PA_MATRIX_SHORT, 5, 3), 16 + 30);
    ck_assert_uint_eq(pa_matrix_rawsize(9, 1, 1), 0);
    ck_assert_uint_eq(pa_matrix_rawsize(PA_MATRIX_INT, -1, 1), 0);
    ck_assert_uint_eq(pa_matrix_rawsize(PA_MATRIX_INT, (int64_t)INT32_MAX + 1, 1), 0);
    ck_assert_uint_eq(pa_matrix_rawsize(PA_MATRIX_INT, 1 << 20, 1 << 20), ((size_t)4 << 40) + 16);
    ck_assert_uint_eq(pa_matrix_rawsize(PA_MATRIX_LONG, INT32_MAX, INT32_MAX), 0);   /* past 2^62 */
    ck_assert_str_eq(pa_matrix_elm_name(PA_MATRIX_LONG), "int64_t");
    ck_assert_ptr_null(pa_matrix_elm_name(0));
    for (size_t e = 0; e < sizeof all_elms / sizeof *all_elms; e++) {
        pa_matrix *m = NULL;
        PA_CK_OK(pa_matrix_create_in("paged", all_elms[e], 4, 3, &m));
        ck_assert_str_eq(pa_matrix_mtt(m), "paged");
        ck_assert_int_eq(pa_matrix_nrows(m), 4);
        ck_assert_int_eq(pa_matrix_ncols(m), 3);
        PA_CK_OK(pa_matrix_check(m));
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 4; i++)
                ck_assert(mx_get(m, i, j) == 0.0);
        pa_matrix_destroy(m);
    }
}
END_TEST

static void add_index(void *elem, int64_t k, void *arg)
{
    int elm = *(int *)arg;
    mx_put(elm, elem, mx_load(elm, elem) + (double)k);
}

/* The (row, column) type: offsets, a copy from row-major rows, and a plan that is not an element walk. */
START_TEST(test_type_view)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    for (size_t e = 0; e < sizeof all_elms / sizeof *all_elms; e++) {
        int elm = all_elms[e];
        size_t esz = pa_matrix_elm_size(elm);
        pa_matrix *m = NULL;
        PA_CK_OK(pa_matrix_create_in(NULL, elm, 5, 7, &m));
        const pa_type *t = pa_matrix_type(s, m);
        ck_assert_ptr_nonnull(t);
        ck_assert_int_eq(pa_size(t), 35);
        ck_assert_int_eq(pa_ndim(t), 2);
        ck_assert_uint_eq(pa_elm_size(t), esz);
        ck_assert_uint_eq(pa_alloc_bytes(t), pa_matrix_rawsize(elm, 5, 7));
        for (int64_t i = 0; i < 5; i++)
            for (int64_t j = 0; j < 7; j++) {
                int64_t idx[2] = {i, j};
                ck_assert_int_eq(pa_offset_nd(t, 2, idx), (int64_t)(16 / esz) + j * 5 + i);
                ck_assert_int_eq(pa_offset(t, i * 7 + j), (int64_t)(16 / esz) + j * 5 + i);
            }
        /* rows 0..4 of 7 values each, row-major, copied through the type */
        char decl[64], buf[35 * 8];
        snprintf(decl, sizeof decl, "paged %s [5][7]", pa_matrix_elm_name(elm));
        const pa_type *rows = pa_type_parse(s, decl);
        for (int k = 0; k < 35; k++)
            mx_put(elm, buf + k * esz, k + 1);
        PA_CK_OK(pa_copy(t, m, rows, buf));
        PA_CK_OK(pa_matrix_check(m));
        for (int64_t i = 0; i < 5; i++)
            for (int64_t j = 0; j < 7; j++)
                ck_assert(mx_get(m, i, j) == (double)(i * 7 + j + 1));
        /* pa_map over the matrix's type visits every element once, by (row, column) flat index */
        PA_CK_OK(pa_map(t, m, add_index, &elm));
        for (int64_t i = 0; i < 5; i++)
            for (int64_t j = 0; j < 7; j++)
                ck_assert(mx_get(m, i, j) == (double)(i * 7 + j + 1) + (double)(i * 7 + j));
        PA_CK_OK(pa_matrix_check(m));   /* the header is not an element */
        char why[256];
        ck_assert_int_gt(pa_copy_explain(t, rows, why, sizeof why), 0);
        ck_assert_msg(!strstr(why, "walk") && !strstr(why, "gather"), "%s", why);
        pa_matrix_destroy(m);
    }
    ck_assert_ptr_null(pa_matrix_type_of(s, "paged", PA_MATRIX_INT, 0, 3));   /* empty: no type */
    pa_scope_destroy(s);
}
END_TEST

static int collect_row(int64_t row, const void *values, int64_t width, void *ctx)
{
    pa_matrix *into = ctx;
    for (int64_t j = 0; j < width; j++)
        mx_set(into, row, j, mx_load(into->elm, (const char *)values + j * pa_matrix_elm_size(into->elm)));
    return 0;
}

static int stop_at_3(int64_t row, const void *values, int64_t width, void *ctx)
{
    (*(int *)ctx)++;
    return row == 3 ? 42 : 0;
}

/* array_matrix row by row and in blocks, from columns, and matrix_unnest both ways, for every element type. */
START_TEST(test_rows_columns_unnest)
{
    pa_rng rng = {pa_test_seed("matrix rows")};
    for (size_t e = 0; e < sizeof all_elms / sizeof *all_elms; e++) {
        int elm = all_elms[e];
        size_t esz = pa_matrix_elm_size(elm);
        int64_t h = pa_rng_range(&rng, 1, 300), w = pa_rng_range(&rng, 1, 9);
        pa_matrix *ref = mx_random(&rng, elm, h, w), *m = NULL, *c = NULL;
        pa_matrix_rows *r;
        char *row = malloc((size_t)(w * h) * esz);
        PA_CK_OK(pa_matrix_rows_create(elm, w, &r));
        int64_t first = h / 3;
        for (int64_t i = 0; i < first; i++) {
            for (int64_t j = 0; j < w; j++)
                mx_put(elm, row + j * esz, mx_get(ref, i, j));
            PA_CK_OK(pa_matrix_rows_add(r, row));
        }
        for (int64_t i = first; i < h; i++)
            for (int64_t j = 0; j < w; j++)
                mx_put(elm, row + ((i - first) * w + j) * esz, mx_get(ref, i, j));
        PA_CK_OK(pa_matrix_rows_add_block(r, row, h - first));
        ck_assert_int_eq(pa_matrix_rows_count(r), h);
        PA_CK_OK(pa_matrix_rows_finish(r, "paged", &m));
        mx_assert_equal(m, ref, "rows");
        pa_matrix_rows_destroy(r);

        /* columns */
        void *cols[9];
        for (int64_t j = 0; j < w; j++)
            cols[j] = (char *)ref + 16 + (size_t)(j * h) * esz;
        PA_CK_OK(pa_matrix_from_columns(elm, h, w, (const void *const *)cols, NULL, &c));
        mx_assert_equal(c, ref, "columns");

        /* unnest: callback per row, columns out */
        pa_matrix *back = mx_new(elm, h, w);
        PA_CK_OK(pa_matrix_unnest_rows(m, collect_row, back));
        mx_assert_equal(back, ref, "unnest");
        int calls = 0;
        ck_assert_int_eq(pa_matrix_unnest_rows(m, stop_at_3, &calls), h > 3 ? 42 : 0); /* stops only at row 4 */
        ck_assert_int_eq(calls, h > 3 ? 4 : (int)h);
        char *out = malloc((size_t)(w * h) * esz);
        memset(out, 0xA5, (size_t)(w * h) * esz);
        void *outc[9];
        for (int64_t j = 0; j < w; j++)
            outc[j] = out + (size_t)(j * h) * esz;
        PA_CK_OK(pa_matrix_unnest_columns(m, outc));
        ck_assert(memcmp(out, (char *)ref + 16, (size_t)(w * h) * esz) == 0);
        free(out);
        free(row);
        pa_matrix_destroy(back);
        pa_matrix_destroy(ref);
        pa_matrix_destroy(m);
        pa_matrix_destroy(c);
    }
    /* empty: no rows, and rows of width 0 */
    pa_matrix_rows *r;
    pa_matrix *m;
    PA_CK_OK(pa_matrix_rows_create(PA_MATRIX_DOUBLE, 4, &r));
    PA_CK_OK(pa_matrix_rows_finish(r, NULL, &m));
    ck_assert_int_eq(pa_matrix_nrows(m), 0);
    ck_assert_int_eq(pa_matrix_ncols(m), 4);
    int calls = 0;
    PA_CK_OK(pa_matrix_unnest_rows(m, stop_at_3, &calls));
    ck_assert_int_eq(calls, 0);
    pa_matrix_destroy(m);
    pa_matrix_rows_destroy(r);
    PA_CK_OK(pa_matrix_rows_create(PA_MATRIX_INT, 0, &r));
    PA_CK_OK(pa_matrix_rows_add(r, "x"));
    PA_CK_OK(pa_matrix_rows_add(r, "x"));
    PA_CK_OK(pa_matrix_rows_finish(r, NULL, &m));
    ck_assert_int_eq(pa_matrix_nrows(m), 2);
    ck_assert_int_eq(pa_matrix_ncols(m), 0);
    PA_CK_OK(pa_matrix_unnest_rows(m, stop_at_3, &calls));
    ck_assert_int_eq(calls, 2);
    pa_matrix_destroy(m);
    pa_matrix_rows_destroy(r);
}
END_TEST

static char *write_file(const char *text)
{
    static int n;
    char *path = malloc(256);
    snprintf(path, 256, "%s/pa_matrix_csv_%d_%d.csv", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid(),
             n++);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void csv_fails(const char *text, int elm, int flags, int code, const char *needle)
{
    char *path = write_file(text);
    pa_matrix *m = (pa_matrix *)(uintptr_t)1;
    size_t live = pa__alloc_count();
    PA_CK_ERR(pa_matrix_from_csv(path, elm, flags, NULL, &m), code);
    ck_assert_msg(strstr(pa_last_error(), needle), "message \"%s\" lacks \"%s\"", pa_last_error(), needle);
    ck_assert_ptr_eq(m, (pa_matrix *)(uintptr_t)1);
    ck_assert_uint_eq(pa__alloc_count(), live);
    unlink(path);
    free(path);
}

START_TEST(test_csv)
{
    pa_matrix *m = NULL;
    char *path = write_file("x, y ,z\r\n1,2,3\r\n\r\n  4 ,\t5,6\r\n-7,8.5e1,0x10\n");
    PA_CK_OK(pa_matrix_from_csv(path, PA_MATRIX_DOUBLE, PA_MATRIX_CSV_HEADER, NULL, &m));
    ck_assert_int_eq(m->height, 3);
    ck_assert_int_eq(m->width, 3);
    double want[3][3] = {{1, 2, 3}, {4, 5, 6}, {-7, 85, 16}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            ck_assert(mx_get(m, i, j) == want[i][j]);
    pa_matrix_destroy(m);
    unlink(path);
    free(path);

    /* no header, every element type; floats agree with strtod / strtof */
    path = write_file("1.25,-3,0.1\n2,32767,-32768\n");
    for (size_t e = 0; e < sizeof all_elms / sizeof *all_elms; e++) {
        int elm = all_elms[e];
        int rc = pa_matrix_from_csv(path, elm, 0, NULL, &m);
        if (elm == PA_MATRIX_FLOAT || elm == PA_MATRIX_DOUBLE) {
            PA_CK_OK(rc);
            ck_assert(mx_get(m, 0, 0) == 1.25);
            ck_assert(mx_get(m, 1, 2) == -32768);
            if (elm == PA_MATRIX_FLOAT)
                ck_assert(((float *)pa_matrix_data(m))[4] == strtof("0.1", NULL));
            else
                ck_assert(((double *)pa_matrix_data(m))[4] == strtod("0.1", NULL));
            pa_matrix_destroy(m);
        } else {
            ck_assert_int_eq(rc, PA_ERR_PARSE);   /* 1.25 is no integer */
            ck_assert(strstr(pa_last_error(), "line 1 field 1"));
        }
    }
    unlink(path);
    free(path);
    path = write_file("5,6\n-32768,32767\n");
    PA_CK_OK(pa_matrix_from_csv(path, PA_MATRIX_SHORT, 0, NULL, &m));
    ck_assert(mx_get(m, 1, 0) == -32768 && mx_get(m, 1, 1) == 32767);
    pa_matrix_destroy(m);
    unlink(path);
    free(path);

    /* an empty file: 0 x 0; a header only: 0 x width */
    path = write_file("\n\n");
    PA_CK_OK(pa_matrix_from_csv(path, PA_MATRIX_INT, 0, NULL, &m));
    ck_assert(m->height == 0 && m->width == 0);
    pa_matrix_destroy(m);
    unlink(path);
    free(path);
    path = write_file("a,b,c\n");
    PA_CK_OK(pa_matrix_from_csv(path, PA_MATRIX_INT, PA_MATRIX_CSV_HEADER, NULL, &m));
    ck_assert(m->height == 0 && m->width == 3);
    pa_matrix_destroy(m);
    unlink(path);
    free(path);

    csv_fails("1,2,3\n4,5\n", PA_MATRIX_INT, 0, PA_ERR_PARSE, "line 2: 2 fields, expected 3");
    csv_fails("a,b\n1,2\n\n1,2,3\n", PA_MATRIX_INT, PA_MATRIX_CSV_HEADER, PA_ERR_PARSE, "line 4: 3 fields, expected 2");
    csv_fails("1,2\n3,abc\n", PA_MATRIX_DOUBLE, 0, PA_ERR_PARSE, "line 2 field 2: \"abc\" is not a number");
    csv_fails("1,2\n3,1.5x\n", PA_MATRIX_FLOAT, 0, PA_ERR_PARSE, "\"1.5x\" is not a number");
    csv_fails("1,2\n3, \n", PA_MATRIX_INT, 0, PA_ERR_PARSE, "line 2 field 2: empty field");
    csv_fails("1,40000\n", PA_MATRIX_SHORT, 0, PA_ERR_RANGE, "\"40000\" is out of the range of int16_t");
    csv_fails("1,99999999999999999999\n", PA_MATRIX_LONG, 0, PA_ERR_RANGE, "out of the range of int64_t");
    csv_fails("a,,c\n1,2,3\n", PA_MATRIX_INT, PA_MATRIX_CSV_HEADER, PA_ERR_PARSE, "header field 2 is empty");
    PA_CK_ERR(pa_matrix_from_csv("/nonexistent/x.csv", PA_MATRIX_INT, 0, NULL, &m), PA_ERR_SYS);
    ck_assert(strstr(pa_last_error(), "/nonexistent/x.csv"));
    PA_CK_ERR(pa_matrix_from_csv("x", 7, 0, NULL, &m), PA_ERR_INVAL);
}
END_TEST

/* A file of several MiB is parsed by several threads: values land in the right rows, and the first bad line of
 * a late chunk is the one named. */
START_TEST(test_csv_chunks)
{
    pa_rng rng = {pa_test_seed("matrix csv chunks")};
    int64_t rows = 90000;
    size_t cap = (size_t)rows * 40, len = 0;
    char *text = malloc(cap);
    int64_t bad = pa_rng_range(&rng, rows / 2, rows - 1);
    pa_matrix *ref = mx_new(PA_MATRIX_INT, rows, 3);
    for (int64_t i = 0; i < rows; i++) {
        int64_t a = pa_rng_range(&rng, -100000, 100000), b = pa_rng_range(&rng, 0, 9), c = i;
        if (i % 1000 == 7)
            len += (size_t)snprintf(text + len, cap - len, "\n");   /* blank lines do not make rows */
        len += (size_t)snprintf(text + len, cap - len, "%lld,%lld,%lld\n", (long long)a, (long long)b, (long long)c);
        mx_set(ref, i, 0, (double)a);
        mx_set(ref, i, 1, (double)b);
        mx_set(ref, i, 2, (double)c);
    }
    char *path = write_file(text);
    pa_matrix *m = NULL;
    PA_CK_OK(pa_matrix_from_csv(path, PA_MATRIX_INT, 0, NULL, &m));
    mx_assert_equal(m, ref, "csv chunks");
    pa_matrix_destroy(m);
    unlink(path);
    free(path);
    /* break the row `bad` (and a later one): its line number counts the blank lines before it */
    int64_t line = bad + 1 + (bad >= 7 ? (bad - 7) / 1000 + 1 : 0);
    char *p = text;
    for (int64_t l = 1; l < line; l++)
        p = strchr(p, '\n') + 1;
    *strchr(p, ',') = ';';
    p = strchr(strchr(p, '\n') + 1, '\n') + 1;
    if (*p)
        *strchr(p, ',') = ' ';
    path = write_file(text);
    char want[64];
    snprintf(want, sizeof want, "line %lld: 2 fields, expected 3", (long long)line);
    csv_fails(text, PA_MATRIX_INT, 0, PA_ERR_PARSE, want);
    unlink(path);
    free(path);
    free(text);
    pa_matrix_destroy(ref);
}
END_TEST

START_TEST(test_bind_padding)
{
    /* rbind of 2 x 3 and 1 x 2 (width padded), cbind of 2 x 1 and 3 x 2 (height padded), every element type */
    for (size_t e = 0; e < sizeof all_elms / sizeof *all_elms; e++) {
        int elm = all_elms[e];
        pa_matrix *a = mx_new(elm, 2, 3), *b = mx_new(elm, 1, 2), *r = NULL, *c = NULL;
        for (int k = 0; k < 6; k++)
            mx_set(a, k % 2, k / 2, k + 1);
        mx_set(b, 0, 0, 7);
        mx_set(b, 0, 1, 8);
        PA_CK_OK(pa_matrix_rbind(a, b, &r));
        double rw[3][3] = {{1, 3, 5}, {2, 4, 6}, {7, 8, 0}};
        ck_assert(r->height == 3 && r->width == 3 && r->elm == elm);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                ck_assert_msg(mx_get(r, i, j) == rw[i][j], "rbind (%d,%d) = %g", i, j, mx_get(r, i, j));
        pa_matrix *bt = NULL;
        PA_CK_OK(pa_matrix_transpose(b, &bt));   /* 2 x 1 */
        PA_CK_OK(pa_matrix_cbind(bt, a, &c));     /* 2 x 4: heights equal */
        pa_matrix *c2 = NULL, *a3 = mx_new(elm, 3, 2);
        for (int k = 0; k < 6; k++)
            mx_set(a3, k % 3, k / 3, 10 + k);
        PA_CK_OK(pa_matrix_cbind(bt, a3, &c2));   /* 3 x 3: bt padded below */
        double cw[3][3] = {{7, 10, 13}, {8, 11, 14}, {0, 12, 15}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                ck_assert_msg(mx_get(c2, i, j) == cw[i][j], "cbind (%d,%d) = %g", i, j, mx_get(c2, i, j));
        ck_assert(c->height == 2 && c->width == 4 && mx_get(c, 1, 0) == 8 && mx_get(c, 1, 3) == 6);
        pa_matrix *list[] = {a, b, a3}, *rn = NULL, *cn = NULL;
        PA_CK_OK(pa_matrix_rbind_n((const pa_matrix *const *)list, 3, &rn));
        pa_matrix *want = mx_ref_bind((const pa_matrix *const *)list, 3, 1);
        mx_assert_equal(rn, want, "rbind_n");
        pa_matrix_destroy(want);
        PA_CK_OK(pa_matrix_cbind_n((const pa_matrix *const *)list, 3, &cn));
        want = mx_ref_bind((const pa_matrix *const *)list, 3, 0);
        mx_assert_equal(cn, want, "cbind_n");
        pa_matrix_destroy(want);
        pa_matrix *one = NULL;
        PA_CK_OK(pa_matrix_rbind_n((const pa_matrix *const *)list, 1, &one));
        mx_assert_equal(one, a, "rbind_n of one");
        pa_matrix_destroy(one);
        for (pa_matrix **p = (pa_matrix *[]){a, b, r, c, c2, a3, bt, rn, cn, NULL}; *p; p++)
            pa_matrix_destroy(*p);
    }
}
END_TEST

/* The _into forms write every element of an existing matrix, padding included (poisoned first). */
START_TEST(test_into)
{
    pa_rng rng = {pa_test_seed("matrix into")};
    for (int round = 0; round < 10; round++) {
        int elm = all_elms[pa_rng_range(&rng, 0, 4)];
        pa_matrix *a = mx_random(&rng, elm, pa_rng_range(&rng, 0, 9), pa_rng_range(&rng, 0, 9));
        pa_matrix *b = mx_random(&rng, elm, pa_rng_range(&rng, 0, 9), pa_rng_range(&rng, 0, 9));
        const pa_matrix *pair[] = {a, b};
        for (int by_rows = 0; by_rows < 2; by_rows++) {
            pa_matrix *want = mx_ref_bind(pair, 2, by_rows), *out = NULL;
            PA_CK_OK(pa_matrix_create_in(NULL, elm, want->height, want->width, &out));
            memset(pa_matrix_data(out), 0x5A, pa_matrix_rawsize(elm, want->height, want->width) - 16);
            PA_CK_OK(by_rows ? pa_matrix_store_rbind(out, pair, 2) : pa_matrix_store_cbind(out, pair, 2));
            mx_assert_equal(out, want, "bind into");
            pa_matrix_destroy(out);
            PA_CK_OK(pa_matrix_create_in(NULL, elm, want->height + 1, want->width, &out));
            PA_CK_ERR(by_rows ? pa_matrix_store_rbind(out, pair, 2) : pa_matrix_store_cbind(out, pair, 2), PA_ERR_SIZE);
            pa_matrix_destroy(out);
            PA_CK_OK(pa_matrix_create_in(NULL, elm == PA_MATRIX_INT ? PA_MATRIX_FLOAT : PA_MATRIX_INT, want->height,
                                         want->width, &out));
            PA_CK_ERR(by_rows ? pa_matrix_store_rbind(out, pair, 2) : pa_matrix_store_cbind(out, pair, 2), PA_ERR_ELM);
            pa_matrix_destroy(out);
            pa_matrix_destroy(want);
        }
        pa_matrix *want = mx_ref_transpose(a), *t = NULL;
        PA_CK_OK(pa_matrix_create_in(NULL, elm, a->width, a->height, &t));
        memset(pa_matrix_data(t), 0x5A, pa_matrix_rawsize(elm, a->width, a->height) - 16);
        PA_CK_OK(pa_matrix_store_transpose(t, a));
        mx_assert_equal(t, want, "transpose into");
        if (a->height != a->width)
            PA_CK_ERR(pa_matrix_store_transpose(a, a), PA_ERR_SIZE);
        pa_matrix_destroy(t);
        pa_matrix_destroy(want);
        pa_matrix_destroy(a);
        pa_matrix_destroy(b);
    }
    PA_CK_ERR(pa_matrix_store_rbind(NULL, NULL, 0), PA_ERR_INVAL);
}
END_TEST

START_TEST(test_empty)
{
    pa_matrix *e0 = mx_new(PA_MATRIX_FLOAT, 0, 3), *e1 = mx_new(PA_MATRIX_FLOAT, 2, 0);
    pa_matrix *a = mx_new(PA_MATRIX_FLOAT, 2, 2), *r = NULL;
    for (int k = 0; k < 4; k++)
        mx_set(a, k % 2, k / 2, k + 1);
    PA_CK_OK(pa_matrix_rbind(e0, a, &r));   /* 2 x 3: a padded to 3 columns */
    ck_assert(r->height == 2 && r->width == 3 && mx_get(r, 1, 1) == 4 && mx_get(r, 0, 2) == 0);
    pa_matrix_destroy(r);
    PA_CK_OK(pa_matrix_cbind(e1, a, &r));   /* 2 x 2 */
    mx_assert_equal(r, a, "cbind with 2 x 0");
    pa_matrix_destroy(r);
    PA_CK_OK(pa_matrix_transpose(e0, &r));
    ck_assert(r->height == 3 && r->width == 0);
    pa_matrix_destroy(r);
    PA_CK_OK(pa_matrix_rbind(e0, e0, &r));
    ck_assert(r->height == 0 && r->width == 3);
    pa_matrix_destroy(r);
    PA_CK_OK(pa_matrix_gemm(e1, e0, &r));   /* 2 x 0 times 0 x 3: zeros */
    ck_assert(r->height == 2 && r->width == 3);
    for (int k = 0; k < 6; k++)
        ck_assert(mx_get(r, k % 2, k / 2) == 0);
    pa_matrix_destroy(r);
    pa_matrix_destroy(e0);
    pa_matrix_destroy(e1);
    pa_matrix_destroy(a);
}
END_TEST

/* rbind/cbind/transpose identities on random shapes and element types. */
START_TEST(test_identities)
{
    pa_rng rng = {pa_test_seed("matrix identities")};
    for (int round = 0; round < 24; round++) {
        int elm = all_elms[pa_rng_range(&rng, 0, 4)];
        int64_t ha = pa_rng_range(&rng, 0, 24), wa = pa_rng_range(&rng, 0, 24);
        int64_t hb = pa_rng_range(&rng, 0, 24), wb = pa_rng_range(&rng, 0, 24);
        pa_matrix *a = mx_random(&rng, elm, ha, wa), *b = mx_random(&rng, elm, hb, wb);
        pa_matrix *ta, *tb, *tta, *r, *c, *tr, *x, *y;
        PA_CK_OK(pa_matrix_transpose(a, &ta));
        PA_CK_OK(pa_matrix_transpose(b, &tb));
        PA_CK_OK(pa_matrix_transpose(ta, &tta));
        mx_assert_equal(tta, a, "t(t(A)) = A");
        pa_matrix *want = mx_ref_transpose(a);
        mx_assert_equal(ta, want, "t(A)");
        pa_matrix_destroy(want);
        PA_CK_OK(pa_matrix_rbind(a, b, &r));
        PA_CK_OK(pa_matrix_cbind(ta, tb, &c));
        PA_CK_OK(pa_matrix_transpose(c, &tr));
        mx_assert_equal(tr, r, "rbind(A, B) = t(cbind(t(A), t(B)))");
        want = mx_ref_bind((const pa_matrix *const[]){a, b}, 2, 1);
        mx_assert_equal(r, want, "rbind(A, B)");
        pa_matrix_destroy(want);
        PA_CK_OK(pa_matrix_cbind(a, b, &x));
        PA_CK_OK(pa_matrix_rbind(ta, tb, &y));
        pa_matrix *ty;
        PA_CK_OK(pa_matrix_transpose(y, &ty));
        mx_assert_equal(ty, x, "cbind(A, B) = t(rbind(t(A), t(B)))");
        ck_assert_int_eq(pa_matrix_nrows(r), ha + hb);
        ck_assert_int_eq(pa_matrix_ncols(x), wa + wb);
        for (pa_matrix **p = (pa_matrix *[]){a, b, ta, tb, tta, r, c, tr, x, y, ty, NULL}; *p; p++)
            pa_matrix_destroy(*p);
    }
}
END_TEST

/* The view cache (matrix_view.c) across more shapes than it holds: 150 rbinds and transposes of distinct
 * shapes, an aggregate of 40 inputs (80 views in one call: the cache fills mid-call and the rest go to the
 * call's own scope), each checked; then 4 threads binding and transposing their own shapes at once. */
#define CACHE_THREADS 4
typedef struct cache_job {
    const pa_matrix *in[2], *want_r, *want_t;
    int bad;
} cache_job;

static void *cache_worker(void *p)
{
    cache_job *j = p;
    for (int rep = 0; rep < 40; rep++) {
        pa_matrix *r = NULL, *t = NULL;
        size_t rb = pa_matrix_rawsize(j->want_r->elm, j->want_r->height, j->want_r->width);
        size_t tb = pa_matrix_rawsize(j->want_t->elm, j->want_t->height, j->want_t->width);
        if (pa_matrix_rbind_n(j->in, 2, &r) != PA_OK || memcmp(r, j->want_r, rb) != 0 ||
            pa_matrix_transpose(j->in[rep % 2], &t) != PA_OK || (rep % 2 == 0 && memcmp(t, j->want_t, tb) != 0))
            j->bad++;
        pa_matrix_destroy(r);
        pa_matrix_destroy(t);
    }
    return NULL;
}

START_TEST(test_view_cache)
{
    pa_rng rng = {pa_test_seed("matrix view cache")};
    for (int64_t h = 1; h <= 150; h++) {
        int elm = all_elms[h % 5];
        pa_matrix *a = mx_random(&rng, elm, h, 3), *b = mx_random(&rng, elm, h % 7 + 1, 2), *r, *t;
        pa_matrix *want = mx_ref_bind((const pa_matrix *const[]){a, b}, 2, 1);
        PA_CK_OK(pa_matrix_rbind(a, b, &r));
        mx_assert_equal(r, want, "rbind, shape after shape");
        pa_matrix_destroy(want);
        want = mx_ref_transpose(a);
        PA_CK_OK(pa_matrix_transpose(a, &t));
        mx_assert_equal(t, want, "transpose, shape after shape");
        for (pa_matrix **p = (pa_matrix *[]){a, b, r, t, want, NULL}; *p; p++)
            pa_matrix_destroy(*p);
    }
    pa_matrix *many[40], *r;
    for (int k = 0; k < 40; k++)
        many[k] = mx_random(&rng, PA_MATRIX_DOUBLE, 200 + k, k % 5 + 1);
    pa_matrix *want = mx_ref_bind((const pa_matrix *const *)many, 40, 1);
    PA_CK_OK(pa_matrix_rbind_n((const pa_matrix *const *)many, 40, &r));
    mx_assert_equal(r, want, "rbind of 40");
    pa_matrix_destroy(r);
    pa_matrix_destroy(want);
    for (int k = 0; k < 40; k++)
        pa_matrix_destroy(many[k]);

    cache_job jobs[CACHE_THREADS];
    pthread_t th[CACHE_THREADS];
    for (int i = 0; i < CACHE_THREADS; i++) {
        pa_matrix *a = mx_random(&rng, PA_MATRIX_FLOAT, 10 + i, 4 + i), *b = mx_random(&rng, PA_MATRIX_FLOAT, 5, 6);
        jobs[i] = (cache_job){.in = {a, b}, .want_r = mx_ref_bind((const pa_matrix *const[]){a, b}, 2, 1),
                              .want_t = mx_ref_transpose(a)};
    }
    for (int i = 0; i < CACHE_THREADS; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, cache_worker, &jobs[i]), 0);
    for (int i = 0; i < CACHE_THREADS; i++) {
        pthread_join(th[i], NULL);
        ck_assert_msg(jobs[i].bad == 0, "thread %d: %d wrong results", i, jobs[i].bad);
        for (const pa_matrix **p = (const pa_matrix *[]){jobs[i].in[0], jobs[i].in[1], jobs[i].want_r, jobs[i].want_t,
                                                          NULL}; *p; p++)
            pa_matrix_destroy((pa_matrix *)*p);
    }
}
END_TEST

START_TEST(test_gemm_host)
{
    pa_rng rng = {pa_test_seed("matrix gemm")};
    int shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {64, 64, 64}, {129, 33, 257}, {160, 96, 64}};
    for (int e = 0; e < 2; e++) {
        int elm = e ? PA_MATRIX_DOUBLE : PA_MATRIX_FLOAT;
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            int M = shapes[s][0], K = shapes[s][1], N = shapes[s][2];
            pa_matrix *a = mx_new(elm, M, K), *b = mx_new(elm, K, N), *c = NULL;
            for (int j = 0; j < K; j++)
                for (int i = 0; i < M; i++)
                    mx_set(a, i, j, (double)pa_rng_range(&rng, -8, 8) / 4);
            for (int j = 0; j < N; j++)
                for (int i = 0; i < K; i++)
                    mx_set(b, i, j, (double)pa_rng_range(&rng, -8, 8) / 4);
            PA_CK_OK(pa_matrix_gemm(a, b, &c));
            ck_assert(c->height == M && c->width == N && c->elm == elm);
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double want = 0;
                    for (int k = 0; k < K; k++)
                        want += mx_get(a, i, k) * mx_get(b, k, j);
                    /* quarters times quarters summed: exact in float for these sizes */
                    ck_assert_msg(mx_get(c, i, j) == want, "%dx%dx%d (%d,%d): %g want %g", M, K, N, i, j,
                                  mx_get(c, i, j), want);
                }
            pa_matrix_destroy(a);
            pa_matrix_destroy(b);
            pa_matrix_destroy(c);
        }
    }
}
END_TEST

/* Mixed element types, corrupt headers, rawsize beyond the buffer, dimensions over 2^31-1: clear errors,
 * outputs untouched, nothing allocated left behind. */
START_TEST(test_bad_input)
{
    size_t live = pa__alloc_count();
    pa_matrix *const untouched = (pa_matrix *)(uintptr_t)1, *out = untouched;
    pa_matrix *f = mx_new(PA_MATRIX_FLOAT, 2, 2), *d = mx_new(PA_MATRIX_DOUBLE, 2, 2);
    PA_CK_ERR(pa_matrix_rbind(f, d, &out), PA_ERR_ELM);
    ck_assert(strstr(pa_last_error(), "double") && strstr(pa_last_error(), "float"));
    PA_CK_ERR(pa_matrix_cbind_n((const pa_matrix *const[]){f, f, d}, 3, &out), PA_ERR_ELM);
    ck_assert(strstr(pa_last_error(), "matrix 2"));
    PA_CK_ERR(pa_matrix_gemm(f, d, &out), PA_ERR_ELM);
    pa_matrix *i3 = mx_new(PA_MATRIX_INT, 2, 2), *f3 = mx_new(PA_MATRIX_FLOAT, 3, 2);
    PA_CK_ERR(pa_matrix_gemm(i3, i3, &out), PA_ERR_ELM);
    PA_CK_ERR(pa_matrix_gemm(f, f3, &out), PA_ERR_SIZE);
    PA_CK_ERR(pa_matrix_rbind_n(NULL, 0, &out), PA_ERR_INVAL);
    PA_CK_ERR(pa_matrix_rbind_n((const pa_matrix *const[]){f, NULL}, 2, &out), PA_ERR_INVAL);
    ck_assert(strstr(pa_last_error(), "matrix 1 is NULL"));
    PA_CK_ERR(pa_matrix_transpose(NULL, &out), PA_ERR_INVAL);

    /* corrupt headers */
    f->magic = 0x12345678;
    PA_CK_ERR(pa_matrix_check(f), PA_ERR_INVAL);
    ck_assert(strstr(pa_last_error(), "bad magic"));
    PA_CK_ERR(pa_matrix_transpose(f, &out), PA_ERR_INVAL);
    ck_assert_int_eq(pa_matrix_nrows(f), -1);
    f->magic = PA_MATRIX_MAGIC;
    f->elm = 9;
    PA_CK_ERR(pa_matrix_rbind(f, f, &out), PA_ERR_INVAL);
    f->elm = PA_MATRIX_FLOAT;
    f->height = -3;
    PA_CK_ERR(pa_matrix_unnest_columns(f, NULL), PA_ERR_INVAL);
    f->height = 2;
    ck_assert_ptr_eq(out, untouched);

    /* rawsize beyond the buffer: a pa_create'd matrix whose header claims more rows than it holds */
    pa_matrix *p = NULL;
    PA_CK_OK(pa_matrix_create_in("paged", PA_MATRIX_DOUBLE, 4, 4, &p));
    p->height = 5;
    PA_CK_ERR(pa_matrix_check(p), PA_ERR_INVAL);
    ck_assert(strstr(pa_last_error(), "needs 176 bytes, its buffer has 144"));
    PA_CK_ERR(pa_matrix_transpose(p, &out), PA_ERR_INVAL);
    PA_CK_ERR(pa_matrix_validate(p, 100), PA_ERR_INVAL);
    p->height = 4;
    PA_CK_OK(pa_matrix_validate(p, 144));
    pa_matrix_destroy(p);

    /* dimensions over 2^31-1 */
    PA_CK_ERR(pa_matrix_create_in(NULL, PA_MATRIX_INT, (int64_t)INT32_MAX + 1, 1, &out), PA_ERR_INVAL);
    PA_CK_ERR(pa_matrix_rows_create(PA_MATRIX_INT, (int64_t)INT32_MAX + 1, (pa_matrix_rows **)&out), PA_ERR_INVAL);
    pa_matrix *none = NULL;
    PA_CK_ERR(pa_matrix_create_in(NULL, PA_MATRIX_INT, 1, (int64_t)1 << 31, &none), PA_ERR_INVAL);
    ck_assert_ptr_null(none);   /* the output is untouched on failure */
    /* results that would pass 2^31-1 rows or columns: refused before anything is allocated (only headers here) */
    pa_matrix big = {PA_MATRIX_INT, INT32_MAX, 1, PA_MATRIX_MAGIC}, wide = {PA_MATRIX_INT, 1, INT32_MAX, PA_MATRIX_MAGIC};
    PA_CK_ERR(pa_matrix_rbind(&big, &big, &out), PA_ERR_RANGE);
    ck_assert(strstr(pa_last_error(), "above 2^31-1"));
    PA_CK_ERR(pa_matrix_cbind(&wide, &wide, &out), PA_ERR_RANGE);
    pa_matrix_rows *r;
    PA_CK_OK(pa_matrix_rows_create(PA_MATRIX_INT, 0, &r));
    PA_CK_OK(pa_matrix_rows_add_block(r, "", INT32_MAX - 1));
    PA_CK_ERR(pa_matrix_rows_add_block(r, "", 2), PA_ERR_RANGE);
    PA_CK_ERR(pa_matrix_rows_add(r, NULL), PA_ERR_INVAL);
    pa_matrix_rows_destroy(r);
    PA_CK_ERR(pa_matrix_create_in("pthd", PA_MATRIX_INT, 1, 1, &out), PA_ERR_MTT);
    PA_CK_ERR(pa_matrix_create_in("nosuch", PA_MATRIX_INT, 1, 1, &out), PA_ERR_MTT);
    ck_assert_ptr_eq(out, untouched);
    pa_matrix_destroy(f);
    pa_matrix_destroy(d);
    pa_matrix_destroy(i3);
    pa_matrix_destroy(f3);
    ck_assert_uint_eq(pa__alloc_count(), live);
}
END_TEST

/* dmem in a build or on a machine without a GPU: a clear PA_ERR_NODEV, nothing allocated.  With a GPU the same
 * call makes the matrix and its destroy gives everything back (matrix_gpu tests the rest). */
START_TEST(test_dmem_here)
{
    size_t live = pa__alloc_count();
    pa_matrix *out = NULL;
    if (pa_test_gpu_present()) {
        PA_CK_OK(pa_matrix_create_in("dmem", PA_MATRIX_FLOAT, 2, 2, &out));
        ck_assert_ptr_nonnull(out);
        pa_matrix_destroy(out);
    } else {
        PA_CK_ERR(pa_matrix_create_in("dmem", PA_MATRIX_FLOAT, 2, 2, &out), PA_ERR_NODEV);
        ck_assert_ptr_null(out);
    }
    ck_assert_uint_eq(pa__alloc_count(), live);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("matrix");
    TCase *tc = tcase_create("matrix");
    tcase_add_test(tc, test_format);
    tcase_add_test(tc, test_type_view);
    tcase_add_test(tc, test_rows_columns_unnest);
    tcase_add_test(tc, test_csv);
    tcase_add_test(tc, test_csv_chunks);
    tcase_add_test(tc, test_bind_padding);
    tcase_add_test(tc, test_into);
    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_identities);
    tcase_add_test(tc, test_view_cache);
    tcase_add_test(tc, test_gemm_host);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_dmem_here);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
