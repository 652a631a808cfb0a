/*
 * parray — the CUDA backend's description for the core (backends.h): pinned and dmem memory, the GPU
 * copy strategies and its streams.  PA_BACKENDS=-cuda switches it off: then no GPU is usable (cuda_device.c
 * says why) and its memory types have no allocator.
 */
#include "cuda_backend.h"
#include "rtc.h"

/* The compile service of the backend interface (the tiles' pa_tilegen_compile): NVRTC into the kernel caches,
 * the image kept there for the loads that follow. */
static int compile_into_cache(const char *name, const char *source, int arch)
{
    const pa_cuda__image *img;
    return pa_cuda__rtc_compile(name, source, NULL, 0, arch, &img);
}

static const pa__mem_ops *const cuda_mem[] = {&pa__mem_pinned_ops, &pa__mem_dmem_ops, NULL};

const pa__backend pa__backend_cuda = {
    .name = "cuda",
    .what = "pinned and dmem memory, GPU copies, cuda thread arrays and kernels (NVRTC)",
    .probe = pa_cuda__probe,
    .mem = cuda_mem,
    .strategies = pa__cuda_strategies,
    .stream_wait = pa_cuda__stream_wait,
    .calibrate = pa_cuda__calibrate,
    .pointer_device = pa__cuda_pointer_device,
    .compile = compile_into_cache,
    .trace = &pa__cuda_trace,
    .async = &pa_cuda__async_ops,
    .gpu = &pa_cuda__gpu_ops,
};
