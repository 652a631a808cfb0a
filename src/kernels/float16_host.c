/*
 * parray — the host conversions of the 16-bit float element types half and bfloat16 (float16.h), on the bits,
 * so that they do not depend on the compiler's _Float16 or on the rounding mode.
 */
#include <string.h>

#include "parray/float16.h"

static uint32_t bits_of(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return x;
}

static float float_of(uint32_t x)
{
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

uint16_t pa_half_from_float(float f)
{
    uint32_t x = bits_of(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u)   /* infinity, NaN (kept quiet) */
        return (uint16_t)(sign | (ax > 0x7f800000u ? 0x7e00u | ((ax >> 13) & 0x3ffu) : 0x7c00u));
    if (ax >= 0x477ff000u)   /* 65520 and above: halfway past 65504 rounds to even, which is infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (ax >= 0x38800000u) { /* normal: drop 13 mantissa bits, ties to even, rebias 127 -> 15 */
        uint32_t r = ax + 0xfffu + ((ax >> 13) & 1u) - 0x38000000u;
        return (uint16_t)(sign | (r >> 13));
    }
    if (ax <= 0x33000000u)   /* at most 2^-25, half the smallest subnormal: the tie goes to even, zero */
        return (uint16_t)sign;
    /* subnormal: the value in units of 2^-24, ties to even */
    uint32_t mant = (ax & 0x7fffffu) | 0x800000u, shift = 126u - (ax >> 23);
    uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

float pa_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 31)
        return float_of(sign | 0x7f800000u | (mant << 13));
    if (exp != 0)
        return float_of(sign | ((exp + 112u) << 23) | (mant << 13));
    if (mant == 0)
        return float_of(sign);
    uint32_t e = 113;   /* a subnormal mant * 2^-24: normalise the mantissa */
    while (!(mant & 0x400u)) {
        mant <<= 1;
        e--;
    }
    return float_of(sign | (e << 23) | ((mant & 0x3ffu) << 13));
}

uint16_t pa_bf16_from_float(float f)
{
    uint32_t x = bits_of(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

float pa_bf16_to_float(uint16_t b)
{
    return float_of((uint32_t)b << 16);
}
