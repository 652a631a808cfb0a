/* Helpers shared by the GPU benchmarks (copy_gpu, map_gpu, gpu_dist, gpu_threads...): failing calls end the run
 * (CK: CUDA, PK: parray, NC: NCCL where nccl.h was included first, DIE: a message), and the common start.  A
 * benchmark of several processes defines GPU_BENCH_EXIT() before including this (MPI_Abort, so that no rank
 * waits for the one that stopped); the default is exit(1). */
#ifndef PARRAY_GPU_BENCH_H
#define PARRAY_GPU_BENCH_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "parray/parray.h"
#include <parray/cuda.h>

#ifndef GPU_BENCH_EXIT
#define GPU_BENCH_EXIT() exit(1)
#endif

/* Says where and what (printf's arguments), then ends the run. */
#define DIE(...)                                                                                         \
    do {                                                                                                 \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                                  \
        fprintf(stderr, __VA_ARGS__);                                                                    \
        fprintf(stderr, "\n");                                                                           \
        GPU_BENCH_EXIT();                                                                                \
    } while (0)

/* A CUDA call that must succeed. */
#define CK(x)                                                                                            \
    do {                                                                                                 \
        cudaError_t e_ = (x);                                                                            \
        if (e_ != cudaSuccess)                                                                           \
            DIE("%s: %s", #x, cudaGetErrorString(e_));                                                   \
    } while (0)

/* A parray call that must return PA_OK. */
#define PK(x)                                                                                            \
    do {                                                                                                 \
        int s_ = (x);                                                                                    \
        if (s_ != PA_OK)                                                                                 \
            DIE("%s: %s", #x, pa_last_error());                                                          \
    } while (0)

#ifdef NCCL_MAJOR
/* An NCCL call that must succeed (nccl.h included before this header). */
#define NC(x)                                                                                            \
    do {                                                                                                 \
        ncclResult_t r_ = (x);                                                                           \
        if (r_ != ncclSuccess)                                                                           \
            DIE("%s: %s", #x, ncclGetErrorString(r_));                                                   \
    } while (0)
#endif

/*
 * The start of a GPU benchmark: without a usable GPU it says why and returns 77 (skipped); else it prints the
 * device (GPU 0) and the number of repeats, makes the two timing events, and returns 0.
 */
static inline int gpu_bench_start(const char *name, int repeats, cudaEvent_t *ev0, cudaEvent_t *ev1)
{
    if (pa_cuda_device_count() <= 0) {
        fprintf(stderr, "%s: skipped: %s\n", name, pa_last_error());
        return 77;
    }
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    CK(cudaEventCreate(ev0));
    CK(cudaEventCreate(ev1));
    printf("device: %s, %d SMs; repeats %d (median)\n\n", prop.name, prop.multiProcessorCount, repeats);
    return 0;
}

#endif
