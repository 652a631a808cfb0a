/*
 * parray — the GPU tile calls in a build without the CUDA backend: generation works (tilegen.c), compiling
 * and running say that the backend is missing.
 */
#include "tiles_internal.h"

static int no_cuda(const char *what)
{
    return pa__err(PA_ERR_NODEV, "%s: parray was built without the CUDA backend", what);
}

int pa_tilegen_compile(const pa_tilegen *g, const char *name, const char *kernels, int arch)
{
    (void)g, (void)name, (void)kernels, (void)arch;
    return no_cuda("pa_tilegen_compile");
}

int pa_tilegen_function(const pa_tilegen *g, const char *name, const char *kernels, const char *entry,
                        pa_cuda_function *out)
{
    (void)g, (void)name, (void)kernels, (void)entry, (void)out;
    return no_cuda("pa_tilegen_function");
}
