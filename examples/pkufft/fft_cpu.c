/*
 * pkufft — forward complex transforms on the CPU, this example's own: radix 2 (iterative, bit-reversed order
 * first) where the length is a power of two, a direct O(n^2) transform otherwise (and always where asked:
 * the reference transform of small arrays takes the direct one, so that it shares no butterfly with the path
 * it checks).  Each line is copied into a
 * double-precision buffer, transformed there and written back, so that the CPU path is more accurate than the
 * float transforms it is compared with, never less.
 */
#include <math.h>
#include <stdlib.h>

#include "fft_engine.h"

typedef struct { double x, y; } dcplx;

static int is_pow2(int n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

/* In place, length n a power of two; w holds exp(-2 pi i k / n) for k < n / 2. */
static void radix2(dcplx *a, int n, const dcplx *w)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            dcplx t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        int step = n / len;
        for (int i = 0; i < n; i += len)
            for (int k = 0; k < len / 2; k++) {
                dcplx u = a[i + k], v = a[i + k + len / 2], t = w[k * step];
                dcplx vt = {v.x * t.x - v.y * t.y, v.x * t.y + v.y * t.x};
                a[i + k] = (dcplx){u.x + vt.x, u.y + vt.y};
                a[i + k + len / 2] = (dcplx){u.x - vt.x, u.y - vt.y};
            }
    }
}

/* out = DFT(in), any n; w holds exp(-2 pi i k / n) for k < n. */
static void direct(const dcplx *in, dcplx *out, int n, const dcplx *w)
{
    for (int k = 0; k < n; k++) {
        double sx = 0, sy = 0;
        for (int j = 0; j < n; j++) {
            dcplx t = w[(int64_t)j * k % n];
            sx += in[j].x * t.x - in[j].y * t.y;
            sy += in[j].x * t.y + in[j].y * t.x;
        }
        out[k] = (dcplx){sx, sy};
    }
}

int pk_cpu_lines(pk_complex *data, int n, int64_t count, int64_t stride, int64_t dist, int direct_only)
{
    dcplx *w = malloc((size_t)n * sizeof *w), *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    if (!w || !a || !b) {
        free(w), free(a), free(b);
        return -1;
    }
    for (int k = 0; k < n; k++)
        w[k] = (dcplx){cos(-2 * M_PI * k / n), sin(-2 * M_PI * k / n)};
    for (int64_t c = 0; c < count; c++) {
        pk_complex *line = data + c * dist;
        for (int j = 0; j < n; j++)
            a[j] = (dcplx){line[j * stride].x, line[j * stride].y};
        const dcplx *res = a;
        if (is_pow2(n) && !direct_only) {
            radix2(a, n, w);
        } else {
            direct(a, b, n, w);
            res = b;
        }
        for (int j = 0; j < n; j++)
            line[j * stride] = (pk_complex){(float)res[j].x, (float)res[j].y};
    }
    free(w), free(a), free(b);
    return 0;
}
