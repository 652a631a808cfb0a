/* parray — the CUDA backend's trace hooks in a build without NVTX3 (trace_nvtx.c has them where it is): none. */
#include "cuda_backend.h"

const pa__trace_ops pa__cuda_trace = {NULL, NULL};
