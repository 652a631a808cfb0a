/*
 * parray — PL/CUDA device library "numeric" (#plcuda_include "numeric", PG-Strom's "cuda_numeric.h"): exact
 * decimals of up to 38 significant digits, the same text compiled by NVRTC for the GPU and by a C compiler for the
 * host (so the CPU checks what the GPU computes, and host programs use the very same functions).
 *
 * Storage: pa_decimal128, a 16-byte two's-complement integer holding value * 10^scale, little-endian: Arrow's
 * decimal128 layout, the element type numeric(p, s) of a declaration.  The scale belongs to the column, not to the
 * 16 bytes.  Work: pa_numeric {v, scale}, a value with its scale, |v| < 10^38 and 0 <= scale <= 38.
 *
 *     pa_num_load(x, scale, &err)         a stored value of a numeric(p, scale) column as a pa_numeric
 *     pa_num_store(a, p, s, &err)         a value rounded to scale s for a numeric(p, s) column; more than p
 *                                         digits is PA_NUMERIC_OVERFLOW
 *     pa_num_from_long(x)                 an integer (scale 0)
 *     pa_num_add(a, b, &err), pa_num_sub  scale max(a.scale, b.scale), exact
 *     pa_num_mul(a, b, &err)              scale a.scale + b.scale, exact; when that exceeds 38 the product is
 *                                         rounded to scale 38
 *     pa_num_div(a, b, &err)              scale min(38, max(a.scale, b.scale) + 6), rounded
 *     pa_num_div_scale(a, b, s, &err)     a / b rounded once, directly to scale s (0..38): round(a / b, s)
 *                                         without the double rounding of pa_num_round(pa_num_div(a, b), s)
 *     pa_num_round(a, s, &err)            rounded (s < a.scale) or padded with zeros (s > a.scale) to scale s
 *     pa_num_cmp(a, b)                    -1, 0, 1 by value (2.50 == 2.5); pa_num_abs, pa_num_neg, pa_num_sign
 *     pa_num_to_double(a)                 correctly rounded when |v| < 2^53 and scale <= 22
 *     pa_num_to_long(a, &err)             rounded to an integer; outside 64 bits is PA_NUMERIC_OVERFLOW
 *     pa_num_from_text(s, len, scale, &err)  "-123.45", "  +7 ", ".5", "1." (ASCII spaces around are allowed);
 *                                         rounded to scale, or with scale -1 at the text's own number of
 *                                         fraction digits (at most 38, rounded beyond).  Exponents ("1e3"),
 *                                         "NaN", "Infinity", thousands separators and empty text are refused
 *                                         with PA_NUMERIC_SYNTAX
 *     pa_num_to_text(a, buf, len)         "-123.45", every fraction digit of the scale written ("0.00"); at most
 *                                         PA_NUMERIC_TEXT_MAX bytes with the NUL; returns the length, or -1
 *                                         (nothing written) when len is too small
 *
 * Rounding is half away from zero (PostgreSQL's numeric): 2.5 -> 3, -2.5 -> -3, 0.125 at scale 2 -> 0.13.
 *
 * Errors: a function that fails ORs a flag into *err (never NULL) and returns 0 (scale 0): PA_NUMERIC_OVERFLOW
 * (a result of more than 38 digits, or more than the column's precision), PA_NUMERIC_DIVZERO, PA_NUMERIC_SYNTAX
 * (bad text), PA_NUMERIC_SCALE (a scale or precision argument outside 0..38, or a pa_numeric whose scale is).
 * Flags accumulate, so a sequence of calls can be tested once.  A value is never wrapped: inputs outside 38
 * digits are refused with PA_NUMERIC_OVERFLOW.  In a PL/CUDA function pa_num_check(kcxt, err) raises the first
 * flag as PA_KERR_NUM_OVERFLOW (22003), PA_KERR_NUM_DIVZERO (22012), PA_KERR_NUM_TEXT (22018) or
 * PA_KERR_NUM_SCALE (22023) at the caller's line; on the host pa_numeric_status() (parray/numeric.h) turns
 * flags into a parray status with a message.
 *
 * 128-bit integers: __int128, which gcc and clang have on 64-bit targets and NVRTC has with -device-int128 (the
 * PL/CUDA front end adds that option when this library or "money" is included).
 */
#ifndef PARRAY_PLCUDA_NUMERIC_H
#define PARRAY_PLCUDA_NUMERIC_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define PA__NUM_FN static __host__ __device__ __forceinline__
#define PA__NUM_BIG static __host__ __device__
#else
#define PA__NUM_EXT __extension__   /* __int128 is an extension to ISO C: no -pedantic warning */
#define PA__NUM_FN static inline
#define PA__NUM_BIG static inline
#endif
#ifndef PA__NUM_EXT
#define PA__NUM_EXT
#endif

PA__NUM_EXT typedef __int128 pa_i128;
PA__NUM_EXT typedef unsigned __int128 pa_u128;

/** A stored numeric(p, s): value * 10^s as a 16-byte two's-complement integer (Arrow decimal128). */
typedef pa_i128 pa_decimal128;

/** A value at work: v / 10^scale. */
typedef struct pa_numeric {
    pa_i128 v;
    int scale;
} pa_numeric;

#define PA_NUMERIC_MAX_DIGITS 38
#define PA_NUMERIC_TEXT_MAX 42  /* '-', 38 digits, '0', '.', NUL */

#define PA_NUMERIC_OVERFLOW 1u
#define PA_NUMERIC_DIVZERO 2u
#define PA_NUMERIC_SYNTAX 4u
#define PA_NUMERIC_SCALE 8u

/* 10^38 and 10^37, the limits of 38 digits. */
#define PA__NUM_LIMIT (((pa_u128)0x4B3B4CA85A86C47AULL << 64) | 0x098A224000000000ULL)
#define PA__NUM_LIMIT10 (((pa_u128)0x0785EE10D5DA46D9ULL << 64) | 0x00F436A000000000ULL)

/* A 256-bit magnitude: products of two 38-digit numbers and dividends of scaled divisions. */
typedef struct pa__u256 {
    pa_u128 hi, lo;
} pa__u256;

PA__NUM_FN pa_u128 pa__num_pow10(int k)
{
    pa_u128 r = 1;
    for (; k > 0; k--)
        r *= 10;
    return r;
}

PA__NUM_FN pa_u128 pa__num_mag(pa_i128 v)
{
    return v < 0 ? (pa_u128)0 - (pa_u128)v : (pa_u128)v;
}

/* m < 10^38: the signed value. */
PA__NUM_FN pa_i128 pa__num_signed(int neg, pa_u128 m)
{
    return neg ? -(pa_i128)m : (pa_i128)m;
}

PA__NUM_FN pa_numeric pa__num_fail(unsigned *err, unsigned flag)
{
    pa_numeric z;
    *err |= flag;
    z.v = 0;
    z.scale = 0;
    return z;
}

/* 0 and a flag in *err when a is not a valid pa_numeric. */
PA__NUM_FN int pa__num_valid(pa_numeric a, unsigned *err)
{
    if (a.scale < 0 || a.scale > PA_NUMERIC_MAX_DIGITS) {
        *err |= PA_NUMERIC_SCALE;
        return 0;
    }
    if (pa__num_mag(a.v) >= PA__NUM_LIMIT) {
        *err |= PA_NUMERIC_OVERFLOW;
        return 0;
    }
    return 1;
}

PA__NUM_FN pa__u256 pa__u256_of(pa_u128 x)
{
    pa__u256 r;
    r.hi = 0;
    r.lo = x;
    return r;
}

PA__NUM_FN pa__u256 pa__num_mul128(pa_u128 a, pa_u128 b)
{
    unsigned long long a0 = (unsigned long long)a, a1 = (unsigned long long)(a >> 64);
    unsigned long long b0 = (unsigned long long)b, b1 = (unsigned long long)(b >> 64);
    pa_u128 p00 = (pa_u128)a0 * b0, p01 = (pa_u128)a0 * b1, p10 = (pa_u128)a1 * b0, p11 = (pa_u128)a1 * b1;
    pa_u128 mid = (p00 >> 64) + (unsigned long long)p01 + (unsigned long long)p10;
    pa__u256 r;
    r.lo = (mid << 64) | (unsigned long long)p00;
    r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    return r;
}

/* x * m, flagging a product that needs more than 256 bits. */
PA__NUM_FN pa__u256 pa__num_mul256(pa__u256 x, pa_u128 m, int *ovf)
{
    pa__u256 l = pa__num_mul128(x.lo, m), h = pa__num_mul128(x.hi, m), r;
    r.lo = l.lo;
    r.hi = l.hi + h.lo;
    *ovf |= h.hi != 0 || r.hi < l.hi;
    return r;
}

PA__NUM_FN int pa__num_cmp256(pa__u256 a, pa__u256 b)
{
    if (a.hi != b.hi)
        return a.hi < b.hi ? -1 : 1;
    return a.lo < b.lo ? -1 : a.lo > b.lo;
}

PA__NUM_FN pa__u256 pa__num_add256(pa__u256 a, pa__u256 b)
{
    pa__u256 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo);
    return r;
}

/* a - b, a >= b. */
PA__NUM_FN pa__u256 pa__num_sub256(pa__u256 a, pa__u256 b)
{
    pa__u256 r;
    r.lo = a.lo - b.lo;
    r.hi = a.hi - b.hi - (a.lo < b.lo);
    return r;
}

/* n / d rounded half away from zero, 0 < d < 2^127: long division of the low half by bits once the high half's
 * remainder is below d (so the shifted remainder never leaves 128 bits). */
PA__NUM_BIG pa__u256 pa__num_divround(pa__u256 n, pa_u128 d)
{
    pa__u256 q;
    pa_u128 r;
    if (n.hi == 0) {
        q.hi = 0;
        q.lo = n.lo / d;
        r = n.lo % d;
    } else {
        q.hi = n.hi / d;
        q.lo = 0;
        r = n.hi % d;
        for (int i = 127; i >= 0; i--) {
            r = (r << 1) | (pa_u128)((n.lo >> i) & 1);
            if (r >= d) {
                r -= d;
                q.lo |= (pa_u128)1 << i;
            }
        }
    }
    if (r >= d - r) {   /* 2r >= d: half or more, away from zero */
        q.lo++;
        q.hi += q.lo == 0;
    }
    return q;
}

/* A result from its sign, 256-bit magnitude and scale: more than 38 digits is an overflow. */
PA__NUM_FN pa_numeric pa__num_make(int neg, pa__u256 m, int scale, unsigned *err)
{
    pa_numeric r;
    if (m.hi != 0 || m.lo >= PA__NUM_LIMIT)
        return pa__num_fail(err, PA_NUMERIC_OVERFLOW);
    r.v = pa__num_signed(neg, m.lo);
    r.scale = scale;
    return r;
}

PA__NUM_FN pa_numeric pa_num_from_long(long long x)
{
    pa_numeric r;
    r.v = x;
    r.scale = 0;
    return r;
}

PA__NUM_FN pa_numeric pa_num_load(pa_decimal128 x, int scale, unsigned *err)
{
    pa_numeric r;
    r.v = x;
    r.scale = scale;
    return pa__num_valid(r, err) ? r : pa__num_fail(err, 0);
}

PA__NUM_FN pa_numeric pa_num_neg(pa_numeric a)
{
    a.v = -a.v;
    return a;
}

PA__NUM_FN pa_numeric pa_num_abs(pa_numeric a)
{
    if (a.v < 0)
        a.v = -a.v;
    return a;
}

PA__NUM_FN int pa_num_sign(pa_numeric a)
{
    return a.v < 0 ? -1 : a.v > 0;
}

/* |a| * 10^(scale - a.scale), scale >= a.scale: exact in 256 bits. */
PA__NUM_FN pa__u256 pa__num_up(pa_numeric a, int scale)
{
    return pa__num_mul128(pa__num_mag(a.v), pa__num_pow10(scale - a.scale));
}

PA__NUM_FN pa_numeric pa_num_add(pa_numeric a, pa_numeric b, unsigned *err)
{
    if (!pa__num_valid(a, err) || !pa__num_valid(b, err))
        return pa__num_fail(err, 0);
    int s = a.scale > b.scale ? a.scale : b.scale, na = a.v < 0, nb = b.v < 0;
    pa__u256 ma = pa__num_up(a, s), mb = pa__num_up(b, s);
    if (na == nb)
        return pa__num_make(na, pa__num_add256(ma, mb), s, err);
    if (pa__num_cmp256(ma, mb) >= 0)
        return pa__num_make(na, pa__num_sub256(ma, mb), s, err);
    return pa__num_make(nb, pa__num_sub256(mb, ma), s, err);
}

PA__NUM_FN pa_numeric pa_num_sub(pa_numeric a, pa_numeric b, unsigned *err)
{
    return pa_num_add(a, pa_num_neg(b), err);
}

PA__NUM_FN pa_numeric pa_num_mul(pa_numeric a, pa_numeric b, unsigned *err)
{
    if (!pa__num_valid(a, err) || !pa__num_valid(b, err))
        return pa__num_fail(err, 0);
    int s = a.scale + b.scale;
    pa__u256 m = pa__num_mul128(pa__num_mag(a.v), pa__num_mag(b.v));
    if (s > PA_NUMERIC_MAX_DIGITS) {
        m = pa__num_divround(m, pa__num_pow10(s - PA_NUMERIC_MAX_DIGITS));
        s = PA_NUMERIC_MAX_DIGITS;
    }
    return pa__num_make((a.v < 0) != (b.v < 0), m, s, err);
}

/* a / b at scale s, rounded once: |a| * 10^e / |b| with e = s + b.scale - a.scale.  For e >= 0 the dividend is
 * scaled in two steps (e is at most 76; one that leaves 256 bits makes a quotient of more than 38 digits anyway).
 * For e < 0 (at most 38 places, p = 10^-e) the quotient is floor(q1 / p) with q1 = floor(|a| / |b|), and the
 * remainder of the whole division is (q1 mod p) |b| + (|a| mod |b|): it reaches half of |b| p exactly when
 * q1 mod p reaches p / 2, since p is even and |a| mod |b| < |b|. */
PA__NUM_BIG pa_numeric pa_num_div_scale(pa_numeric a, pa_numeric b, int s, unsigned *err)
{
    if (!pa__num_valid(a, err) || !pa__num_valid(b, err))
        return pa__num_fail(err, 0);
    if (s < 0 || s > PA_NUMERIC_MAX_DIGITS)
        return pa__num_fail(err, PA_NUMERIC_SCALE);
    if (b.v == 0)
        return pa__num_fail(err, PA_NUMERIC_DIVZERO);
    int e = s + b.scale - a.scale, ovf = 0, neg = (a.v < 0) != (b.v < 0);
    pa_u128 ma = pa__num_mag(a.v), mb = pa__num_mag(b.v);
    if (e < 0) {
        pa_u128 p = pa__num_pow10(-e), q1 = ma / mb;
        return pa__num_make(neg, pa__u256_of(q1 / p + (q1 % p >= p / 2)), s, err);
    }
    int e1 = e > PA_NUMERIC_MAX_DIGITS ? PA_NUMERIC_MAX_DIGITS : e;
    pa__u256 n = pa__num_mul128(ma, pa__num_pow10(e1));
    if (e > e1)
        n = pa__num_mul256(n, pa__num_pow10(e - e1), &ovf);
    if (ovf)
        return pa__num_fail(err, PA_NUMERIC_OVERFLOW);
    return pa__num_make(neg, pa__num_divround(n, mb), s, err);
}

PA__NUM_FN pa_numeric pa_num_div(pa_numeric a, pa_numeric b, unsigned *err)
{
    int s = (a.scale > b.scale ? a.scale : b.scale) + 6;
    return pa_num_div_scale(a, b, s > PA_NUMERIC_MAX_DIGITS ? PA_NUMERIC_MAX_DIGITS : s, err);
}

PA__NUM_FN pa_numeric pa_num_round(pa_numeric a, int s, unsigned *err)
{
    if (!pa__num_valid(a, err))
        return pa__num_fail(err, 0);
    if (s < 0 || s > PA_NUMERIC_MAX_DIGITS)
        return pa__num_fail(err, PA_NUMERIC_SCALE);
    if (s >= a.scale)
        return pa__num_make(a.v < 0, pa__num_up(a, s), s, err);
    pa__u256 m;
    m.hi = 0;
    m.lo = pa__num_mag(a.v);
    return pa__num_make(a.v < 0, pa__num_divround(m, pa__num_pow10(a.scale - s)), s, err);
}

PA__NUM_FN int pa_num_cmp(pa_numeric a, pa_numeric b)
{
    int s = a.scale > b.scale ? a.scale : b.scale, na = a.v < 0, nb = b.v < 0;
    if (na != nb)
        return na ? -1 : 1;
    int c = pa__num_cmp256(pa__num_up(a, s), pa__num_up(b, s));
    return na ? -c : c;
}

PA__NUM_FN pa_decimal128 pa_num_store(pa_numeric a, int p, int s, unsigned *err)
{
    if (p < 1 || p > PA_NUMERIC_MAX_DIGITS || s < 0 || s > p) {
        *err |= PA_NUMERIC_SCALE;
        return 0;
    }
    unsigned e = 0;
    pa_numeric r = pa_num_round(a, s, &e);
    if (e == 0 && pa__num_mag(r.v) >= pa__num_pow10(p))
        e = PA_NUMERIC_OVERFLOW;
    *err |= e;
    return e ? 0 : r.v;
}

PA__NUM_FN double pa_num_to_double(pa_numeric a)
{
    double p = 1.0;
    for (int k = 0; k < a.scale; k++)
        p *= 10.0;
    return (double)a.v / p;
}

PA__NUM_FN long long pa_num_to_long(pa_numeric a, unsigned *err)
{
    unsigned e = 0;
    pa_numeric r = pa_num_round(a, 0, &e);
    if (e == 0 && (r.v > (pa_i128)9223372036854775807LL || r.v < -(pa_i128)9223372036854775807LL - 1))
        e = PA_NUMERIC_OVERFLOW;
    *err |= e;
    return e ? 0 : (long long)r.v;
}

#include "parray/plcuda/numeric_text.h"

#define PA_KERR_NUM_OVERFLOW 22003 /* SQLSTATE numeric_value_out_of_range */
#define PA_KERR_NUM_DIVZERO 22012  /* SQLSTATE division_by_zero */
#define PA_KERR_NUM_TEXT 22018     /* SQLSTATE invalid_character_value_for_cast */
#define PA_KERR_NUM_SCALE 22023    /* SQLSTATE invalid_parameter_value */

/* The SQLSTATE-like code of the first flag set in err (0 when none). */
PA__NUM_FN int pa_num_kerr(unsigned err)
{
    return err & PA_NUMERIC_OVERFLOW ? PA_KERR_NUM_OVERFLOW
         : err & PA_NUMERIC_DIVZERO  ? PA_KERR_NUM_DIVZERO
         : err & PA_NUMERIC_SYNTAX   ? PA_KERR_NUM_TEXT
         : err & PA_NUMERIC_SCALE    ? PA_KERR_NUM_SCALE
                                     : 0;
}

#ifdef PA_KSTATUS_ERROR
/* Inside a PL/CUDA function: raises the error of err's first flag at the caller's line (nothing when err is 0);
 * the call then fails with PA_ERR_KERNEL naming the code and the line. */
#define pa_num_check(kcxt, err)                                                           \
    do {                                                                                  \
        if ((err) != 0)                                                                   \
            pa__raise((kcxt), PA_KSTATUS_ERROR, pa_num_kerr(err), __LINE__);              \
    } while (0)
#endif

#endif
