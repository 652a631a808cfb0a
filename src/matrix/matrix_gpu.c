/*
 * parray — the matrix module's GPU side (built with the CUDA backend): header transfers and zero fills of dmem
 * matrices, and C = A B on the GPU.
 *
 * The multiply is a tiled kernel compiled at run time by NVRTC (pa_cuda_compile, cached in memory and on disk)
 * and launched as a cuda thread array (pa_cuda_for): each block of 256 threads computes a 64 x 64 tile of C,
 * 4 x 4 elements per thread, from 64 x 16 tiles of A and 16 x 64 tiles of B staged in shared memory; the
 * column-major loads are coalesced along a column (A) or along k (B).  Each thread's rows are tx + 16 r, so
 * a warp's shared-memory reads of A are conflict-free and its writes of C are coalesced.
 */
#include <cuda_runtime.h>
#include <string.h>

#include "matrix_internal.h"
#include "parray/cuda.h"

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

int pa__matrix_gpu_zero2d(void *dst, size_t pitch, size_t len, size_t count)
{
    cudaError_t e = count == 1 ? cudaMemsetAsync(dst, 0, len, cudaStreamPerThread)
                               : cudaMemset2DAsync(dst, pitch, 0, len, count, cudaStreamPerThread);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(cudaStreamPerThread);
    return e == cudaSuccess ? PA_OK : fail(e, "zeroing part of a dmem matrix");
}

static const char gemm_source[] =
    "#define BM 64\n#define BN 64\n#define BK 16\n"
    "#define GEMM(NAME, T)                                                                          \\\n"
    "extern \"C\" __global__ void __launch_bounds__(256) NAME(const T *A, const T *B, T *C, int M, int N, int K) \\\n"
    "{                                                                                              \\\n"
    "    __shared__ T As[BK][BM + 1];                                                               \\\n"
    "    __shared__ T Bs[BK][BN + 1];                                                               \\\n"
    "    int t = threadIdx.x, tx = t % 16, ty = t / 16;                                             \\\n"
    "    long i0 = (long)blockIdx.x * BM, j0 = (long)blockIdx.y * BN;                               \\\n"
    "    T acc[4][4];                                                                               \\\n"
    "    for (int r = 0; r < 4; r++) for (int c = 0; c < 4; c++) acc[r][c] = 0;                     \\\n"
    "    for (int k0 = 0; k0 < K; k0 += BK) {                                                       \\\n"
    "        for (int e = t; e < BM * BK; e += 256) {                                               \\\n"
    "            int i = e % BM, k = e / BM; long gi = i0 + i; int gk = k0 + k;                     \\\n"
    "            As[k][i] = gi < M && gk < K ? A[gi + (long)gk * M] : (T)0;                         \\\n"
    "        }                                                                                      \\\n"
    "        for (int e = t; e < BK * BN; e += 256) {                                               \\\n"
    "            int k = e % BK, j = e / BK; long gj = j0 + j; int gk = k0 + k;                     \\\n"
    "            Bs[k][j] = gj < N && gk < K ? B[gk + gj * K] : (T)0;                               \\\n"
    "        }                                                                                      \\\n"
    "        __syncthreads();                                                                       \\\n"
    "        for (int k = 0; k < BK; k++) {                                                         \\\n"
    "            T a[4], b[4];                                                                      \\\n"
    "            for (int r = 0; r < 4; r++) a[r] = As[k][tx + 16 * r];                             \\\n"
    "            for (int c = 0; c < 4; c++) b[c] = Bs[k][ty + 16 * c];                             \\\n"
    "            for (int r = 0; r < 4; r++) for (int c = 0; c < 4; c++) acc[r][c] += a[r] * b[c];  \\\n"
    "        }                                                                                      \\\n"
    "        __syncthreads();                                                                       \\\n"
    "    }                                                                                          \\\n"
    "    for (int c = 0; c < 4; c++) {                                                              \\\n"
    "        long gj = j0 + ty + 16 * c;                                                            \\\n"
    "        for (int r = 0; r < 4; r++) {                                                          \\\n"
    "            long gi = i0 + tx + 16 * r;                                                        \\\n"
    "            if (gi < M && gj < N) C[gi + gj * M] = acc[r][c];                                  \\\n"
    "        }                                                                                      \\\n"
    "    }                                                                                          \\\n"
    "}\n"
    "GEMM(pa_matrix_gemm_float, float)\n"
    "GEMM(pa_matrix_gemm_double, double)\n";

/* The kernel's source, for the test that compiles it without a GPU. */
const char *pa__matrix_gemm_source(void)
{
    return gemm_source;
}

int pa__matrix_gpu_gemm(const pa_matrix *a, const pa_matrix *ha, const pa_matrix *b, const pa_matrix *hb,
                        pa_matrix *c)
{
    pa_cuda_function fn;
    pa_dthreads th;
    pa_scope *s = NULL;
    char decl[96];
    int rc, M = ha->height, N = hb->width, K = ha->width;
    const char *entry = ha->elm == PA_MATRIX_FLOAT ? "pa_matrix_gemm_float" : "pa_matrix_gemm_double";
    if ((rc = pa_cuda_compile("pa_matrix_gemm", gemm_source, entry, &fn)) != PA_OK)
        return rc;
    if ((rc = pa_scope_create(NULL, &s)) != PA_OK)
        return rc;
    snprintf(decl, sizeof decl, "cuda [[%d][%d]][256]", (N + 63) / 64, (M + 63) / 64);
    const pa_type *tt = pa_type_parse(s, decl);
    if (!tt || (rc = pa_cuda_threads(tt, PA_CUDA_GRID, &th)) != PA_OK) {
        rc = tt ? rc : pa__last_status();
        goto done;
    }
    const void *pa_ = (const char *)a + PA__MATRIX_HEADER, *pb = (const char *)b + PA__MATRIX_HEADER;
    void *pc = (char *)c + PA__MATRIX_HEADER;
    void *params[] = {&pa_, &pb, &pc, &M, &N, &K};
    rc = pa_cuda_for(&th, fn, params, 0);
done:
    pa_scope_destroy(s);
    return rc;
}
