/* Helpers shared by the GPU benchmarks (copy_gpu, map_gpu): failing calls end the run, and the common start. */
#ifndef PARRAY_GPU_BENCH_H
#define PARRAY_GPU_BENCH_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "parray/parray.h"
#include <parray/cuda.h>

/* A CUDA call that must succeed. */
#define CK(x)                                                                                            \
    do {                                                                                                 \
        cudaError_t e_ = (x);                                                                            \
        if (e_ != cudaSuccess) {                                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));         \
            exit(1);                                                                                     \
        }                                                                                                \
    } while (0)

/* A parray call that must return PA_OK. */
#define PK(x)                                                                                            \
    do {                                                                                                 \
        int s_ = (x);                                                                                    \
        if (s_ != PA_OK) {                                                                               \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, pa_last_error());               \
            exit(1);                                                                                     \
        }                                                                                                \
    } while (0)

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
