/*
 * parray — the CUDA streams and events of the NCCL route: a distributed copy packs on one stream, transfers on
 * another (of the highest priority) and unpacks on a third, ordered chunk by chunk by events, so that the three overlap.  The streams do
 * not wait for the legacy default stream by themselves (cudaStreamNonBlocking): the route orders them after the
 * caller's earlier work with an event recorded there, and the host waits for them at the end.
 */
#include "nccl_backend.h"

int pa_nccl__stream_new(void **stream, int urgent)
{
    cudaStream_t s = NULL;
    int least = 0, greatest = 0;
    /* the transfers' stream first: NCCL's few blocks are scheduled before the next chunk's pack kernel fills
     * the GPU, so that packing never holds the transfers up */
    cudaDeviceGetStreamPriorityRange(&least, &greatest);
    cudaError_t e = cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, urgent ? greatest : least);
    *stream = s;
    return e == cudaSuccess ? PA_OK : pa_nccl__cuda_fail(e, "cudaStreamCreateWithFlags");
}

void pa_nccl__stream_free(void *stream)
{
    if (stream)
        cudaStreamDestroy((cudaStream_t)stream);
}

int pa_nccl__event_new(void **event)
{
    cudaEvent_t ev = NULL;
    cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    *event = ev;
    return e == cudaSuccess ? PA_OK : pa_nccl__cuda_fail(e, "cudaEventCreateWithFlags");
}

void pa_nccl__event_free(void *event)
{
    if (event)
        cudaEventDestroy((cudaEvent_t)event);
}

int pa_nccl__record(void *event, void *stream)
{
    cudaError_t e = cudaEventRecord((cudaEvent_t)event, stream ? (cudaStream_t)stream : cudaStreamLegacy);
    return e == cudaSuccess ? PA_OK : pa_nccl__cuda_fail(e, "cudaEventRecord");
}

int pa_nccl__wait(void *stream, void *event)
{
    cudaError_t e = cudaStreamWaitEvent(stream ? (cudaStream_t)stream : cudaStreamLegacy, (cudaEvent_t)event, 0);
    return e == cudaSuccess ? PA_OK : pa_nccl__cuda_fail(e, "cudaStreamWaitEvent");
}

int pa_nccl__sync(void *stream)
{
    cudaError_t e = cudaStreamSynchronize(stream ? (cudaStream_t)stream : cudaStreamLegacy);
    return e == cudaSuccess ? PA_OK : pa_nccl__cuda_fail(e, "waiting for the distributed copy's stream");
}

int pa_nccl__copy(void *dst, const void *src, size_t bytes, void *stream)
{
    if (bytes == 0)
        return PA_OK;
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                                    stream ? (cudaStream_t)stream : cudaStreamLegacy);
    return e == cudaSuccess ? PA_OK : pa_nccl__cuda_fail(e, "cudaMemcpyAsync (device to device)");
}
