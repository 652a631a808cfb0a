/*
 * parray — staging buffers for GPU copies, owned by the library.
 *
 * A copy that must change the layout on the way between host and device, or go through pinned memory because
 * the host side is pageable, borrows a staging set: on one GPU, its own stream, a device buffer per slot, a
 * pinned buffer and the pipeline's ring (two pinned chunks, a stream and two events per host thread).  Each GPU
 * has PA_CUDA__STAGE_SETS sets, leased whole to one copy at a time (src/core/base/leases.h): the lowest free one,
 * so that a program copying from one thread only ever fills the first, and copies from several threads run
 * side by side, their host packing in parallel and their DMAs and kernels on their own streams, where one
 * process-wide lock had run them one at a time.  A copy that finds every set of its GPU taken waits for one.
 * Buffers are made on first use, grown when a larger copy needs more (rounded up to 2 MiB, so that slowly
 * growing copies do not reallocate each time), kept for later copies, and freed at exit.  A set's stream is
 * a blocking one: it waits for work queued earlier on the legacy default stream, as a synchronous copy must.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "leases.h"

#define ROUND ((size_t)2 << 20)

static pa_cuda__stage sets[PA__LEASE_KEYS][PA_CUDA__STAGE_SETS];
static pa__leases leases = PA__LEASES_INIT(PA_CUDA__STAGE_SETS);
static atomic_int exit_hook;

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
    if (atomic_exchange(&exit_hook, 1) == 0)
        atexit(release_at_exit);
}

int pa_cuda__stage_take(pa_cuda__stage **out)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return pa_cuda__fail(e, "staging: cudaGetDevice");
    if (dev < 0 || dev >= PA__LEASE_KEYS)
        return pa__err(PA_ERR_RANGE, "staging: GPU %d is beyond the %d this library can stage for", dev,
                       PA__LEASE_KEYS);
    int i = pa__lease_take(&leases, dev);
    pa_cuda__stage *s = &sets[dev][i];
    s->device = dev;
    if (!s->stream) {
        /* A blocking stream: it waits for work the caller queued on the legacy default stream. */
        if ((e = cudaStreamCreate(&s->stream)) != cudaSuccess) {
            s->stream = NULL;
            pa__lease_give(&leases, dev, i);
            return pa_cuda__fail(e, "staging: cudaStreamCreate");
        }
        hook_exit();
    }
    s->index = i;
    *out = s;
    return PA_OK;
}

void pa_cuda__stage_give(pa_cuda__stage *s)
{
    if (s)
        pa__lease_give(&leases, s->device, s->index);
}

int pa_cuda__stage_dev(pa_cuda__stage *s, int slot, size_t bytes, void **out)
{
    if (s->bytes[slot] < bytes) {
        size_t want = round_up(bytes);
        if (s->buf[slot])
            (void)cudaFree(s->buf[slot]);
        s->buf[slot] = NULL;
        s->bytes[slot] = 0;
        cudaError_t e = cudaMalloc(&s->buf[slot], want);
        if (e != cudaSuccess)
            return pa_cuda__fail(e, "staging: cudaMalloc of a %zu-byte device staging buffer", want);
        s->bytes[slot] = want;
        hook_exit();
    }
    *out = s->buf[slot];
    return PA_OK;
}

int pa_cuda__stage_pinned(pa_cuda__stage *s, size_t bytes, void **out)
{
    if (s->pinned_bytes < bytes) {
        size_t want = round_up(bytes);
        if (s->pinned)
            (void)cudaFreeHost(s->pinned);
        s->pinned = NULL;
        s->pinned_bytes = 0;
        cudaError_t e = cudaHostAlloc(&s->pinned, want, cudaHostAllocPortable);
        if (e != cudaSuccess)
            return pa_cuda__fail(e, "staging: cudaHostAlloc of a %zu-byte pinned staging buffer", want);
        s->pinned_bytes = want;
        hook_exit();
    }
    *out = s->pinned;
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

int pa_cuda__stage_ring(pa_cuda__stage *s, int nthreads, size_t chunk, pa_cuda__ring **out)
{
    pa_cuda__ring *r = &s->ring;
    if (s->ring_ready && r->nthreads >= nthreads && r->chunk >= chunk) {
        *out = r;
        return PA_OK;
    }
    ring_free(r);
    s->ring_ready = 0;
    r->nthreads = nthreads;
    r->chunk = chunk;
    hook_exit();
    cudaError_t e = cudaSuccess;
    for (int t = 0; t < nthreads && e == cudaSuccess; t++) {
        e = cudaStreamCreate(&r->stream[t]);   /* blocking, as the set's own */
        for (int b = 0; b < 2 && e == cudaSuccess; b++) {
            e = cudaHostAlloc(&r->buf[t][b], chunk, cudaHostAllocPortable);
            if (e == cudaSuccess)
                e = cudaEventCreateWithFlags(&r->done[t][b], cudaEventDisableTiming);
        }
    }
    if (e != cudaSuccess) {
        int st = pa_cuda__fail(e, "staging: making the pipeline's ring of %d x 2 pinned chunks of %zu bytes",
                               nthreads, chunk);
        ring_free(r);
        return st;
    }
    s->ring_ready = 1;
    *out = r;
    return PA_OK;
}

size_t pa_cuda__stage_held(void)
{
    size_t n = 0;
    pthread_mutex_lock(&leases.lock);
    for (int d = 0; d < PA__LEASE_KEYS; d++)
        for (int i = 0; i < PA_CUDA__STAGE_SETS; i++) {
            const pa_cuda__stage *s = &sets[d][i];
            n += s->pinned_bytes;
            for (int k = 0; k < PA_CUDA__STAGE_SLOTS; k++)
                n += s->bytes[k];
            if (s->ring_ready)
                n += (size_t)s->ring.nthreads * 2 * s->ring.chunk;
        }
    pthread_mutex_unlock(&leases.lock);
    return n;
}

void pa_cuda__stage_stats(int *used, int *peak, long *waits)
{
    *used = 0;
    pthread_mutex_lock(&leases.lock);
    for (int d = 0; d < PA__LEASE_KEYS; d++)
        for (int i = 0; i < PA_CUDA__STAGE_SETS; i++)
            *used += sets[d][i].stream != NULL;
    pthread_mutex_unlock(&leases.lock);
    pa__lease_stats(&leases, peak, waits);
}

/* Frees the sets no copy holds now (at exit: all of them), under the leases' lock so that none is taken
 * meanwhile. */
void pa_cuda__stage_release(void)
{
    pthread_mutex_lock(&leases.lock);
    int cur = -1;
    if (cudaGetDevice(&cur) != cudaSuccess)
        cur = -1;
    for (int d = 0; d < PA__LEASE_KEYS; d++)
        for (int i = 0; i < PA_CUDA__STAGE_SETS; i++) {
            pa_cuda__stage *s = &sets[d][i];
            int any = s->ring_ready || s->stream || s->pinned;
            for (int k = 0; k < PA_CUDA__STAGE_SLOTS; k++)
                any |= s->buf[k] != NULL;
            if (!any || leases.taken[d][i] || cudaSetDevice(d) != cudaSuccess)
                continue;
            for (int k = 0; k < PA_CUDA__STAGE_SLOTS; k++) {
                if (s->buf[k]) (void)cudaFree(s->buf[k]);
                s->buf[k] = NULL;
                s->bytes[k] = 0;
            }
            ring_free(&s->ring);
            s->ring_ready = 0;
            if (s->pinned) (void)cudaFreeHost(s->pinned);
            s->pinned = NULL;
            s->pinned_bytes = 0;
            if (s->stream) (void)cudaStreamDestroy(s->stream);
            s->stream = NULL;
        }
    if (cur >= 0)
        (void)cudaSetDevice(cur);
    (void)cudaGetLastError();
    pthread_mutex_unlock(&leases.lock);
}
