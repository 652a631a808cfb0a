/*
 * parray — C = A B for float and double matrices (matrix.h: pa_matrix_gemm), on host threads or the GPU.
 *
 * On the host, the columns of C are split over a pthd thread array (pa_for).  Column-major storage makes the
 * inner loop an axpy down a column: C(:, j) += A(:, k) B(k, j), contiguous in A and C, which the compiler
 * vectorises; rows are taken in blocks of 512 so that the block of A's rows a thread sweeps for each of its
 * columns stays in cache.  dmem matrices go to the GPU's tiled kernel (matrix_gpu.c).
 */
#include <string.h>

#include "matrix_internal.h"
#include "parray/thread.h"

#define ROW_BLOCK 512

typedef struct gemm_job {
    const void *a, *b;
    void *c;
    int64_t m, n, k;
    int elm, nthreads;
} gemm_job;

#define GEMM_COLUMNS(T)                                                                                  \
    static void gemm_columns_##T(const gemm_job *g, int64_t j0, int64_t j1)                              \
    {                                                                                                    \
        const T *A = g->a, *B = g->b;                                                                    \
        T *C = g->c;                                                                                     \
        for (int64_t j = j0; j < j1; j++)                                                                \
            memset(C + j * g->m, 0, (size_t)g->m * sizeof(T));                                           \
        for (int64_t i0 = 0; i0 < g->m; i0 += ROW_BLOCK) {                                               \
            int64_t i1 = i0 + ROW_BLOCK < g->m ? i0 + ROW_BLOCK : g->m;                                  \
            for (int64_t j = j0; j < j1; j++) {                                                          \
                T *c = C + j * g->m;                                                                     \
                for (int64_t kk = 0; kk < g->k; kk++) {                                                  \
                    const T *a = A + kk * g->m;                                                          \
                    T bkj = B[kk + j * g->k];                                                            \
                    for (int64_t i = i0; i < i1; i++)                                                    \
                        c[i] += a[i] * bkj;                                                              \
                }                                                                                        \
            }                                                                                            \
        }                                                                                                \
    }
GEMM_COLUMNS(float)
GEMM_COLUMNS(double)

static void gemm_part(const gemm_job *g, int64_t t, int64_t nt)
{
    int64_t j0 = g->n * t / nt, j1 = g->n * (t + 1) / nt;
    if (g->elm == PA_MATRIX_FLOAT)
        gemm_columns_float(g, j0, j1);
    else
        gemm_columns_double(g, j0, j1);
}

static int gemm_thread(pa_ctx *ctx, void *arg)
{
    const gemm_job *g = *(const gemm_job **)arg;
    gemm_part(g, pa_tid(ctx), g->nthreads);
    return PA_OK;
}

static int host_gemm(gemm_job *g)
{
    pa_scope *s = NULL;
    char decl[64];
    int rc;
    double work = (double)g->m * (double)g->n * (double)g->k;
    int nt = pa_threads_get_num();
    if (nt > g->n)
        nt = (int)g->n;
    if (work < 4e6 || nt <= 1) {
        gemm_part(g, 0, 1);
        return PA_OK;
    }
    g->nthreads = nt;
    if ((rc = pa_scope_create(NULL, &s)) != PA_OK)
        return rc;
    snprintf(decl, sizeof decl, "pthd [%d]", nt);
    const pa_type *tt = pa_type_parse(s, decl);
    rc = tt ? pa_for(tt, gemm_thread, &g, sizeof g) : pa__last_status();
    pa_scope_destroy(s);
    return rc;
}

int pa_matrix_gemm(const pa_matrix *a, const pa_matrix *b, pa_matrix **out)
{
    pa__mloc la, lb;
    pa_matrix ha, hb, hc, *c = NULL, *moved = NULL;
    int rc;
    if (!out)
        return pa__err(PA_ERR_INVAL, "gemm: NULL out");
    if ((rc = pa__matrix_locate(a, &la)) != PA_OK || (rc = pa__matrix_read_header(a, &la, &ha)) != PA_OK)
        return pa__err_wrap(rc, "gemm: A");
    if ((rc = pa__matrix_locate(b, &lb)) != PA_OK || (rc = pa__matrix_read_header(b, &lb, &hb)) != PA_OK)
        return pa__err_wrap(rc, "gemm: B");
    if (ha.elm != hb.elm || (ha.elm != PA_MATRIX_FLOAT && ha.elm != PA_MATRIX_DOUBLE))
        return pa__err(PA_ERR_ELM, "gemm: A is %s, B is %s: both must be float or both double",
                       pa_matrix_elm_name(ha.elm), pa_matrix_elm_name(hb.elm));
    if (ha.width != hb.height)
        return pa__err(PA_ERR_SIZE, "gemm: A is %d x %d and B is %d x %d: A's width must be B's height", ha.height,
                       ha.width, hb.height, hb.width);
    /* B where A is: on the GPU when A is in dmem, else in host memory. */
    if (la.device != lb.device) {
        if ((rc = pa_matrix_copy_to(b, la.device ? "dmem" : "paged", &moved)) != PA_OK)
            return pa__err_wrap(rc, "gemm: moving B to A's memory");
        b = moved;
    }
    hc = (pa_matrix){ha.elm, ha.height, hb.width, PA_MATRIX_MAGIC};
    if ((rc = pa__matrix_alloc(la.mtt, &hc, &c)) != PA_OK)
        goto fail;
    if (hc.height > 0 && hc.width > 0) {
        if (la.device) {
            rc = pa__matrix_gpu_gemm(a, &ha, b, &hb, c);
        } else {
            gemm_job g = {(const char *)a + PA__MATRIX_HEADER, (const char *)b + PA__MATRIX_HEADER,
                          (char *)c + PA__MATRIX_HEADER, ha.height, hb.width, ha.width, ha.elm, 1};
            rc = host_gemm(&g);
        }
        if (rc != PA_OK)
            goto fail;
    }
    pa_matrix_destroy(moved);
    *out = c;
    return PA_OK;

fail:
    pa_matrix_destroy(c);
    pa_matrix_destroy(moved);
    return rc;
}
