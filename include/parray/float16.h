/*
 * parray — 16-bit floating-point elements on the host: the element types half (IEEE 754 binary16) and bfloat16
 * (the upper half of a float: 8 exponent bits, 7 mantissa bits) of declarations, stored as their 16 bits, and
 * the conversions a program needs to fill or read such arrays (the tensor-core gemm reads them, gputile.h).
 *
 * Conversions from float round to the nearest value, ties to even; values beyond the largest finite one become
 * infinity; NaN stays NaN (quiet).  Conversions to float are exact.
 */
#ifndef PARRAY_FLOAT16_H
#define PARRAY_FLOAT16_H

#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The half (binary16) nearest to f, ties to even; 65520 and beyond is infinity; subnormals kept. */
PA_API uint16_t pa_half_from_float(float f);

/** The float value of a half's bits (exact). */
PA_API float pa_half_to_float(uint16_t h);

/** The bfloat16 nearest to f, ties to even (a float's upper 16 bits after rounding); NaN stays a quiet NaN. */
PA_API uint16_t pa_bf16_from_float(float f);

/** The float value of a bfloat16's bits (exact: the bits shifted into a float's upper half). */
PA_API float pa_bf16_to_float(uint16_t b);

#ifdef __cplusplus
}
#endif

#endif
