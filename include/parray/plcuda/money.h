/*
 * parray — PL/CUDA device library "money" (#plcuda_include "money", PG-Strom's "cuda_money.h"): amounts of a
 * currency as a 64-bit count of its smallest unit, PostgreSQL's money without the locale.  Like "numeric" (which
 * it includes), the same text compiles for the GPU and as host C.
 *
 * The scale (digits of the smallest unit) is PA_MONEY_SCALE, 2 (cents) unless defined before the include; the
 * _scale forms take it as an argument.  1234.56 is the pa_money 123456.
 *
 *     pa_money_add(a, b, &err), pa_money_sub     exact
 *     pa_money_mul_int(m, n, &err)               exact
 *     pa_money_div_int(m, n, &err)               rounded to the unit, half away from zero (-0.05 / 2 = -0.03)
 *     pa_money_mul_num(m, d, &err)               m * d for a pa_numeric d, rounded to the unit likewise
 *     pa_money_div_num(m, d, &err)               m / d, rounded to the unit likewise
 *     pa_money_cmp(a, b), pa_money_neg(m, &err), pa_money_abs(m, &err)
 *     pa_money_from_num(d, &err), pa_money_to_num(m)     from (rounded) and to a pa_numeric of the scale
 *     pa_money_from_text(s, len, &err)           "1234.56", "-0.05", "7" (no currency sign, no thousands
 *                                                separator, no locale: the decimal point is '.'); more fraction
 *                                                digits than the scale are rounded half away from zero
 *     pa_money_to_text(m, buf, len)              "-0.05"; the length, or -1 when len is too small
 *     pa_money_to_double(m)
 *
 * Errors set flags in *err as "numeric" does: a result outside 64 bits is PA_NUMERIC_OVERFLOW, a division by
 * zero PA_NUMERIC_DIVZERO, bad text PA_NUMERIC_SYNTAX, a scale outside 0..18 PA_NUMERIC_SCALE; the function then
 * returns 0.  pa_num_check(kcxt, err) raises them in a PL/CUDA function.
 */
#ifndef PARRAY_PLCUDA_MONEY_H
#define PARRAY_PLCUDA_MONEY_H

#include "parray/plcuda/numeric.h"

#ifndef PA_MONEY_SCALE
#define PA_MONEY_SCALE 2
#endif

typedef long long pa_money;

#define PA__MONEY_MAX 9223372036854775807LL

/* A 38-digit-or-less signed result back into 64 bits. */
PA__NUM_FN pa_money pa__money_fit(pa_i128 v, unsigned *err)
{
    if (v > (pa_i128)PA__MONEY_MAX || v < -(pa_i128)PA__MONEY_MAX - 1) {
        *err |= PA_NUMERIC_OVERFLOW;
        return 0;
    }
    return (pa_money)v;
}

PA__NUM_FN pa_money pa_money_add(pa_money a, pa_money b, unsigned *err)
{
    return pa__money_fit((pa_i128)a + b, err);
}

PA__NUM_FN pa_money pa_money_sub(pa_money a, pa_money b, unsigned *err)
{
    return pa__money_fit((pa_i128)a - b, err);
}

PA__NUM_FN pa_money pa_money_mul_int(pa_money m, long long n, unsigned *err)
{
    return pa__money_fit((pa_i128)m * n, err);
}

PA__NUM_FN pa_money pa_money_neg(pa_money m, unsigned *err)
{
    return pa__money_fit(-(pa_i128)m, err);
}

PA__NUM_FN pa_money pa_money_abs(pa_money m, unsigned *err)
{
    return pa__money_fit(m < 0 ? -(pa_i128)m : (pa_i128)m, err);
}

PA__NUM_FN int pa_money_cmp(pa_money a, pa_money b)
{
    return a < b ? -1 : a > b;
}

/* |n| / d rounded half away from zero, with the sign neg: the magnitudes stay within 2^127. */
PA__NUM_FN pa_money pa__money_quot(int neg, pa__u256 n, pa_u128 d, unsigned *err)
{
    pa__u256 q = pa__num_divround(n, d);
    if (q.hi != 0 || q.lo > (pa_u128)PA__MONEY_MAX + 1) {
        *err |= PA_NUMERIC_OVERFLOW;
        return 0;
    }
    return pa__money_fit(neg ? -(pa_i128)q.lo : (pa_i128)q.lo, err);
}

PA__NUM_FN pa_money pa_money_div_int(pa_money m, long long n, unsigned *err)
{
    pa__u256 w;
    if (n == 0) {
        *err |= PA_NUMERIC_DIVZERO;
        return 0;
    }
    w.hi = 0;
    w.lo = pa__num_mag(m);
    return pa__money_quot((m < 0) != (n < 0), w, pa__num_mag(n), err);
}

PA__NUM_FN pa_money pa_money_mul_num(pa_money m, pa_numeric d, unsigned *err)
{
    if (!pa__num_valid(d, err))
        return 0;
    pa__u256 p = pa__num_mul128(pa__num_mag(m), pa__num_mag(d.v));
    return pa__money_quot((m < 0) != (d.v < 0), p, pa__num_pow10(d.scale), err);
}

PA__NUM_FN pa_money pa_money_div_num(pa_money m, pa_numeric d, unsigned *err)
{
    if (!pa__num_valid(d, err))
        return 0;
    if (d.v == 0) {
        *err |= PA_NUMERIC_DIVZERO;
        return 0;
    }
    pa__u256 n = pa__num_mul128(pa__num_mag(m), pa__num_pow10(d.scale));
    return pa__money_quot((m < 0) != (d.v < 0), n, pa__num_mag(d.v), err);
}

PA__NUM_FN int pa__money_scale_ok(int scale, unsigned *err)
{
    if (scale < 0 || scale > 18) {
        *err |= PA_NUMERIC_SCALE;
        return 0;
    }
    return 1;
}

PA__NUM_FN pa_money pa_money_from_num_scale(pa_numeric d, int scale, unsigned *err)
{
    unsigned e = 0;
    if (!pa__money_scale_ok(scale, err))
        return 0;
    pa_numeric r = pa_num_round(d, scale, &e);
    *err |= e;
    return e ? 0 : pa__money_fit(r.v, err);
}

PA__NUM_FN pa_numeric pa_money_to_num_scale(pa_money m, int scale)
{
    pa_numeric r;
    r.v = m;
    r.scale = scale;
    return r;
}

PA__NUM_FN pa_money pa_money_from_text_scale(const char *s, long len, int scale, unsigned *err)
{
    unsigned e = 0;
    if (!pa__money_scale_ok(scale, err))
        return 0;
    pa_numeric r = pa_num_from_text(s, len, scale, &e);
    *err |= e;
    return e ? 0 : pa__money_fit(r.v, err);
}

PA__NUM_FN int pa_money_to_text_scale(pa_money m, int scale, char *buf, long len)
{
    return scale < 0 || scale > 18 ? -1 : pa_num_to_text(pa_money_to_num_scale(m, scale), buf, len);
}

PA__NUM_FN double pa_money_to_double_scale(pa_money m, int scale)
{
    return pa_num_to_double(pa_money_to_num_scale(m, scale));
}

#define pa_money_from_num(d, err) pa_money_from_num_scale((d), PA_MONEY_SCALE, (err))
#define pa_money_to_num(m) pa_money_to_num_scale((m), PA_MONEY_SCALE)
#define pa_money_from_text(s, len, err) pa_money_from_text_scale((s), (len), PA_MONEY_SCALE, (err))
#define pa_money_to_text(m, buf, len) pa_money_to_text_scale((m), PA_MONEY_SCALE, (buf), (len))
#define pa_money_to_double(m) pa_money_to_double_scale((m), PA_MONEY_SCALE)

#endif
