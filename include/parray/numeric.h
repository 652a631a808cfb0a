/*
 * parray — exact decimals on the host: the element types numeric(p, s) and money of declarations, with the
 * arithmetic of the PL/CUDA libraries "numeric" and "money" (include/parray/plcuda/numeric.h and money.h, the
 * same functions the GPU runs, usable from host C as they are) and a few calls that answer with a parray status
 * and a message instead of flags.
 *
 * A numeric(p, s) element is a pa_decimal128: value * 10^s as a 16-byte two's-complement integer (Arrow's
 * decimal128); a money element is a pa_money, a 64-bit count of cents (PA_MONEY_SCALE).  See docs/types.md.
 */
#ifndef PARRAY_NUMERIC_H
#define PARRAY_NUMERIC_H

#include <stddef.h>

#include "error.h"
#include "plcuda/money.h"
#include "plcuda/numeric.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The parray status of a numeric or money function's error flags.
 * \param flags  the flags the functions ORed into their err argument.
 * \param what   the operation, quoted in the message (may be NULL).
 * \return PA_OK for 0; PA_ERR_RANGE for PA_NUMERIC_OVERFLOW (more than 38 digits, or than the column's
 *         precision, or outside 64 bits for money); PA_ERR_INVAL for PA_NUMERIC_DIVZERO and PA_NUMERIC_SCALE;
 *         PA_ERR_PARSE for PA_NUMERIC_SYNTAX (the first of these, in this order), with pa_last_error() saying which.
 */
PA_API int pa_numeric_status(unsigned flags, const char *what);

/**
 * Reads decimal text ("-123.45"; see pa_num_from_text for what is accepted) as a numeric(precision, scale)
 * element, rounding extra fraction digits half away from zero.
 * \return PA_OK and *out; PA_ERR_INVAL (NULL argument, precision outside 1..38 or scale outside 0..precision);
 *         PA_ERR_PARSE (bad text, quoted); PA_ERR_RANGE (more digits than the precision).  *out is untouched on
 *         failure.
 */
PA_API int pa_numeric_parse(const char *text, int precision, int scale, pa_decimal128 *out);

/**
 * Writes a numeric element of the given scale as text ("-123.45", every fraction digit of the scale).
 * \return PA_OK; PA_ERR_INVAL (NULL buffer, scale outside 0..38, or a stored value of more than 38 digits);
 *         PA_ERR_RANGE (len below the text's length + 1; PA_NUMERIC_TEXT_MAX is always enough), buf untouched.
 */
PA_API int pa_numeric_format(pa_decimal128 value, int scale, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
