/* parray — the matrix module's GPU side in builds without the CUDA backend: every call says so. */
#include "matrix_internal.h"

static int nodev(void)
{
    return pa__err(PA_ERR_NODEV, "matrix in dmem: this build has no CUDA backend");
}

int pa__matrix_gpu_memcpy(void *dst, const void *src, size_t bytes, int to_device)
{
    return nodev();
}

int pa__matrix_gpu_zero2d(void *dst, size_t pitch, size_t len, size_t count, int queue)
{
    return nodev();
}

int pa__matrix_gpu_wait(void)
{
    return nodev();
}

int pa__matrix_gpu_gemm(const pa_matrix *a, const pa_matrix *ha, const pa_matrix *b, const pa_matrix *hb,
                        pa_matrix *c)
{
    return nodev();
}

char *pa__matrix_gemm_source(int elm, int64_t m, int64_t n, int64_t k)
{
    nodev();
    return NULL;
}
