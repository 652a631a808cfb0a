/*
 * parray — the CUDA backend's asynchronous work for code above the core (backends.h's pa__async_ops): streams
 * that do not wait for the legacy default stream, events without timing, copies queued on a stream, and
 * page-locking of host memory the library did not allocate (cudaHostRegister, portable: every GPU's copies
 * from it run at the bus's rate).  The SSB engine's streaming mode and several GPUs use them (src/query/).
 */
#include "cuda_backend.h"

static int ready(const char *what)
{
    return pa_cuda__usable() ? PA_OK : pa_cuda__ready(what);
}

static int stream_new(void **stream)
{
    cudaStream_t s;
    int st = ready("a CUDA stream");
    if (st != PA_OK)
        return st;
    cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (e != cudaSuccess)
        return pa_cuda__fail(e, "creating a CUDA stream");
    *stream = s;
    return PA_OK;
}

static void stream_free(void *stream)
{
    if (stream && cudaStreamDestroy((cudaStream_t)stream) != cudaSuccess)
        (void)cudaGetLastError();
}

static int event_new(void **event)
{
    cudaEvent_t ev;
    int st = ready("a CUDA event");
    if (st != PA_OK)
        return st;
    cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (e != cudaSuccess)
        return pa_cuda__fail(e, "creating a CUDA event");
    *event = ev;
    return PA_OK;
}

static void event_free(void *event)
{
    if (event && cudaEventDestroy((cudaEvent_t)event) != cudaSuccess)
        (void)cudaGetLastError();
}

static int record(void *event, void *stream)
{
    cudaError_t e = cudaEventRecord((cudaEvent_t)event, stream ? (cudaStream_t)stream : cudaStreamLegacy);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "recording an event on stream %p", stream);
}

static int wait_event(void *stream, void *event)
{
    cudaError_t e = cudaStreamWaitEvent(stream ? (cudaStream_t)stream : cudaStreamLegacy, (cudaEvent_t)event, 0);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "stream %p waiting for an event", stream);
}

static int copy(void *dst, const void *src, size_t bytes, void *stream)
{
    if (bytes == 0)
        return PA_OK;
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream ? (cudaStream_t)stream : cudaStreamLegacy);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "queuing a copy of %zu bytes on stream %p", bytes, stream);
}

static int host_lock(void *p, size_t bytes, int *mine)
{
    *mine = 0;
    int st = ready("page-locking host memory");
    if (st != PA_OK || bytes == 0)
        return st;
    cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterPortable);
    if (e == cudaErrorHostMemoryAlreadyRegistered) {
        (void)cudaGetLastError();
        return PA_OK;
    }
    if (e != cudaSuccess)
        return pa_cuda__fail(e, "page-locking %zu bytes of host memory at %p", bytes, p);
    *mine = 1;
    return PA_OK;
}

static int host_unlock(void *p)
{
    cudaError_t e = cudaHostUnregister(p);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "unlocking the host memory at %p", p);
}

static int mem_info(size_t *free_bytes, size_t *total_bytes)
{
    int st = ready("the GPU's memory");
    if (st != PA_OK)
        return st;
    cudaError_t e = cudaMemGetInfo(free_bytes, total_bytes);
    return e == cudaSuccess ? PA_OK : pa_cuda__fail(e, "asking for the GPU's free memory");
}

const pa__async_ops pa_cuda__async_ops = {
    .stream_new = stream_new,
    .stream_free = stream_free,
    .event_new = event_new,
    .event_free = event_free,
    .record = record,
    .wait = wait_event,
    .copy = copy,
    .host_lock = host_lock,
    .host_unlock = host_unlock,
    .mem_info = mem_info,
};
