/* The nvcc-compiled kernels of the cuda_for suite (for_kernels.cu). */
#ifndef PARRAY_TEST_FOR_KERNELS_H
#define PARRAY_TEST_FOR_KERNELS_H

#include <parray/cuda.h>

#ifdef __cplusplus
extern "C" {
#endif
int for_kernels_get(pa_cuda_function *copy, pa_cuda_function *tid, pa_cuda_function *bad);
#ifdef __cplusplus
}
#endif
#endif
