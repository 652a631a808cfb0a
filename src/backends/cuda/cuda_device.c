/*
 * parray — the CUDA backend's device handling: whether a GPU is usable at all, device selection, and the one
 * place where CUDA errors become parray statuses.
 *
 * cudart is linked statically and loads the driver on its first call, so a machine without a driver or a GPU
 * runs everything host-side; the first CUDA call there returns cudaErrorInsufficientDriver or
 * cudaErrorNoDevice, which is reported as PA_ERR_NODEV with CUDA's own words.  The probe runs once.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "cuda_backend.h"

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int probe_count;                  /* GPUs found, 0 when none */
static char probe_why[256];              /* why none, when probe_count is 0 */

static int is_nodev(cudaError_t e)
{
    switch (e) {
    case cudaErrorInsufficientDriver:
    case cudaErrorNoDevice:
    case cudaErrorInitializationError:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorStubLibrary:
    case cudaErrorDevicesUnavailable:
        return 1;
    default:
        return 0;
    }
}

int pa_cuda__fail(cudaError_t e, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    /* Clear the non-sticky error state so that the next call does not see this failure again. */
    (void)cudaGetLastError();
    int status = is_nodev(e) ? PA_ERR_NODEV
               : e == cudaErrorMemoryAllocation ? PA_ERR_NOMEM
               : e == cudaErrorInvalidDevice ? PA_ERR_RANGE
               : PA_ERR_SYS;
    return pa__err(status, "%s: CUDA error %d (%s): %s", what, (int)e, cudaGetErrorName(e), cudaGetErrorString(e));
}

static void probe(void)
{
    int n = 0;
    cudaError_t e = cudaSuccess;
    if (!pa__backend_on(&pa__backend_cuda)) {
        snprintf(probe_why, sizeof probe_why, "the CUDA backend is switched off (PA_BACKENDS)");
        probe_count = 0;
        return;
    }
    e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        snprintf(probe_why, sizeof probe_why, "no usable GPU: cudaGetDeviceCount failed with CUDA error %d (%s): %s",
                 (int)e, cudaGetErrorName(e), cudaGetErrorString(e));
        (void)cudaGetLastError();
        n = 0;
    } else if (n == 0) {
        snprintf(probe_why, sizeof probe_why, "no usable GPU: the CUDA driver reports 0 devices");
    }
    probe_count = n;
}

int pa_cuda__usable(void)
{
    pthread_once(&probe_once, probe);
    return probe_count > 0;
}

int pa_cuda__probe(char *why, size_t len)
{
    if (pa_cuda__usable())
        return 1;
    snprintf(why, len, "%s", probe_why);
    return 0;
}

int pa_cuda__device_count(void)
{
    pa_cuda__usable();
    return probe_count;
}

int pa_cuda__ready(const char *what)
{
    if (pa_cuda__usable())
        return PA_OK;
    return pa__err(PA_ERR_NODEV, "%s: %s", what, probe_why);
}

int pa_cuda_device_count(void)
{
    int st = pa_cuda__ready("pa_cuda_device_count");
    return st != PA_OK ? st : probe_count;
}

int pa_cuda_set_device(int n)
{
    int st = pa_cuda__ready("pa_cuda_set_device");
    if (st != PA_OK)
        return st;
    if (n < 0 || n >= probe_count)
        return pa__err(PA_ERR_RANGE, "pa_cuda_set_device(%d): this machine has %d GPU%s (0..%d)", n, probe_count,
                       probe_count == 1 ? "" : "s", probe_count - 1);
    cudaError_t e = cudaSetDevice(n);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "pa_cuda_set_device(%d)", n);
}

int pa_cuda_get_device(void)
{
    int st = pa_cuda__ready("pa_cuda_get_device"), dev = 0;
    if (st != PA_OK)
        return st;
    cudaError_t e = cudaGetDevice(&dev);
    return e == cudaSuccess ? dev : pa_cuda__fail(e, "pa_cuda_get_device");
}
