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

int pa_gemm_dmem_async(const pa_type *C, void *c, const pa_type *A, const void *a, const pa_type *B,
                       const void *b, double alpha, double beta, const pa_gemm_config *config, void *stream,
                       pa_gemm_info *info)
{
    (void)C, (void)c, (void)A, (void)a, (void)B, (void)b, (void)alpha, (void)beta, (void)config, (void)stream;
    (void)info;
    return no_cuda("pa_gemm_dmem");
}

int pa_gemm_dmem(const pa_type *C, void *c, const pa_type *A, const void *a, const pa_type *B, const void *b,
                 double alpha, double beta)
{
    return pa_gemm_dmem_async(C, c, A, a, B, b, alpha, beta, NULL, NULL, NULL);
}

int pa_tile_dmem(const pa_type *outer, void *data, const pa_type *inner, int mode, const char *source,
                 const char *fn, const void *arg, size_t arg_size)
{
    (void)outer, (void)data, (void)inner, (void)mode, (void)source, (void)fn, (void)arg, (void)arg_size;
    return no_cuda("pa_tile_dmem");
}

int pa_tile_copy_dmem(const pa_type *dst_outer, void *dst, const pa_type *src_outer, const void *src,
                      const pa_type *inner, const char *source, const char *fn, const void *arg, size_t arg_size)
{
    (void)src_outer, (void)src, (void)dst_outer, (void)dst, (void)inner, (void)source, (void)fn, (void)arg;
    (void)arg_size;
    return no_cuda("pa_tile_copy_dmem");
}

int pa__tile_dmem_source(const pa_type *src_o, const pa_type *dst_o, const pa_type *inner, int mode,
                         const char *source, const char *fn, size_t words, int nt, char **out)
{
    (void)src_o, (void)dst_o, (void)inner, (void)mode, (void)source, (void)fn, (void)words, (void)nt, (void)out;
    return no_cuda("pa_tile_dmem");
}
