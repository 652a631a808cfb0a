/*
 * parray — copies between pageable host memory and the GPU through a ring of pinned buffers.
 *
 * The driver's own pageable path copies through one small pinned bounce buffer on one thread (6 GB/s to the
 * device, 11 GB/s back on the lent H100, against 54 GB/s for pinned DMA).  Here the copy is cut into chunks
 * and dealt round-robin to several host threads; each thread has two pinned chunks and its own stream, so that
 * while the GPU's copy engine moves one chunk the thread fills (or drains) the other with memcpy.  With a few
 * threads the host side keeps up with the DMA, and the copy runs near the pinned rate.  The host copies use
 * streaming stores, which skip reading the destination lines first (a third of the traffic of a memcpy).
 * Measured on the lent H100 (docs/gpu-results.md): 4 threads moved 32 GB/s to the device and 21 back, 8
 * threads 45 and 34, 12 threads no more than 8; so 8 is the default.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"

typedef struct job {
    pa_cuda__ring *ring;
    char *dst;
    const char *src;
    size_t bytes, chunk, nchunks;          /* chunk: bytes per chunk (the ring's buffers hold at least that) */
    int h2d, device, nthreads;
    atomic_int failed;
    cudaError_t error;
} job;

typedef struct worker {
    job *job;
    int t;
} worker;

int pa_cuda__pipeline_threads(void)
{
    static atomic_int warned;
    /* 8 by default, fewer where ranks sharing the node leave this process fewer cores (host_share.c). */
    int share = pa__process_cpus(), def = share < 8 ? (share < 1 ? 1 : share) : 8;
    return (int)pa__env_int("PA_CUDA_PIPELINE_THREADS", 1, PA_CUDA__RING_MAX, def, NULL, &warned);
}

size_t pa_cuda__pipeline_chunk(void)
{
    static atomic_int warned;
    return (size_t)pa__env_int("PA_CUDA_PIPELINE_CHUNK_MB", 1, 64, 4, NULL, &warned) << 20;
}

static size_t chunk_len(const job *j, size_t c)
{
    size_t off = c * j->chunk;
    return j->bytes - off < j->chunk ? j->bytes - off : j->chunk;
}

/* Host to device: fill a pinned chunk, then queue its DMA; the buffer is refilled once its DMA is done. */
static cudaError_t run_h2d(job *j, int t)
{
    pa_cuda__ring *r = j->ring;
    cudaError_t e = cudaSuccess;
    for (size_t c = (size_t)t, i = 0; c < j->nchunks && e == cudaSuccess; c += (size_t)j->nthreads, i++) {
        int b = (int)(i & 1);
        size_t off = c * j->chunk, len = chunk_len(j, c);
        if (i >= 2 && (e = cudaEventSynchronize(r->done[t][b])) != cudaSuccess)
            break;
        pa__host()->stream_copy(r->buf[t][b], j->src + off, len);
        pa__host()->stream_fence();
        e = cudaMemcpyAsync(j->dst + off, r->buf[t][b], len, cudaMemcpyHostToDevice, r->stream[t]);
        if (e == cudaSuccess)
            e = cudaEventRecord(r->done[t][b], r->stream[t]);
    }
    cudaError_t s = cudaStreamSynchronize(r->stream[t]);
    return e != cudaSuccess ? e : s;
}

/* Device to host: the DMA of the next chunk runs while this thread drains the previous one with memcpy. */
static cudaError_t run_d2h(job *j, int t)
{
    pa_cuda__ring *r = j->ring;
    size_t step = (size_t)j->nthreads;
    cudaError_t e = cudaSuccess;
    if ((size_t)t >= j->nchunks)
        return cudaSuccess;
    for (size_t c = (size_t)t, i = 0; c < j->nchunks; c += step, i++) {
        int b = (int)(i & 1);
        if (i == 0) {
            e = cudaMemcpyAsync(r->buf[t][0], j->src + c * j->chunk, chunk_len(j, c), cudaMemcpyDeviceToHost,
                                r->stream[t]);
            if (e == cudaSuccess)
                e = cudaEventRecord(r->done[t][0], r->stream[t]);
        }
        size_t next = c + step;
        if (e == cudaSuccess && next < j->nchunks) {
            e = cudaMemcpyAsync(r->buf[t][b ^ 1], j->src + next * j->chunk, chunk_len(j, next),
                                cudaMemcpyDeviceToHost, r->stream[t]);
            if (e == cudaSuccess)
                e = cudaEventRecord(r->done[t][b ^ 1], r->stream[t]);
        }
        if (e == cudaSuccess)
            e = cudaEventSynchronize(r->done[t][b]);
        if (e != cudaSuccess)
            break;
        pa__host()->stream_copy(j->dst + c * j->chunk, r->buf[t][b], chunk_len(j, c));
        pa__host()->stream_fence();
    }
    cudaError_t s = cudaStreamSynchronize(r->stream[t]);
    return e != cudaSuccess ? e : s;
}

static void *work(void *arg)
{
    worker *w = arg;
    job *j = w->job;
    /* A new thread starts on GPU 0: move it to the caller's GPU first. */
    cudaError_t e = cudaSetDevice(j->device);
    if (e == cudaSuccess)
        e = j->h2d ? run_h2d(j, w->t) : run_d2h(j, w->t);
    if (e != cudaSuccess && atomic_exchange(&j->failed, 1) == 0)
        j->error = e;
    return NULL;
}

int pa_cuda__pipeline(pa_cuda__stage *sg, void *dst, const void *src, size_t bytes, int h2d)
{
    pa_cuda__ring *ring;
    pthread_t tid[PA_CUDA__RING_MAX];
    worker w[PA_CUDA__RING_MAX];
    int started = 0, st;
    size_t chunk = pa_cuda__pipeline_chunk(), nchunks = (bytes + chunk - 1) / chunk;
    int nthreads = pa_cuda__pipeline_threads();
    if (bytes == 0)
        return PA_OK;
    if ((size_t)nthreads > nchunks)
        nthreads = (int)nchunks;
    if ((st = pa_cuda__stage_ring(sg, nthreads, chunk, &ring)) != PA_OK)
        return st;
    job j = {.ring = ring, .dst = dst, .src = src, .bytes = bytes, .chunk = chunk, .nchunks = nchunks, .h2d = h2d,
             .nthreads = nthreads};
    atomic_init(&j.failed, 0);
    cudaError_t e = cudaGetDevice(&j.device);
    if (e != cudaSuccess)
        return pa_cuda__fail(e, "pipeline: cudaGetDevice");
    /* The calling thread is worker 0; the others are started for this copy only. */
    for (int t = 0; t < nthreads; t++)
        w[t] = (worker){.job = &j, .t = t};
    for (int t = 1; t < nthreads; t++, started++)
        if (pthread_create(&tid[t], NULL, work, &w[t]) != 0)
            break;
    /* Chunks of threads that could not be started are run here, after worker 0's own. */
    work(&w[0]);
    for (int t = 1; t <= started; t++)
        pthread_join(tid[t], NULL);
    for (int t = started + 1; t < nthreads; t++)
        work(&w[t]);
    if (atomic_load(&j.failed))
        return pa_cuda__fail(j.error, "pipeline: %s copy of %zu bytes through pinned chunks",
                             h2d ? "host-to-device" : "device-to-host", bytes);
    return PA_OK;
}
