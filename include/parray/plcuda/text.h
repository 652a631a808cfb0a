/*
 * parray — PL/CUDA device library "text" (#plcuda_include "text", PG-Strom's "cuda_textlib.h"): strings as
 * (pointer, length in bytes) pairs, UTF-8, compared bytewise (PostgreSQL's "C" collation), and SQL's LIKE.
 *
 *     pa_text_cmp(a, alen, b, blen)        < 0, 0, > 0 as memcmp, a shorter prefix first
 *     pa_text_eq(a, alen, b, blen)         1 when equal
 *     pa_text_char_length(s, len)          characters (UTF-8 lead bytes), PostgreSQL's char_length
 *     pa_text_strpos(s, len, sub, sublen)  1-based byte position of the first sub in s, 0 when absent (strpos)
 *     pa_text_starts_with(s, len, p, plen)
 *     pa_text_like(s, len, pat, plen)      s LIKE pat: '%' any run of characters, '_' one character, '\' makes
 *                                          the next pattern character literal (PostgreSQL's default ESCAPE)
 *     pa_text_ilike(s, len, pat, plen)     ILIKE, ASCII letters folded
 *     pa_text_lower_ascii(c), pa_text_upper_ascii(c)
 *
 * A column of strings reaches a kernel as two arrays: the bytes of all strings ("char[]") and each string's
 * start ("int[]" or "long[]", one more entry than strings), as PG-Strom's kernels see a varlena column.
 * LIKE runs without recursion or memory: greedy matching that backtracks to the last '%' only, O(len * plen)
 * at worst.  Device code for NVRTC, after the PL/CUDA prelude; no standard library.
 */
#ifndef PARRAY_PLCUDA_TEXT_H
#define PARRAY_PLCUDA_TEXT_H

static __device__ __forceinline__ int pa_text_cmp(const char *a, long alen, const char *b, long blen)
{
    long n = alen < blen ? alen : blen;
    for (long i = 0; i < n; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (x != y)
            return x < y ? -1 : 1;
    }
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

static __device__ __forceinline__ int pa_text_eq(const char *a, long alen, const char *b, long blen)
{
    return alen == blen && pa_text_cmp(a, alen, b, blen) == 0;
}

static __device__ __forceinline__ long pa_text_char_length(const char *s, long len)
{
    long n = 0;
    for (long i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

static __device__ __forceinline__ int pa_text_starts_with(const char *s, long len, const char *p, long plen)
{
    return plen <= len && pa_text_cmp(s, plen, p, plen) == 0;
}

static __device__ __forceinline__ long pa_text_strpos(const char *s, long len, const char *sub, long sublen)
{
    for (long i = 0; i + sublen <= len; i++)
        if (pa_text_cmp(s + i, sublen, sub, sublen) == 0)
            return i + 1;
    return 0;
}

static __device__ __forceinline__ int pa_text_lower_ascii(int c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static __device__ __forceinline__ int pa_text_upper_ascii(int c)
{
    return c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c;
}

/* Bytes of the UTF-8 character starting at s[i] (1 for a stray continuation byte), within len. */
static __device__ __forceinline__ long pa__text_charlen(const char *s, long i, long len)
{
    long n = 1;
    while (i + n < len && ((unsigned char)s[i + n] & 0xC0) == 0x80)
        n++;
    return n;
}

static __device__ int pa__text_like(const char *s, long len, const char *p, long plen, int fold)
{
    long si = 0, pi = 0, star_p = -1, star_s = 0;
    while (si < len) {
        if (pi < plen && p[pi] == '%') {
            star_p = ++pi;   /* the pattern after the '%', and where the '%' run starts in s */
            star_s = si;
            continue;
        }
        if (pi < plen && p[pi] == '_') {
            si += pa__text_charlen(s, si, len);
            pi++;
            continue;
        }
        if (pi < plen) {
            long q = pi + (p[pi] == '\\' && pi + 1 < plen);
            int a = (unsigned char)s[si], b = (unsigned char)p[q];
            if (fold) {
                a = pa_text_lower_ascii(a);
                b = pa_text_lower_ascii(b);
            }
            if (a == b) {
                si++;
                pi = q + 1;
                continue;
            }
        }
        if (star_p < 0)
            return 0;
        /* Let the last '%' take one more character and try the rest again from there. */
        star_s += pa__text_charlen(s, star_s, len);
        si = star_s;
        pi = star_p;
    }
    while (pi < plen && p[pi] == '%')
        pi++;
    return pi == plen;
}

static __device__ __forceinline__ int pa_text_like(const char *s, long len, const char *pat, long plen)
{
    return pa__text_like(s, len, pat, plen, 0);
}

static __device__ __forceinline__ int pa_text_ilike(const char *s, long len, const char *pat, long plen)
{
    return pa__text_like(s, len, pat, plen, 1);
}

#endif
