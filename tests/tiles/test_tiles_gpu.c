/*
 * parray tests — GPU tiles on the GPU (skipped, 77, without one): generated copies inside kernels between dmem,
 * smem and rmem for random pairs of types, checked byte by byte against the reference walk (whole tiles and
 * predicated edges); the tiled gemm on float and double, odd sizes and several layouts, against a CPU
 * reference; pa_tile_dmem and pa_tile_copy_dmem against pa_tile and pa_tile_copy on the CPU with the same types.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <parray/gputile.h>
#include "tile_pairs.h"

#define NPAIRS 24

/* Copies through smem (whole and predicated) and through a thread's registers, for NPAIRS random pairs. */
START_TEST(device_copies_follow_the_walk)
{
    pa_rng r = {pa_test_seed("tiles gpu copies")};
    static const int threads[] = {32, 96, 128, 256};
    tile_pair p[NPAIRS];
    pa_scope *sc[NPAIRS];
    int nt[NPAIRS], small[NPAIRS], lim[NPAIRS][3];
    pa_tilegen *g;
    PA_CK_OK(pa_tilegen_create(&g));
    char *kernels = malloc(1 << 16);
    int at = 0;
    for (int i = 0; i < NPAIRS; i++) {
        tile_pair_draw(&p[i], &r);
        PA_CK_OK(pa_scope_create(NULL, &sc[i]));
        PA_CK_OK(tile_pair_declare(&p[i], sc[i]));
        nt[i] = threads[pa_rng_range(&r, 0, 3)];
        small[i] = p[i].size * p[i].elm <= 512;
        for (int d = 0; d < 3; d++)
            lim[i][d] = d < p[i].nmodes ? (int)pa_rng_range(&r, 0, p[i].n[d]) : 1;
        char n1[16], n2[16], n3[16], n4[16], n5[16];
        snprintf(n1, 16, "STO%d", i), snprintf(n2, 16, "ld%d", i), snprintf(n3, 16, "st%d", i);
        snprintf(n4, 16, "rg%d", i), snprintf(n5, 16, "RD%d", i);
        PA_CK_OK(pa_tilegen_type(g, n1, pa_type_get(sc[i], "STO")));
        PA_CK_OK(pa_tilegen_copy(g, n2, pa_type_get(sc[i], "DST"), pa_type_get(sc[i], "SRC"), nt[i]));
        PA_CK_OK(pa_tilegen_copy(g, n3, pa_type_get(sc[i], "OUT"), pa_type_get(sc[i], "DST"), nt[i]));
        if (small[i]) {
            PA_CK_OK(pa_tilegen_type(g, n5, pa_type_get(sc[i], "RDST")));
            PA_CK_OK(pa_tilegen_copy(g, n4, pa_type_get(sc[i], "RDST"), pa_type_get(sc[i], "SRC"), 1));
            snprintf(n4, 16, "rs%d", i);
            PA_CK_OK(pa_tilegen_copy(g, n4, pa_type_get(sc[i], "OUT"), pa_type_get(sc[i], "RDST"), 1));
        }
        char lims[64];
        snprintf(lims, sizeof lims, p[i].nmodes == 2 ? "l0, l1" : "l0, l1, l2");
        at += snprintf(kernels + at, (1 << 16) - at,
                       "extern \"C\" __global__ void k%d(const ld%d::elm_t *big, ld%d::elm_t *out, ld%d::elm_t *outp, "
                       "ld%d::elm_t *outr, int l0, int l1, int l2)\n{\n  PA_SMEM(STO%d, s);\n"
                       "  ld%d::copy(s, big, threadIdx.x);\n  __syncthreads();\n  st%d::copy(out, s, threadIdx.x);\n"
                       "  __syncthreads();\n  ld%d::copy_pred(s, big, threadIdx.x, %s);\n  __syncthreads();\n"
                       "  st%d::copy(outp, s, threadIdx.x);\n",
                       i, i, i, i, i, i, i, i, i, lims, i);
        if (small[i])
            at += snprintf(kernels + at, (1 << 16) - at,
                           "  if (threadIdx.x == 0) { PA_RMEM(RD%d, rr); rg%d::copy(rr, big, 0); rs%d::copy(outr, rr, 0); }\n",
                           i, i, i);
        at += snprintf(kernels + at, (1 << 16) - at, "  (void)l2; (void)outr;\n}\n");
    }
    int st = pa_tilegen_compile(g, "pairs", kernels, 0);
    ck_assert_msg(st == PA_OK, "%s", pa_last_error());
    for (int i = 0; i < NPAIRS; i++) {
        char entry[16];
        snprintf(entry, 16, "k%d", i);
        pa_cuda_function f;
        PA_CK_OK(pa_tilegen_function(g, "pairs", kernels, entry, &f));
        const pa_type *big_t = pa_type_get(sc[i], "BIG"), *src_t = pa_type_get(sc[i], "SRC");
        const pa_type *out_t = pa_type_get(sc[i], "OUT");
        void *big = pa_create(big_t), *out = pa_create(out_t), *outp = pa_create(out_t), *outr = pa_create(out_t);
        ck_assert(big && out && outp && outr);
        pa_test_pair c;
        pa_test_pair_fill(&c, sc[i], &r, out_t, out, src_t, big);
        size_t ob = (size_t)c.dbytes;
        ck_assert_int_eq(cudaMemset(outp, 0xa5, ob), cudaSuccess);
        ck_assert_int_eq(cudaMemset(outr, 0xa5, ob), cudaSuccess);
        pa_dthreads th = {0};
        th.grid = 1, th.n = nt[i], th.gdim[0] = th.gdim[1] = th.gdim[2] = 1, th.bdim[0] = (unsigned)nt[i];
        th.bdim[1] = th.bdim[2] = 1;
        void *params[] = {&big, &out, &outp, &outr, &lim[i][0], &lim[i][1], &lim[i][2]};
        PA_CK_OK(pa_cuda_for(&th, f, params, 0));
        int64_t bad = pa_test_pair_diff(&c, sc[i], out_t, out);
        ck_assert_msg(bad < 0, "pair %d (%d threads, %d-byte elements): byte %lld of the smem round trip differs", i,
                      nt[i], p[i].elm, (long long)bad);
        /* predicated: elements with an index at or past its limit are zero */
        unsigned char *got = malloc(ob);
        ck_assert_int_eq(cudaMemcpy(got, outp, ob, cudaMemcpyDeviceToHost), cudaSuccess);
        for (int64_t k = 0; k < p[i].size; k++) {
            int64_t q = k, in = 1;
            for (int d = p[i].nmodes - 1; d >= 0; d--) {
                in = in && q % p[i].n[d] < lim[i][d];
                q /= p[i].n[d];
            }
            for (int b = 0; b < p[i].elm; b++) {
                unsigned char want = in ? c.want[k * p[i].elm + b] : 0;
                ck_assert_msg(got[k * p[i].elm + b] == want, "pair %d: predicated element %lld byte %d: %d, want %d",
                              i, (long long)k, b, got[k * p[i].elm + b], want);
            }
        }
        if (small[i]) {
            bad = pa_test_pair_diff(&c, sc[i], out_t, outr);
            ck_assert_msg(bad < 0, "pair %d: byte %lld of the rmem copy differs", i, (long long)bad);
        }
        free(got);
        pa_test_pair_free(&c);
        PA_CK_OK(pa_destroy(big_t, big));
        PA_CK_OK(pa_destroy(out_t, out));
        PA_CK_OK(pa_destroy(out_t, outp));
        PA_CK_OK(pa_destroy(out_t, outr));
        pa_scope_destroy(sc[i]);
    }
    free(kernels);
    pa_tilegen_destroy(g);
}
END_TEST

/* C = alpha A B + beta C for one layout of each, against a CPU reference in double. */
static void gemm_case(const char *elm, int m, int n, int k, const char *adecl, const char *bdecl, const char *cdecl,
                      double alpha, double beta, const pa_gemm_config *cfg)
{
    pa_scope *s;
    char d[1024];
    PA_CK_OK(pa_scope_create(NULL, &s));
    snprintf(d, sizeof d, "var M = %d; var N = %d; var K = %d; %s; %s; %s; parray paged %s [M][K] HA;"
                          "parray paged %s [K][N] HB; parray paged %s [M][N] HC;",
             m, n, k, adecl, bdecl, cdecl, elm, elm, elm);
    PA_CK_OK(pa_declare_text(s, d));
    const pa_type *A = pa_type_get(s, "A"), *B = pa_type_get(s, "B"), *C = pa_type_get(s, "C");
    const pa_type *HA = pa_type_get(s, "HA"), *HB = pa_type_get(s, "HB"), *HC = pa_type_get(s, "HC");
    int dbl = strcmp(elm, "double") == 0;
    size_t e = dbl ? 8 : 4;
    char *ha = pa_create(HA), *hb = pa_create(HB), *hc = pa_create(HC), *hr = pa_create(HC);
    void *a = pa_create(A), *b = pa_create(B), *c = pa_create(C);
    ck_assert(ha && hb && hc && hr && a && b && c);
    for (int64_t i = 0; i < (int64_t)m * k; i++)
        dbl ? (((double *)ha)[i] = (i * 37 % 101) / 101.0) : (((float *)ha)[i] = (float)((i * 37 % 101) / 101.0));
    for (int64_t i = 0; i < (int64_t)k * n; i++)
        dbl ? (((double *)hb)[i] = (i * 53 % 97) / 97.0 - 0.5) : (((float *)hb)[i] = (float)((i * 53 % 97) / 97.0 - 0.5));
    for (int64_t i = 0; i < (int64_t)m * n; i++)
        dbl ? (((double *)hc)[i] = (i % 13) / 13.0) : (((float *)hc)[i] = (float)((i % 13) / 13.0));
    PA_CK_OK(pa_copy(A, a, HA, ha));
    PA_CK_OK(pa_copy(B, b, HB, hb));
    PA_CK_OK(pa_copy(C, c, HC, hc));
    pa_gemm_info info;
    memset(&info, 0, sizeof info);
    if (cfg == NULL && beta != 0) {   /* the waiting call, with the default shape */
        PA_CK_OK(pa_gemm_dmem(C, c, A, a, B, b, alpha, beta));
    } else {
        PA_CK_OK(pa_gemm_dmem_async(C, c, A, a, B, b, alpha, beta, cfg, NULL, &info));
        ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    }
    PA_CK_OK(pa_copy(HC, hr, C, c));
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double want = 0;
            for (int q = 0; q < k; q++)
                want += (dbl ? ((double *)ha)[(int64_t)i * k + q] : ((float *)ha)[(int64_t)i * k + q]) *
                        (dbl ? ((double *)hb)[(int64_t)q * n + j] : ((float *)hb)[(int64_t)q * n + j]);
            int64_t o = (int64_t)i * n + j;
            double old = dbl ? ((double *)hc)[o] : ((float *)hc)[o], got = dbl ? ((double *)hr)[o] : ((float *)hr)[o];
            want = alpha * want + beta * old;
            ck_assert_msg(fabs(got - want) <= (dbl ? 1e-9 : 1e-4) * (k + 1), "%s %dx%dx%d (%s; %s; %s) fast %d%d%d: "
                          "C[%d][%d] = %g, want %g", elm, m, n, k, adecl, bdecl, cdecl, info.fast_a, info.fast_b,
                          info.fast_c, i, j, got, want);
        }
    (void)e;
    PA_CK_OK(pa_destroy(HA, ha));
    PA_CK_OK(pa_destroy(HB, hb));
    PA_CK_OK(pa_destroy(HC, hc));
    PA_CK_OK(pa_destroy(HC, hr));
    PA_CK_OK(pa_destroy(A, a));
    PA_CK_OK(pa_destroy(B, b));
    PA_CK_OK(pa_destroy(C, c));
    pa_scope_destroy(s);
}

START_TEST(gemm_matches_the_cpu_on_any_layout)
{
    const char *elms[] = {"float", "double"};
    for (int i = 0; i < 2; i++) {
        const char *e = elms[i];
        char a[160], at[200], b[160], bb[240], c[160], cw[240];
        snprintf(a, sizeof a, "parray dmem %s [M][K] A", e);
        snprintf(at, sizeof at, "parray dmem %s [K][M] AS; parray dmem %s [#AS_1][#AS_0] A", e, e);
        snprintf(b, sizeof b, "parray dmem %s [K][N] B", e);
        snprintf(bb, sizeof bb, "parray dmem %s [K/16][N/16][16][16] BL; parray dmem %s [[#BL_0][#BL_2]][[#BL_1]"
                                "[#BL_3]] B", e, e);
        snprintf(c, sizeof c, "parray dmem %s [M][N] C", e);
        snprintf(cw, sizeof cw, "parray dmem %s [M+3][N+5] CB; parray dmem %s [M # disp(2) # CB_0][N # disp(1) # "
                                "CB_1] C", e, e);
        gemm_case(e, 256, 256, 64, a, b, c, 1.0, 0.0, NULL);
        gemm_case(e, 300, 200, 77, a, b, c, 1.0, 0.0, NULL);   /* edges in every direction */
        gemm_case(e, 131, 97, 45, at, b, cw, 0.5, 2.0, NULL);  /* transposed A, C a window, beta */
        gemm_case(e, 160, 192, 96, a, bb, c, 1.0, 0.0, NULL);  /* B in 16x16 blocks */
    }
    pa_gemm_config wide = {128, 256, 16, 8, 16, 256, 0, 0, 1, 0};
    gemm_case("float", 256, 512, 64, "parray dmem float [M][K] A", "parray dmem float [K][N] B",
              "parray dmem float [M][N] C", 1.0, 0.0, &wide);
    /* every way the tiles reach shared memory: through registers (1) and 2, 3, 4 asynchronous stages (double
     * with 3); whole tiles, edges, a transposed A, B in blocks, and an A whose tiles start off 16-byte boundaries */
    for (int stages = 1; stages <= 4; stages++)
        for (int i = 0; i < (stages == 3 ? 2 : 1); i++) {
            const char *e = elms[i];
            pa_gemm_config cf = i ? (pa_gemm_config){64, 64, 8, 4, 4, 256, 0, 0, stages, 0}
                                  : (pa_gemm_config){128, 128, 8, 8, 8, 256, 8, 0, stages, 0};
            char a[160], at[200], b[160], bb[240], c[160], aw[240];
            snprintf(a, sizeof a, "parray dmem %s [M][K] A", e);
            snprintf(at, sizeof at, "parray dmem %s [K][M] AS; parray dmem %s [#AS_1][#AS_0] A", e, e);
            snprintf(b, sizeof b, "parray dmem %s [K][N] B", e);
            snprintf(bb, sizeof bb, "parray dmem %s [K/16][N/16][16][16] BL; parray dmem %s [[#BL_0][#BL_2]][[#BL_1]"
                                    "[#BL_3]] B", e, e);
            snprintf(c, sizeof c, "parray dmem %s [M][N] C", e);
            snprintf(aw, sizeof aw, "parray dmem %s [M+1][K+1] AB; parray dmem %s [M # disp(1) # AB_0][K # AB_1] A",
                     e, e);
            gemm_case(e, 256, 256, 64, a, b, c, 1.0, 0.0, &cf);
            gemm_case(e, 300, 200, 77, a, b, c, 1.0, 0.0, &cf);
            gemm_case(e, 131, 97, 45, at, b, c, 0.5, 2.0, &cf);
            gemm_case(e, 160, 192, 96, a, bb, c, 1.0, 0.0, &cf);
            gemm_case(e, 150, 128, 40, aw, b, c, 1.0, 0.0, &cf);
        }
    /* k-steps of 16 through registers: B (and a transposed A) by cp.async into the other buffer, A through
     * registers; the same layouts */
    {
        pa_gemm_config cf = {128, 128, 16, 8, 8, 256, 0, 0, 1, 0};
        gemm_case("float", 256, 256, 64, "parray dmem float [M][K] A", "parray dmem float [K][N] B",
                  "parray dmem float [M][N] C", 1.0, 0.0, &cf);
        gemm_case("float", 300, 200, 77, "parray dmem float [M][K] A", "parray dmem float [K][N] B",
                  "parray dmem float [M][N] C", 1.0, 0.0, &cf);
        gemm_case("float", 131, 97, 45, "parray dmem float [K][M] AS; parray dmem float [#AS_1][#AS_0] A",
                  "parray dmem float [K][N] B", "parray dmem float [M][N] C", 0.5, 2.0, &cf);
        gemm_case("float", 160, 192, 96, "parray dmem float [M][K] A", "parray dmem float [K/16][N/16][16][16] BL; "
                  "parray dmem float [[#BL_0][#BL_2]][[#BL_1][#BL_3]] B", "parray dmem float [M][N] C", 1.0, 0.0, &cf);
        gemm_case("float", 150, 128, 40, "parray dmem float [M+1][K+1] AB; parray dmem float [M # disp(1) # AB_0][K # "
                  "AB_1] A", "parray dmem float [K][N] B", "parray dmem float [M][N] C", 1.0, 0.0, &cf);
    }
    /* a thread's 8 x 16 results in four 16-byte parts along n, 128 threads, three stages */
    pa_gemm_config big = {128, 128, 8, 8, 16, 128, 8, 2, 3, 0};
    gemm_case("float", 300, 260, 77, "parray dmem float [M][K] A", "parray dmem float [K][N] B",
              "parray dmem float [M][N] C", 1.0, 0.0, &big);
    gemm_case("float", 256, 256, 64, "parray dmem float [M][K] A", "parray dmem float [K][N] B",
              "parray dmem float [M][N] C", 1.0, 0.0, &big);
    PA_CK_ERR(pa_gemm_dmem_async(NULL, NULL, NULL, NULL, NULL, NULL, 1, 0, NULL, NULL, NULL), PA_ERR_INVAL);
}
END_TEST

/* The CPU tile function the GPU source below mirrors. */
typedef struct tile_ctx {
    const pa_type *inner;
    int elm;
} tile_ctx;

static int cpu_fn(void *tile, int64_t t, void *arg)
{
    tile_ctx *x = arg;
    for (int64_t k = 0; k < pa_size(x->inner); k++) {
        int64_t o = pa_offset(x->inner, k);
        if (x->elm == 4)
            ((int *)tile)[o] = ((int *)tile)[o] * 3 + (int)(t * 7 + k);
        else
            ((long long *)tile)[o] = ((long long *)tile)[o] * 3 + (t * 7 + k);
    }
    return PA_OK;
}

static const char gpu_fn[] =
    "__device__ void fn(pa_elm_t *tile, long long t, int tid, int nt, const void *arg)\n"
    "{\n    for (int k = tid; k < (int)pa_inner::size; k += nt)\n"
    "        tile[pa_inner::off(k)] = tile[pa_inner::off(k)] * 3 + (pa_elm_t)(t * 7 + k);\n}\n";

START_TEST(tile_dmem_matches_the_cpu)
{
    pa_rng r = {pa_test_seed("tiles gpu pa_tile_dmem")};
    for (int it = 0; it < 16; it++) {
        int elm = pa_rng_range(&r, 0, 1) ? 4 : 8, perm = (int)pa_rng_range(&r, 0, 5), mode = (int)pa_rng_range(&r, 1, 4);
        int64_t a = pa_rng_range(&r, 1, 6) * 4, b = pa_rng_range(&r, 1, 24), c = pa_rng_range(&r, 1, 3) * 8;
        static const char *orders[6] = {"#D_0][#D_1][#D_2", "#D_0][#D_2][#D_1", "#D_1][#D_0][#D_2",
                                        "#D_1][#D_2][#D_0", "#D_2][#D_0][#D_1", "#D_2][#D_1][#D_0"};
        const char *et = elm == 4 ? "int" : "long long";
        char d[1024];
        /* D stores the data; O walks it in a permuted order; the inner tile is a padded smem [c][b] or [b][c] */
        snprintf(d, sizeof d, "parray dmem %s [%lld][%lld][%lld] D; parray dmem %s [%s] O;"
                 "parray paged %s [%lld][%lld][%lld] HD;"
                 "parray smem %s [%lld][%lld] IS; parray paged %s [%lld][%lld] IH; parray dmem %s [%lld][%lld][%lld] D2;"
                 "parray paged %s [%lld][%lld][%lld] HD2;",
                 et, (long long)a, (long long)b, (long long)c, et, orders[perm], et, (long long)a, (long long)b,
                 (long long)c, et, (long long)c, (long long)b + 1, et, (long long)c, (long long)b + 1,
                 et, (long long)a, (long long)b, (long long)c, et, (long long)a, (long long)b, (long long)c);
        pa_scope *s;
        PA_CK_OK(pa_scope_create(NULL, &s));
        PA_CK_OK(pa_declare_text(s, d));
        char ho[256], ins[128], inh[128];
        snprintf(ho, sizeof ho, "[%s]", orders[perm]);
        for (char *x = ho; (x = strstr(x, "#D_")); x++)
            memmove(x + 2, x + 1, strlen(x + 1) + 1), x[1] = 'H', x[2] = 'D';
        PA_CK_OK(pa_declare(s, "HO2", ho));
        snprintf(ins, sizeof ins, "smem %s [%lld # IS_1][%lld # IS_0]", et, (long long)b, (long long)c);
        snprintf(inh, sizeof inh, "paged %s [%lld # IH_1][%lld # IH_0]", et, (long long)b, (long long)c);
        PA_CK_OK(pa_declare(s, "IN", ins));
        PA_CK_OK(pa_declare(s, "INH", inh));
        const pa_type *D = pa_type_get(s, "D"), *O = pa_type_get(s, "O"), *HD = pa_type_get(s, "HD");
        const pa_type *HO = pa_type_get(s, "HO2"), *IN = pa_type_get(s, "IN"), *INH = pa_type_get(s, "INH");
        const pa_type *D2 = pa_type_get(s, "D2"), *HD2 = pa_type_get(s, "HD2");
        int64_t n = pa_size(D);
        char *h = pa_create(HD), *h2 = pa_create(HD2), *back = pa_create(HD);
        void *dv = pa_create(D), *dv2 = pa_create(D2);
        ck_assert(h && h2 && back && dv && dv2);
        for (int64_t i = 0; i < n; i++)
            elm == 4 ? (((int *)h)[i] = (int)(i * 11 % 1000)) : (((long long *)h)[i] = i * 13 % 100000);
        memcpy(back, h, (size_t)n * (size_t)elm);
        PA_CK_OK(pa_copy(D, dv, HD, h));
        tile_ctx x = {INH, elm};
        if (mode == 4) {   /* pa_tile_copy: O's tiles into D2 (plain order) */
            PA_CK_OK(pa_tile_copy_dmem(D2, dv2, O, dv, IN, gpu_fn, "fn", NULL, 0));
            PA_CK_OK(pa_tile_copy(HD2, h2, HO, h, INH, cpu_fn, &x));
            PA_CK_OK(pa_copy(HD, back, D2, dv2));
            ck_assert_msg(memcmp(back, h2, (size_t)n * (size_t)elm) == 0, "pa_tile_copy_dmem differs from pa_tile_copy "
                          "(%d-byte, order %d, %lldx%lldx%lld)", elm, perm, (long long)a, (long long)b, (long long)c);
        } else {
            PA_CK_OK(pa_tile_dmem(O, dv, IN, mode, gpu_fn, "fn", NULL, 0));
            PA_CK_OK(pa_tile(HO, h, INH, mode, cpu_fn, &x));
            PA_CK_OK(pa_copy(HD, back, D, dv));
            ck_assert_msg(memcmp(back, h, (size_t)n * (size_t)elm) == 0, "pa_tile_dmem (mode %d) differs from pa_tile "
                          "(%d-byte, order %d, %lldx%lldx%lld)", mode, elm, perm, (long long)a, (long long)b,
                          (long long)c);
        }
        PA_CK_OK(pa_destroy(HD, h));
    PA_CK_OK(pa_destroy(HD2, h2));
    PA_CK_OK(pa_destroy(HD, back));
        PA_CK_OK(pa_destroy(D, dv));
    PA_CK_OK(pa_destroy(D2, dv2));
        pa_scope_destroy(s);
    }
    /* bad input: a tile that does not divide, the wrong memory, a source that does not compile */
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "parray dmem int [10][10] D; parray smem int [3][3] S; parray smem int [5][5] S5;"
                                "parray paged int [5][5] P;"));
    void *dv = pa_create(pa_type_get(s, "D"));
    PA_CK_ERR(pa_tile_dmem(pa_type_get(s, "D"), dv, pa_type_get(s, "S"), PA_IOTILE, gpu_fn, "fn", NULL, 0), PA_ERR_SIZE);
    PA_CK_ERR(pa_tile_dmem(pa_type_get(s, "D"), dv, pa_type_get(s, "P"), PA_IOTILE, gpu_fn, "fn", NULL, 0), PA_ERR_MTT);
    PA_CK_ERR(pa_tile_dmem(pa_type_get(s, "D"), dv, pa_type_get(s, "S5"), 7, gpu_fn, "fn", NULL, 0), PA_ERR_INVAL);
    PA_CK_ERR(pa_tile_dmem(pa_type_get(s, "D"), dv, pa_type_get(s, "S5"), PA_IOTILE, "\n__device__ void fn(pa_elm_t *t, "
                           "long long i, int a, int b, const void *c) { oops; }\n", "fn", NULL, 0), PA_ERR_COMPILE);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "fn(2)"));
    PA_CK_OK(pa_destroy(pa_type_get(s, "D"), dv));
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("tiles_gpu"))
        return 77;
    Suite *s = suite_create("tiles_gpu");
    TCase *tc = tcase_create("gpu");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, device_copies_follow_the_walk);
    tcase_add_test(tc, gemm_matches_the_cpu_on_any_layout);
    tcase_add_test(tc, tile_dmem_matches_the_cpu);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
