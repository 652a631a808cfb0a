/*
 * parray — PL/CUDA device library "dynpara" (#plcuda_include "dynpara", PG-Strom's "cuda_dynpara.h"): kernels
 * that launch kernels (CUDA dynamic parallelism).  Including it compiles the function with -rdc=true and links
 * it with CUDA's device runtime (libcudadevrt.a, through nvJitLink), as PG-Strom's include did.
 *
 *     pa_dp_launch(kcxt, kern, nthreads, args...)          launches __global__ kern over nthreads threads in
 *                                                          blocks of 256, with the arguments given
 *     pa_dp_launch_ex(kcxt, kern, nthreads, block, shmem, args...)   the same with a block size and dynamic
 *                                                          shared memory of one's own
 *     pa_dp_blocks(nthreads, block)                        the blocks such a launch uses
 *
 * A child grid is a __global__ function of the #plcuda_decl block; inside it pa_global_id() and
 * pa_global_size() count its own threads (so PA_FOR_EACH of "tile" works there too).  A launch that fails
 * (too many blocks, no resources, too deep a nesting) raises PA_KERR_DYNPARA at the caller's line and returns
 * the CUDA error; the function call then fails with PA_ERR_KERNEL.  Children launched by a kernel have finished
 * when the next block's kernel (post after main) starts: a grid completes only after its children.
 *
 * Device code for NVRTC, after the PL/CUDA prelude; no standard library.
 */
#ifndef PARRAY_PLCUDA_DYNPARA_H
#define PARRAY_PLCUDA_DYNPARA_H

#define PA_KERR_DYNPARA 53000 /* SQLSTATE insufficient_resources */

static __device__ __forceinline__ unsigned pa_dp_blocks(long nthreads, int block)
{
    return nthreads <= 0 ? 0u : (unsigned)((nthreads + block - 1) / block);
}

template <typename... P, typename... A>
static __device__ int pa__dp_launch(pa_kcxt *kcxt, void (*kern)(P...), long nthreads, int block, unsigned shmem,
                                    int line, A... args)
{
    if (nthreads <= 0)
        return 0;
    if (block <= 0 || block > 1024 || (nthreads + block - 1) / block > 2147483647L) {
        pa__raise(kcxt, PA_KSTATUS_ERROR, PA_KERR_DYNPARA, line);
        return (int)cudaErrorInvalidConfiguration;
    }
    kern<<<pa_dp_blocks(nthreads, block), block, shmem>>>(args...);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        pa__raise(kcxt, PA_KSTATUS_ERROR, PA_KERR_DYNPARA, line);
    return (int)e;
}

#define pa_dp_launch(kcxt, kern, nthreads, ...) pa__dp_launch((kcxt), kern, (long)(nthreads), 256, 0u, __LINE__, __VA_ARGS__)
#define pa_dp_launch_ex(kcxt, kern, nthreads, block, shmem, ...)                                               \
    pa__dp_launch((kcxt), kern, (long)(nthreads), (int)(block), (unsigned)(shmem), __LINE__, __VA_ARGS__)

#endif
