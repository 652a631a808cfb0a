/*
 * parray — transposes with streaming stores of whole cache lines, for destinations far larger than the caches.
 *
 * A strip of R source rows (R units of the transpose's a mode, contiguous on the destination) is walked along
 * the source's contiguous mode b: each step reads a few units from each of the R rows and writes, for every
 * column read, R units into one destination row: R x U bytes, a whole number of 64-byte lines, written in
 * order with streaming stores.  The source is read as R sequential streams, which the hardware prefetcher
 * follows; every destination line is written whole in one go, so no line is read for ownership and no
 * write-combining buffer is flushed half full.  The 64x64 staged tiles of copy_transpose.c write 256-byte
 * pieces of 64 destination rows and read 256 bytes of 64 source rows at a time, too short for the prefetcher.
 *
 * Measured on the 16-core host of the lent GPU machine (bench/strip_probe over 8192^2 floats and 4096^2 16-byte
 * units against an OpenMP memcpy on as many threads; docs/gpu-results.md, 2026-11-26): 4-byte units in strips of
 * 32 rows walked in column blocks of 1024 ran at 0.77 / 1.50 / 1.33 of memcpy on 1, 2 and 16 threads, 16 rows
 * without blocks 0.59 / 1.06 / 1.01 (a strip writes one line into each destination row of the columns it walks:
 * 8192 columns put those lines in more pages than the TLB holds); AVX-512 16x16 register transposes 0.60-0.70 on
 * one thread in that standalone probe, but 0.83 against AVX2's 0.69-0.75 as the library's kernel in column blocks
 * (bench/host_probe strips, session 7; bench/copy_host then 0.857 and 0.877 on one thread), so they are used
 * where the CPU has AVX-512.  16-byte units through AVX-512 4x4 transposes of 128-bit lanes over 32 rows:
 * 0.99 / 1.90 / 1.23, where one 16-byte streaming store per unit ran 0.63 / 1.05 / 1.05.  Writing the two 32-byte halves of a line
 * apart ran at 0.06-0.16, and ordinary stores in place of streaming ones at 0.15-0.38 (earlier probe).
 */
#include <stdint.h>

#include "copy_host.h"

/* The 4-byte strips' rows and column block (bench/host_probe's strips section varies them). */
int pa__strip_rows4 = 32;
int pa__strip_block4 = 1024;
/*
 * Source lines prefetched ahead in each row of a strip (0: none), into L2 (hint 1) or L1 (hint 0); the 4-byte
 * strips through AVX-512 16x16 register transposes where the CPU has them (wide4 1) or AVX2 8x8 ones.
 * Measured on one thread of the 16-core host (bench/host_probe strips, docs/gpu-results.md, 2026-11-26 session
 * 7), ratio to glibc's memcpy of the same bytes: floats through AVX2 0.69-0.75 without prefetch, 0.69 / 0.69 /
 * 0.69 with 2 / 4 / 8 lines ahead into L2, 0.67 into L1; through AVX-512 0.83 without, 0.82 / 0.77 with 4 / 8
 * lines into L2, 0.77 into L1; 16-byte units 0.90-0.91 without, 0.83 with 2-8 lines into L2, 0.78 into L1.  The
 * hardware's streams already follow the strips' rows, and every software prefetch holds one of the few
 * line-fill buffers that the streaming stores need too, so none is issued by default.  Strips of 64 rows ran
 * 0.52-0.60, of 16 rows 0.65, column blocks of 512 or 2048 0.64.
 */
int pa__strip_prefetch4 = 0, pa__strip_prefetch16 = 0, pa__strip_hint = 1, pa__strip_wide4 = 1;

#if defined(__x86_64__) && defined(__SSE2__)
#include <immintrin.h>

/*
 * Prefetches the line `off` bytes into each of rows [r0, r0 + n) of a strip (ssa apart), or, past the strip's
 * end (width bytes), into the next strip's rows (R rows on): the strips of a column block are walked one after
 * another, so the stream of lines goes on without a gap where a strip ends.  Prefetches never fault.
 */
static inline void prefetch_strip(const char *s, int64_t r0, int64_t n, int64_t ssa, int64_t off, int64_t width,
                                  int64_t R, int hint)
{
    if (off >= width)
        off -= width, r0 += R;
    const char *p = s + r0 * ssa + off;
    if (hint)
        for (int64_t i = 0; i < n; i++)
            _mm_prefetch(p + i * ssa, _MM_HINT_T1);
    else
        for (int64_t i = 0; i < n; i++)
            _mm_prefetch(p + i * ssa, _MM_HINT_T0);
}

/* 4-byte units, 8 columns of 16 rows: two 8x8 register transposes, then 8 destination lines of 64 bytes. */
__attribute__((target("avx2"))) static void t8x8(__m256 o[8], const char *s, int64_t ss)
{
    __m256 r0 = _mm256_loadu_ps((const float *)s), r1 = _mm256_loadu_ps((const float *)(s + ss));
    __m256 r2 = _mm256_loadu_ps((const float *)(s + 2 * ss)), r3 = _mm256_loadu_ps((const float *)(s + 3 * ss));
    __m256 r4 = _mm256_loadu_ps((const float *)(s + 4 * ss)), r5 = _mm256_loadu_ps((const float *)(s + 5 * ss));
    __m256 r6 = _mm256_loadu_ps((const float *)(s + 6 * ss)), r7 = _mm256_loadu_ps((const float *)(s + 7 * ss));
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    o[0] = _mm256_permute2f128_ps(u0, u4, 0x20), o[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
    o[2] = _mm256_permute2f128_ps(u2, u6, 0x20), o[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
    o[4] = _mm256_permute2f128_ps(u0, u4, 0x31), o[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
    o[6] = _mm256_permute2f128_ps(u2, u6, 0x31), o[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

/* Each step reads 32 bytes of 16 rows: every row's line is read over two steps, so each step prefetches for 8. */
__attribute__((target("avx2"))) static void strip_4(const pa__strip *k, char *d, const char *s, int64_t R,
                                                     int64_t ncol, int64_t ssa, int64_t dsb)
{
    int64_t pf = k->prefetch, width = ncol * 4;
    for (int64_t c = 0; c < ncol; c += 8)
        for (int64_t r = 0; r < R; r += 16) {
            if (pf)
                prefetch_strip(s, r + (c & 8), 8, ssa, c * 4 + pf, width, R, k->hint);
            __m256 a[8], b[8];
            t8x8(a, s + r * ssa + c * 4, ssa);
            t8x8(b, s + (r + 8) * ssa + c * 4, ssa);
            char *o = d + c * dsb + r * 4;
            for (int j = 0; j < 8; j++) {
                _mm256_stream_ps((float *)(o + j * dsb), a[j]);
                _mm256_stream_ps((float *)(o + j * dsb + 32), b[j]);
            }
        }
}

/*
 * 4-byte units with AVX-512: 16 rows x 16 columns (one whole line of each row) become 16 whole destination lines
 * through a 16x16 register transpose, each written with one 64-byte streaming store (stream 0: ordinary stores;
 * the vmem tile mover, tile_vmem.c, uses this kernel too).  Every source line is read
 * once, where the AVX2 kernel reads each twice, 32 bytes a step: the rows of a strip lie a multiple of 4 KiB
 * apart, so their lines at one column share one L1 set and a line is often gone by its second read.
 */
/* One 64-byte line of 16 floats: a streaming store (the destination's line aligned) or an ordinary one. */
__attribute__((target("avx512f"))) static inline void store16(char *o, __m512 v, int stream)
{
    if (stream)
        _mm512_stream_ps((float *)o, v);
    else
        _mm512_storeu_ps((float *)o, v);
}

__attribute__((target("avx512f"))) void pa__t16x16_4(char *o, int64_t ds, const char *p, int64_t ls, int stream)
{
    __m512 r[16], t[16], u[16];
    for (int i = 0; i < 16; i++)
        r[i] = _mm512_loadu_ps((const float *)(p + i * ls));
    for (int i = 0; i < 8; i++) {   /* pairs of rows interleaved */
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int g = 0; g < 4; g++) {   /* quads of rows: each 128-bit lane holds one column of 4 rows */
        u[4 * g + 0] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0x44);
        u[4 * g + 1] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0xEE);
        u[4 * g + 2] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
        u[4 * g + 3] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xEE);
    }
    for (int q = 0; q < 4; q++) {   /* the four quads' lanes gathered into whole columns of 16 rows */
        __m512 v = _mm512_shuffle_f32x4(u[q], u[4 + q], 0x88), w = _mm512_shuffle_f32x4(u[q], u[4 + q], 0xDD);
        __m512 v2 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0x88);
        __m512 w2 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0xDD);
        store16(o + q * ds, _mm512_shuffle_f32x4(v, v2, 0x88), stream);
        store16(o + (8 + q) * ds, _mm512_shuffle_f32x4(v, v2, 0xDD), stream);
        store16(o + (4 + q) * ds, _mm512_shuffle_f32x4(w, w2, 0x88), stream);
        store16(o + (12 + q) * ds, _mm512_shuffle_f32x4(w, w2, 0xDD), stream);
    }
}

__attribute__((target("avx512f"))) static void strip_4w(const pa__strip *k, char *d, const char *s, int64_t R,
                                                        int64_t ncol, int64_t ssa, int64_t dsb)
{
    int64_t pf = k->prefetch, width = ncol * 4;
    for (int64_t c = 0; c < ncol; c += 16)
        for (int64_t r = 0; r < R; r += 16) {
            if (pf)
                prefetch_strip(s, r, 16, ssa, c * 4 + pf, width, R, k->hint);
            pa__t16x16_4(d + c * dsb + r * 4, dsb, s + r * ssa + c * 4, ssa, 1);
        }
}

/* 8-byte units, 2 columns at a time: rows r and r+1 give one 16-byte piece of each of the 2 destination rows. */
static void strip_8(const pa__strip *k, char *d, const char *s, int64_t R, int64_t ncol, int64_t ssa, int64_t dsb)
{
    (void)k;
    for (int64_t c = 0; c < ncol; c += 2) {
        char *o0 = d + c * dsb, *o1 = o0 + dsb;
        const char *p = s + c * 8;
        for (int64_t r = 0; r < R; r += 2) {
            __m128d x = _mm_loadu_pd((const double *)(p + r * ssa)), y = _mm_loadu_pd((const double *)(p + (r + 1) * ssa));
            _mm_stream_pd((double *)(o0 + r * 8), _mm_unpacklo_pd(x, y));
            _mm_stream_pd((double *)(o1 + r * 8), _mm_unpackhi_pd(x, y));
        }
    }
}

/* 16-byte units, one column at a time: the R units of the column go to one destination row in order. */
static void strip_16(const pa__strip *k, char *d, const char *s, int64_t R, int64_t ncol, int64_t ssa, int64_t dsb)
{
    (void)k;
    for (int64_t c = 0; c < ncol; c++) {
        char *o = d + c * dsb;
        const char *p = s + c * 16;
        for (int64_t r = 0; r < R; r++)
            _mm_stream_si128((__m128i *)(o + r * 16), _mm_loadu_si128((const __m128i *)(p + r * ssa)));
    }
}

/*
 * 16-byte units with AVX-512, 4 columns at a time: 4 rows x 4 units (one 64-byte load per row) become, through
 * a 4x4 transpose of 128-bit lanes, 4 whole destination lines, each written with one 64-byte streaming store;
 * a strip's 32 rows give each of the 4 destination rows 512 consecutive bytes before the next 4 columns.
 */
__attribute__((target("avx512f"))) static void strip_16x4(const pa__strip *k, char *d, const char *s, int64_t R,
                                                          int64_t ncol, int64_t ssa, int64_t dsb)
{
    int64_t pf = k->prefetch, width = ncol * 16;
    for (int64_t c = 0; c < ncol; c += 4)
        for (int64_t r = 0; r < R; r += 4) {
            if (pf)
                prefetch_strip(s, r, 4, ssa, c * 16 + pf, width, R, k->hint);
            const char *p = s + r * ssa + c * 16;
            __m512i x0 = _mm512_loadu_si512(p), x1 = _mm512_loadu_si512(p + ssa);
            __m512i x2 = _mm512_loadu_si512(p + 2 * ssa), x3 = _mm512_loadu_si512(p + 3 * ssa);
            __m512i a = _mm512_shuffle_i64x2(x0, x1, 0x44), b = _mm512_shuffle_i64x2(x0, x1, 0xEE);
            __m512i e = _mm512_shuffle_i64x2(x2, x3, 0x44), f = _mm512_shuffle_i64x2(x2, x3, 0xEE);
            char *o = d + c * dsb + r * 16;
            _mm512_stream_si512((__m512i *)o, _mm512_shuffle_i64x2(a, e, 0x88));
            _mm512_stream_si512((__m512i *)(o + dsb), _mm512_shuffle_i64x2(a, e, 0xDD));
            _mm512_stream_si512((__m512i *)(o + 2 * dsb), _mm512_shuffle_i64x2(b, f, 0x88));
            _mm512_stream_si512((__m512i *)(o + 3 * dsb), _mm512_shuffle_i64x2(b, f, 0xDD));
        }
}

int pa__strip_plan(int64_t U, pa__strip *out)
{
    int64_t rows4 = pa__strip_rows4 == 16 || pa__strip_rows4 == 64 ? pa__strip_rows4 : 32;
    int64_t pf4 = pa__strip_prefetch4 > 0 ? 64 * (int64_t)pa__strip_prefetch4 : 0;
    int64_t pf16 = pa__strip_prefetch16 > 0 ? 64 * (int64_t)pa__strip_prefetch16 : 0;
    int hint = pa__strip_hint != 0;
    switch (U) {
    case 4:
        if (pa__strip_wide4 && __builtin_cpu_supports("avx512f"))
            *out = (pa__strip){strip_4w, rows4, 16, pa__strip_block4 > 0 ? pa__strip_block4 / 16 * 16 : 0, pf4, hint};
        else if (__builtin_cpu_supports("avx2"))
            *out = (pa__strip){strip_4, rows4, 8, pa__strip_block4 > 0 ? pa__strip_block4 / 8 * 8 : 0, pf4, hint};
        else
            return 0;
        return 1;
    case 8:
        *out = (pa__strip){strip_8, 16, 2, 0, 0, 0};
        return 1;
    case 16:
        if (__builtin_cpu_supports("avx512f"))
            *out = (pa__strip){strip_16x4, 32, 4, 0, pf16, hint};
        else
            *out = (pa__strip){strip_16, 16, 1, 0, 0, 0};
        return 1;
    default:
        return 0;
    }
}
#else
int pa__strip_plan(int64_t U, pa__strip *out)
{
    (void)U, (void)out;
    return 0;
}
#endif
