/*
 * parray — the CUDA backend's public calls in a build without it.  They exist so that a program written for
 * GPUs links against every build of the library and learns at run time, with a clear message, that this one
 * has no CUDA backend.
 */
#include "internal.h"

static int no_cuda(const char *call)
{
    return pa__err(PA_ERR_NODEV, "%s: this build of parray has no CUDA backend (configure with -Dcuda=enabled "
                                 "where nvcc is installed)", call);
}

int pa_cuda_set_device(int n)
{
    (void)n;
    return no_cuda("pa_cuda_set_device");
}

int pa_cuda_device_count(void)
{
    return no_cuda("pa_cuda_device_count");
}

int pa_cuda_get_device(void)
{
    return no_cuda("pa_cuda_get_device");
}

int pa_cuda_for(const pa_dthreads *threads, pa_cuda_function fn, void **params, size_t shmem)
{
    (void)threads, (void)fn, (void)params, (void)shmem;
    return no_cuda("pa_cuda_for");
}

int pa_cuda_for_async(const pa_dthreads *threads, pa_cuda_function fn, void **params, size_t shmem, void *stream)
{
    (void)threads, (void)fn, (void)params, (void)shmem, (void)stream;
    return no_cuda("pa_cuda_for_async");
}

int pa_cuda_compile(const char *name, const char *source, const char *entry, pa_cuda_function *out)
{
    (void)name, (void)source, (void)entry, (void)out;
    return no_cuda("pa_cuda_compile");
}

int pa_cuda_map(const pa_type *data, void *ptr, const char *source, const char *fn, const void *arg,
                size_t arg_size)
{
    (void)data, (void)ptr, (void)source, (void)fn, (void)arg, (void)arg_size;
    return no_cuda("pa_cuda_map");
}

int pa_cuda_map_async(const pa_type *data, void *ptr, const char *source, const char *fn, const void *arg,
                      size_t arg_size, void *stream)
{
    (void)data, (void)ptr, (void)source, (void)fn, (void)arg, (void)arg_size, (void)stream;
    return no_cuda("pa_cuda_map_async");
}

int pa_cuda_function_info(pa_cuda_function fn, int block, size_t shmem, pa_cuda_fninfo *out)
{
    (void)fn;
    (void)block;
    (void)shmem;
    (void)out;
    return no_cuda("pa_cuda_function_info");
}
