/*
 * parray tests — the tensor-core gemm on the GPU (skipped, 77, without one): pa_gemm_dmem with TF32 (float
 * operands, compute PA_GEMM_TF32), BF16 and FP16 operands and fp32 accumulators, against a CPU reference in
 * double, for sizes that the tiles divide and sizes they do not (edges in M, N and K), transposed and strided
 * operands (windows of larger arrays, rows of odd strides that defeat the vectors), alpha and beta.  C is
 * poisoned with NaN first, so every element must be written.
 *
 * Tolerances, per element, relative to S = sum over k of |a_ik b_kj|: TF32 reads each float operand with 10
 * mantissa bits (the low 13 ignored), so a product is off by at most about 2^-9 of its size: 3e-3 S.  BF16 and
 * FP16 operands are exact in their element type (the reference uses the rounded values), products are exact in
 * fp32 and only the fp32 accumulation errs: 1e-5 S (k <= 512 here).
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <parray/cuda.h>
#include <parray/float16.h>
#include <parray/gputile.h>
#include "testutil.h"

typedef struct mcase {
    const char *elm;   /* float (TF32), bfloat16, half */
    int m, n, k;
    const char *adecl, *bdecl, *cdecl;   /* dmem declarations of A, B, C over M, N, K */
    double alpha, beta;
} mcase;

static float elm_value(const char *elm, float x)
{
    if (strcmp(elm, "bfloat16") == 0)
        return pa_bf16_to_float(pa_bf16_from_float(x));
    if (strcmp(elm, "half") == 0)
        return pa_half_to_float(pa_half_from_float(x));
    return x;
}

static void put(const char *elm, void *h, int64_t i, float x)
{
    if (strcmp(elm, "bfloat16") == 0)
        ((uint16_t *)h)[i] = pa_bf16_from_float(x);
    else if (strcmp(elm, "half") == 0)
        ((uint16_t *)h)[i] = pa_half_from_float(x);
    else
        ((float *)h)[i] = x;
}

/* The strategy a case must run: PA_GEMM_WGMMA on a GPU of compute capability 9.0 unless PA_GEMM_WGMMA is 0 or the
 * case's layouts are not for it (want_mma), else PA_GEMM_MMA_SYNC. */
static int hopper(void)
{
    int dev = 0, major = 0, minor = 0;
    ck_assert_int_eq(cudaGetDevice(&dev), cudaSuccess);
    ck_assert_int_eq(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), cudaSuccess);
    ck_assert_int_eq(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev), cudaSuccess);
    return major == 9 && minor == 0;
}

static int expected_strategy(int want_mma)
{
    const char *e = getenv("PA_GEMM_WGMMA");
    int off = e != NULL && strcmp(e, "0") == 0;
    return hopper() && !off && !want_mma ? PA_GEMM_WGMMA : PA_GEMM_MMA_SYNC;
}

static void run_case_as(const mcase *t, pa_rng *r, int want_mma);

static void run_case(const mcase *t, pa_rng *r)
{
    run_case_as(t, r, 0);
}

static void run_case_as(const mcase *t, pa_rng *r, int want_mma)
{
    pa_scope *s;
    char d[1536];
    PA_CK_OK(pa_scope_create(NULL, &s));
    snprintf(d, sizeof d, "var M = %d; var N = %d; var K = %d; %s; %s; %s; parray paged %s [M][K] HA;"
                          "parray paged %s [K][N] HB; parray paged float [M][N] HC;",
             t->m, t->n, t->k, t->adecl, t->bdecl, t->cdecl, t->elm, t->elm);
    PA_CK_OK(pa_declare_text(s, d));
    const pa_type *A = pa_type_get(s, "A"), *B = pa_type_get(s, "B"), *C = pa_type_get(s, "C");
    const pa_type *HA = pa_type_get(s, "HA"), *HB = pa_type_get(s, "HB"), *HC = pa_type_get(s, "HC");
    void *ha = pa_create(HA), *hb = pa_create(HB), *a = pa_create(A), *b = pa_create(B), *c = pa_create(C);
    float *hc = pa_create(HC), *hr = pa_create(HC);
    double *ra = malloc(sizeof(double) * (size_t)t->m * t->k), *rb = malloc(sizeof(double) * (size_t)t->k * t->n);
    ck_assert(ha && hb && a && b && c && hc && hr && ra && rb);
    for (int64_t i = 0; i < (int64_t)t->m * t->k; i++) {
        float x = (float)((int64_t)(pa_rng_next(r) % 2001) - 1000) / 997.0f;
        put(t->elm, ha, i, x);
        ra[i] = elm_value(t->elm, x);
    }
    for (int64_t i = 0; i < (int64_t)t->k * t->n; i++) {
        float x = (float)((int64_t)(pa_rng_next(r) % 2001) - 1000) / 1009.0f;
        put(t->elm, hb, i, x);
        rb[i] = elm_value(t->elm, x);
    }
    for (int64_t i = 0; i < (int64_t)t->m * t->n; i++)
        hc[i] = t->beta != 0 ? (float)(i % 13) / 13.0f : NAN;   /* beta 0: C is not read, poison it */
    PA_CK_OK(pa_copy(A, a, HA, ha));
    PA_CK_OK(pa_copy(B, b, HB, hb));
    PA_CK_OK(pa_copy(C, c, HC, hc));
    pa_gemm_config cfg = {0};
    cfg.compute = strcmp(t->elm, "float") == 0 ? PA_GEMM_TF32 : PA_GEMM_FP32;
    pa_gemm_info info;
    memset(&info, 0, sizeof info);
    if (cfg.compute == PA_GEMM_FP32 && t->beta != 0) {   /* 16-bit operands through the waiting call */
        PA_CK_OK(pa_gemm_dmem(C, c, A, a, B, b, t->alpha, t->beta));
        info.strategy = -1;
    } else {
        PA_CK_OK(pa_gemm_dmem_async(C, c, A, a, B, b, t->alpha, t->beta, &cfg, NULL, &info));
        ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
        ck_assert_int_eq(info.config.compute, cfg.compute);
        ck_assert_int_eq(info.local_bytes, 0);   /* no spills */
        ck_assert_msg(info.strategy == expected_strategy(want_mma), "%s %dx%dx%d (%s; %s): strategy %d, want %d",
                      t->elm, t->m, t->n, t->k, t->adecl, t->bdecl, info.strategy, expected_strategy(want_mma));
    }
    PA_CK_OK(pa_copy(HC, hr, C, c));
    double tol = strcmp(t->elm, "float") == 0 ? 3e-3 : 1e-5, worst = 0;
    for (int i = 0; i < t->m; i++)
        for (int j = 0; j < t->n; j++) {
            double want = 0, mag = 0;
            for (int q = 0; q < t->k; q++) {
                double p = ra[(int64_t)i * t->k + q] * rb[(int64_t)q * t->n + j];
                want += p;
                mag += fabs(p);
            }
            int64_t o = (int64_t)i * t->n + j;
            want = t->alpha * want + (t->beta != 0 ? t->beta * (double)hc[o] : 0);   /* beta 0: C not read */
            double err = fabs((double)hr[o] - want), bound = tol * fabs(t->alpha) * mag + 1e-6 * (1 + fabs(want));
            worst = err / (mag + 1e-30) > worst ? err / (mag + 1e-30) : worst;
            ck_assert_msg(isfinite(hr[o]) && err <= bound, "%s %dx%dx%d (%s; %s; %s): C[%d][%d] = %.8g, want %.8g "
                          "(bound %.3g)", t->elm, t->m, t->n, t->k, t->adecl, t->bdecl, t->cdecl, i, j, hr[o], want,
                          bound);
        }
    printf("tiles_mma_gpu: %-8s %4dx%4dx%4d  %-8s worst error / sum|ab| %.2e (tolerance %.0e)  %s | %s\n", t->elm,
           t->m, t->n, t->k, info.strategy == PA_GEMM_WGMMA ? info.copied ? "wgmma+cp" : "wgmma"
                             : info.strategy == PA_GEMM_MMA_SYNC ? "mma.sync" : "(sync)",
           worst, tol, t->adecl, t->bdecl);
    free(ra);
    free(rb);
    PA_CK_OK(pa_destroy(HA, ha));
    PA_CK_OK(pa_destroy(HB, hb));
    PA_CK_OK(pa_destroy(HC, hc));
    PA_CK_OK(pa_destroy(HC, hr));
    PA_CK_OK(pa_destroy(A, a));
    PA_CK_OK(pa_destroy(B, b));
    PA_CK_OK(pa_destroy(C, c));
    pa_scope_destroy(s);
}

START_TEST(tensor_core_gemm_matches_the_cpu)
{
    pa_rng r = {pa_test_seed("tiles mma gpu")};
    static const char *elms[] = {"float", "bfloat16", "half"};
    char a[4][256], b[4][256];
    for (int e = 0; e < 3; e++) {
        const char *x = elms[e];
        snprintf(a[0], 256, "parray dmem %s [M][K] A", x);
        snprintf(b[0], 256, "parray dmem %s [K][N] B", x);
        snprintf(a[1], 256, "parray dmem %s [K][M] AS; parray dmem %s [#AS_1][#AS_0] A", x, x);   /* A transposed */
        snprintf(b[1], 256, "parray dmem %s [N][K] BS; parray dmem %s [#BS_1][#BS_0] B", x, x);   /* B transposed */
        /* windows of wider arrays: rows of odd strides (no vectors), starting inside the array */
        snprintf(a[2], 256, "parray dmem %s [M + 3][K + 5] AW; parray dmem %s [M # disp(2) # AW_0][K # disp(1) # AW_1] A",
                 x, x);
        snprintf(b[2], 256, "parray dmem %s [K][N + 24] BW; parray dmem %s [#BW_0][N # BW_1] B", x, x);
        const mcase cases[] = {
            {x, 256, 256, 128, a[0], b[0], "parray dmem float [M][N] C", 1, 0},       /* whole tiles */
            {x, 300, 200, 77, a[0], b[0], "parray dmem float [M][N] C", 1, 0},        /* edges everywhere */
            {x, 129, 65, 33, a[1], b[1], "parray dmem float [M][N] C", 1, 0},         /* both transposed */
            {x, 200, 136, 96, a[2], b[2], "parray dmem float [M][N] C", 0.5, 2.0},    /* strided, alpha and beta */
            {x, 256, 128, 64, a[0], b[1],                                              /* C transposed */
             "parray dmem float [N][M] CS; parray dmem float [#CS_1][#CS_0] C", -1, 0},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            run_case(&cases[i], &r);
    }
}
END_TEST

/* The Hopper strategy's own cases (each also with PA_GEMM_WGMMA=0 and =kmajor, whose kernels must agree): whole
 * and partial 128 x 256 tiles, a tile larger than the matrix, B transposed and not, A transposed (copied K-major
 * first), rows whose stride is not a multiple of 16 bytes (copied), alpha and beta; and a blocked A, which the
 * strategy refuses (mma.sync runs, silently, and right). */
START_TEST(wgmma_gemm_matches_the_cpu)
{
    pa_rng r = {pa_test_seed("tiles wgmma gpu")};
    static const char *elms[] = {"float", "bfloat16", "half"};
    static const char *modes[] = {NULL, "0", "kmajor"};
    char a[3][256], b[2][256], ab[256];
    for (int e = 0; e < 3; e++) {
        const char *x = elms[e];
        snprintf(a[0], 256, "parray dmem %s [M][K] A", x);
        snprintf(a[1], 256, "parray dmem %s [K][M] AS; parray dmem %s [#AS_1][#AS_0] A", x, x);
        snprintf(a[2], 256, "parray dmem %s [M][K + 3] AW; parray dmem %s [#AW_0][K # AW_1] A", x, x);
        snprintf(b[0], 256, "parray dmem %s [K][N] B", x);
        snprintf(b[1], 256, "parray dmem %s [N][K] BS; parray dmem %s [#BS_1][#BS_0] B", x, x);
        snprintf(ab, 256, "parray dmem %s [[M/2][2]][K] AB; parray dmem %s [[#AB_0_1][#AB_0_0]][#AB_1] A", x, x);
        const char *c = "parray dmem float [M][N] C";
        const mcase cases[] = {
            {x, 128, 256, 64, a[0], b[0], c, 1, 0},       /* one tile, one k-tile (16-bit) or two (TF32) */
            {x, 128, 256, 64, a[0], b[1], c, 1, 0},
            {x, 512, 512, 512, a[0], b[0], c, 1, 0},      /* several tiles, more k-tiles than stages */
            {x, 512, 512, 512, a[0], b[1], c, 0.5, 1.5},
            {x, 333, 290, 200, a[0], b[0], c, 1, 0},      /* edges in M, N and K */
            {x, 333, 290, 200, a[1], b[1], c, -1, 0},
            {x, 40, 24, 8, a[0], b[0], c, 1, 0},          /* a tile larger than the matrix */
            {x, 200, 300, 61, a[2], b[1], c, 2, 0},       /* rows not 16 bytes apart: copied */
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            for (int md = 0; md < 3; md++) {
                if (modes[md])
                    setenv("PA_GEMM_WGMMA", modes[md], 1);
                else
                    unsetenv("PA_GEMM_WGMMA");
                run_case(&cases[i], &r);
            }
        unsetenv("PA_GEMM_WGMMA");
        const mcase blocked = {x, 128, 64, 64, ab, b[0], c, 1, 0};
        run_case_as(&blocked, &r, 1);
    }
}
END_TEST

/* Refusals that need the run-time path: a bfloat16 C, a compute mode for 16-bit operands that does not exist, a
 * shape whose shared tiles exceed what a block may have (the GPU's opt-in limit, named, and C left as it was). */
START_TEST(tensor_core_gemm_refusals)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "parray dmem bfloat16 [64][64] A; parray dmem bfloat16 [64][64] C;"
                                "parray dmem double [64][64] D;"));
    void *a = pa_create(pa_type_get(s, "A")), *c = pa_create(pa_type_get(s, "C")), *dd = pa_create(pa_type_get(s, "D"));
    ck_assert(a && c && dd);
    PA_CK_ERR(pa_gemm_dmem(pa_type_get(s, "C"), c, pa_type_get(s, "A"), a, pa_type_get(s, "A"), a, 1, 0), PA_ERR_ELM);
    pa_gemm_config cfg = {0};
    cfg.compute = PA_GEMM_TF32;
    PA_CK_ERR(pa_gemm_dmem_async(pa_type_get(s, "D"), dd, pa_type_get(s, "D"), dd, pa_type_get(s, "D"), dd, 1, 0, &cfg,
                                 NULL, NULL), PA_ERR_ELM);
    PA_CK_OK(pa_declare_text(s, "parray dmem float [256][256] F;"));
    const pa_type *F = pa_type_get(s, "F");
    float *f = pa_create(F), *fa = pa_create(F), *fb = pa_create(F), poison;
    ck_assert(f && fa && fb);
    ck_assert_int_eq(cudaMemset(fa, 0, 256 * 256 * sizeof(float)), cudaSuccess);
    ck_assert_int_eq(cudaMemset(fb, 0, 256 * 256 * sizeof(float)), cudaSuccess);
    memset(&poison, 0xff, sizeof poison);
    ck_assert_int_eq(cudaMemset(f, 0xff, 256 * 256 * sizeof(float)), cudaSuccess);
    /* each shared tile fits a block alone (A 96 KiB, B 192 KiB), the two together do not */
    pa_gemm_config big = {128, 256, 64, 64, 64, 256, 0, 1, 3, PA_GEMM_TF32};
    PA_CK_ERR(pa_gemm_dmem_async(F, f, F, fa, F, fb, 1, 0, &big, NULL, NULL), PA_ERR_PARAM);
    ck_assert_msg(strstr(pa_last_error(), "shared memory") && strstr(pa_last_error(), "allows"), "%s", pa_last_error());
    float back;
    ck_assert_int_eq(cudaMemcpy(&back, f, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_mem_eq(&back, &poison, sizeof back);
    PA_CK_OK(pa_destroy(F, f));
    PA_CK_OK(pa_destroy(F, fa));
    PA_CK_OK(pa_destroy(F, fb));
    PA_CK_OK(pa_destroy(pa_type_get(s, "A"), a));
    PA_CK_OK(pa_destroy(pa_type_get(s, "C"), c));
    PA_CK_OK(pa_destroy(pa_type_get(s, "D"), dd));
    pa_scope_destroy(s);
}
END_TEST

/* No argument: the gemm cases of every strategy's default (on a Hopper GPU, wgmma) and the refusals; "wgmma": the
 * Hopper strategy's own cases (a suite of their own, tiles_wgmma_gpu: they compile many kernels). */
int main(int argc, char **argv)
{
    int wgmma = argc > 1 && strcmp(argv[1], "wgmma") == 0;
    if (pa_test_skip_without_gpu(wgmma ? "tiles_wgmma_gpu" : "tiles_mma_gpu"))
        return 77;
    Suite *s = suite_create(wgmma ? "tiles_wgmma_gpu" : "tiles_mma_gpu");
    TCase *tc = tcase_create("gpu");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 900);
    if (wgmma) {
        tcase_add_test(tc, wgmma_gemm_matches_the_cpu);
    } else {
        tcase_add_test(tc, tensor_core_gemm_matches_the_cpu);
        tcase_add_test(tc, tensor_core_gemm_refusals);
    }
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
