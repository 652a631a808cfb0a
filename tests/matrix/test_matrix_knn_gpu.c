/* parray tests — the matrix examples' tensor-core paths on the GPU (examples/matrix_knn_tc.h, matrix_kmeans_tc.h):
 * k-NN with TF32 against the CPU's fp32 search by the header's tolerance (recall >= 0.99, every neighbour within
 * the bound of the k-th distance) on data that TF32 does not hold exactly, in batches of queries and whole;
 * bit for bit on integer data (exact in TF32); the refusals; k-means' TF32 step against the CPU's step from the
 * same centroids, every iteration (bit for bit: the near ties are rechecked in fp64).  Exits 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"
#include <parray/matrix.h>

#include "../../examples/matrix_kmeans_tc.h"
#include "../../examples/matrix_knn_tc.h"

/* A host float matrix of rows x d: uniform in [lo, lo + 100) with full mantissas, or integers 0..99. */
static pa_matrix *random_host(pa_rng *r, int64_t rows, int d, double lo, int integers)
{
    pa_matrix *m = NULL;
    PA_CK_OK(pa_matrix_create_in(NULL, PA_MATRIX_FLOAT, rows, d, &m));
    float *v = pa_matrix_data(m);
    for (int64_t e = 0; e < rows * d; e++)
        v[e] = integers ? (float)(pa_rng_next(r) % 100)
                        : (float)(lo + 100.0 * (double)(pa_rng_next(r) >> 11) / 9007199254740992.0);
    return m;
}

static pa_matrix *to_dmem(const pa_matrix *m)
{
    pa_matrix *d = NULL;
    PA_CK_OK(pa_matrix_copy_to(m, "dmem", &d));
    return d;
}

/* One TF32 search of n points and nq queries of d coordinates, k neighbours, batches of at most qb queries. */
static void knn_case(pa_rng *r, int64_t n, int64_t nq, int d, int k, int64_t qb, int integers)
{
    pa_matrix *hx = random_host(r, n, d, -50, integers), *hq = random_host(r, nq, d, -50, integers);
    pa_matrix *x = to_dmem(hx), *q = to_dmem(hq), *want = knn_cpu(hx, hq, k), *got = NULL;
    knn_search s;
    mx_precision used = MX_FP32;
    ck_assert_ptr_nonnull(want);
    PA_CK_OK(knn_search_init(&s, d, k, 16));
    s.score_bytes = (size_t)qb * (size_t)n * 4;
    PA_CK_OK(knn_search_run(&s, x, q, MX_TF32, &got, &used));
    ck_assert_int_eq(used, MX_TF32);
    ck_assert_int_eq(s.qb, qb < nq ? qb : nq);   /* the batches asked for */
    ck_assert_int_eq(pa_matrix_nrows(got), nq);
    ck_assert_int_eq(pa_matrix_ncols(got), k);
    knn_agreement a;
    int ok = knn_check_tolerance(hx, hq, want, got, &a);
    printf("matrix_knn_gpu: tf32 %lld x %d, %lld queries (batches of %lld), k %d%s: recall %.4f, worst excess "
           "%.2e of d_k, %ld outside the bound, first differing query %ld\n", (long long)n, d, (long long)nq,
           (long long)s.qb, k, integers ? ", integers" : "", a.recall, a.worst_excess, a.outside, a.mismatched_q);
    ck_assert_msg(ok, "recall %.4f (>= 0.99), %ld neighbours outside the bound (first: query %ld rank %ld)", a.recall,
                  a.outside, a.first_q, a.first_r);
    if (integers)   /* exact in TF32: the CPU's answer bit for bit */
        ck_assert_mem_eq(pa_matrix_data(got), pa_matrix_data(want), sizeof(int) * (size_t)(nq * k));
    /* a second call of the same sizes reuses the buffers and answers the same */
    pa_matrix *again = NULL;
    PA_CK_OK(knn_search_run(&s, x, q, MX_TF32, &again, &used));
    ck_assert_mem_eq(pa_matrix_data(again), pa_matrix_data(got), sizeof(int) * (size_t)(nq * k));
    pa_matrix_destroy(again);
    /* the fp32 path says so */
    pa_matrix_destroy(got);
    got = NULL;
    PA_CK_OK(knn_search_run(&s, x, q, MX_FP32, &got, &used));
    ck_assert_int_eq(used, MX_FP32);
    if (integers)
        ck_assert_mem_eq(pa_matrix_data(got), pa_matrix_data(want), sizeof(int) * (size_t)(nq * k));
    knn_search_free(&s);
    pa_matrix_destroy(got);
    pa_matrix_destroy(want);
    pa_matrix_destroy(x);
    pa_matrix_destroy(q);
    pa_matrix_destroy(hx);
    pa_matrix_destroy(hq);
}

START_TEST(knn_tf32_within_tolerance)
{
    pa_rng r = {pa_test_seed("matrix knn tf32")};
    knn_case(&r, 20000, 300, 16, 8, 300, 0);    /* one batch */
    knn_case(&r, 20000, 300, 16, 8, 128, 0);    /* batches of 128, the last of 44 */
    knn_case(&r, 16384, 257, 32, 32, 100, 0);   /* k 32, d 32 */
    knn_case(&r, 20000, 300, 16, 8, 128, 1);    /* integers: exact */
}
END_TEST

START_TEST(knn_tf32_refusals)
{
    pa_rng r = {pa_test_seed("matrix knn tf32 refusals")};
    pa_matrix *hx = random_host(&r, 100, 16, 0, 1), *hq = random_host(&r, 10, 8, 0, 1), *got = NULL;
    pa_matrix *x = to_dmem(hx), *q = to_dmem(hq);
    knn_search s;
    mx_precision used;
    PA_CK_OK(knn_search_init(&s, 16, 8, 16));
    ck_assert_int_eq(knn_search_run(&s, hx, hx, MX_TF32, &got, &used), PA_ERR_MTT);   /* host matrices */
    ck_assert_ptr_null(got);
    ck_assert_int_eq(knn_search_run(&s, x, q, MX_TF32, &got, &used), PA_ERR_INVAL);   /* 8 wide, not 16 */
    ck_assert_ptr_null(got);
    knn_shape big = {16, 33, 16};
    pa_kernel *k = NULL;
    ck_assert_int_eq(knn_select_register(&big, &k), PA_ERR_RANGE);   /* k over 32 */
    ck_assert_ptr_null(k);
    knn_search_free(&s);
    pa_matrix_destroy(x);
    pa_matrix_destroy(q);
    pa_matrix_destroy(hx);
    pa_matrix_destroy(hq);
}
END_TEST

/* k-means on blobs like matrix_kmeans.c's: every TF32 step against the CPU's from the same centroids. */
START_TEST(kmeans_tf32_within_tolerance)
{
    enum { N = 30000, DIM = 8, K = 5 };
    pa_rng r = {pa_test_seed("matrix kmeans tf32")};
    pa_matrix *hx = NULL, *cent = NULL;
    PA_CK_OK(pa_matrix_create_in(NULL, PA_MATRIX_FLOAT, N, DIM, &hx));
    PA_CK_OK(pa_matrix_create_in(NULL, PA_MATRIX_DOUBLE, K, DIM, &cent));
    float *v = pa_matrix_data(hx);
    double lo = 0, hi = 0;
    for (int i = 0; i < N; i++) {
        int blob = (int)(pa_rng_next(&r) % K);
        for (int j = 0; j < DIM; j++) {
            v[(int64_t)j * N + i] = (float)(blob * 100 + (j % 3) * 40 * blob - 300 + (int)(pa_rng_next(&r) % 81) - 40);
            lo = v[(int64_t)j * N + i] < lo ? v[(int64_t)j * N + i] : lo;
            hi = v[(int64_t)j * N + i] > hi ? v[(int64_t)j * N + i] : hi;
        }
    }
    for (int c = 0; c < K; c++)
        for (int j = 0; j < DIM; j++)
            ((double *)pa_matrix_data(cent))[j * K + c] = v[(int64_t)j * N + c];
    pa_matrix *x = to_dmem(hx);
    kmeans_tc t;
    PA_CK_OK(kmeans_tc_init(&t));
    for (int it = 0; it < 8; it++) {
        pa_matrix *want = kmeans_cpu(hx, cent), *got = NULL;
        PA_CK_OK(kmeans_tc_step(&t, x, cent, &got));
        kmeans_agreement a;
        int ok = kmeans_check_tolerance(want, got, N, hi - lo, &a);
        printf("matrix_knn_gpu: k-means tf32 iteration %d: %.1f points moved, centroids %.3g apart\n", it, a.moved,
               a.worst);
        ck_assert_msg(ok, "iteration %d: %.1f points moved (at most %.1f), centroids %.3g apart (at most %.3g)", it,
                      a.moved, 0.001 * N, a.worst, 1e-3 * (hi - lo));
        /* the near ties are rechecked in fp64: the fp64 step's assignments, so its centroids bit for bit */
        ck_assert_mem_eq(got, want, pa_matrix_rawsize(PA_MATRIX_DOUBLE, K, DIM + 1));
        pa_matrix_destroy(want);
        pa_matrix_destroy(cent);
        cent = got;
    }
    kmeans_tc_free(&t);
    pa_matrix_destroy(cent);
    pa_matrix_destroy(x);
    pa_matrix_destroy(hx);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("matrix_knn_gpu"))
        return 77;
    Suite *su = suite_create("matrix_knn_gpu");
    TCase *tc = tcase_create("matrix_knn_gpu");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, knn_tf32_within_tolerance);
    tcase_add_test(tc, knn_tf32_refusals);
    tcase_add_test(tc, kmeans_tf32_within_tolerance);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
