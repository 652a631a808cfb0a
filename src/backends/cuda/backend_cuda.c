/*
 * parray — the CUDA backend's description for the core (src/core/backends.h): pinned and dmem memory, the GPU
 * copy strategies and its streams.  PA_BACKENDS=-cuda switches it off: then no GPU is usable (cuda_device.c
 * says why) and its memory types have no allocator.
 */
#include "cuda_backend.h"

static const pa__mem_ops *const cuda_mem[] = {&pa__mem_pinned_ops, &pa__mem_dmem_ops, NULL};

const pa__backend pa__backend_cuda = {
    .name = "cuda",
    .what = "pinned and dmem memory, GPU copies, cuda thread arrays and kernels (NVRTC)",
    .probe = pa_cuda__probe,
    .mem = cuda_mem,
    .strategies = pa__cuda_strategies,
    .stream_wait = pa_cuda__stream_wait,
    .calibrate = pa_cuda__calibrate,
};
