/* bench/ssb's GPU floor: the time the device takes to read a number of bytes of its memory (nvcc). */
#include <cuda_runtime.h>
#include <stdlib.h>

extern "C" double ssb_bench_median(double *v, int n);

/* Every int4 of x once (grid-stride), summed per block: one 8-byte store per block, so reading is the cost. */
__global__ static void read_all(const int4 *x, long long n, unsigned long long *out)
{
    __shared__ unsigned long long part[32];
    unsigned long long s = 0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        int4 v = x[i];
        s += (unsigned)v.x + (unsigned)v.y + (unsigned)v.z + (unsigned)v.w;
    }
    for (int o = 16; o > 0; o /= 2)
        s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0)
        part[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (int)blockDim.x / 32; w++)
            s += part[w];
        out[blockIdx.x] = s;
    }
}

extern "C" double ssb_bench_gpu_read_ms(size_t bytes, int runs)
{
    int4 *x = NULL;
    unsigned long long *out = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    int sms = 0, blocks;
    double ms = -1, *t = (double *)malloc(sizeof(double) * (size_t)(runs > 0 ? runs : 1));
    long long n = (long long)(bytes / sizeof(int4));
    if (!t || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess)
        goto done;
    blocks = sms * 8;
    if (cudaMalloc(&x, (size_t)n * sizeof(int4) + 16) != cudaSuccess ||
        cudaMalloc(&out, (size_t)blocks * sizeof *out) != cudaSuccess || cudaMemset(x, 1, (size_t)n * sizeof(int4)) ||
        cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess)
        goto done;
    read_all<<<blocks, 256>>>(x, n, out);   /* warm */
    for (int r = 0; r < runs; r++) {
        float f;
        cudaEventRecord(e0);
        read_all<<<blocks, 256>>>(x, n, out);
        cudaEventRecord(e1);
        if (cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&f, e0, e1) != cudaSuccess)
            goto done;
        t[r] = f;
    }
    ms = ssb_bench_median(t, runs);
done:
    cudaFree(x);
    cudaFree(out);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    free(t);
    return ms;
}
