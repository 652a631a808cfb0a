/*
 * parray — the vmem register-tile mover (tile_internal.h): a tile of a pa_tile / pa_tile_copy walk goes through
 * the vector registers of the SIMD set vmem chose at run time (AVX-512 or AVX2; plain loops otherwise).
 *
 * A block contiguous along j in the source and along i in the destination is a transposition: BR rows of BC
 * elements are loaded into registers, transposed there (unpacks of 32- and 64-bit elements inside each 128-bit
 * lane, then 128-bit lane shuffles), and stored as BC rows of the destination of BR elements, one whole 64-byte
 * line each: 16 x 16 4-byte or 8 x 8 8-byte elements on AVX-512, 16 x 8 and 8 x 4 on AVX2 (two square
 * transpositions whose halves of each line are stored one after the other).  The destination's rows are written
 * with streaming stores when the caller asks and they are aligned.  Rows contiguous on both sides are copied whole; anything else is an element loop.
 */
#include <string.h>

#include "copy_host.h"
#include "tile_internal.h"

/* ---- plain loops -------------------------------------------------------------------------------------- */

/* Fixed-size copies, which the compiler turns into moves (and which do not assume the elements aligned). */
#define LOOP(N)                                                                                              \
    for (int64_t i = 0; i < R; i++) {                                                                        \
        char *dp = d + i * dr * (N);                                                                         \
        const char *sp = s + i * sr * (N);                                                                   \
        for (int64_t j = 0; j < C; j++)                                                                      \
            memcpy(dp + j * dc * (N), sp + j * sc * (N), N);                                                 \
    }

/* d[i*dr + j*dc] = s[i*sr + j*sc], the inner loop along j (the caller puts the destination's smaller stride there). */
static void move_loop(char *d, int64_t dr, int64_t dc, const char *s, int64_t sr, int64_t sc, int64_t R, int64_t C,
                      size_t e)
{
    switch (e) {
    case 1: LOOP(1) return;
    case 2: LOOP(2) return;
    case 4: LOOP(4) return;
    case 8: LOOP(8) return;
    case 16: LOOP(16) return;
    default:
        for (int64_t i = 0; i < R; i++)
            for (int64_t j = 0; j < C; j++)
                memcpy(d + (i * dr + j * dc) * (int64_t)e, s + (i * sr + j * sc) * (int64_t)e, e);
    }
}

/* ---- register transpositions -------------------------------------------------------------------------- */

/* One BR x BC block: row i of the source at s + i*ss bytes, row j of the destination at d + j*ds bytes. */
typedef void (*block_fn)(char *d, int64_t ds, const char *s, int64_t ss, int stream);

#if defined(__x86_64__) && defined(__SSE2__)
#include <immintrin.h>

/*
 * u[4g + m], lane L (128 bits) = column 4L + m of rows 4g .. 4g+3, from rows r[4g .. 4g+3] (32-bit elements):
 * the unpacks work inside each 128-bit lane.
 */
#define UNPACK4(W, r, u, g)                                                                                  \
    do {                                                                                                     \
        __m##W##i t0 = _mm##W##_unpacklo_epi32(r[4 * (g)], r[4 * (g) + 1]);                                  \
        __m##W##i t1 = _mm##W##_unpackhi_epi32(r[4 * (g)], r[4 * (g) + 1]);                                  \
        __m##W##i t2 = _mm##W##_unpacklo_epi32(r[4 * (g) + 2], r[4 * (g) + 3]);                              \
        __m##W##i t3 = _mm##W##_unpackhi_epi32(r[4 * (g) + 2], r[4 * (g) + 3]);                              \
        u[4 * (g)] = _mm##W##_unpacklo_epi64(t0, t2);                                                        \
        u[4 * (g) + 1] = _mm##W##_unpackhi_epi64(t0, t2);                                                    \
        u[4 * (g) + 2] = _mm##W##_unpacklo_epi64(t1, t3);                                                    \
        u[4 * (g) + 3] = _mm##W##_unpackhi_epi64(t1, t3);                                                    \
    } while (0)

/*
 * Four groups x[0..3] (x[g] lane L holding rows of group g of output row 4L+m, or 2L+m) become four output rows:
 * out[L] = [x0.L, x1.L, x2.L, x3.L].  shuffle_i32x4 0x88 takes lanes 0 and 2 of each operand, 0xdd lanes 1 and 3.
 */
__attribute__((target("avx512f"))) static void lanes4(const __m512i x[4], __m512i out[4])
{
    __m512i v = _mm512_shuffle_i32x4(x[0], x[1], 0x88), w = _mm512_shuffle_i32x4(x[0], x[1], 0xdd);
    __m512i v2 = _mm512_shuffle_i32x4(x[2], x[3], 0x88), w2 = _mm512_shuffle_i32x4(x[2], x[3], 0xdd);
    out[0] = _mm512_shuffle_i32x4(v, v2, 0x88);
    out[2] = _mm512_shuffle_i32x4(v, v2, 0xdd);
    out[1] = _mm512_shuffle_i32x4(w, w2, 0x88);
    out[3] = _mm512_shuffle_i32x4(w, w2, 0xdd);
}

__attribute__((target("avx512f"))) static void store512(char *d, __m512i v, int stream)
{
    if (stream)
        _mm512_stream_si512((void *)d, v);
    else
        _mm512_storeu_si512((void *)d, v);
}

/* 8 x 8 8-byte elements on AVX-512: x[p][m] lane L = column 2L + m of rows 2p, 2p+1; output row 2L + m. */
__attribute__((target("avx512f"))) static void t8x8_8_512(char *d, int64_t ds, const char *s, int64_t ss, int stream)
{
    __m512i r[8], x[2][4];
    for (int i = 0; i < 8; i++)
        r[i] = _mm512_loadu_si512((const void *)(s + i * ss));
    for (int p = 0; p < 4; p++) {
        x[0][p] = _mm512_unpacklo_epi64(r[2 * p], r[2 * p + 1]);
        x[1][p] = _mm512_unpackhi_epi64(r[2 * p], r[2 * p + 1]);
    }
    for (int m = 0; m < 2; m++) {
        __m512i o[4];
        lanes4(x[m], o);
        for (int L = 0; L < 4; L++)
            store512(d + (2 * L + m) * ds, o[L], stream);
    }
}

__attribute__((target("avx2"))) static void store256(char *d, __m256i v, int stream)
{
    if (stream)
        _mm256_stream_si256((__m256i *)(void *)d, v);
    else
        _mm256_storeu_si256((__m256i *)(void *)d, v);
}

/* 8 x 8 4-byte elements on AVX2 (rows r[0..7]): output row 4L + m = [lane L of u[m], lane L of u[4+m]]. */
__attribute__((target("avx2"))) static void t8x8_4_256(__m256i r[8], __m256i o[8])
{
    __m256i u[8];
    for (int g = 0; g < 2; g++)
        UNPACK4(256, r, u, g);
    for (int m = 0; m < 4; m++) {
        o[m] = _mm256_permute2x128_si256(u[m], u[4 + m], 0x20);
        o[4 + m] = _mm256_permute2x128_si256(u[m], u[4 + m], 0x31);
    }
}

/*
 * 16 rows x 8 columns of 4-byte elements on AVX2: two 8 x 8 transpositions, then each destination row's two
 * halves written one after the other, so that a streamed line is whole (halves written apart ran at 0.06-0.16
 * of memcpy on the 16-core host, copy_strips.c).
 */
__attribute__((target("avx2"))) static void t16x8_4_256(char *d, int64_t ds, const char *s, int64_t ss, int stream)
{
    __m256i r[8], lo[8], hi[8];
    for (int i = 0; i < 8; i++)
        r[i] = _mm256_loadu_si256((const __m256i *)(const void *)(s + i * ss));
    t8x8_4_256(r, lo);
    for (int i = 0; i < 8; i++)
        r[i] = _mm256_loadu_si256((const __m256i *)(const void *)(s + (8 + i) * ss));
    t8x8_4_256(r, hi);
    for (int j = 0; j < 8; j++) {
        store256(d + j * ds, lo[j], stream);
        store256(d + j * ds + 32, hi[j], stream);
    }
}

/* 4 x 4 8-byte elements on AVX2 (rows r[0..3]): x[m][p] lane L = column 2L + m of rows 2p, 2p+1. */
__attribute__((target("avx2"))) static void t4x4_8_256(const __m256i r[4], __m256i o[4])
{
    __m256i x[2][2];
    for (int p = 0; p < 2; p++) {
        x[0][p] = _mm256_unpacklo_epi64(r[2 * p], r[2 * p + 1]);
        x[1][p] = _mm256_unpackhi_epi64(r[2 * p], r[2 * p + 1]);
    }
    for (int m = 0; m < 2; m++) {
        o[m] = _mm256_permute2x128_si256(x[m][0], x[m][1], 0x20);
        o[2 + m] = _mm256_permute2x128_si256(x[m][0], x[m][1], 0x31);
    }
}

/* 8 rows x 4 columns of 8-byte elements on AVX2: two 4 x 4 transpositions, whole destination lines. */
__attribute__((target("avx2"))) static void t8x4_8_256(char *d, int64_t ds, const char *s, int64_t ss, int stream)
{
    __m256i r[4], lo[4], hi[4];
    for (int i = 0; i < 4; i++)
        r[i] = _mm256_loadu_si256((const __m256i *)(const void *)(s + i * ss));
    t4x4_8_256(r, lo);
    for (int i = 0; i < 4; i++)
        r[i] = _mm256_loadu_si256((const __m256i *)(const void *)(s + (4 + i) * ss));
    t4x4_8_256(r, hi);
    for (int j = 0; j < 4; j++) {
        store256(d + j * ds, lo[j], stream);
        store256(d + j * ds + 32, hi[j], stream);
    }
}

/*
 * The block kernel for e-byte elements on vmem's set: BR source rows x BC source columns, each of the BC
 * destination rows one 64-byte line (BR x e); *W: the alignment its streaming stores need.
 */
static block_fn block_kernel(size_t e, int *BR, int *BC, int *W)
{
    int lvl = pa__vmem_level();
    if (lvl == PA__VMEM_AVX512 && (e == 4 || e == 8)) {
        *BR = *BC = e == 4 ? 16 : 8, *W = 64;
        return e == 4 ? pa__t16x16_4 : t8x8_8_512;   /* 4-byte: copy_strips.c's kernel */
    }
    if (lvl >= PA__VMEM_AVX2 && (e == 4 || e == 8)) {
        *BR = e == 4 ? 16 : 8, *BC = e == 4 ? 8 : 4, *W = 32;
        return e == 4 ? t16x8_4_256 : t8x4_8_256;
    }
    return NULL;
}
#else
static block_fn block_kernel(size_t e, int *BR, int *BC, int *W)
{
    (void)e, (void)BR, (void)BC, (void)W;
    return NULL;
}
#endif
/* d[i + j*dc] = s[i*sr + j]: blocks in registers, column blocks outermost so that a row of the destination is
 * written left to right (whole lines where a block row is a half line), the edges by loops. */
static void transpose(char *d, int64_t dc, const char *s, int64_t sr, int64_t R, int64_t C, size_t e, int stream)
{
    int BR = 0, BC = 0, W = 0;
    block_fn k = block_kernel(e, &BR, &BC, &W);
    int64_t Rb = k ? R / BR * BR : 0, Cb = k ? C / BC * BC : 0, ee = (int64_t)e;
    if (Rb > 0 && Cb > 0) {
        int st = stream && (uintptr_t)d % (uintptr_t)W == 0 && (dc * ee) % W == 0;
        for (int64_t j0 = 0; j0 < Cb; j0 += BC)
            for (int64_t i0 = 0; i0 < Rb; i0 += BR)
                k(d + (i0 + j0 * dc) * ee, dc * ee, s + (i0 * sr + j0) * ee, sr * ee, st);
    } else {
        Rb = Cb = 0;
    }
    if (Cb < C)   /* the columns right of the blocks, every row */
        move_loop(d + Cb * dc * ee, dc, 1, s + Cb * ee, 1, sr, C - Cb, R, e);
    if (Rb < R)   /* the rows under the blocks, left of those columns */
        move_loop(d + Rb * ee, dc, 1, s + Rb * sr * ee, 1, sr, Cb, R - Rb, e);
}

void pa__tile_move(char *d, int64_t dr, int64_t dc, const char *s, int64_t sr, int64_t sc, int64_t R, int64_t C,
                   size_t e, int stream)
{
#define SWAP(a, b) do { int64_t tmp_ = a; a = b; b = tmp_; } while (0)
    if (R <= 0 || C <= 0)
        return;
    if (C == 1 || (R > 1 && sc != 1 && sr == 1)) {   /* the source contiguous along j where it is along either */
        SWAP(R, C);
        SWAP(sr, sc);
        SWAP(dr, dc);
    }
    int64_t ee = (int64_t)e;
    if (sc == 1 && (dc == 1 || C == 1)) {
        size_t n = (size_t)(C * ee);
        for (int64_t i = 0; i < R; i++) {
            if (stream && n >= 256)
                pa__stream_copy(d + i * dr * ee, s + i * sr * ee, n);
            else
                memcpy(d + i * dr * ee, s + i * sr * ee, n);
        }
    } else if (sc == 1 && dr == 1 && R > 1) {
        transpose(d, dc, s, sr, R, C, e, stream);
    } else if ((dr < 0 ? -dr : dr) < (dc < 0 ? -dc : dc)) {
        move_loop(d, dc, dr, s, sc, sr, C, R, e);
    } else {
        move_loop(d, dr, dc, s, sr, sc, R, C, e);
    }
#undef SWAP
}
