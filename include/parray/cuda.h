/*
 * parray — the CUDA backend's public calls: device selection (the manual's _PA_INIT_GPU(n)).
 *
 * The memory types pinned (page-locked host memory, cudaHostAlloc) and dmem (device memory, cudaMalloc on the
 * current device) are used through pa_create/pa_destroy and pa_copy like every other memory type.  These
 * calls exist in every build: in a build without the CUDA backend, and on a machine without a GPU or a CUDA
 * driver, they return PA_ERR_NODEV with a message saying which.
 */
#ifndef PARRAY_CUDA_H
#define PARRAY_CUDA_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Makes GPU n current for the calling thread (PARRAY's _PA_INIT_GPU(n)): later dmem arrays are allocated on
 * it and GPU copies run on it.
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

#ifdef __cplusplus
}
#endif
#endif
