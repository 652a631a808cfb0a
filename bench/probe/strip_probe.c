/*
 * bench/strip_probe — standalone diagnosis of the host transposes' kernels (issue 14, item 1): not a pass/fail
 * table and not linked to the library.  A square transpose d[c][r] = s[r][c] of 8192^2 floats and of 4096^2
 * 16-byte units (256 MiB), kernels written out here, on 1, 2, 4, 8 and 16 OpenMP threads, each against an
 * OpenMP memcpy of the same bytes on as many threads (median of reps, after one warm-up, 5 ms pauses).
 *
 *   kernels, 4-byte units:
 *     a16, a32   AVX2 8x8 register transposes over strips of 16 / 32 rows (what copy_strips.c does)
 *     z16        AVX-512 16x16 register transposes, strips of 16 rows, one 64-byte streaming store per line
 *     c1024/512  a32 walked in column blocks of 1024 / 512 (the destination's pages in use fit the TLB)
 *     z32, z32c  z16 over strips of 32 rows (2 lines per destination row and step), z32c in column blocks of 1024
 *     p64        two passes through an L2 buffer: 64 source rows x 1024 columns copied in (ordinary loads and
 *                stores), then AVX-512 16x16 transposes out, each destination row's 256 bytes streamed whole
 *   kernels, 16-byte units:
 *     e16, e64   one column at a time over strips of 16 / 64 rows, 16-byte streaming stores (copy_strips.c)
 *     f16, f32   AVX-512 4x4 transposes of 128-bit lanes: 4 rows x 4 units in, 4 whole lines out
 *     q32        two passes: 32 rows x 256 units through an L2 buffer, then f-style lines out
 *   split:  rows (each thread a band of source rows) or cols (a band of source columns)
 * Usage: strip_probe [reps] [threads...] (default 5; 1 2 4 8 and all CPUs).  Build:
 *   gcc -O2 -march=native -fopenmp bench/probe/strip_probe.c -o strip_probe
 */
#include <immintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef void (*kern)(char *d, const char *s, int64_t n, int64_t r0, int64_t r1, int64_t c0, int64_t c1);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- 4-byte units ---------------------------------------------------------------------------------------- */

static inline void t8x8(__m256 o[8], const char *s, int64_t ss)
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

/* One strip of R rows (a multiple of 16) at row r, columns [c0, c1). */
static inline void strip_a(char *d, const char *s, int64_t R, int64_t r, int64_t c0, int64_t c1, int64_t ss)
{
    for (int64_t c = c0; c < c1; c += 8)
        for (int64_t k = r; k < r + R; k += 16) {
            __m256 a[8], b[8];
            t8x8(a, s + k * ss + c * 4, ss);
            t8x8(b, s + (k + 8) * ss + c * 4, ss);
            char *o = d + c * ss + k * 4;
            for (int j = 0; j < 8; j++) {
                _mm256_stream_ps((float *)(o + j * ss), a[j]);
                _mm256_stream_ps((float *)(o + j * ss + 32), b[j]);
            }
        }
}

static void k_a16(char *d, const char *s, int64_t n, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    for (int64_t r = r0; r < r1; r += 16)
        strip_a(d, s, 16, r, c0, c1, n * 4);
}

static void k_a32(char *d, const char *s, int64_t n, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    for (int64_t r = r0; r < r1; r += 32)
        strip_a(d, s, 32, r, c0, c1, n * 4);
}

static void cblocked(char *d, const char *s, int64_t n, int64_t r0, int64_t r1, int64_t c0, int64_t c1, int64_t cb)
{
    for (int64_t c = c0; c < c1; c += cb)
        for (int64_t r = r0; r < r1; r += 32)
            strip_a(d, s, 32, r, c, c + cb < c1 ? c + cb : c1, n * 4);
}

static void k_c1024(char *d, const char *s, int64_t n, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    cblocked(d, s, n, r0, r1, c0, c1, 1024);
}

static void k_c512(char *d, const char *s, int64_t n, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    cblocked(d, s, n, r0, r1, c0, c1, 512);
}

/* 16 rows of 16 floats (ls bytes apart) to 16 whole destination lines (ds bytes apart), streamed. */
__attribute__((target("avx512f"))) static inline void t16(char *o, int64_t ds, const char *p, int64_t ls)
{
    __m512 r[16], t[16], u[16];
    for (int i = 0; i < 16; i++)
        r[i] = _mm512_loadu_ps((const float *)(p + i * ls));
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int g = 0; g < 4; g++) {
        u[4 * g + 0] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0x44);
        u[4 * g + 1] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0xEE);
        u[4 * g + 2] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
        u[4 * g + 3] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xEE);
    }
    for (int k = 0; k < 4; k++) {
        __m512 v = _mm512_shuffle_f32x4(u[k], u[4 + k], 0x88), w = _mm512_shuffle_f32x4(u[k], u[4 + k], 0xDD);
        __m512 v2 = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0x88), w2 = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0xDD);
        _mm512_stream_ps((float *)(o + (0 + k) * ds), _mm512_shuffle_f32x4(v, v2, 0x88));
        _mm512_stream_ps((float *)(o + (8 + k) * ds), _mm512_shuffle_f32x4(v, v2, 0xDD));
        _mm512_stream_ps((float *)(o + (4 + k) * ds), _mm512_shuffle_f32x4(w, w2, 0x88));
        _mm512_stream_ps((float *)(o + (12 + k) * ds), _mm512_shuffle_f32x4(w, w2, 0xDD));
    }
}

__attribute__((target("avx512f"))) static void k_z16(char *d, const char *s, int64_t n, int64_t r0, int64_t r1,
                                                     int64_t c0, int64_t c1)
{
    int64_t ss = n * 4;
    for (int64_t r = r0; r < r1; r += 16)
        for (int64_t c = c0; c < c1; c += 16)
            t16(d + c * ss + r * 4, ss, s + r * ss + c * 4, ss);
}

/* 32-row strips of 16x16 blocks: each destination row gets 128 consecutive bytes (2 lines) per step. */
__attribute__((target("avx512f"))) static void z32(char *d, const char *s, int64_t n, int64_t r0, int64_t r1,
                                                   int64_t c0, int64_t c1, int64_t cb)
{
    int64_t ss = n * 4;
    for (int64_t b = c0; b < c1; b += cb)
        for (int64_t r = r0; r < r1; r += 32)
            for (int64_t c = b; c < (b + cb < c1 ? b + cb : c1); c += 16) {
                t16(d + c * ss + r * 4, ss, s + r * ss + c * 4, ss);
                t16(d + c * ss + (r + 16) * 4, ss, s + (r + 16) * ss + c * 4, ss);
            }
}

static void k_z32(char *d, const char *s, int64_t n, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    z32(d, s, n, r0, r1, c0, c1, c1 - c0);
}

static void k_z32c(char *d, const char *s, int64_t n, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    z32(d, s, n, r0, r1, c0, c1, 1024);
}

#define PB_COLS 1024
#define PB_PAD 64
static _Thread_local char pbuf[64 * (PB_COLS * 4 + PB_PAD)] __attribute__((aligned(64)));

__attribute__((target("avx512f"))) static void passes(char *d, const char *s, int64_t n, int64_t r0, int64_t r1,
                                                      int64_t c0, int64_t c1, int64_t RB)
{
    int64_t ss = n * 4, ls = PB_COLS * 4 + PB_PAD;
    for (int64_t r = r0; r < r1; r += RB)
        for (int64_t cb = c0; cb < c1; cb += PB_COLS) {
            int64_t w = c1 - cb < PB_COLS ? c1 - cb : PB_COLS;
            for (int64_t i = 0; i < RB; i++)
                memcpy(pbuf + i * ls, s + (r + i) * ss + cb * 4, (size_t)w * 4);
            for (int64_t c = 0; c < w; c += 16)
                for (int64_t i = 0; i < RB; i += 16)
                    t16(d + (cb + c) * ss + (r + i) * 4, ss, pbuf + i * ls + c * 4, ls);
        }
}

static void k_p64(char *d, const char *s, int64_t n, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    passes(d, s, n, r0, r1, c0, c1, 64);
}

/* ---- 16-byte units ----------------------------------------------------------------------------------------- */

static void strips_e(char *d, const char *s, int64_t n, int64_t r0, int64_t r1, int64_t c0, int64_t c1, int64_t R)
{
    int64_t ss = n * 16;
    for (int64_t r = r0; r < r1; r += R)
        for (int64_t c = c0; c < c1; c++) {
            char *o = d + c * ss + r * 16;
            const char *p = s + r * ss + c * 16;
            for (int64_t k = 0; k < R; k++)
                _mm_stream_si128((__m128i *)(o + k * 16), _mm_loadu_si128((const __m128i *)(p + k * ss)));
        }
}

static void k_e16(char *d, const char *s, int64_t n, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    strips_e(d, s, n, r0, r1, c0, c1, 16);
}

static void k_e64(char *d, const char *s, int64_t n, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    strips_e(d, s, n, r0, r1, c0, c1, 64);
}

/* 4 rows x 4 units (ls bytes apart) to 4 whole lines (ds bytes apart), streamed. */
__attribute__((target("avx512f"))) static inline void q4(char *o, int64_t ds, const char *p, int64_t ls)
{
    __m512i x0 = _mm512_loadu_si512(p), x1 = _mm512_loadu_si512(p + ls);
    __m512i x2 = _mm512_loadu_si512(p + 2 * ls), x3 = _mm512_loadu_si512(p + 3 * ls);
    __m512i a = _mm512_shuffle_i64x2(x0, x1, 0x44), b = _mm512_shuffle_i64x2(x0, x1, 0xEE);
    __m512i c = _mm512_shuffle_i64x2(x2, x3, 0x44), e = _mm512_shuffle_i64x2(x2, x3, 0xEE);
    _mm512_stream_si512((__m512i *)o, _mm512_shuffle_i64x2(a, c, 0x88));
    _mm512_stream_si512((__m512i *)(o + ds), _mm512_shuffle_i64x2(a, c, 0xDD));
    _mm512_stream_si512((__m512i *)(o + 2 * ds), _mm512_shuffle_i64x2(b, e, 0x88));
    _mm512_stream_si512((__m512i *)(o + 3 * ds), _mm512_shuffle_i64x2(b, e, 0xDD));
}

__attribute__((target("avx512f"))) static void strips_f(char *d, const char *s, int64_t n, int64_t r0, int64_t r1,
                                                        int64_t c0, int64_t c1, int64_t R)
{
    int64_t ss = n * 16;
    for (int64_t r = r0; r < r1; r += R)
        for (int64_t c = c0; c < c1; c += 4)
            for (int64_t k = r; k < r + R; k += 4)
                q4(d + c * ss + k * 16, ss, s + k * ss + c * 16, ss);
}

static void k_f16(char *d, const char *s, int64_t n, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    strips_f(d, s, n, r0, r1, c0, c1, 16);
}

static void k_f32(char *d, const char *s, int64_t n, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    strips_f(d, s, n, r0, r1, c0, c1, 32);
}

#define QB_COLS 256
__attribute__((target("avx512f"))) static void k_q32(char *d, const char *s, int64_t n, int64_t r0, int64_t r1,
                                                     int64_t c0, int64_t c1)
{
    int64_t ss = n * 16, ls = QB_COLS * 16 + PB_PAD;
    for (int64_t r = r0; r < r1; r += 32)
        for (int64_t cb = c0; cb < c1; cb += QB_COLS) {
            int64_t w = c1 - cb < QB_COLS ? c1 - cb : QB_COLS;
            for (int64_t i = 0; i < 32; i++)
                memcpy(pbuf + i * ls, s + (r + i) * ss + cb * 16, (size_t)w * 16);
            for (int64_t c = 0; c < w; c += 4)
                for (int64_t i = 0; i < 32; i += 4)
                    q4(d + (cb + c) * ss + (r + i) * 16, ss, pbuf + i * ls + c * 16, ls);
        }
}

/* ---- driver ---------------------------------------------------------------------------------------------- */

static int reps = 5;

static void omp_memcpy(char *d, const char *s, size_t n, int t)
{
#pragma omp parallel num_threads(t)
    {
        size_t id = (size_t)omp_get_thread_num(), p = (size_t)omp_get_num_threads();
        size_t lines = n / 64, lo = lines * id / p * 64, hi = id + 1 == p ? n : lines * (id + 1) / p * 64;
        memcpy(d + lo, s + lo, hi - lo);
    }
}

/* split 0: bands of rows, 1: bands of columns; bands are multiples of 128 units. */
static void run_kern(kern k, char *d, const char *s, int64_t n, int t, int split)
{
#pragma omp parallel num_threads(t)
    {
        int64_t id = omp_get_thread_num(), p = omp_get_num_threads(), q = n / 128;
        int64_t lo = q * id / p * 128, hi = q * (id + 1) / p * 128;
        if (split == 0)
            k(d, s, n, lo, hi, 0, n);
        else
            k(d, s, n, 0, n, lo, hi);
        _mm_sfence();
    }
}

static double med(double *v)
{
    qsort(v, (size_t)reps, sizeof *v, cmpd);
    return v[reps / 2];
}

static double time_memcpy(char *d, const char *s, size_t n, int t)
{
    double v[64];
    omp_memcpy(d, s, n, t);
    for (int r = 0; r < reps; r++) {
        usleep(5000);
        double t0 = now();
        omp_memcpy(d, s, n, t);
        v[r] = now() - t0;
    }
    return med(v);
}

static double time_kern(kern k, char *d, const char *s, int64_t n, int t, int split)
{
    double v[64];
    run_kern(k, d, s, n, t, split);
    for (int r = 0; r < reps; r++) {
        usleep(5000);
        double t0 = now();
        run_kern(k, d, s, n, t, split);
        v[r] = now() - t0;
    }
    return med(v);
}

static int check(const char *d, const char *s, int64_t n, int64_t U, const char *name)
{
    for (int64_t i = 0; i < n * n; i += 997) {
        int64_t r = i / n, c = i % n;
        if (memcmp(d + (c * n + r) * U, s + (r * n + c) * U, (size_t)U) != 0) {
            printf("%s: WRONG at row %lld col %lld\n", name, (long long)r, (long long)c);
            return 1;
        }
    }
    return 0;
}

static char *buffer(size_t n, int huge)
{
    void *p = NULL;
    if (posix_memalign(&p, 2 << 20, n) != 0)
        exit(1);
    madvise(p, n, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    uint64_t x = 0x9e3779b97f4a7c15ULL ^ n ^ (uintptr_t)p;
    for (size_t i = 0; i < n; i += 8) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        memcpy((char *)p + i, &x, 8);
    }
    return p;
}

typedef struct named {
    const char *name;
    kern k;
} named;

int main(int argc, char **argv)
{
    int nthr[8], nt = 0, cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (argc > 1)
        reps = atoi(argv[1]) > 0 && atoi(argv[1]) < 64 ? atoi(argv[1]) : 5;
    for (int i = 2; i < argc && nt < 8; i++)
        nthr[nt++] = atoi(argv[i]);
    if (nt == 0) {
        for (int t = 1; t < cpus && nt < 7; t *= 2)
            nthr[nt++] = t;
        nthr[nt++] = cpus;
    }
    int avx512 = __builtin_cpu_supports("avx512f");
    size_t bytes = (size_t)256 << 20;
    char *s = buffer(bytes, 0), *d = buffer(bytes, 0), *m = buffer(bytes, 0);
    printf("strip_probe: %d CPUs, avx512f %s, median of %d; ratio = OpenMP memcpy time / kernel time\n", cpus,
           avx512 ? "yes" : "no", reps);
    static const named f4[] = {{"a16", k_a16}, {"a32", k_a32}, {"z16", k_z16}, {"c1024", k_c1024},
                               {"c512", k_c512}, {"z32", k_z32}, {"z32c", k_z32c}, {"p64", k_p64}};
    static const named f16[] = {{"e16", k_e16}, {"e64", k_e64}, {"f16", k_f16}, {"f32", k_f32}, {"q32", k_q32}};
    for (int unit = 0; unit < 2; unit++) {
        const named *ks = unit ? f16 : f4;
        int nk = unit ? (int)(sizeof f16 / sizeof f16[0]) : (int)(sizeof f4 / sizeof f4[0]);
        int64_t U = unit ? 16 : 4, n = unit ? 4096 : 8192;
        printf("\n## transpose %s %lld^2: ratio to memcpy (rows split | cols split)\n| threads | memcpy GB/s |",
               unit ? "16 B" : "float", (long long)n);
        for (int i = 0; i < nk; i++)
            printf(" %s |", ks[i].name);
        printf("\n|---|---|");
        for (int i = 0; i < nk; i++)
            printf("---|");
        printf("\n");
        for (int i = 0; i < nk; i++) {
            if (!avx512 && (ks[i].name[0] == 'z' || ks[i].name[0] == 'p' || ks[i].name[0] == 'f' || ks[i].name[0] == 'q'))
                continue;
            memset(d, 0, bytes);
            run_kern(ks[i].k, d, s, n, 1, 0);
            check(d, s, n, U, ks[i].name);
        }
        for (int ti = 0; ti < nt; ti++) {
            int t = nthr[ti];
            double a = time_memcpy(m, s, bytes, t);
            printf("| %d | %.1f |", t, bytes / a * 1e-9);
            for (int i = 0; i < nk; i++) {
                if (!avx512 && (ks[i].name[0] == 'z' || ks[i].name[0] == 'p' || ks[i].name[0] == 'f' || ks[i].name[0] == 'q')) {
                    printf(" - |");
                    continue;
                }
                double r0 = a / time_kern(ks[i].k, d, s, n, t, 0);
                double r1 = t > 1 ? a / time_kern(ks[i].k, d, s, n, t, 1) : r0;
                printf(" %.2f / %.2f |", r0, r1);
                fflush(stdout);
            }
            printf("\n");
        }
    }
    /* The TLB question: the same kernels on transparent huge pages (2 MiB) where the host gives them. */
    char *hs = buffer(bytes, 1), *hd = buffer(bytes, 1), *hm = buffer(bytes, 1);
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "AnonHugePages", 13) == 0)
            printf("\n%s", line);
    if (f)
        fclose(f);
    printf("## huge pages, float 8192^2, rows split: threads: memcpy GB/s, a32, z16, p64\n");
    for (int ti = 0; ti < nt; ti++) {
        int t = nthr[ti];
        double a = time_memcpy(hm, hs, bytes, t);
        printf("| %d | %.1f | %.2f | %.2f | %.2f |\n", t, bytes / a * 1e-9, a / time_kern(k_a32, hd, hs, 8192, t, 0),
               avx512 ? a / time_kern(k_z16, hd, hs, 8192, t, 0) : 0,
               avx512 ? a / time_kern(k_p64, hd, hs, 8192, t, 0) : 0);
        fflush(stdout);
    }
    return 0;
}
