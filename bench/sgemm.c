/*
 * bench/sgemm — target P7: the manual's sgemm (section 7.1), written with the library's tile types
 * (pa_gemm_dmem, gputile.h), against cuBLAS SGEMM in the same run, on the same buffers, timed by CUDA events
 * (median of many).  cuBLAS is linked here only.
 *
 *     sgemm [n ...]            the P7 table at each n (default 4096 8192)
 *     PA_SGEMM_CONFIGS="bm,bn,bk,tm,tn,threads[,lanes_n,min_blocks,stages];..."   kernel shapes to sweep
 *                              (rows "sweep"; the table uses the library's default shape)
 *     PA_SGEMM_MMA_CONFIGS="..."  the same for the tensor-core rows (lanes_n unused), after each precision's row
 *
 * The tensor-core rows (TF32, BF16, FP16 against cublasGemmEx of the same precision) run the default strategy
 * (on an H100/H200 the wgmma kernel; the row names it, "+copy" when an operand was first copied K-major), then the
 * same gemm with PA_GEMM_WGMMA=0 (the mma.sync kernel, indented, no target) for comparison; the target is 0.70.
 *
 * Each row also prints the generated kernel's registers per thread, static shared memory per block and resident
 * blocks per multiprocessor, and whether each operand took the fast tile path.  Results are checked against
 * cuBLAS's (relative to the sum of |a||b| of each output).  The ratio is of the medians; "best" is the ratio of
 * the fastest runs of each.  Rows for a transposed and a blocked A show the
 * manual's point: the same kernel source, another layout in the type.
 */
#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "gpu_bench.h"
#include <parray/float16.h>
#include <parray/gputile.h>

#define CB(x)                                                                                            \
    do {                                                                                                 \
        cublasStatus_t s_ = (x);                                                                         \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                               \
            fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, (int)s_);           \
            exit(1);                                                                                     \
        }                                                                                                \
    } while (0)

static cudaEvent_t ev0, ev1;

static int cmp(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

typedef struct run {
    const pa_type *A, *B, *C;
    float *a, *b, *c;
    int n;
} run;

static float best_ms;   /* the fastest of time_it's last runs */

/* Median milliseconds of reps calls of ours (config) or cuBLAS (config NULL, handle h); the fastest in best_ms. */
static float time_it(const run *r, const pa_gemm_config *cfg, cublasHandle_t h, int reps, pa_gemm_info *info)
{
    float ms[64], one = 1.0f, zero = 0.0f;
    for (int i = -2; i < reps; i++) {
        CK(cudaEventRecord(ev0, NULL));
        if (h)
            CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, r->n, r->n, r->n, &one, r->b, r->n, r->a, r->n, &zero, r->c,
                           r->n));
        else
            PK(pa_gemm_dmem_async(r->C, r->c, r->A, r->a, r->B, r->b, 1.0, 0.0, cfg, NULL, info));
        CK(cudaEventRecord(ev1, NULL));
        CK(cudaEventSynchronize(ev1));
        if (i >= 0)
            CK(cudaEventElapsedTime(&ms[i], ev0, ev1));
    }
    qsort(ms, (size_t)reps, sizeof ms[0], cmp);
    best_ms = ms[0];
    return ms[reps / 2];
}

/* Largest error of c against ref relative to n * max|a| * max|b| (inputs in [0, 1)). */
static double check(const float *c, const float *ref, size_t count, int n)
{
    double worst = 0;
    for (size_t i = 0; i < count; i++) {
        double e = fabs((double)c[i] - (double)ref[i]) / n;
        worst = e > worst ? e : worst;
    }
    return worst;
}

static float *fetch(const float *d, size_t count)
{
    float *h = malloc(count * sizeof *h);
    if (h == NULL)
        exit(1);
    CK(cudaMemcpy(h, d, count * sizeof *h, cudaMemcpyDeviceToHost));
    return h;
}

static float cub_best;   /* cuBLAS's fastest run at this size */

static void row(const char *what, int n, float ms, float anchor_ms, const pa_gemm_info *info, double err,
                double target)
{
    double tf = 2.0 * n * (double)n * n / (ms * 1e-3) / 1e12, atf = 2.0 * n * (double)n * n / (anchor_ms * 1e-3) / 1e12;
    double ratio = tf / atf;
    printf("%-28s %5d %8.1f %8.1f %6.3f %6.3f %6s %-4s", what, n, tf, atf, ratio, cub_best / best_ms,
           target > 0 ? "0.80" : "-", target <= 0 ? "-" : ratio >= target ? "pass" : "FAIL");
    if (info)
        printf("  %3d regs %6d B smem %d blk/SM  %dx%dx%d %dx%d/%d lanes %d min %d stages %d fast %d%d%d",
               info->registers, info->smem_bytes, info->blocks_per_sm, info->config.bm, info->config.bn,
               info->config.bk, info->config.tm, info->config.tn, info->config.threads, info->config.lanes_n,
               info->config.min_blocks, info->config.stages, info->fast_a, info->fast_b, info->fast_c);
    printf("  err %.1e%s\n", err, err > 1e-5 ? " WRONG" : "");
}

static int parse_configs(const char *var, pa_gemm_config *out, int max)
{
    const char *env = getenv(var);
    int n = 0;
    while (env && *env && n < max) {
        pa_gemm_config c;
        c.lanes_n = c.min_blocks = c.stages = 0;
        if (sscanf(env, "%d,%d,%d,%d,%d,%d,%d,%d,%d", &c.bm, &c.bn, &c.bk, &c.tm, &c.tn, &c.threads, &c.lanes_n,
                   &c.min_blocks, &c.stages) < 6)
            break;
        out[n++] = c;
        env = strchr(env, ';');
        env = env ? env + 1 : NULL;
    }
    return n;
}

/* One row of a rectangular gemm: precision p (0 TF32, 1 BF16, 2 FP16 on the tensor cores; 3 fp32, P7's
 * m = 8192, n = 1024, k = 4096 row), C[m][n] = A[m][k] B[k][n] (B stored [n][k] when bt), ours against
 * cublasGemmEx with the same operand types and compute type, on the same buffers; 1 when it fails its target
 * (0.70 of cuBLAS on the tensor cores, 0.88 in fp32) or its check. */
static int tc_row(cublasHandle_t h, int p, int m, int n, int k, int bt)
{
    static const char *elm[4] = {"float", "bfloat16", "half", "float"}, *label[4] = {"TF32", "BF16", "FP16", "fp32"};
    static const cudaDataType dt[4] = {CUDA_R_32F, CUDA_R_16BF, CUDA_R_16F, CUDA_R_32F};
    static const cublasComputeType_t ct[4] = {CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F,
                                              CUBLAS_COMPUTE_32F};
    int half = p == 1 || p == 2, whos = p == 3 ? 2 : 3;   /* fp32 has no mma.sync form to compare */
    double target = p == 3 ? 0.88 : 0.70;
    size_t esz = half ? 2 : 4, na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    pa_scope *s;
    char d[512];
    PK(pa_scope_create(NULL, &s));
    snprintf(d, sizeof d, "parray dmem %s [%d][%d] A; parray dmem %s [%d][%d] BS; parray dmem %s [%d][%d] B;"
             "parray dmem %s [#BS_1][#BS_0] BT; parray dmem float [%d][%d] C;", elm[p], m, k, elm[p], n, k, elm[p], k,
             n, elm[p], m, n);
    PK(pa_declare_text(s, d));
    const pa_type *A = pa_type_get(s, "A"), *B = pa_type_get(s, bt ? "BT" : "B"), *C = pa_type_get(s, "C");
    void *a = pa_create(A), *b = pa_create(B), *hbuf = malloc((na > nb ? na : nb) * esz);
    float *c = pa_create(C), *ref = malloc(nc * 4), *got = malloc(nc * 4);
    if (!a || !b || !c || !hbuf || !ref || !got) {
        fprintf(stderr, "sgemm: %s\n", pa_last_error());
        exit(1);
    }
    for (int w = 0; w < 2; w++) {   /* random values in [0, 1), in the element type */
        size_t cnt = w ? nb : na;
        for (size_t i = 0; i < cnt; i++) {
            float x = (float)rand() / (float)RAND_MAX;
            if (!half)
                ((float *)hbuf)[i] = x;
            else
                ((uint16_t *)hbuf)[i] = p == 1 ? pa_bf16_from_float(x) : pa_half_from_float(x);
        }
        CK(cudaMemcpy(w ? b : a, hbuf, cnt * esz, cudaMemcpyHostToDevice));
    }
    float one = 1.0f, zero = 0.0f, ms[64];
    int reps = (double)m * n * k >= 5e11 ? 9 : 15;
    float med[3] = {0}, best[3] = {0};
    double err = 0, err_mma = 0;
    pa_gemm_config cfg = {0};
    cfg.compute = p == 0 ? PA_GEMM_TF32 : PA_GEMM_FP32;   /* half operands: the tensor cores whatever compute says */
    pa_gemm_info info, info_mma;
    const char *env = getenv("PA_GEMM_WGMMA");
    char saved[64];
    snprintf(saved, sizeof saved, "%s", env ? env : "");
    for (int who = 0; who < whos; who++) {   /* 0: cuBLAS, 1: ours (the default strategy), 2: ours with mma.sync */
        if (who == 2)
            setenv("PA_GEMM_WGMMA", "0", 1);
        CK(cudaMemset(c, 0xff, nc * 4));
        for (int i = -2; i < reps; i++) {
            CK(cudaEventRecord(ev0, NULL));
            if (who == 0)   /* row-major C = A B is column-major C^T = B^T A^T */
                CB(cublasGemmEx(h, bt ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, dt[p], bt ? k : n, a,
                                dt[p], k, &zero, c, CUDA_R_32F, n, ct[p], CUBLAS_GEMM_DEFAULT));
            else
                PK(pa_gemm_dmem_async(C, c, A, a, B, b, 1.0, 0.0, &cfg, NULL, who == 1 ? &info : &info_mma));
            CK(cudaEventRecord(ev1, NULL));
            CK(cudaEventSynchronize(ev1));
            if (i >= 0)
                CK(cudaEventElapsedTime(&ms[i], ev0, ev1));
        }
        qsort(ms, (size_t)reps, sizeof ms[0], cmp);
        med[who] = ms[reps / 2];
        best[who] = ms[0];
        CK(cudaMemcpy(who ? got : ref, c, nc * 4, cudaMemcpyDeviceToHost));
        if (who == 1)   /* checked now: got is reused for the mma.sync row */
            err = check(got, ref, nc, k);
        else if (who == 2)
            err_mma = check(got, ref, nc, k);
    }
    if (saved[0])
        setenv("PA_GEMM_WGMMA", saved, 1);
    else
        unsetenv("PA_GEMM_WGMMA");
    double tol = p == 0 ? 2e-3 : 1e-5;
    pa_gemm_config sweep[32];
    for (int i = 0, nsweep = p == 3 ? 0 : parse_configs("PA_SGEMM_MMA_CONFIGS", sweep, 32); i < nsweep; i++) {
        /* other kernel shapes of the same precision: median time, ratio to cuBLAS's median, checked */
        pa_gemm_config sc = sweep[i];
        pa_gemm_info si;
        sc.compute = cfg.compute;
        CK(cudaMemset(c, 0xff, nc * 4));
        int ok = 1;
        for (int r = -2; r < reps && ok; r++) {
            CK(cudaEventRecord(ev0, NULL));
            ok = pa_gemm_dmem_async(C, c, A, a, B, b, 1.0, 0.0, &sc, NULL, &si) == PA_OK;
            CK(cudaEventRecord(ev1, NULL));
            CK(cudaEventSynchronize(ev1));
            if (r >= 0)
                CK(cudaEventElapsedTime(&ms[r], ev0, ev1));
        }
        if (!ok) {
            printf("  sweep %s %dx%dx%d warp %dx%d stages %d: %s\n", label[p], sc.bm, sc.bn, sc.bk, sc.tm, sc.tn,
                   sc.stages, pa_last_error());
            continue;
        }
        qsort(ms, (size_t)reps, sizeof ms[0], cmp);
        CK(cudaMemcpy(got, c, nc * 4, cudaMemcpyDeviceToHost));
        double e = check(got, ref, nc, k), t = 2.0 * m * (double)n * k / (ms[reps / 2] * 1e-3) / 1e12;
        printf("  sweep %-4s %5d %5d %5d %8.1f ratio %6.3f  %3d regs %6d B smem %d blk/SM  %dx%dx%d warp %dx%d "
               "stages %d min %d  err %.1e%s\n", label[p], m, n, k, t, med[0] / ms[reps / 2], si.registers,
               si.smem_bytes, si.blocks_per_sm, sc.bm, sc.bn, sc.bk, sc.tm, sc.tn, sc.stages, sc.min_blocks, e,
               e > tol ? " WRONG" : "");
    }
    double flop = 2.0 * m * (double)n * k, tf = flop / (med[1] * 1e-3) / 1e12, atf = flop / (med[0] * 1e-3) / 1e12;
    double ratio = tf / atf;
    char what[64];
    static const char *strat[3] = {"simt", "mma.sync", "wgmma"};
    const char *sn = info.strategy >= 0 && info.strategy <= 2 ? strat[info.strategy] : "?";
    snprintf(what, sizeof what, "%s%s %s%s", label[p], bt ? " Bt" : "", sn, info.copied ? "+copy" : "");
    printf("%-28s %5d %5d %5d %8.1f %8.1f %6.3f %6.3f %6s %-4s  %3d regs %6d B smem %d blk/SM  %dx%dx%d warp %dx%d "
           "stages %d  err %.1e%s\n", what, m, n, k, tf, atf, ratio, best[0] / best[1], p == 3 ? "0.88" : "0.70",
           ratio >= target ? "pass" : "FAIL", info.registers, info.smem_bytes, info.blocks_per_sm, info.config.bm,
           info.config.bn, info.config.bk, info.config.tm, info.config.tn, info.config.stages, err,
           err > tol ? " WRONG" : "");
    /* the same gemm with PA_GEMM_WGMMA=0 (mma.sync), for comparison only: no target */
    double tfm = whos < 3 ? 0 : flop / (med[2] * 1e-3) / 1e12;
    snprintf(what, sizeof what, "  %s%s mma.sync", label[p], bt ? " Bt" : "");
    if (whos == 3)
        printf("%-28s %5d %5d %5d %8.1f %8.1f %6.3f %6.3f %6s %-4s  %3d regs %6d B smem %d blk/SM  %dx%dx%d warp %dx%d "
           "stages %d  err %.1e%s\n", what, m, n, k, tfm, atf, tfm / atf, best[0] / best[2], "-", "-",
           info_mma.registers, info_mma.smem_bytes, info_mma.blocks_per_sm, info_mma.config.bm, info_mma.config.bn,
           info_mma.config.bk, info_mma.config.tm, info_mma.config.tn, info_mma.config.stages, err_mma,
           err_mma > tol ? " WRONG" : "");
    PK(pa_destroy(A, a));
    PK(pa_destroy(B, b));
    PK(pa_destroy(C, c));
    free(hbuf);
    free(ref);
    free(got);
    pa_scope_destroy(s);
    return ratio < target || err > tol || err_mma > tol;
}

int main(int argc, char **argv)
{
    int sizes[8] = {4096, 8192}, nsizes = 2, fails = 0;
    if (argc > 1)
        for (nsizes = 0; nsizes < argc - 1 && nsizes < 8; nsizes++)
            sizes[nsizes] = atoi(argv[nsizes + 1]);
    int st = gpu_bench_start("sgemm", 15, &ev0, &ev1);
    if (st)
        return st;
    cublasHandle_t h;
    CB(cublasCreate(&h));
    pa_gemm_config sweep[32];
    int nsweep = parse_configs("PA_SGEMM_CONFIGS", sweep, 32);
    printf("%-28s %5s %8s %8s %6s %6s %6s %-4s\n", "case", "n", "TFLOP/s", "cuBLAS", "ratio", "best", "target", "");
    for (int si = 0; si < nsizes; si++) {
        int n = sizes[si], reps = n >= 8192 ? 9 : 15;
        size_t count = (size_t)n * n;
        pa_scope *s;
        char d[1024];
        PK(pa_scope_create(NULL, &s));
        snprintf(d, sizeof d, "parray dmem float [%d][%d] A; parray dmem float [%d][%d] B; parray dmem float [%d][%d] C;"
                 "parray dmem float [#A_1][#A_0] AT; parray dmem float [%d][%d][16][16] BL;"
                 "parray dmem float [[#BL_0][#BL_2]][[#BL_1][#BL_3]] AB; parray paged float [%d][%d] H;",
                 n, n, n, n, n, n, n / 16, n / 16, n, n);
        PK(pa_declare_text(s, d));
        run r = {pa_type_get(s, "A"), pa_type_get(s, "B"), pa_type_get(s, "C"), NULL, NULL, NULL, n};
        r.a = pa_create(r.A);
        r.b = pa_create(r.B);
        r.c = pa_create(r.C);
        float *ref_d = pa_create(r.C), *host = pa_create(pa_type_get(s, "H"));
        if (!r.a || !r.b || !r.c || !ref_d || !host) {
            fprintf(stderr, "sgemm: %s\n", pa_last_error());
            return 1;
        }
        srand(7);
        for (size_t i = 0; i < count; i++)
            host[i] = (float)rand() / (float)RAND_MAX;
        CK(cudaMemcpy(r.a, host, count * 4, cudaMemcpyHostToDevice));
        for (size_t i = 0; i < count; i++)
            host[i] = (float)rand() / (float)RAND_MAX;
        CK(cudaMemcpy(r.b, host, count * 4, cudaMemcpyHostToDevice));
        CB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
        float cub = time_it(&r, NULL, h, reps, NULL);
        cub_best = best_ms;
        CK(cudaMemcpy(ref_d, r.c, count * 4, cudaMemcpyDeviceToDevice));
        float *ref = fetch(ref_d, count);
        pa_gemm_info info;
        CK(cudaMemset(r.c, 0xff, count * 4));
        float ours = time_it(&r, NULL, NULL, reps, &info);
        float *got = fetch(r.c, count);
        double err = check(got, ref, count, n);
        free(got);
        row("sgemm fp32 (P7)", n, ours, cub, &info, err, 0.80);
        fails += 2.0 * n * (double)n * n / ours < 0.80 * 2.0 * n * (double)n * n / cub || err > 1e-5;
        for (int i = 0; i < nsweep; i++) {
            CK(cudaMemset(r.c, 0xff, count * 4));
            float ms = time_it(&r, &sweep[i], NULL, reps, &info);
            got = fetch(r.c, count);
            err = check(got, ref, count, n);
            free(got);
            row("  sweep", n, ms, cub, &info, err, 0);
        }
        /* the same kernel text, another layout of A in its type: a transposed copy, and 16x16 blocks */
        const char *alts[2][2] = {{"AT", "A transposed in memory"}, {"AB", "A in 16x16 blocks"}};
        for (int i = 0; i < 2; i++) {
            const pa_type *X = pa_type_get(s, alts[i][0]);
            float *x = pa_create(X);
            if (x == NULL) {
                fprintf(stderr, "sgemm: %s\n", pa_last_error());
                return 1;
            }
            PK(pa_copy(X, x, r.A, r.a));   /* the same matrix, stored another way */
            run r2 = r;
            r2.A = X;
            r2.a = x;
            CK(cudaMemset(r.c, 0xff, count * 4));
            float ms = time_it(&r2, NULL, NULL, reps, &info);
            got = fetch(r.c, count);
            err = check(got, ref, count, n);
            free(got);
            row(alts[i][1], n, ms, cub, &info, err, 0);
            fails += err > 1e-5;
            PK(pa_destroy(X, x));
        }
        free(ref);
        PK(pa_destroy(r.A, r.a));
        PK(pa_destroy(r.B, r.b));
        PK(pa_destroy(r.C, r.c));
        PK(pa_destroy(r.C, ref_d));
        PK(pa_destroy(pa_type_get(s, "H"), host));
        pa_scope_destroy(s);
    }
    /* the tensor cores: TF32, BF16, FP16 against cuBLAS of the same precision (fp32 accumulators and C), square
     * at each n, and m = 8192, n = 1024, k = 4096 with B stored transposed ([N][K]); then that shape in fp32 */
    printf("\n%-28s %5s %5s %5s %8s %8s %6s %6s %6s %-4s\n", "tensor cores", "m", "n", "k", "TFLOP/s", "cuBLAS",
           "ratio", "best", "target", "");
    for (int p = 0; p < 3; p++)
        for (int si = 0; si <= nsizes; si++) {
            int m = si < nsizes ? sizes[si] : 8192, n = si < nsizes ? sizes[si] : 1024, k = si < nsizes ? sizes[si] : 4096;
            fails += tc_row(h, p, m, n, k, si == nsizes);
        }
    fails += tc_row(h, 3, 8192, 1024, 4096, 1);
    cublasDestroy(h);
    printf("\nP7: %s\n", fails ? "FAIL" : "pass");
    return fails ? 1 : 0;
}
