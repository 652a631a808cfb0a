/*
 * The anchor of bench/matrix's k-NN row: the cuBLAS formulation's second half.  After an SGEMM has written
 * G = -2 X Q^T (n x nq, column-major: query q's scores are contiguous), a block per query scans its column,
 * score(i) = |x_i|^2 + G(i, q), each thread keeping its best 8 by insertion (ties to the lower index, as the
 * PL/CUDA function does), then one warp merges the block's lists and writes the query's row of the nq x 8
 * index matrix.  Also the squared norms |x_i|^2 of the data rows (computed once, outside the timing).
 */
#include <cuda_runtime.h>

#define TOPK 8
#define THREADS 256

__device__ __forceinline__ static bool better(float d, int i, float bd, int bi)
{
    return d < bd || (d == bd && i < bi);
}

__device__ __forceinline__ static void insert(float *bd, int *bi, float d, int i)
{
#pragma unroll
    for (int r = 0; r < TOPK; r++)
        if (better(d, i, bd[r], bi[r])) {
            float td = bd[r];
            int ti = bi[r];
            bd[r] = d;
            bi[r] = i;
            d = td;
            i = ti;
        }
}

__global__ void bench_row_norms(const float *X, int n, int d, float *xn)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s = 0.0f;
        for (int j = 0; j < d; j++)
            s += X[(long)j * n + i] * X[(long)j * n + i];
        xn[i] = s;
    }
}

__global__ void __launch_bounds__(THREADS) bench_topk(const float *G, const float *xn, int n, int nq, int *out)
{
    __shared__ float sd[THREADS * TOPK];
    __shared__ int si[THREADS * TOPK];
    const int q = blockIdx.x;
    const float *g = G + (long)q * n;
    float bd[TOPK];
    int bi[TOPK];
#pragma unroll
    for (int r = 0; r < TOPK; r++) {
        bd[r] = 3.4e38f;
        bi[r] = 0x7fffffff;
    }
    for (int i = threadIdx.x; i < n; i += THREADS) {
        float d = xn[i] + g[i];
        if (d < bd[TOPK - 1])
            insert(bd, bi, d, i);
    }
#pragma unroll
    for (int r = 0; r < TOPK; r++) {
        sd[threadIdx.x * TOPK + r] = bd[r];
        si[threadIdx.x * TOPK + r] = bi[r];
    }
    __syncthreads();
    if (threadIdx.x < 32) {   /* each lane merges 8 threads' lists, then lane 0 the 32 results */
        for (int r = 0; r < TOPK; r++) {
            bd[r] = 3.4e38f;
            bi[r] = 0x7fffffff;
        }
        for (int t = threadIdx.x * 8; t < threadIdx.x * 8 + 8; t++)
            for (int r = 0; r < TOPK; r++)
                insert(bd, bi, sd[t * TOPK + r], si[t * TOPK + r]);
        __syncwarp();
        for (int r = 0; r < TOPK; r++) {
            sd[threadIdx.x * TOPK + r] = bd[r];
            si[threadIdx.x * TOPK + r] = bi[r];
        }
        __syncwarp();
        if (threadIdx.x == 0) {
            for (int r = 0; r < TOPK; r++) {
                bd[r] = 3.4e38f;
                bi[r] = 0x7fffffff;
            }
            for (int t = 0; t < 32 * TOPK; t++)
                insert(bd, bi, sd[t], si[t]);
            for (int r = 0; r < TOPK; r++)
                out[(long)r * nq + q] = bi[r];
        }
    }
}

extern "C" int bench_topk_launch(const float *G, const float *xn, int n, int nq, int *out)
{
    bench_topk<<<nq, THREADS>>>(G, xn, n, nq, out);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

extern "C" int bench_norms_launch(const float *X, int n, int d, float *xn)
{
    bench_row_norms<<<(n + 255) / 256, 256>>>(X, n, d, xn);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}
