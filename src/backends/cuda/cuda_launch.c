/*
 * parray — thread arrays on the GPU: pa_cuda_for launches a kernel (a CUfunction, from nvcc-compiled code or
 * from NVRTC) with the launch shape of a cuda thread type.
 *
 * The launch goes through the driver API's cuLaunchKernel (pa_cuda__launch in rtc_driver.c, beside the
 * run-time compiler's other driver entry points), reached through cudart's entry-point query rather than by
 * linking libcuda, so the library still loads on machines without a driver.  A CUfunction is the common
 * currency: the program's own CUDA runtime (which may be another copy than ours) gives one for its __global__
 * functions, and NVRTC-compiled modules give one for theirs; all live in the device's primary context, which
 * our runtime makes current before the launch.
 */
#include "cuda_backend.h"
#include "rtc.h"

static int for_launch(const pa_dthreads *threads, pa_cuda_function fn, void **params, size_t shmem, void *stream)
{
    if (threads == NULL || fn == NULL)
        return pa__err(PA_ERR_INVAL, "pa_cuda_for: NULL %s", threads == NULL ? "thread type" : "function");
    dim3 g = {threads->gdim[0], threads->gdim[1], threads->gdim[2]};
    dim3 b = {threads->bdim[0], threads->bdim[1], threads->bdim[2]};
    return pa_cuda__launch(fn, g, b, shmem, (cudaStream_t)stream, params, "pa_cuda_for");
}

/* The NVTX range (the backend's trace hooks, trace_nvtx.c) of pa_cuda_for: the function is a handle without a name, the grid names it. */
int pa_cuda_for_async(const pa_dthreads *threads, pa_cuda_function fn, void **params, size_t shmem, void *stream)
{
    pa__trace_push(PA__TRACE_CUDA_FOR, "pa_cuda_for_async (launch)");
    int st = for_launch(threads, fn, params, shmem, stream);
    pa__trace_pop();
    return st;
}

int pa_cuda_for(const pa_dthreads *threads, pa_cuda_function fn, void **params, size_t shmem)
{
    pa__trace_push(PA__TRACE_CUDA_FOR, "pa_cuda_for (launch and wait)");
    int st = for_launch(threads, fn, params, shmem, NULL);
    if (st == PA_OK) {
        cudaError_t e = cudaStreamSynchronize(NULL);
        st = e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "pa_cuda_for: the kernel of %lld threads", threads->n);
    }
    pa__trace_pop();
    return st;
}

/*
 * The default stream (NULL): the legacy stream of the current GPU, where kernels launched without a stream are
 * queued by this library and by the program's own CUDA runtime alike (both use the device's primary context).
 * An event recorded there is reached once the legacy stream's earlier work and, since the legacy stream waits
 * for the blocking streams, their earlier work too are done; the event's synchronisation reports a kernel's
 * fault (a trap, an illegal address) as CUDA's error.  Where the primary context is not active nothing can be
 * queued, and the wait must not create one (a host copy would otherwise cost a context and GPU memory).
 */
static int default_wait(void)
{
    int device = 0;
    cudaEvent_t ev;
    if (cudaGetDevice(&device) != cudaSuccess) {
        (void)cudaGetLastError();
        device = 0;
    }
    if (!pa_cuda__primary_active(device))
        return PA_OK;
    cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (e == cudaSuccess) {
        e = cudaEventRecord(ev, cudaStreamLegacy);
        if (e == cudaSuccess)
            e = cudaEventSynchronize(ev);
        cudaError_t d = cudaEventDestroy(ev);
        e = e != cudaSuccess ? e : d;
    }
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "waiting for the default stream of GPU %d (a kernel or copy "
                                                    "queued there failed)", device);
}

int pa_cuda__stream_wait(void *stream)
{
    if (!pa_cuda__usable())   /* nothing can be queued on a GPU that is not there */
        return stream == NULL ? PA_OK : pa_cuda__ready("a copy on a CUDA stream");
    if (stream == NULL)
        return default_wait();
    cudaError_t e = cudaStreamSynchronize((cudaStream_t)stream);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "waiting for stream %p", stream);
}

int pa_cuda_compile(const char *name, const char *source, const char *entry, pa_cuda_function *out)
{
    if (source == NULL || entry == NULL || out == NULL)
        return pa__err(PA_ERR_INVAL, "pa_cuda_compile: NULL %s", !source ? "source" : !entry ? "entry" : "output");
    pa_cuda__rtc_kernel *k;
    int st = pa_cuda__rtc_get_kernel(name ? name : entry, source, NULL, 0, entry, &k);
    if (st != PA_OK)
        return st;
    *out = (pa_cuda_function)pa_cuda__rtc_function(k);
    return PA_OK;
}
