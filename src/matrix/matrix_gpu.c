/*
 * parray — the matrix module's GPU side (built with the CUDA backend): header transfers and zero fills of dmem
 * matrices, and C = A B on the GPU through the tiled gemm generated from tile types (gputile.h, pa_gemm_dmem:
 * the manual's section 7.1, target P7).
 *
 * After its 16-byte header, a column-major m x n matrix X is the row-major parray type [n][m]: X's transpose.
 * So the multiply runs as C^T = B^T A^T on three row-major types over the matrices' own bytes,
 *
 *     parray dmem T [N][M] CT;   (C^T)       parray dmem T [N][K] BT;   (B^T)       parray dmem T [K][M] AT;   (A^T)
 *
 * which is the layout bench/sgemm measures for P7, with no copy.  The gemm's grid has at most 65535 blocks of
 * rows of its C (here N, B's width); for a wider B the multiply runs as C = A B on the same bytes read
 * transposed ([#AT_1][#AT_0] and so on), whose block rows run along M instead.  A width-0 A (K = 0) gives zeros.
 */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "matrix_internal.h"
#include "parray/cuda.h"
#include "parray/gputile.h"

/* The row-major form's rows of C^T (B's width) up to which its grid fits: 65535 blocks of 64 rows (double's
 * block height; float's is 128). */
#define ROWMAJOR_MAX_N (65535LL * 64)

static int fail(cudaError_t e, const char *what)
{
    int st = e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || e == cudaErrorInitializationError
                 ? PA_ERR_NODEV : PA_ERR_SYS;
    cudaGetLastError();
    return pa__err(st, "matrix: %s: %s", what, cudaGetErrorString(e));
}

int pa__matrix_gpu_memcpy(void *dst, const void *src, size_t bytes, int to_device)
{
    cudaError_t e = cudaMemcpy(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? PA_OK : fail(e, to_device ? "writing a dmem matrix" : "reading a dmem matrix");
}

int pa__matrix_gpu_zero2d(void *dst, size_t pitch, size_t len, size_t count, int queue)
{
    cudaStream_t s = queue ? (cudaStream_t)0 : cudaStreamPerThread;
    cudaError_t e = count == 1 ? cudaMemsetAsync(dst, 0, len, s) : cudaMemset2DAsync(dst, pitch, 0, len, count, s);
    if (e == cudaSuccess && !queue)
        e = cudaStreamSynchronize(s);
    return e == cudaSuccess ? PA_OK : fail(e, "zeroing part of a dmem matrix");
}

int pa__matrix_gpu_wait(void)
{
    cudaError_t e = cudaStreamSynchronize((cudaStream_t)0);
    return e == cudaSuccess ? PA_OK : fail(e, "the queued copies");
}

/*
 * The three types of C = A B for column-major matrices (M x K, K x N, M x N) in scope s: *C, *A, *B as
 * pa_gemm_dmem takes them, over the elements after each header.  rowmajor: C^T = B^T A^T (C is [N][M], A is
 * B^T [N][K], B is A^T [K][M]); else C = A B with the transposed views.
 */
static int gemm_types(pa_scope *s, int elm, int64_t M, int64_t N, int64_t K, int rowmajor, const pa_type **C,
                      const pa_type **A, const pa_type **B)
{
    char decl[512];
    const char *e = elm == PA_MATRIX_FLOAT ? "float" : "double";
    snprintf(decl, sizeof decl, "parray dmem %s [%lld][%lld] CT; parray dmem %s [%lld][%lld] BT; "
             "parray dmem %s [%lld][%lld] AT; parray dmem %s [#CT_1][#CT_0] CC; parray dmem %s [#AT_1][#AT_0] AA; "
             "parray dmem %s [#BT_1][#BT_0] BB;", e, (long long)N, (long long)M, e, (long long)N, (long long)K, e,
             (long long)K, (long long)M, e, e, e);
    int rc = pa_declare_text(s, decl);
    if (rc != PA_OK)
        return rc;
    *C = pa_type_get(s, rowmajor ? "CT" : "CC");
    *A = pa_type_get(s, rowmajor ? "BT" : "AA");
    *B = pa_type_get(s, rowmajor ? "AT" : "BB");
    return *C && *A && *B ? PA_OK : pa__last_status();
}

char *pa__matrix_gemm_source(int elm, int64_t m, int64_t n, int64_t k)
{
    pa_scope *s = NULL;
    const pa_type *C, *A, *B;
    char *src = NULL;
    if (pa_scope_create(NULL, &s) == PA_OK && gemm_types(s, elm, m, n, k, n <= ROWMAJOR_MAX_N, &C, &A, &B) == PA_OK)
        src = pa_gemm_dmem_source(C, A, B, NULL);
    pa_scope_destroy(s);
    return src;
}

int pa__matrix_gpu_gemm(const pa_matrix *a, const pa_matrix *ha, const pa_matrix *b, const pa_matrix *hb,
                        pa_matrix *c)
{
    pa_scope *s = NULL;
    const pa_type *C, *A, *B;
    int64_t M = ha->height, N = hb->width, K = ha->width;
    int rc, rowmajor = N <= ROWMAJOR_MAX_N;
    const char *pa_ = (const char *)a + PA__MATRIX_HEADER, *pb = (const char *)b + PA__MATRIX_HEADER;
    char *pc = (char *)c + PA__MATRIX_HEADER;
    if (K == 0)   /* a sum of nothing */
        return pa__matrix_gpu_zero2d(pc, 0, (size_t)(M * N) * pa_matrix_elm_size(ha->elm), 1, 0);
    if ((rc = pa_scope_create(NULL, &s)) != PA_OK)
        return rc;
    if ((rc = gemm_types(s, ha->elm, M, N, K, rowmajor, &C, &A, &B)) == PA_OK)
        rc = rowmajor ? pa_gemm_dmem(C, pc, A, pb, B, pa_, 1.0, 0.0) : pa_gemm_dmem(C, pc, A, pa_, B, pb, 1.0, 0.0);
    pa_scope_destroy(s);
    return rc == PA_OK ? PA_OK : pa__err_wrap(rc, "gemm on the GPU (%lld x %lld times %lld x %lld)", (long long)M,
                                             (long long)K, (long long)K, (long long)N);
}
