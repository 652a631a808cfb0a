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
#else
void pa__stream_copy(char *d, const char *s, size_t n)
{
    memcpy(d, s, n);
}

void pa__stream_fence(void)
{
}
#endif

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
        do {
            pa__stream_copy(dst + o.doff, src + o.soff, run);
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
