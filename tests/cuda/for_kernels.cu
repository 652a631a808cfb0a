/*
 * Kernels of the cuda_for suite, compiled by nvcc: they see their thread type and data types through
 * device.h, as a user's kernels do, and are handed to the C test through pa_cuda_function_of.
 */
#include <parray/cuda.h>

#include "for_kernels.h"

/* a[A(k)] = b[B(k)] for every thread k (the manual's listing 25), 4-byte elements. */
__global__ void copy_kernel(pa_dthreads th, unsigned *a, pa_dtype ta, const unsigned *b, pa_dtype tb)
{
    long long k = pa_dev_tid(&th);
    if (k < th.n)
        a[pa_dev_offset(&ta, k)] = b[pa_dev_offset(&tb, k)];
}

/*
 * Each thread writes its overall id and its id along every dimension of the thread type, then the hardware
 * indices the manual's convention ties to two paths: out[tid * stride + ...].
 */
__global__ void tid_kernel(pa_dthreads th, long long *out, int stride)
{
    long long k = pa_dev_tid(&th);
    if (!pa_dev_active(&th))
        return;
    long long *o = out + k * stride;
    o[0] = k;
    for (int i = 0; i < th.nnodes; i++)
        o[1 + i] = pa_dev_tid_node(&th, i, k);
    o[1 + th.nnodes] = pa_dev_tid_path(&th, "0_1");
    o[2 + th.nnodes] = blockIdx.x;
    o[3 + th.nnodes] = pa_dev_tid_path(&th, "1_1");
    o[4 + th.nnodes] = threadIdx.x;
}

/* A kernel that writes out of bounds, for the error path. */
__global__ void bad_kernel(pa_dthreads th, unsigned *p)
{
    p[pa_dev_tid(&th) + (1ll << 40)] = 1;
}

extern "C" int for_kernels_get(pa_cuda_function *copy, pa_cuda_function *tid, pa_cuda_function *bad)
{
    int st = pa_cuda_function_of((const void *)copy_kernel, copy);
    if (st == PA_OK)
        st = pa_cuda_function_of((const void *)tid_kernel, tid);
    if (st == PA_OK)
        st = pa_cuda_function_of((const void *)bad_kernel, bad);
    return st;
}
