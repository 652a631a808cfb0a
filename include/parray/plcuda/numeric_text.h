/*
 * parray — the text conversions of the PL/CUDA library "numeric" (include/parray/plcuda/numeric.h, which
 * includes this file and documents both functions): decimal text to a pa_numeric rounded to a scale, and back.
 * Plain ASCII, no locale, no standard library, so that NVRTC compiles it as it is.
 */
#ifndef PARRAY_PLCUDA_NUMERIC_TEXT_H
#define PARRAY_PLCUDA_NUMERIC_TEXT_H

#include "parray/plcuda/numeric.h"   /* the types and helpers, when this file is included first */

PA__NUM_FN int pa__num_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Appends digit d to m: an overflow once m holds 38 digits. */
PA__NUM_FN int pa__num_push(pa_u128 *m, int d)
{
    if (*m >= PA__NUM_LIMIT10)
        return 0;
    *m = *m * 10 + (pa_u128)d;
    return 1;
}

PA__NUM_BIG pa_numeric pa_num_from_text(const char *s, long len, int scale, unsigned *err)
{
    long i = 0, i0, i1, f0 = 0, f1 = 0;
    int neg = 0;
    while (i < len && pa__num_space(s[i]))
        i++;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    for (i0 = i; i < len && s[i] >= '0' && s[i] <= '9'; i++)
        ;
    i1 = i;
    if (i < len && s[i] == '.') {
        for (f0 = ++i; i < len && s[i] >= '0' && s[i] <= '9'; i++)
            ;
        f1 = i;
    }
    while (i < len && pa__num_space(s[i]))
        i++;
    if (i != len || (i1 == i0 && f1 == f0))
        return pa__num_fail(err, PA_NUMERIC_SYNTAX);
    long nf = f1 - f0;
    if (scale < 0)
        scale = nf > PA_NUMERIC_MAX_DIGITS ? PA_NUMERIC_MAX_DIGITS : (int)nf;
    if (scale > PA_NUMERIC_MAX_DIGITS)
        return pa__num_fail(err, PA_NUMERIC_SCALE);
    pa_u128 m = 0;
    int ok = 1;
    for (long k = i0; k < i1 && ok; k++)
        ok = pa__num_push(&m, s[k] - '0');
    for (long k = 0; k < nf && k < scale && ok; k++)
        ok = pa__num_push(&m, s[f0 + k] - '0');
    if (!ok)
        return pa__num_fail(err, PA_NUMERIC_OVERFLOW);
    pa__u256 w;
    w.hi = 0;
    w.lo = m;
    if (nf < scale)
        w = pa__num_mul128(m, pa__num_pow10(scale - (int)nf));
    else if (nf > scale && s[f0 + scale] >= '5') {   /* the first dropped digit decides: half away from zero */
        w.lo++;
        w.hi += w.lo == 0;
    }
    return pa__num_make(neg, w, scale, err);
}

PA__NUM_FN int pa_num_to_text(pa_numeric a, char *buf, long len)
{
    char d[PA_NUMERIC_TEXT_MAX];
    int n = 0, k = 0;
    pa_u128 m = pa__num_mag(a.v);
    if (a.scale < 0 || a.scale > PA_NUMERIC_MAX_DIGITS || m >= PA__NUM_LIMIT)
        return -1;
    do {   /* the digits, least significant first, at least scale + 1 of them */
        d[n++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m != 0 || n <= a.scale);
    long need = (a.v < 0) + n + (a.scale > 0) + 1;
    if (len < need)
        return -1;
    if (a.v < 0)
        buf[k++] = '-';
    while (n > 0) {
        if (n == a.scale)
            buf[k++] = '.';
        buf[k++] = d[--n];
    }
    buf[k] = '\0';
    return k;
}

#endif
