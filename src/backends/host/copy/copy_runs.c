/*
 * parray — host copies made of memcpy calls: one call when both sides are a single contiguous run, one call
 * per run when the innermost mode is contiguous on both sides and long enough that the call's fixed cost is
 * small against the bytes it moves (the crossover against the element loops is in copy_strategies.c).
 */
#include <stdint.h>
#include <string.h>

#include "copy_host.h"

/* The planner merged everything into one mode with unit strides; a thread's slice keeps that form. */
int pa__kern_memcpy(const pa__copy_shape *s, char *dst, const char *src)
{
    memcpy(dst + pa__bytes(s->dst_base, s->elm), src + pa__bytes(s->src_base, s->elm),
           (size_t)pa__bytes(s->size[0], s->elm));
    return PA_OK;
}

int pa__kern_memcpy_nt(const pa__copy_shape *s, char *dst, const char *src)
{
    pa__stream_copy(dst + pa__bytes(s->dst_base, s->elm), src + pa__bytes(s->src_base, s->elm),
                    (size_t)pa__bytes(s->size[0], s->elm));
    pa__stream_fence();
    return PA_OK;
}

#ifdef __SSE2__
#include <emmintrin.h>

/*
 * Copies n bytes with streaming stores: the head up to the destination's next 16-byte boundary and the tail by
 * memcpy, the body 64 bytes (a line) at a time.  glibc's memcpy does the same above its non-temporal
 * threshold, but only for one call larger than that; a copy made of many rows never reaches it per call.
 */
void pa__stream_copy(char *d, const char *s, size_t n)
{
    size_t head = (16 - (uintptr_t)d % 16) % 16;
    if (head > n) head = n;
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32)), e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
    memcpy(d, s, n);
}

void pa__stream_fence(void)
{
    _mm_sfence();
}

/*
 * The same for a copy that runs on one thread: the body is moved up to 16 KiB at a time as four interleaved
 * streams of up to 4 KiB, each prefetched a few lines ahead.  One thread alone keeps too few lines in flight to
 * reach the memory's rate with one stream (bench/host_probe on the 16-core host: 7.1 GB/s against glibc's 9.2,
 * which copies large blocks this way); with several threads the plain loop above is the faster one (62 against
 * 43 GB/s on 16 threads), so the planner uses this only for copies it runs on one thread.  What is left after
 * the whole 16 KiB blocks (from 1 KiB on) is cut into four equal streams too: a 32000-byte row, as in the 8000^2
 * window of bench/copy_host, had 15616 of its bytes going through the plain loop.
 */
void pa__stream_copy_1t(char *d, const char *s, size_t n)
{
    size_t head = (64 - (uintptr_t)d % 64) % 64;
    if (head > n) head = n;
    pa__stream_copy(d, s, head);
    d += head, s += head, n -= head;
    while (n >= 1024) {
        size_t q = n >= 16384 ? 4096 : n / 256 * 64;   /* bytes of each of the four streams */
        for (size_t off = 0; off < q; off += 64) {
            for (size_t pg = 0; pg < 4 * q; pg += q)
                _mm_prefetch(s + pg + off + 256, _MM_HINT_T0);
            for (size_t pg = 0; pg < 4 * q; pg += q) {
                const char *a = s + pg + off;
                char *o = d + pg + off;
                __m128i x0 = _mm_loadu_si128((const __m128i *)a), x1 = _mm_loadu_si128((const __m128i *)(a + 16));
                __m128i x2 = _mm_loadu_si128((const __m128i *)(a + 32)), x3 = _mm_loadu_si128((const __m128i *)(a + 48));
                _mm_stream_si128((__m128i *)o, x0);
                _mm_stream_si128((__m128i *)(o + 16), x1);
                _mm_stream_si128((__m128i *)(o + 32), x2);
                _mm_stream_si128((__m128i *)(o + 48), x3);
            }
        }
        d += 4 * q, s += 4 * q, n -= 4 * q;
    }
    pa__stream_copy(d, s, n);
}
#else
void pa__stream_copy_1t(char *d, const char *s, size_t n)
{
    memcpy(d, s, n);
}

void pa__stream_copy(char *d, const char *s, size_t n)
{
    memcpy(d, s, n);
}

void pa__stream_fence(void)
{
}
#endif

/* nt: 0 ordinary stores, 1 streaming stores, 2 streaming stores for a copy on one thread. */
static int runs(const pa__copy_shape *s, char *dst, const char *src, int nt)
{
    int outer[PA__MAX_MODES];
    int n = s->nmodes - 1;
    for (int m = 0; m < n; m++)
        outer[m] = m;
    pa__odo o;
    pa__odo_init(&o, s, outer, n);
    size_t run = (size_t)pa__bytes(s->size[n], s->elm);
    if (nt) {
        void (*copy)(char *, const char *, size_t) = nt == 2 ? pa__stream_copy_1t : pa__stream_copy;
        do {
            copy(dst + o.doff, src + o.soff, run);
        } while (pa__odo_next(&o));
        pa__stream_fence();   /* order the streamed stores before the copy is reported done */
        return PA_OK;
    }
    do {
        memcpy(dst + o.doff, src + o.soff, run);
    } while (pa__odo_next(&o));
    return PA_OK;
}

int pa__kern_memcpy_runs(const pa__copy_shape *s, char *dst, const char *src)
{
    return runs(s, dst, src, 0);
}

int pa__kern_memcpy_runs_nt(const pa__copy_shape *s, char *dst, const char *src)
{
    return runs(s, dst, src, 1);
}

int pa__kern_memcpy_runs_nt1(const pa__copy_shape *s, char *dst, const char *src)
{
    return runs(s, dst, src, 2);
}
