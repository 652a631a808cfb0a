/*
 * parray — copies between pageable host memory and the GPU through a ring of pinned buffers.
 *
 * The driver's own pageable path copies through one small pinned bounce buffer on one thread (6 GB/s to the
 * device, 11 GB/s back on the lent H100, against 54 GB/s for pinned DMA).  Here the copy is cut into chunks
 * moved by several host threads; each thread has two pinned chunks and its own stream, so that while the GPU's
 * copy engine moves one chunk the thread fills (or drains) the other.  With a few threads the host side keeps
 * up with the DMA, and the copy runs near the pinned rate.  The host copies use streaming stores, which skip
 * reading the destination lines first (a third of the traffic of a memcpy).  To the device, chunks are dealt
 * round-robin; back from it, taken as threads get to them, in sizes that shrink towards the end (run_d2h).
 * Measured on the lent H100 (docs/gpu-results.md, 2026-11-26): 8 threads 32-40 GB/s to the device and 46-48
 * back; 12 and 16 threads no faster back, so 8 is the default.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"

typedef struct job {
    pa_cuda__ring *ring;
    char *dst;
    const char *src;
    size_t bytes, chunk, nchunks;          /* chunk: bytes per chunk (the ring's buffers hold at least that) */
    atomic_size_t next;                    /* device to host: the first byte no thread has taken yet */
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
    static atomic_int warned, warned_kb;
    long kb = pa__env_int("PA_CUDA_PIPELINE_CHUNK_KB", 64, 65536, 0, "the MiB setting", &warned_kb);
    if (kb > 0)
        return (size_t)kb << 10;
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

/*
 * Device to host.  A thread cannot start until the copy engine has delivered its first chunk, and the engine
 * serves the queued DMAs one after another; so the chunks are not dealt round-robin (the thread whose first chunk
 * came last would also finish last, a whole chunk's drain after the others) but taken from a shared offset as
 * the threads get to them, and their size shrinks towards the end of the copy (a share of what is left, as
 * OpenMP's guided schedule does) so that the threads finish together.  A thread's first chunk is a quarter of
 * the full size, so that every thread has something to drain soon after the start, and a thread queues its next
 * DMA only once its current chunk has arrived, so that the first chunks of all threads come first.
 */
static size_t take(job *j, int first, size_t *len)
{
    size_t off = atomic_load(&j->next), lo = j->chunk / 8, want;
    do {
        if (off >= j->bytes)
            return SIZE_MAX;
        want = (j->bytes - off) / (2 * (size_t)j->nthreads);
        want = (want + 4095) / 4096 * 4096;
        want = want < lo ? lo : want > j->chunk ? j->chunk : want;
        if (first && want > j->chunk / 4)
            want = j->chunk / 4;
        if (want > j->bytes - off)
            want = j->bytes - off;
    } while (!atomic_compare_exchange_weak(&j->next, &off, off + want));
    *len = want;
    return off;
}

static cudaError_t fetch(job *j, int t, int b, size_t off, size_t len)
{
    pa_cuda__ring *r = j->ring;
    cudaError_t e = cudaMemcpyAsync(r->buf[t][b], j->src + off, len, cudaMemcpyDeviceToHost, r->stream[t]);
    return e != cudaSuccess ? e : cudaEventRecord(r->done[t][b], r->stream[t]);
}

static cudaError_t run_d2h(job *j, int t)
{
    pa_cuda__ring *r = j->ring;
    size_t len = 0, nlen = 0, off = take(j, 1, &len), noff;
    cudaError_t e = off == SIZE_MAX ? cudaSuccess : fetch(j, t, 0, off, len);
    for (int b = 0; off != SIZE_MAX && e == cudaSuccess; b ^= 1, off = noff, len = nlen) {
        if ((e = cudaEventSynchronize(r->done[t][b])) != cudaSuccess)
            break;
        noff = take(j, 0, &nlen);
        if (noff != SIZE_MAX && (e = fetch(j, t, b ^ 1, noff, nlen)) != cudaSuccess)
            break;
        pa__host()->stream_copy(j->dst + off, r->buf[t][b], len);
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
    atomic_init(&j.next, 0);
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
