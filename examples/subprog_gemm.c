/*
 * subprog_gemm — the manual's listing 42: one gemm sub-program, c = a * b on any 2-D types, inserted in a pthd
 * thread array and in a cuda thread array, the results compared.
 *
 *     #define N 32
 *     subprog gemm(a, A, b, B, c, C) ... end
 *     parray {paged int [[N/16][N/16]][[16][16]]} DAT;          (blocks of 16x16)
 *     parray {paged int [[#DAT_0_0][#DAT_1_0]][[#DAT_0_1][#DAT_1_1]]} MAT;   (the 32x32 matrix in those blocks)
 *     parray {dmem int #DAT} DMEM;
 *     for pthd[4] { gemm(a, MAT, b, MAT, c1, MAT); }
 *     for cuda [16][128] as (int *da, int *db, int *dc) { gemm(da, MAT, db, MAT, dc, MAT); }
 *     for DAT(c1, c2) if (c1 != c2) { fprintf(stderr, "ERROR\n"); exit(-1); }
 *
 * A library cannot re-generate C for each insertion as PARRAY's preprocessor did, so the sub-program's body is
 * written once (GEMM_BODY, in terms of SIZE0, SIZE1 and AT) and used twice: compiled here as C, where AT is the
 * type's offset (pa_offset_nd) and the rows are split over the pthd threads, and given as text to NVRTC, where
 * AT is the generated static layout's at() (gputile.h) and the rows are split over the cuda threads.  Without a
 * GPU the CPU half runs and the program exits 77.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>
#include <parray/gputile.h>

#define N 32

/* The sub-program: rows of C split over nthreads threads. */
#define GEMM_BODY                                                                                        \
    for (long long i = TID; i < SIZE0(C); i += NTHREADS)                                                 \
        for (long long j = 0; j < SIZE1(C); j++) {                                                       \
            long long o = AT(C, i, j);                                                                   \
            c[o] = 0;                                                                                    \
            for (long long k = 0; k < SIZE1(A); k++)                                                     \
                c[o] += a[AT(A, i, k)] * b[AT(B, k, j)];                                                 \
        }
#define STR_(...) #__VA_ARGS__
#define STR(x) STR_(x)
static const char gemm_text[] = STR(GEMM_BODY);   /* AT, SIZE0, ... are not defined yet: the text keeps them */

/* ---- the pthd insertion: AT is the type's offset, the thread's id from its context ---- */
#define AT(T, i, j) pa_offset_nd(T, 2, (const int64_t[]){(i), (j)})
#define SIZE0(T) pa_size(pa_type_child(T, 0))
#define SIZE1(T) pa_size(pa_type_child(T, 1))
#define TID pa_tid(ctx)
#define NTHREADS pa_ctx_size(ctx)

typedef struct gemm_args {
    const pa_type *A, *B, *C;
    const int *a, *b;
    int *c;
} gemm_args;

static int gemm_pthd(pa_ctx *ctx, void *arg)
{
    const gemm_args *g = arg;
    const pa_type *A = g->A, *B = g->B, *C = g->C;
    const int *a = g->a, *b = g->b;
    int *c = g->c;
    GEMM_BODY
    return PA_OK;
}

/* ---- the cuda insertion: the same text after the generated static types ---- */
static const char cuda_prefix[] =
    "#define AT(T, i, j) T::at(i, j)\n#define SIZE0(T) T##_0::size\n#define SIZE1(T) T##_1::size\n"
    "#define TID CUDA::tid()\n#define NTHREADS CUDA::size\n"
    "typedef MAT A; typedef MAT B; typedef MAT C;\n"
    "#define A_0 MAT_0\n#define A_1 MAT_1\n#define B_0 MAT_0\n#define B_1 MAT_1\n#define C_0 MAT_0\n#define C_1 MAT_1\n"
    "extern \"C\" __global__ void gemm_cuda(const int *a, const int *b, int *c)\n{\n    ";

static void fail(const char *what)
{
    fprintf(stderr, "subprog_gemm: %s: %s\n", what, pa_last_error());
    exit(1);
}

int main(void)
{
    pa_scope *s;
    if (pa_scope_create(NULL, &s) != PA_OK ||
        pa_declare_text(s, "parray paged int [[2][2]][[16][16]] DAT;"
                           "parray paged int [[#DAT_0_0][#DAT_1_0]][[#DAT_0_1][#DAT_1_1]] MAT;"
                           "parray dmem int [#DAT] DMEM; parray dmem int [[#DMEM_0_0][#DMEM_1_0]][[#DMEM_0_1]"
                           "[#DMEM_1_1]] DMAT; parray pthd [4] P; parray cuda [16][128] CUDA;") != PA_OK)
        fail("declare");
    const pa_type *DAT = pa_type_get(s, "DAT"), *MAT = pa_type_get(s, "MAT"), *DMEM = pa_type_get(s, "DMEM");
    int *a = pa_create(DAT), *b = pa_create(DAT), *c1 = pa_create(DAT), *c2 = pa_create(DAT);
    if (!a || !b || !c1 || !c2)
        fail("malloc DAT a, b, c1, c2");
    unsigned x = 1;
    for (int i = 0; i < N * N; i++) {   /* for DAT(a, b, c1, c2) { a = rand() % 10; b = rand() % 10; ... } */
        x = x * 1103515245u + 12345u, a[i] = (int)(x >> 16) % 10;
        x = x * 1103515245u + 12345u, b[i] = (int)(x >> 16) % 10;
        c1[i] = c2[i] = 0;
    }
    gemm_args g = {MAT, MAT, MAT, a, b, c1};
    if (pa_for(pa_type_get(s, "P"), gemm_pthd, &g, sizeof g) != PA_OK)
        fail("for pthd[4] gemm(a, MAT, b, MAT, c1, MAT)");
    long long sum = 0;
    for (int i = 0; i < N * N; i++)
        sum += c1[i];
    printf("pthd[4]: gemm of two %dx%d int matrices in 16x16 blocks, sum of c = %lld\n", N, N, sum);
    if (pa_cuda_device_count() < 1) {
        fprintf(stderr, "subprog_gemm: the cuda half skipped: %s\n", pa_last_error());
        pa_destroy(DAT, a), pa_destroy(DAT, b), pa_destroy(DAT, c1), pa_destroy(DAT, c2);
        pa_scope_destroy(s);
        return 77;
    }
    int *da = pa_create(DMEM), *db = pa_create(DMEM), *dc = pa_create(DMEM);
    if (!da || !db || !dc || pa_copy(DMEM, da, DAT, a) != PA_OK || pa_copy(DMEM, db, DAT, b) != PA_OK ||
        pa_copy(DMEM, dc, DAT, c2) != PA_OK)
        fail("create DMEM da, db, dc; copy DAT(a, b, c2) to DMEM(da, db, dc)");
    pa_tilegen *gen;
    pa_cuda_function fn;
    char kernel[4096];
    snprintf(kernel, sizeof kernel, "%s%s\n}\n", cuda_prefix, gemm_text);
    if (pa_tilegen_create(&gen) != PA_OK || pa_tilegen_type(gen, "MAT", pa_type_get(s, "DMAT")) != PA_OK ||
        pa_tilegen_threads(gen, "CUDA", pa_type_get(s, "CUDA"), PA_CUDA_GRID) != PA_OK ||
        pa_tilegen_function(gen, "gemm", kernel, "gemm_cuda", &fn) != PA_OK)
        fail("the cuda insertion of gemm");
    pa_dthreads th;
    void *params[] = {&da, &db, &dc};
    if (pa_cuda_threads(pa_type_get(s, "CUDA"), PA_CUDA_GRID, &th) != PA_OK || pa_cuda_for(&th, fn, params, 0) != PA_OK)
        fail("for cuda [16][128] gemm(da, MAT, db, MAT, dc, MAT)");
    if (pa_copy(DAT, c2, DMEM, dc) != PA_OK)
        fail("copy DMEM(dc) to DAT(c2)");
    sum = 0;
    for (int i = 0; i < N * N; i++) {
        if (c1[i] != c2[i]) {
            fprintf(stderr, "ERROR\n");
            return 1;
        }
        sum += c2[i];
    }
    printf("cuda [16][128]: the same sub-program, sum of c = %lld\n", sum);
    printf("c1 == c2: %d elements agree\n", N * N);
    pa_tilegen_destroy(gen);
    pa_destroy(DMEM, da), pa_destroy(DMEM, db), pa_destroy(DMEM, dc);
    pa_destroy(DAT, a), pa_destroy(DAT, b), pa_destroy(DAT, c1), pa_destroy(DAT, c2);
    pa_scope_destroy(s);
    return 0;
}
