/*
 * parray — the CUDA backend's public calls: device selection (the manual's _PA_INIT_GPU(n)).
 *
 * The memory types pinned (page-locked host memory, cudaHostAlloc) and dmem (device memory, cudaMalloc on the
 * current device) are used through pa_create/pa_destroy and pa_copy like every other memory type.  These
 * calls exist in every build: in a build without the CUDA backend, and on a machine without a GPU or a CUDA
 * driver, they return PA_ERR_NODEV with a message saying which.
 *
 * Thread arrays on the GPU (PARRAY's for over a cuda thread type) launch a kernel of the user's: a __global__
 * function compiled by nvcc (pa_cuda_function_of, in code that nvcc compiles) or CUDA source compiled at run
 * time by NVRTC (pa_cuda_compile).  The kernel sees its thread type and the data types it works on through
 * the structs of device.h, filled on the host by pa_cuda_threads and pa_cuda_dtype and passed by value:
 *
 *     pa_dthreads th;  pa_dtype ta, tb;
 *     pa_cuda_threads(C, 0, &th);  pa_cuda_dtype(A, &ta);  pa_cuda_dtype(B, &tb);
 *     void *params[] = {&th, &a, &ta, &b, &tb};
 *     pa_cuda_for(&th, fn, params, 0);
 *
 * and inside the kernel: long long k = pa_dev_tid(&th); if (k < th.n) a[pa_dev_offset(&ta, k)] = ...
 */
#ifndef PARRAY_CUDA_H
#define PARRAY_CUDA_H

#include <stddef.h>

#include "device.h"
#include "error.h"
#include "type.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Makes GPU n current for the calling thread (PARRAY's _PA_INIT_GPU(n)): later dmem arrays are allocated on
 * it.  A copy runs on the GPU that holds its dmem side, whichever is current, and leaves the current GPU as it
 * was; between dmem arrays on two GPUs it runs on the destination's, reading the source directly where the
 * GPUs allow peer access, else through a copy of the source on the destination's GPU.
 * \return PA_OK, PA_ERR_RANGE (n is negative or not below pa_cuda_device_count(); the count is in the
 *         message), PA_ERR_NODEV (no CUDA backend in this build, no driver, or no GPU).
 */
PA_API int pa_cuda_set_device(int n);

/**
 * The number of GPUs this process can use.
 * \return the count (at least 1), or PA_ERR_NODEV when there is none: no CUDA backend in this build, no
 *         driver, or no GPU (the reason is in the message).
 */
PA_API int pa_cuda_device_count(void);

/**
 * The GPU current for the calling thread.
 * \return its number, or PA_ERR_NODEV (as pa_cuda_device_count).
 */
PA_API int pa_cuda_get_device(void);

/* ---- array types and thread arrays on the GPU ------------------------------------------------------- */

/** pa_cuda_threads flag: the manual's grid convention ([grid dims][block dims]) instead of blocks of 256. */
#define PA_CUDA_GRID 1

/** A kernel ready to launch on the current GPU (a CUfunction of the driver API). */
typedef struct pa_cuda_function_s *pa_cuda_function;

/**
 * Fills the device description of a data type (its compiled size:stride layout and element size), to pass to
 * a kernel by value.  Works without a GPU.
 * \return PA_OK; PA_ERR_INVAL (NULL); PA_ERR_UNSUPPORTED when the layout is not affine (a func dimension or a
 *         non-affine wrap, which need tables) or has more than PA_DEV_MAX_MODES modes; the errors of layout
 *         compilation.
 */
PA_API int pa_cuda_dtype(const pa_type *type, pa_dtype *out);

/**
 * Fills the device description of a cuda thread type ("cuda [n]", "cuda [[g][b]]") and its launch shape:
 * blocks of PA_DEV_BLOCK threads by default, or with flags PA_CUDA_GRID the type's two top-level dimensions
 * as the grid and the block (each of at most three leaves, the rightmost leaf x).  Works without a GPU.
 * \return PA_OK; PA_ERR_INVAL (NULL, unknown flags); PA_ERR_MTT (not a cuda thread type); PA_ERR_RANGE (more
 *         than PA_DEV_MAX_TNODES dimensions, no threads, or a grid or block beyond CUDA's limits, named in the
 *         message); PA_ERR_DIM (PA_CUDA_GRID and the type is not [grid][block]).
 */
PA_API int pa_cuda_threads(const pa_type *threads, int flags, pa_dthreads *out);

/**
 * Runs a thread array on the current GPU: launches fn with the launch shape of threads and the kernel
 * parameters params (an array of pointers to each parameter, as cuLaunchKernel takes them) and shmem bytes of
 * dynamic shared memory, and waits for it.
 * \return PA_OK; PA_ERR_INVAL (NULL threads or fn); PA_ERR_NODEV (no GPU); PA_ERR_SYS (the launch or the
 *         kernel failed, with CUDA's words).
 */
PA_API int pa_cuda_for(const pa_dthreads *threads, pa_cuda_function fn, void **params, size_t shmem);

/**
 * pa_cuda_for without waiting: the launch is queued on stream (a cudaStream_t; NULL is the default stream).
 * \return as pa_cuda_for, for the launch only; errors of the kernel itself show at the next synchronisation.
 */
PA_API int pa_cuda_for_async(const pa_dthreads *threads, pa_cuda_function fn, void **params, size_t shmem,
                             void *stream);

/**
 * Compiles CUDA C++ source with NVRTC for the current GPU (cached in memory and on disk, see kernel.h) and
 * returns its extern "C" __global__ function entry, loaded on the current GPU.  The source may include
 * <parray/device.h>.  name labels the source in compile errors.
 * \return PA_OK; PA_ERR_INVAL (NULL); PA_ERR_COMPILE (NVRTC's log in the message); PA_ERR_NODEV (no NVRTC or
 *         no GPU); PA_ERR_SYS (no such entry, or the driver refused the code).
 */
PA_API int pa_cuda_compile(const char *name, const char *source, const char *entry, pa_cuda_function *out);

/** A compiled kernel's resources and how many of its blocks a multiprocessor holds at once. */
typedef struct pa_cuda_fninfo {
    int registers;        /* per thread */
    int smem_static;      /* bytes per block */
    int local_bytes;      /* per thread: local memory, spills included */
    int max_threads;      /* the largest block it can run */
    int blocks_per_sm;    /* resident blocks of `block` threads with `shmem` dynamic bytes */
} pa_cuda_fninfo;

/**
 * Asks the driver about a kernel (pa_cuda_compile, pa_cuda_function_of, pa_tilegen_function) for a block of
 * block threads and shmem bytes of dynamic shared memory (over 48 KiB, the function's dynamic limit is raised to
 * shmem first, as a launch with that much does).
 * \return PA_OK and *out; PA_ERR_INVAL (NULL); PA_ERR_NODEV (no GPU or no CUDA backend); PA_ERR_SYS.
 */
PA_API int pa_cuda_function_info(pa_cuda_function fn, int block, size_t shmem, pa_cuda_fninfo *out);

/**
 * Maps an element function over a dmem array on the GPU (PARRAY's "for k B(b)" over device memory, listing
 * 21).  source is CUDA C++ that defines
 *
 *     __device__ void fn(pa_elm_t *x, long long k, const void *arg)
 *
 * (any name; pa_elm_t is the type's element type), called once for every flat index k of the type with x at
 * the element's offset, data(k); arg points to a copy of the arg_size bytes given here, in kernel parameter
 * space.  The kernel is generated with the type's layout as constants, compiled by NVRTC for the current GPU
 * and cached in memory and on disk (see kernel.h for the cache); it runs on the default stream and the call
 * waits for it.  Compile errors name the lines of source.
 * \return PA_OK; PA_ERR_INVAL (NULL); PA_ERR_MTT (not a dmem type); PA_ERR_ELM (no element type);
 *         PA_ERR_RANGE (arg_size over 2048); PA_ERR_UNSUPPORTED (a layout that needs offset tables);
 *         PA_ERR_COMPILE (NVRTC's log); PA_ERR_NODEV (no NVRTC or no GPU); PA_ERR_SYS (the kernel failed).
 */
PA_API int pa_cuda_map(const pa_type *data, void *ptr, const char *source, const char *fn, const void *arg,
                       size_t arg_size);

/** pa_cuda_map queued on a stream (a cudaStream_t; NULL the default stream), without waiting. */
PA_API int pa_cuda_map_async(const pa_type *data, void *ptr, const char *source, const char *fn, const void *arg,
                             size_t arg_size, void *stream);

#if defined(__CUDACC__)
/**
 * The launchable function of a __global__ function compiled by nvcc into the calling program (defined inline
 * so that it asks the program's own CUDA runtime, which may be another copy than the library's).
 * \return PA_OK, or PA_ERR_NODEV / PA_ERR_SYS when the runtime cannot find the kernel on the current GPU.
 */
static inline int pa_cuda_function_of(const void *kernel, pa_cuda_function *out)
{
    cudaFunction_t f;
    cudaError_t e = cudaGetFuncBySymbol(&f, kernel);
    if (e != cudaSuccess)
        return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? PA_ERR_NODEV : PA_ERR_SYS;
    *out = (pa_cuda_function)f;
    return PA_OK;
}
#endif

#ifdef __cplusplus
}
#endif
#endif
