/* parray tests — the matrix examples' TF32 tolerances on the host (examples/matrix_knn_tc.h, matrix_kmeans_tc.h):
 * a CPU model of the tensor cores' k-NN (operands truncated to TF32, fp32 sums, the score |x|^2 - 2 q.x) stays within
 * the documented tolerance of the fp32 search (recall >= 0.99, every neighbour within the bound), and gives the
 * fp32 answer bit for bit on integer data; the checks fail for answers outside the tolerance (wrong neighbours,
 * moved points, centroids apart).  No GPU needed. */
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"
#include <parray/matrix.h>

#include "../../examples/matrix_kmeans_tc.h"
#include "../../examples/matrix_knn_tc.h"

static pa_matrix *random_host(pa_rng *r, int64_t rows, int d, int integers)
{
    pa_matrix *m = NULL;
    PA_CK_OK(pa_matrix_create_in(NULL, PA_MATRIX_FLOAT, rows, d, &m));
    float *v = pa_matrix_data(m);
    for (int64_t e = 0; e < rows * d; e++)
        v[e] = integers ? (float)(pa_rng_next(r) % 100)
                        : (float)(-50.0 + 100.0 * (double)(pa_rng_next(r) >> 11) / 9007199254740992.0);
    return m;
}

/* The tensor-core path's ranking on the CPU: TF32 operands, fp32 sums, |x|^2 - 2 q.x, ties to the lower index. */
static pa_matrix *knn_tf32_model(const pa_matrix *data, const pa_matrix *query, int k)
{
    const int64_t n = data->height, nq = query->height;
    const int d = data->width;
    const float *X = pa_matrix_data((pa_matrix *)data), *Q = pa_matrix_data((pa_matrix *)query);
    pa_matrix *res = NULL;
    PA_CK_OK(pa_matrix_create_in(NULL, PA_MATRIX_INT, nq, k, &res));
    int *out = pa_matrix_data(res), *bi = malloc(sizeof(int) * (size_t)k);
    float *bd = malloc(sizeof(float) * (size_t)k);
    ck_assert(bi && bd);
    for (int64_t q = 0; q < nq; q++) {
        for (int r = 0; r < k; r++) {
            bd[r] = 3.4e38f;
            bi[r] = 0x7fffffff;
        }
        for (int64_t i = 0; i < n; i++) {
            float dot = 0, xn = 0;
            for (int j = 0; j < d; j++) {
                float x = X[(int64_t)j * n + i];
                dot += mx_tf32_truncate(Q[(int64_t)j * nq + q]) * mx_tf32_truncate(x);
                xn += x * x;
            }
            knn_list_insert(bd, bi, k, xn + -2.0f * dot, (int)i);
        }
        for (int r = 0; r < k; r++)
            out[(int64_t)r * nq + q] = bi[r];
    }
    free(bi);
    free(bd);
    return res;
}

START_TEST(knn_tf32_model_within_tolerance)
{
    pa_rng r = {pa_test_seed("matrix tf32 host")};
    static const struct { int64_t n, nq; int d, k, integers; } cases[] = {
        {4000, 100, 16, 8, 0}, {4000, 60, 32, 32, 0}, {4000, 100, 16, 8, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        pa_matrix *x = random_host(&r, cases[c].n, cases[c].d, cases[c].integers);
        pa_matrix *q = random_host(&r, cases[c].nq, cases[c].d, cases[c].integers);
        pa_matrix *want = knn_cpu(x, q, cases[c].k), *got = knn_tf32_model(x, q, cases[c].k);
        knn_agreement a;
        int ok = knn_check_tolerance(x, q, want, got, &a);
        printf("matrix_tf32_host: model %lld x %d, k %d%s: recall %.4f, worst excess %.2e, %ld outside\n",
               (long long)cases[c].n, cases[c].d, cases[c].k, cases[c].integers ? ", integers" : "", a.recall,
               a.worst_excess, a.outside);
        ck_assert_msg(ok, "case %zu: recall %.4f, %ld outside the bound", c, a.recall, a.outside);
        if (cases[c].integers)
            ck_assert_mem_eq(pa_matrix_data(got), pa_matrix_data(want), sizeof(int) * (size_t)(cases[c].nq * cases[c].k));
        /* a wrong answer fails: query 0's nearest replaced by a far row (the farthest of the data) */
        int *g = pa_matrix_data(got), far = 0;
        double fd = -1;
        for (int64_t i = 0; i < cases[c].n; i++) {
            double dd = knn_dist(pa_matrix_data(x), cases[c].n, pa_matrix_data(q), cases[c].nq, 0, i, cases[c].d);
            if (dd > fd) {
                fd = dd;
                far = (int)i;
            }
        }
        g[0] = far;
        ck_assert_int_eq(knn_check_tolerance(x, q, want, got, &a), 0);
        ck_assert_int_eq(a.outside, 1);
        ck_assert_int_eq(a.first_q, 0);
        ck_assert_int_eq(a.first_r, 0);
        ck_assert_int_eq(a.mismatched_q, 0);
        g[0] = -1;   /* not a data row */
        ck_assert_int_eq(knn_check_tolerance(x, q, want, got, &a), 0);
        pa_matrix_destroy(want);
        pa_matrix_destroy(got);
        pa_matrix_destroy(x);
        pa_matrix_destroy(q);
    }
}
END_TEST

/* Recall alone: every query's list rotated to other rows fails by recall even when the rows are near. */
START_TEST(knn_recall_counts)
{
    pa_rng r = {pa_test_seed("matrix tf32 recall")};
    pa_matrix *x = random_host(&r, 500, 4, 0), *q = random_host(&r, 50, 4, 0);
    pa_matrix *want = knn_cpu(x, q, 10), *got = knn_cpu(x, q, 11);
    /* got: the 2nd..11th nearest (9 of the 10 right): recall 0.9 */
    pa_matrix *shifted = NULL;
    PA_CK_OK(pa_matrix_create_in(NULL, PA_MATRIX_INT, 50, 10, &shifted));
    memcpy(pa_matrix_data(shifted), (int *)pa_matrix_data(got) + 50, sizeof(int) * 500);
    knn_agreement a;
    ck_assert_int_eq(knn_check_tolerance(x, q, want, shifted, &a), 0);
    ck_assert_double_eq_tol(a.recall, 0.9, 1e-12);
    pa_matrix_destroy(shifted);
    pa_matrix_destroy(want);
    pa_matrix_destroy(got);
    pa_matrix_destroy(x);
    pa_matrix_destroy(q);
}
END_TEST

START_TEST(kmeans_tolerance_check)
{
    pa_matrix *ref = NULL, *got = NULL;
    PA_CK_OK(pa_matrix_create_in(NULL, PA_MATRIX_DOUBLE, 2, 3, &ref));
    double *R = pa_matrix_data(ref);
    const double v[6] = {1.0, 5.0, 2.0, 6.0, 500.0, 500.0};   /* two centroids of 2 coordinates, sizes 500, 500 */
    memcpy(R, v, sizeof v);
    PA_CK_OK(pa_matrix_copy_to(ref, "paged", &got));
    double *G = pa_matrix_data(got);
    kmeans_agreement a;
    ck_assert_int_eq(kmeans_check_tolerance(ref, got, 1000, 10.0, &a), 1);
    ck_assert(a.moved == 0 && a.worst == 0);
    G[4] = 499;   /* one point moved: within 0.1% of 1000 */
    G[5] = 501;
    ck_assert_int_eq(kmeans_check_tolerance(ref, got, 1000, 10.0, &a), 1);
    ck_assert(a.moved == 1);
    G[4] = 498;   /* two: not */
    G[5] = 502;
    ck_assert_int_eq(kmeans_check_tolerance(ref, got, 1000, 10.0, &a), 0);
    G[4] = 500;
    G[5] = 500;
    G[1] = 5.02;   /* 0.02 apart, over 1e-3 of the range 10 */
    ck_assert_int_eq(kmeans_check_tolerance(ref, got, 1000, 10.0, &a), 0);
    ck_assert_double_eq_tol(a.worst, 0.02, 1e-12);
    G[1] = 5.005;   /* within */
    ck_assert_int_eq(kmeans_check_tolerance(ref, got, 1000, 10.0, &a), 1);
    G[1] = NAN;
    ck_assert_int_eq(kmeans_check_tolerance(ref, got, 1000, 10.0, &a), 0);
    pa_matrix_destroy(ref);
    pa_matrix_destroy(got);
}
END_TEST

START_TEST(precision_choice)
{
    char a0[] = "prog", a1[] = "--tf32", a2[] = "-v";
    char *with[] = {a0, a2, a1}, *without[] = {a0, a2};
    unsetenv("PA_ALLOW_TF32");
    ck_assert_int_eq(mx_precision_from(3, with), MX_TF32);
    ck_assert_int_eq(mx_precision_from(2, without), MX_FP32);
    setenv("PA_ALLOW_TF32", "1", 1);
    ck_assert_int_eq(mx_precision_from(2, without), MX_TF32);
    setenv("PA_ALLOW_TF32", "0", 1);
    ck_assert_int_eq(mx_precision_from(2, without), MX_FP32);
    unsetenv("PA_ALLOW_TF32");
    ck_assert_str_eq(mx_precision_name(MX_FP32), "fp32");
    ck_assert(strstr(mx_precision_name(MX_TF32), "tf32") != NULL);
    /* TF32 keeps 10 mantissa bits: 1 + 2^-10 stays, 1 + 2^-11 goes; integers up to 2048 stay */
    ck_assert(mx_tf32_truncate(1.0f + 0x1p-10f) == 1.0f + 0x1p-10f);
    ck_assert(mx_tf32_truncate(1.0f + 0x1p-11f) == 1.0f);
    ck_assert(mx_tf32_truncate(2047.0f) == 2047.0f && mx_tf32_truncate(-99.0f) == -99.0f);
    ck_assert(mx_tf32_truncate(2049.0f) == 2048.0f);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("matrix_tf32_host");
    TCase *tc = tcase_create("matrix_tf32_host");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, knn_tf32_model_within_tolerance);
    tcase_add_test(tc, knn_recall_counts);
    tcase_add_test(tc, kmeans_tolerance_check);
    tcase_add_test(tc, precision_choice);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
