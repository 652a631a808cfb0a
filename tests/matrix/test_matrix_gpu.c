/* parray tests — the matrix module on the GPU: matrices in dmem and pinned memory, every operation compared
 * element by element with the host's result (itself checked by the matrix suite), gemm on the GPU against a
 * host reference, unnest and CSV to and from dmem, errors with nothing left allocated.  Exits 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include <parray/matrix.h>
#include "matrix_check.h"
#include "mem_internal.h"

/* A dmem copy of a host matrix. */
static pa_matrix *to_dev(const pa_matrix *m, const char *mtt)
{
    pa_matrix *d = NULL;
    PA_CK_OK(pa_matrix_copy_to(m, mtt, &d));
    ck_assert_str_eq(pa_matrix_mtt(d), mtt);
    return d;
}

START_TEST(test_dmem_basics)
{
    size_t live = pa__alloc_count();
    for (size_t e = 0; e < sizeof all_elms / sizeof *all_elms; e++) {
        pa_matrix *d = NULL, h;
        PA_CK_OK(pa_matrix_create_in("dmem", all_elms[e], 33, 7, &d));
        ck_assert_str_eq(pa_matrix_mtt(d), "dmem");
        ck_assert_int_eq(pa_matrix_nrows(d), 33);
        ck_assert_int_eq(pa_matrix_ncols(d), 7);
        PA_CK_OK(pa_matrix_header(d, &h));
        ck_assert_int_eq(h.elm, all_elms[e]);
        pa_matrix *z = mx_new(all_elms[e], 33, 7);
        mx_assert_equal(d, z, "dmem zeroed");
        pa_matrix_destroy(z);
        pa_matrix_destroy(d);
    }
    ck_assert_uint_eq(pa__alloc_count(), live);
}
END_TEST

/* rbind, cbind (pairs and aggregates, with padding), transpose on dmem and pinned matrices, against the host. */
START_TEST(test_dmem_ops)
{
    pa_rng rng = {pa_test_seed("matrix gpu ops")};
    const char *mtts[] = {"dmem", "pinned"};
    for (int round = 0; round < 30; round++) {
        int elm = all_elms[pa_rng_range(&rng, 0, 4)];
        const char *mtt = mtts[round % 2];
        int64_t ha = pa_rng_range(&rng, 0, 300), wa = pa_rng_range(&rng, 0, 70);
        int64_t hb = pa_rng_range(&rng, 0, 300), wb = pa_rng_range(&rng, 0, 70);
        pa_matrix *a = mx_random(&rng, elm, ha, wa), *b = mx_random(&rng, elm, hb, wb);
        pa_matrix *da = to_dev(a, mtt), *db = to_dev(b, mtt);
        pa_matrix *want, *got;
        const pa_matrix *pair[] = {a, b, a}, *dpair[] = {da, db, da};

        want = mx_ref_transpose(a);
        PA_CK_OK(pa_matrix_transpose(da, &got));
        ck_assert_str_eq(pa_matrix_mtt(got), mtt);
        mx_assert_equal(got, want, "transpose");
        pa_matrix_destroy(want);
        pa_matrix_destroy(got);
        for (int by_rows = 0; by_rows < 2; by_rows++) {
            want = mx_ref_bind(pair, 2, by_rows);
            PA_CK_OK(by_rows ? pa_matrix_rbind(da, db, &got) : pa_matrix_cbind(da, db, &got));
            mx_assert_equal(got, want, by_rows ? "rbind" : "cbind");
            pa_matrix_destroy(want);
            pa_matrix_destroy(got);
            want = mx_ref_bind(pair, 3, by_rows);
            PA_CK_OK(by_rows ? pa_matrix_rbind_n(dpair, 3, &got) : pa_matrix_cbind_n(dpair, 3, &got));
            mx_assert_equal(got, want, by_rows ? "rbind_n" : "cbind_n");
            pa_matrix_destroy(want);
            pa_matrix_destroy(got);
            /* a host matrix joins a device one: the result is in the first's memory */
            want = mx_ref_bind(pair, 2, by_rows);
            PA_CK_OK(by_rows ? pa_matrix_rbind(da, b, &got) : pa_matrix_cbind(da, b, &got));
            ck_assert_str_eq(pa_matrix_mtt(got), mtt);
            mx_assert_equal(got, want, "mixed memory");
            pa_matrix_destroy(want);
            pa_matrix_destroy(got);
        }
        for (pa_matrix **p = (pa_matrix *[]){a, b, da, db, NULL}; *p; p++)
            pa_matrix_destroy(*p);
    }
}
END_TEST

/* Transposes big enough for the permute's tiled kernels (16-byte vector tiles of 128 x 32 for 4-byte elements,
 * 32 x 32 for 8-byte ones), whose tiles are shifted to 128-byte boundaries because the elements start 16 bytes
 * into the matrix: partial tiles at both ends of each mode; odd sizes and sizes of whole tiles. */
START_TEST(test_dmem_big_transposes)
{
    pa_rng rng = {pa_test_seed("matrix gpu big transposes")};
    static const int64_t shapes[][2] = {{300, 200}, {128, 32}, {129, 33}, {1000, 130}, {4096, 37}, {37, 4096},
                                        {260, 1030}};
    static const int elms[] = {PA_MATRIX_FLOAT, PA_MATRIX_INT, PA_MATRIX_DOUBLE, PA_MATRIX_LONG};
    for (size_t e = 0; e < sizeof elms / sizeof *elms; e++)
        for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
            pa_matrix *a = mx_random(&rng, elms[e], shapes[i][0], shapes[i][1]), *da = to_dev(a, "dmem"), *got = NULL;
            pa_matrix *want = mx_ref_transpose(a);
            PA_CK_OK(pa_matrix_transpose(da, &got));
            mx_assert_equal(got, want, "big transpose");
            for (pa_matrix **p = (pa_matrix *[]){a, da, got, want, NULL}; *p; p++)
                pa_matrix_destroy(*p);
        }
}
END_TEST

static int sum_row(int64_t row, const void *values, int64_t width, void *ctx)
{
    double *acc = ctx;
    for (int64_t j = 0; j < width; j++)
        acc[0] += ((const double *)values)[j] * (double)(row + 1) * (j + 1);
    acc[1] += 1;
    return 0;
}

START_TEST(test_dmem_rows_unnest_csv)
{
    pa_rng rng = {pa_test_seed("matrix gpu rows")};
    int64_t h = 100000, w = 5;
    pa_matrix *ref = mx_random(&rng, PA_MATRIX_DOUBLE, h, w), *d = NULL, *back;
    pa_matrix_rows *r;
    double *rows = malloc((size_t)(h * w) * sizeof *rows);
    for (int64_t i = 0; i < h; i++)
        for (int64_t j = 0; j < w; j++)
            rows[i * w + j] = mx_get(ref, i, j);
    PA_CK_OK(pa_matrix_rows_create(PA_MATRIX_DOUBLE, w, &r));
    PA_CK_OK(pa_matrix_rows_add_block(r, rows, h));
    PA_CK_OK(pa_matrix_rows_finish(r, "dmem", &d));
    mx_assert_equal(d, ref, "rows to dmem");
    double acc[2] = {0, 0}, want = 0;
    PA_CK_OK(pa_matrix_unnest_rows(d, sum_row, acc));
    for (int64_t i = 0; i < h; i++)
        for (int64_t j = 0; j < w; j++)
            want += mx_get(ref, i, j) * (double)(i + 1) * (double)(j + 1);
    ck_assert(acc[0] == want && acc[1] == (double)h);
    double *cols[5];
    for (int j = 0; j < 5; j++)
        cols[j] = malloc((size_t)h * sizeof(double));
    PA_CK_OK(pa_matrix_unnest_columns(d, (void *const *)cols));
    back = NULL;
    PA_CK_OK(pa_matrix_from_columns(PA_MATRIX_DOUBLE, h, w, (const void *const *)cols, "dmem", &back));
    mx_assert_equal(back, ref, "columns out and back in");
    pa_matrix_destroy(back);
    for (int j = 0; j < 5; j++)
        free(cols[j]);
    /* CSV into dmem */
    char path[256];
    snprintf(path, sizeof path, "%s/pa_matrix_gpu_%d.csv", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    FILE *f = fopen(path, "w");
    fprintf(f, "a,b,c,d,e\n");
    for (int64_t i = 0; i < h; i++)
        fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g\n", rows[i * w], rows[i * w + 1], rows[i * w + 2], rows[i * w + 3],
                rows[i * w + 4]);
    fclose(f);
    PA_CK_OK(pa_matrix_from_csv(path, PA_MATRIX_DOUBLE, PA_MATRIX_CSV_HEADER, "dmem", &back));
    ck_assert_str_eq(pa_matrix_mtt(back), "dmem");
    mx_assert_equal(back, ref, "csv to dmem");
    pa_matrix_destroy(back);
    unlink(path);
    free(rows);
    pa_matrix_rows_destroy(r);
    pa_matrix_destroy(d);
    pa_matrix_destroy(ref);
}
END_TEST

START_TEST(test_gemm_gpu)
{
    pa_rng rng = {pa_test_seed("matrix gpu gemm")};
    /* M, K, N; the last two are past the row-major form's grid the other way round: a tall A (C^T's rows are
     * few) and a B wider than 65535 blocks of 64 (C = A B on the transposed views) */
    int shapes[][3] = {{1, 1, 1}, {64, 16, 64}, {65, 17, 63}, {300, 129, 257}, {1000, 64, 3}, {5, 0, 7},
                       {4194305, 2, 3}, {2, 1, 4194305}};
    for (int e = 0; e < 2; e++) {
        int elm = e ? PA_MATRIX_DOUBLE : PA_MATRIX_FLOAT;
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            int M = shapes[s][0], K = shapes[s][1], N = shapes[s][2];
            pa_matrix *a = mx_new(elm, M, K), *b = mx_new(elm, K, N), *c = NULL, *hc = NULL;
            for (int j = 0; j < K; j++)
                for (int i = 0; i < M; i++)
                    mx_set(a, i, j, (double)pa_rng_range(&rng, -8, 8) / 4);
            for (int j = 0; j < N; j++)
                for (int i = 0; i < K; i++)
                    mx_set(b, i, j, (double)pa_rng_range(&rng, -8, 8) / 4);
            pa_matrix *da = to_dev(a, "dmem");
            PA_CK_OK(pa_matrix_gemm(da, b, &c));   /* b moves to the GPU */
            ck_assert_str_eq(pa_matrix_mtt(c), "dmem");
            PA_CK_OK(pa_matrix_gemm(a, b, &hc));
            mx_assert_equal(c, hc, "gemm on the GPU = on the host (exact for quarters)");
            for (pa_matrix **p = (pa_matrix *[]){a, b, c, hc, da, NULL}; *p; p++)
                pa_matrix_destroy(*p);
        }
    }
}
END_TEST

START_TEST(test_gpu_bad_input)
{
    size_t live = pa__alloc_count();
    pa_matrix *d = NULL, *f = NULL, *out = NULL;
    PA_CK_OK(pa_matrix_create_in("dmem", PA_MATRIX_FLOAT, 4, 4, &f));
    PA_CK_OK(pa_matrix_create_in("dmem", PA_MATRIX_DOUBLE, 4, 4, &d));
    PA_CK_ERR(pa_matrix_rbind(f, d, &out), PA_ERR_ELM);
    PA_CK_ERR(pa_matrix_gemm(f, d, &out), PA_ERR_ELM);
    /* a corrupt header on the GPU */
    pa_matrix bad = {PA_MATRIX_FLOAT, 400, 4, PA_MATRIX_MAGIC};
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_copy(pa_type_parse(s, "dmem int [4]"), f, pa_type_parse(s, "paged int [4]"), &bad));
    PA_CK_ERR(pa_matrix_check(f), PA_ERR_INVAL);
    ck_assert(strstr(pa_last_error(), "its buffer has 80"));
    PA_CK_ERR(pa_matrix_transpose(f, &out), PA_ERR_INVAL);
    bad.magic = 0;
    PA_CK_OK(pa_copy(pa_type_parse(s, "dmem int [4]"), f, pa_type_parse(s, "paged int [4]"), &bad));
    PA_CK_ERR(pa_matrix_check(f), PA_ERR_INVAL);
    pa_scope_destroy(s);
    ck_assert_ptr_null(out);
    pa_matrix_destroy(f);
    pa_matrix_destroy(d);
    ck_assert_uint_eq(pa__alloc_count(), live);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("matrix_gpu"))
        return 77;
    Suite *su = suite_create("matrix_gpu");
    TCase *tc = tcase_create("matrix_gpu");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_dmem_basics);
    tcase_add_test(tc, test_dmem_ops);
    tcase_add_test(tc, test_dmem_big_transposes);
    tcase_add_test(tc, test_dmem_rows_unnest_csv);
    tcase_add_test(tc, test_gemm_gpu);
    tcase_add_test(tc, test_gpu_bad_input);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
