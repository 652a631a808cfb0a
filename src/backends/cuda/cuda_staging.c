/*
 * parray — staging buffers for GPU copies, owned by the library.
 *
 * A copy that must change the layout on the way between host and device, or go through pinned memory because
 * the host side is pageable, borrows buffers from here: a device buffer per slot and device, a pinned buffer,
 * and the pipeline's ring (two pinned chunks, a stream and two events per host thread).  Buffers are made on
 * first use, grown when a larger copy needs more (rounded up to 2 MiB, so that slowly growing copies do not
 * reallocate each time), kept for later copies, and freed at exit.  One mutex serialises the copies that use
 * them; staged copies are long, so the lock is not the bottleneck.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"

#define MAX_DEVICES 64
#define ROUND ((size_t)2 << 20)

typedef struct dev_stage {
    void *buf[PA_CUDA__STAGE_SLOTS];
    size_t bytes[PA_CUDA__STAGE_SLOTS];
    pa_cuda__ring ring;
    int ring_ready;
} dev_stage;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static dev_stage devs[MAX_DEVICES];
static void *pinned;
static size_t pinned_bytes;
static int exit_hook;

void pa_cuda__stage_lock(void)
{
    pthread_mutex_lock(&lock);
}

void pa_cuda__stage_unlock(void)
{
    pthread_mutex_unlock(&lock);
}

static size_t round_up(size_t n)
{
    return (n + ROUND - 1) / ROUND * ROUND;
}

static void release_at_exit(void)
{
    pa_cuda__stage_release();
}

static void hook_exit(void)
{
    if (!exit_hook) {
        exit_hook = 1;
        atexit(release_at_exit);
    }
}

static int current(dev_stage **out)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return pa_cuda__fail(e, "staging: cudaGetDevice");
    if (dev < 0 || dev >= MAX_DEVICES)
        return pa__err(PA_ERR_RANGE, "staging: GPU %d is beyond the %d this library can stage for", dev,
                       MAX_DEVICES);
    *out = &devs[dev];
    return PA_OK;
}

int pa_cuda__stage_dev(int slot, size_t bytes, void **out)
{
    dev_stage *d = NULL;
    int st = current(&d);
    if (st != PA_OK)
        return st;
    if (d->bytes[slot] < bytes) {
        size_t want = round_up(bytes);
        if (d->buf[slot])
            (void)cudaFree(d->buf[slot]);
        d->buf[slot] = NULL;
        d->bytes[slot] = 0;
        cudaError_t e = cudaMalloc(&d->buf[slot], want);
        if (e != cudaSuccess)
            return pa_cuda__fail(e, "staging: cudaMalloc of a %zu-byte device staging buffer", want);
        d->bytes[slot] = want;
        hook_exit();
    }
    *out = d->buf[slot];
    return PA_OK;
}

int pa_cuda__stage_pinned(size_t bytes, void **out)
{
    if (pinned_bytes < bytes) {
        size_t want = round_up(bytes);
        if (pinned)
            (void)cudaFreeHost(pinned);
        pinned = NULL;
        pinned_bytes = 0;
        cudaError_t e = cudaHostAlloc(&pinned, want, cudaHostAllocPortable);
        if (e != cudaSuccess)
            return pa_cuda__fail(e, "staging: cudaHostAlloc of a %zu-byte pinned staging buffer", want);
        pinned_bytes = want;
        hook_exit();
    }
    *out = pinned;
    return PA_OK;
}

static void ring_free(pa_cuda__ring *r)
{
    for (int t = 0; t < r->nthreads; t++) {
        for (int b = 0; b < 2; b++) {
            if (r->buf[t][b]) (void)cudaFreeHost(r->buf[t][b]);
            if (r->done[t][b]) (void)cudaEventDestroy(r->done[t][b]);
        }
        if (r->stream[t]) (void)cudaStreamDestroy(r->stream[t]);
    }
    memset(r, 0, sizeof *r);
}

int pa_cuda__stage_ring(int nthreads, size_t chunk, pa_cuda__ring **out)
{
    dev_stage *d = NULL;
    int st = current(&d);
    if (st != PA_OK)
        return st;
    pa_cuda__ring *r = &d->ring;
    if (d->ring_ready && r->nthreads >= nthreads && r->chunk >= chunk) {
        *out = r;
        return PA_OK;
    }
    ring_free(r);
    d->ring_ready = 0;
    r->nthreads = nthreads;
    r->chunk = chunk;
    hook_exit();
    cudaError_t e = cudaSuccess;
    for (int t = 0; t < nthreads && e == cudaSuccess; t++) {
        /* A blocking stream: it waits for work the caller queued on the legacy default stream. */
        e = cudaStreamCreate(&r->stream[t]);
        for (int b = 0; b < 2 && e == cudaSuccess; b++) {
            e = cudaHostAlloc(&r->buf[t][b], chunk, cudaHostAllocPortable);
            if (e == cudaSuccess)
                e = cudaEventCreateWithFlags(&r->done[t][b], cudaEventDisableTiming);
        }
    }
    if (e != cudaSuccess)
        goto fail;
    d->ring_ready = 1;
    *out = r;
    return PA_OK;
fail:
    st = pa_cuda__fail(e, "staging: making the pipeline's ring of %d x 2 pinned chunks of %zu bytes", nthreads,
                       chunk);
    ring_free(r);
    return st;
}

size_t pa_cuda__stage_held(void)
{
    size_t n = pinned_bytes;
    for (int i = 0; i < MAX_DEVICES; i++) {
        for (int s = 0; s < PA_CUDA__STAGE_SLOTS; s++)
            n += devs[i].bytes[s];
        if (devs[i].ring_ready)
            n += (size_t)devs[i].ring.nthreads * 2 * devs[i].ring.chunk;
    }
    return n;
}

void pa_cuda__stage_release(void)
{
    pthread_mutex_lock(&lock);
    int cur = -1;
    if (cudaGetDevice(&cur) != cudaSuccess)
        cur = -1;
    for (int i = 0; i < MAX_DEVICES; i++) {
        dev_stage *d = &devs[i];
        int any = d->ring_ready;
        for (int s = 0; s < PA_CUDA__STAGE_SLOTS; s++)
            any |= d->buf[s] != NULL;
        if (!any || cudaSetDevice(i) != cudaSuccess)
            continue;
        for (int s = 0; s < PA_CUDA__STAGE_SLOTS; s++) {
            if (d->buf[s]) (void)cudaFree(d->buf[s]);
            d->buf[s] = NULL;
            d->bytes[s] = 0;
        }
        ring_free(&d->ring);
        d->ring_ready = 0;
    }
    if (pinned) (void)cudaFreeHost(pinned);
    pinned = NULL;
    pinned_bytes = 0;
    if (cur >= 0)
        (void)cudaSetDevice(cur);
    (void)cudaGetLastError();
    pthread_mutex_unlock(&lock);
}
