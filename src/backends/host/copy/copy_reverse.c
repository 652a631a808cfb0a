/*
 * parray — host copies that reverse the order of elements: the innermost mode has stride 1 on one side and -1
 * on the other (NumPy's a[::-1], a type's step(-1)).  The element loop moves one element per iteration; here
 * each 16-byte vector is loaded, its elements reversed in a register (elements of 1, 2, 4 or 8 bytes), and
 * stored, with the source prefetched ahead of the backward reads, so that a reversal runs at memcpy-class
 * speed (bench/copy_host, "reversal float").  Large
 * destinations are written with streaming stores, as memcpy does.  Outer modes go through the odometer.
 */
#include <string.h>

#include "copy_host.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef unsigned char v16u8 __attribute__((vector_size(16)));

/* The byte order that reverses the elements of a 16-byte vector, for elements of 1, 2, 4 and 8 bytes. */
#define FLIP1 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
#define FLIP2 14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1
#define FLIP4 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3
#define FLIP8 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7

#if defined(__SSE2__)
#define STORE_NT(d, v) _mm_stream_si128((__m128i *)(d), (__m128i)(v))
#define FENCE() _mm_sfence()
#else
#define STORE_NT(d, v) memcpy((d), &(v), 16)
#define FENCE() ((void)0)
#endif
#define STORE(d, v) memcpy((d), &(v), 16)
/* A vector's bytes in the order given (GCC's and clang's spellings). */
#if defined(__clang__)
#define SHUF(v, ...) __builtin_shufflevector((v), (v), __VA_ARGS__)
#else
#define SHUF(v, ...) __builtin_shuffle((v), (v16u8){__VA_ARGS__})
#endif

/*
 * d[i] = s[-i] for i < n elements of E bytes (s points at the element read first, the highest), 64 bytes per
 * step; single elements until the destination is 16-byte aligned (streaming stores need it) and at the end.
 * Reading backwards, the hardware prefetchers fall behind: each step asks for the line 4 KiB ahead (on the
 * 64M-float reversal: 0.55 of memcpy without, about 0.9 with).
 */
#define DEF_REVERSE(E, NAME, ST)                                                                          \
    static void NAME(char *d, const char *s, int64_t n)                                                   \
    {                                                                                                     \
        const int64_t per = 16 / E;                                                                       \
        int64_t i = 0;                                                                                    \
        for (; i < n && ((uintptr_t)(d + i * E) & 15); i++)                                              \
            memcpy(d + i * E, s - i * E, E);                                                              \
        for (; i + 4 * per <= n; i += 4 * per) {                                                          \
            v16u8 v0, v1, v2, v3;                                                                         \
            __builtin_prefetch(s - i * E - 4096);                                                         \
            memcpy(&v0, s - (i + per - 1) * E, 16);                                                       \
            memcpy(&v1, s - (i + 2 * per - 1) * E, 16);                                                   \
            memcpy(&v2, s - (i + 3 * per - 1) * E, 16);                                                   \
            memcpy(&v3, s - (i + 4 * per - 1) * E, 16);                                                   \
            v0 = SHUF(v0, FLIP##E);                                                 \
            v1 = SHUF(v1, FLIP##E);                                                 \
            v2 = SHUF(v2, FLIP##E);                                                 \
            v3 = SHUF(v3, FLIP##E);                                                 \
            ST(d + i * E, v0);                                                                            \
            ST(d + (i + per) * E, v1);                                                                    \
            ST(d + (i + 2 * per) * E, v2);                                                                \
            ST(d + (i + 3 * per) * E, v3);                                                                \
        }                                                                                                 \
        for (; i < n; i++)                                                                                \
            memcpy(d + i * E, s - i * E, E);                                                              \
    }
DEF_REVERSE(1, rev1, STORE)
DEF_REVERSE(2, rev2, STORE)
DEF_REVERSE(4, rev4, STORE)
DEF_REVERSE(8, rev8, STORE)
DEF_REVERSE(1, rev1_nt, STORE_NT)
DEF_REVERSE(2, rev2_nt, STORE_NT)
DEF_REVERSE(4, rev4_nt, STORE_NT)
DEF_REVERSE(8, rev8_nt, STORE_NT)

typedef void (*rev_fn)(char *d, const char *s, int64_t n);

static rev_fn rev_for(size_t e, int nt)
{
    switch (e) {
    case 1: return nt ? rev1_nt : rev1;
    case 2: return nt ? rev2_nt : rev2;
    case 4: return nt ? rev4_nt : rev4;
    default: return nt ? rev8_nt : rev8;
    }
}

static int kern(const pa__copy_shape *s, char *dst, const char *src, int nt)
{
    int in = s->nmodes - 1, outer[PA__MAX_MODES];
    int64_t n = s->size[in], e = (int64_t)s->elm;   /* 1, 2, 4 or 8 (the probe's condition) */
    /* Written backwards and read forwards is the same run seen from its other end. */
    int64_t dshift = s->dst_stride[in] < 0 ? -(n - 1) * e : 0, sshift = s->dst_stride[in] < 0 ? (n - 1) * e : 0;
    for (int m = 0; m < in; m++)
        outer[m] = m;
    pa__odo o;
    rev_fn fn = rev_for(s->elm, nt);
    pa__odo_init(&o, s, outer, in);
    do {
        fn(dst + o.doff + dshift, src + o.soff + sshift, n);
    } while (pa__odo_next(&o));
    if (nt)
        FENCE();
    return PA_OK;
}

int pa__kern_reverse(const pa__copy_shape *s, char *dst, const char *src)
{
    return kern(s, dst, src, 0);
}

int pa__kern_reverse_nt(const pa__copy_shape *s, char *dst, const char *src)
{
    return kern(s, dst, src, 1);
}
