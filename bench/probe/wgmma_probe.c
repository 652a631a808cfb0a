/*
 * bench/probe/wgmma_probe — the first run of pa_gemm_dmem's Hopper strategy (src/tiles/gemm_wgmma.c), made to be
 * read: for TF32, BF16 and FP16 and each way B reaches the kernel (row-major B: the transpose bit for 16 bits, from
 * registers for TF32; B transposed: K-major; PA_GEMM_WGMMA=kmajor: copied K-major first), from one tile up.
 *
 *     wgmma_probe [quick]      (quick: the selector and small cases only, no timing)
 *
 * 1. Selector gemms, 128 x 256 x 64 (one block, one k-tile for 16 bits): A picks rows of B (A[i][k] = 1 where
 *    k = i % K) with B[k][j] = k and then = j % 256, so C[i][j] names the element of B the kernel read for it;
 *    every wrong element prints as "C[i][j] read B[k'][j'], want B[k][j]" (the first 6, then the count), which
 *    tells a descriptor's or swizzle's mistake from a pipeline's.  The same with B picking columns of A.
 * 2. Exact gemms: small integers (exact in every precision, sums exact in fp32) at 128x256x64, 128x256x512,
 *    384x512x320 and 1000x777x333 (edges), alpha 1 / beta 0 and alpha 0.5 / beta 2: the count of wrong elements,
 *    the first, and the largest error.
 * 3. Timing at 4096, 8192 and 8192 x 1024 x 4096 (B transposed): ours (the default strategy, PA_GEMM_WGMMA=kmajor
 *    for a row-major B, PA_GEMM_WGMMA=0) against cublasGemmEx of the same precision (ratios: cuBLAS's time / ours).
 *
 * Every gemm prints the strategy that ran (wgmma, wgmma+copy, mma.sync); PA_GEMM_WGMMA=1 is set so that a
 * refusal says why on stderr.
 */
#include <cublas_v2.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu_bench.h"
#include <parray/float16.h>
#include <parray/gputile.h>

static const char *const elms[3] = {"float", "bfloat16", "half"}, *const labels[3] = {"TF32", "BF16", "FP16"};
static cudaEvent_t ev0, ev1;

typedef struct prob {
    int p, m, n, k, bt;          /* precision, sizes, B stored [N][K] */
    pa_scope *s;
    const pa_type *A, *B, *C;
    void *a, *b;
    float *c;
    float *ha, *hb;              /* host values (as float, already rounded to the element type) */
} prob;

static float rounded(int p, float x)
{
    return p == 1 ? pa_bf16_to_float(pa_bf16_from_float(x)) : p == 2 ? pa_half_to_float(pa_half_from_float(x)) : x;
}

static void make(prob *q, int p, int m, int n, int k, int bt)
{
    char d[512];
    memset(q, 0, sizeof *q);
    q->p = p;
    q->m = m;
    q->n = n;
    q->k = k;
    q->bt = bt;
    PK(pa_scope_create(NULL, &q->s));
    snprintf(d, sizeof d, "parray dmem %s [%d][%d] A; parray dmem %s [%d][%d] %s; %s parray dmem float [%d][%d] C;",
             elms[p], m, k, elms[p], bt ? n : k, bt ? k : n, bt ? "BS" : "B",
             bt ? (p == 0 ? "parray dmem float [#BS_1][#BS_0] B;" : p == 1 ? "parray dmem bfloat16 [#BS_1][#BS_0] B;"
                                                                 : "parray dmem half [#BS_1][#BS_0] B;") : "",
             m, n);
    PK(pa_declare_text(q->s, d));
    q->A = pa_type_get(q->s, "A");
    q->B = pa_type_get(q->s, "B");
    q->C = pa_type_get(q->s, "C");
    q->a = pa_create(q->A);
    q->b = pa_create(q->B);
    q->c = pa_create(q->C);
    q->ha = malloc(sizeof(float) * (size_t)m * k);
    q->hb = malloc(sizeof(float) * (size_t)k * n);
    if (!q->a || !q->b || !q->c || !q->ha || !q->hb)
        DIE("wgmma_probe: %s", pa_last_error());
}

static void drop(prob *q)
{
    PK(pa_destroy(q->A, q->a));
    PK(pa_destroy(q->B, q->b));
    PK(pa_destroy(q->C, q->c));
    free(q->ha);
    free(q->hb);
    pa_scope_destroy(q->s);
}

/* Uploads ha ([M][K]) and hb ([K][N], stored as the type says) in the element type. */
static void upload(prob *q)
{
    size_t esz = q->p ? 2 : 4, na = (size_t)q->m * q->k, nb = (size_t)q->k * q->n;
    unsigned char *buf = malloc((na > nb ? na : nb) * esz);
    if (!buf)
        DIE("wgmma_probe: out of memory");
    for (int w = 0; w < 2; w++) {
        size_t cnt = w ? nb : na;
        for (size_t i = 0; i < cnt; i++) {
            float x;
            if (w == 0) {
                x = q->ha[i];
            } else {   /* element i of the storage: [K][N], or [N][K] when transposed */
                size_t r = i / (size_t)(q->bt ? q->k : q->n), c = i % (size_t)(q->bt ? q->k : q->n);
                x = q->bt ? q->hb[c * (size_t)q->n + r] : q->hb[i];
            }
            if (q->p == 0)
                ((float *)buf)[i] = x;
            else
                ((uint16_t *)buf)[i] = q->p == 1 ? pa_bf16_from_float(x) : pa_half_from_float(x);
        }
        CK(cudaMemcpy(w ? q->b : q->a, buf, cnt * esz, cudaMemcpyHostToDevice));
    }
    free(buf);
}

static const char *strategy(const pa_gemm_info *i)
{
    return i->strategy == PA_GEMM_WGMMA ? (i->copied ? "wgmma+copy" : "wgmma")
         : i->strategy == PA_GEMM_MMA_SYNC ? "mma.sync" : "simt";
}

/* Runs C = alpha A B + beta C (C first filled with cinit, or NaN) and returns C on the host (caller frees). */
static float *run(prob *q, double alpha, double beta, const float *cinit, pa_gemm_info *info)
{
    size_t nc = (size_t)q->m * q->n;
    float *h = malloc(nc * sizeof(float));
    if (!h)
        DIE("wgmma_probe: out of memory");
    if (cinit)
        CK(cudaMemcpy(q->c, cinit, nc * sizeof(float), cudaMemcpyHostToDevice));
    else
        CK(cudaMemset(q->c, 0xff, nc * sizeof(float)));   /* NaN: every element must be written */
    pa_gemm_config cfg = {0};
    cfg.compute = q->p == 0 ? PA_GEMM_TF32 : PA_GEMM_FP32;
    memset(info, 0, sizeof *info);
    int st = pa_gemm_dmem_async(q->C, q->c, q->A, q->a, q->B, q->b, alpha, beta, &cfg, NULL, info);
    cudaError_t e = cudaDeviceSynchronize();
    if (st != PA_OK || e != cudaSuccess) {
        printf("    FAILED: %s%s%s\n", st != PA_OK ? pa_last_error() : "", st != PA_OK ? "; " : "",
               e != cudaSuccess ? cudaGetErrorString(e) : "");
        if (e != cudaSuccess)
            exit(1);   /* a fault leaves the context unusable */
        free(h);
        return NULL;
    }
    CK(cudaMemcpy(h, q->c, nc * sizeof(float), cudaMemcpyDeviceToHost));
    return h;
}

static const char *bname(const prob *q, const char *mode)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "%s B%s%s%s", labels[q->p], q->bt ? " transposed" : " row-major", mode ? " " : "",
             mode ? mode : "");
    return buf;
}

/* Selector gemms: which element of B (side 0) or A (side 1) did C[i][j] read? */
static int selector(int p, int bt, const char *mode)
{
    prob q;
    int bad_total = 0;
    make(&q, p, 128, 256, 64, bt);
    for (int side = 0; side < 2; side++) {
        float *got[2] = {NULL, NULL};
        pa_gemm_info info;
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < q.m; i++)
                for (int k = 0; k < q.k; k++)
                    q.ha[(size_t)i * q.k + k] = side == 0 ? (k == i % q.k) : (float)(pass == 0 ? i : k);
            for (int k = 0; k < q.k; k++)
                for (int j = 0; j < q.n; j++)
                    q.hb[(size_t)k * q.n + j] = side == 1 ? (k == j % q.k) : (float)(pass == 0 ? k : j % 256);
            upload(&q);
            got[pass] = run(&q, 1, 0, NULL, &info);
            if (!got[pass])
                return 1;
        }
        int bad = 0;
        for (int i = 0; i < q.m; i++)
            for (int j = 0; j < q.n; j++) {
                float g0 = got[0][(size_t)i * q.n + j], g1 = got[1][(size_t)i * q.n + j];
                /* side 0: C = B[i % K][j]: pass 0 gives its row, pass 1 its column; side 1: C = A[i][j % K] */
                float w0 = side == 0 ? (float)(i % q.k) : (float)i, w1 = side == 0 ? (float)(j % 256) : (float)(j % q.k);
                if (g0 != w0 || g1 != w1) {
                    if (bad < 6)
                        printf("    %s selector: C[%d][%d] read %s[%g][%g], want %s[%g][%g]\n", side ? "A" : "B", i, j,
                               side ? "A" : "B", g0, g1, side ? "A" : "B", w0, w1);
                    bad++;
                }
            }
        printf("  %-26s 128x256x64 %-10s %s selector: %s (%d of %d wrong)\n", bname(&q, mode), strategy(&info),
               side ? "A" : "B", bad ? "WRONG" : "right", bad, q.m * q.n);
        bad_total += bad;
        free(got[0]);
        free(got[1]);
    }
    drop(&q);
    return bad_total != 0;
}

/* Exact gemm of small integers against the CPU. */
static int exact(int p, int bt, int m, int n, int k, double alpha, double beta, const char *mode)
{
    prob q;
    make(&q, p, m, n, k, bt);
    for (int i = 0; i < m; i++)
        for (int kk = 0; kk < k; kk++)
            q.ha[(size_t)i * k + kk] = rounded(p, (float)((i * 3 + kk * 5) % 7 - 3));
    for (int kk = 0; kk < k; kk++)
        for (int j = 0; j < n; j++)
            q.hb[(size_t)kk * n + j] = rounded(p, (float)((kk * 2 + j * 7) % 5 - 2));
    upload(&q);
    float *cinit = malloc(sizeof(float) * (size_t)m * n);
    for (size_t i = 0; i < (size_t)m * n; i++)
        cinit[i] = (float)(i % 11) - 5;
    pa_gemm_info info;
    float *got = run(&q, alpha, beta, beta != 0 ? cinit : NULL, &info);
    if (!got)
        return 1;
    int bad = 0, fi = -1, fj = -1;
    double worst = 0, fg = 0, fw = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double want = 0;
            for (int kk = 0; kk < k; kk++)
                want += (double)q.ha[(size_t)i * k + kk] * q.hb[(size_t)kk * n + j];
            want = alpha * want + (beta != 0 ? beta * cinit[(size_t)i * n + j] : 0);
            double g = got[(size_t)i * n + j], e = fabs(g - want);
            if (!(e <= 1e-3 * (1 + fabs(want)))) {
                if (bad++ == 0) {
                    fi = i;
                    fj = j;
                    fg = g;
                    fw = want;
                }
            }
            if (!(e <= worst))
                worst = e;
        }
    printf("  %-26s %4dx%4dx%4d %-10s a %.1f b %.1f: %s (%d wrong", bname(&q, mode), m, n, k, strategy(&info), alpha,
           beta, bad ? "WRONG" : "right", bad);
    if (bad)
        printf("; first C[%d][%d] = %g, want %g", fi, fj, fg, fw);
    printf("; largest error %.3g)  %d regs %d B smem %d blk/SM\n", worst, info.registers, info.smem_bytes,
           info.blocks_per_sm);
    free(got);
    free(cinit);
    drop(&q);
    return bad != 0;
}

static float timed(prob *q, cublasHandle_t h, int reps)
{
    static const cudaDataType dt[3] = {CUDA_R_32F, CUDA_R_16BF, CUDA_R_16F};
    static const cublasComputeType_t ct[3] = {CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F};
    float ms[32], one = 1, zero = 0;
    pa_gemm_config cfg = {0};
    cfg.compute = q->p == 0 ? PA_GEMM_TF32 : PA_GEMM_FP32;
    for (int i = -2; i < reps; i++) {
        CK(cudaEventRecord(ev0, NULL));
        if (h)
            cublasGemmEx(h, q->bt ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, q->n, q->m, q->k, &one, q->b, dt[q->p],
                         q->bt ? q->k : q->n, q->a, dt[q->p], q->k, &zero, q->c, CUDA_R_32F, q->n, ct[q->p],
                         CUBLAS_GEMM_DEFAULT);
        else
            PK(pa_gemm_dmem_async(q->C, q->c, q->A, q->a, q->B, q->b, 1, 0, &cfg, NULL, NULL));
        CK(cudaEventRecord(ev1, NULL));
        CK(cudaEventSynchronize(ev1));
        if (i >= 0)
            CK(cudaEventElapsedTime(&ms[i], ev0, ev1));
    }
    float med = 0;
    for (int i = 0; i < reps; i++) {   /* median by counting */
        int below = 0;
        for (int j = 0; j < reps; j++)
            below += ms[j] < ms[i];
        if (below == reps / 2)
            med = ms[i];
    }
    return med > 0 ? med : ms[0];
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0, fails = 0;
    int st = gpu_bench_start("wgmma_probe", 9, &ev0, &ev1);
    if (st)
        return st;
    setenv("PA_GEMM_WGMMA", "1", 1);
    printf("1. selectors (which element was read), 2. exact small-integer gemms\n");
    static const char *modes[2] = {NULL, "kmajor"};
    for (int p = 0; p < 3; p++)
        for (int bt = 0; bt < 2; bt++)
            for (int md = 0; md < 2; md++) {
                if (md == 1 && bt)
                    continue;   /* kmajor changes only a row-major B */
                setenv("PA_GEMM_WGMMA", md ? modes[md] : "1", 1);
                fails += selector(p, bt, modes[md]);
                fails += exact(p, bt, 128, 256, 64, 1, 0, modes[md]);
                fails += exact(p, bt, 128, 256, 512, 1, 0, modes[md]);
                fails += exact(p, bt, 384, 512, 320, 0.5, 2, modes[md]);
                if (!quick)
                    fails += exact(p, bt, 1000, 777, 333, 1, 0, modes[md]);
            }
    setenv("PA_GEMM_WGMMA", "1", 1);
    if (quick) {
        printf("\nwgmma_probe: %s\n", fails ? "WRONG results above" : "all right");
        return fails ? 1 : 0;
    }
    printf("\n3. timing against cublasGemmEx of the same precision (median of 9)\n");
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        DIE("wgmma_probe: cublasCreate failed");
    const int shapes[3][4] = {{4096, 4096, 4096, 0}, {8192, 8192, 8192, 0}, {8192, 1024, 4096, 1}};
    for (int p = 0; p < 3; p++)
        for (int si = 0; si < 3; si++) {
            prob q;
            make(&q, p, shapes[si][0], shapes[si][1], shapes[si][2], shapes[si][3]);
            CK(cudaMemset(q.a, 0, (size_t)q.m * q.k * (p ? 2 : 4)));
            CK(cudaMemset(q.b, 0, (size_t)q.k * q.n * (p ? 2 : 4)));
            double flop = 2.0 * q.m * (double)q.n * q.k;
            float cub = timed(&q, h, 9);
            setenv("PA_GEMM_WGMMA", "1", 1);
            float ours = timed(&q, NULL, 9);
            float km = ours;
            if (!q.bt) {   /* a row-major B copied K-major first instead */
                setenv("PA_GEMM_WGMMA", "kmajor", 1);
                km = timed(&q, NULL, 9);
            }
            setenv("PA_GEMM_WGMMA", "0", 1);
            float mma = timed(&q, NULL, 9);
            setenv("PA_GEMM_WGMMA", "1", 1);
            printf("  %-4s %5dx%5dx%5d%s  cuBLAS %7.1f  ours %7.1f (%.3f)  kmajor %7.1f (%.3f)  mma.sync %7.1f (%.3f) "
                   "TFLOP/s\n", labels[p], q.m, q.n, q.k, q.bt ? " Bt" : "   ", flop / cub / 1e9, flop / ours / 1e9,
                   cub / ours, flop / km / 1e9, cub / km, flop / mma / 1e9, cub / mma);
            drop(&q);
        }
    cublasDestroy(h);
    printf("\nwgmma_probe: %s\n", fails ? "WRONG results above" : "all right");
    return fails ? 1 : 0;
}
