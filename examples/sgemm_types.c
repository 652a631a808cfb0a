/*
 * sgemm_types — the manual's listing 43 and section 7.1: sgemm on the dmem types A, B and C, through a shared
 * tile S padded against bank conflicts and a register tile R, compared with a CPU reference; then the
 * manual's point, the same kernel source on inputs that are not row-major.
 *
 *     parray {dmem float [[N/16][4][4]][[N/32][32]]} A;      (row-major N x N, its dimensions cut into tiles)
 *     parray {dmem float [[N/32][32]][[N/256][128][2]]} B;
 *     parray {dmem float [#A_0][#B_1]} C;
 *     parray {smem float [32][17]} S;                        (avoids bank conflicts)
 *     parray {rmem float [16][2]} R;
 *     for CUDA as (float *a, float *b, float *c) { ... copy A_0_1_0(a) to S0(s); sync_1; ... copy R(r) to C0(c) }
 *
 * The kernel is generated from the types (pa_gemm_dmem, gputile.h): with the manual's blocking (128 threads,
 * each 16 x 2 results in R, k-steps of 32 through S) and with the library's default for today's GPUs.  S and R
 * are shown as the static types a kernel sees.  Timings go to stderr; stdout is checked.  Without a GPU the
 * program exits 77.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <parray/parray.h>
#include <parray/gputile.h>

#define N 512

static void fail(const char *what)
{
    fprintf(stderr, "sgemm_types: %s: %s\n", what, pa_last_error());
    exit(1);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* sgemm on the GPU with these types, compared with ref; prints PASSED or FAILED. */
static int run(pa_scope *s, const char *an, const char *bn, const float *ha, const float *hb, const double *ref,
               const pa_gemm_config *cfg, const char *label)
{
    const pa_type *A = pa_type_get(s, an), *B = pa_type_get(s, bn), *C = pa_type_get(s, "C");
    const pa_type *HT = pa_type_get(s, "HT");
    float *da = pa_create(A), *db = pa_create(B), *dc = pa_create(C), *hc = pa_create(HT);
    if (!da || !db || !dc || !hc)
        fail("create");
    /* the host arrays are row-major; the copies put them into whatever layout A and B have */
    if (pa_copy(A, da, HT, ha) != PA_OK || pa_copy(B, db, HT, hb) != PA_OK || pa_copy(C, dc, HT, ha) != PA_OK)
        fail("copy HT(ha, hb) to A(da), B(db)");   /* C gets a's values first: every element must be written */
    pa_gemm_info info;
    double t0 = now();
    if (pa_gemm_dmem_async(C, dc, A, da, B, db, 1.0, 0.0, cfg, NULL, &info) != PA_OK || pa_copy(HT, hc, C, dc))
        fail(label);
    double t1 = now();
    double worst = 0;
    for (int i = 0; i < N * N; i++)
    {
        double e = (hc[i] - ref[i]) / N;
        e = e < 0 ? -e : e;
        worst = e > worst ? e : worst;
    }
    printf("%-44s %s\n", label, worst < 1e-5 ? "Comparison PASSED" : "Comparison FAILED");
    fprintf(stderr, "  %s: %.3f ms with the first compile; %d registers, %d bytes of shared memory, fast tiles "
            "A %d B %d C %d, error %.1e\n", label, 1e3 * (t1 - t0), info.registers, info.smem_bytes, info.fast_a,
            info.fast_b, info.fast_c, worst);
    pa_destroy(A, da), pa_destroy(B, db), pa_destroy(C, dc), pa_destroy(HT, hc);
    return worst < 1e-5;
}

int main(void)
{
    pa_scope *s;
    if (pa_scope_create(NULL, &s) != PA_OK || pa_scope_set_int(s, "N", N) != PA_OK ||
        pa_declare_text(s, "parray dmem float [[N/16][4][4]][[N/32][32]] A;"
                           "parray dmem float [[N/32][32]][[N/256][128][2]] B;"
                           "parray dmem float [#A_0][#B_1] C;"
                           "parray smem float [32][17] S; parray rmem float [16][2] R;"
                           "parray paged float [N][N] HT;"
                           "parray dmem float [N][N] AS; parray dmem float [#AS_1][#AS_0] AT;"
                           "parray dmem float [N/16][N/16][16][16] BL;"
                           "parray dmem float [[#BL_0][#BL_2]][[#BL_1][#BL_3]] BB;") != PA_OK)
        fail("declare");
    /* S and R as a kernel sees them: static layouts, every size and stride a literal */
    pa_tilegen *g;
    if (pa_tilegen_create(&g) != PA_OK || pa_tilegen_type(g, "S", pa_type_get(s, "S")) != PA_OK ||
        pa_tilegen_type(g, "R", pa_type_get(s, "R")) != PA_OK)
        fail("S, R");
    const char *src = pa_tilegen_source(g), *line = strstr(src, "/* S: ");
    printf("%.*s\n", (int)(strchr(line, '\n') - line), line);
    line = strstr(src, "/* R: ");
    printf("%.*s\n", (int)(strchr(line, '\n') - line), line);
    pa_tilegen_destroy(g);
    if (pa_cuda_device_count() < 1) {
        fprintf(stderr, "sgemm_types: skipped: %s\n", pa_last_error());
        pa_scope_destroy(s);
        return 77;
    }
    const pa_type *HT = pa_type_get(s, "HT");
    float *ha = pa_create(HT), *hb = pa_create(HT);
    double *ref = malloc(sizeof(double) * N * N);
    if (!ha || !hb || !ref)
        fail("create HT");
    srand(1);
    for (int i = 0; i < N * N; i++)
        ha[i] = (float)rand() / (float)RAND_MAX, hb[i] = (float)rand() / (float)RAND_MAX;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int k = 0; k < N; k++)
                acc += (double)ha[i * N + k] * hb[k * N + j];
            ref[i * N + j] = acc;
        }
    pa_gemm_config manual = {16, 256, 32, 16, 2, 128, 0, 0, 0, 0};   /* 128 threads, R = [16][2] each, k-steps of 32 */
    int ok = run(s, "A", "B", ha, hb, ref, &manual, "sgemm, the manual's blocking (R [16][2])");
    ok &= run(s, "A", "B", ha, hb, ref, NULL, "sgemm, the library's default blocking");
    ok &= run(s, "AT", "B", ha, hb, ref, NULL, "the same source, A transposed in memory");
    ok &= run(s, "A", "BB", ha, hb, ref, NULL, "the same source, B in 16x16 blocks");
    pa_destroy(HT, ha), pa_destroy(HT, hb);
    free(ref);
    pa_scope_destroy(s);
    return ok ? 0 : 1;
}
