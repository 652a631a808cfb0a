/*
 * parray — the host calls of numeric.h: the device libraries' error flags as parray statuses with messages,
 * and text to and from numeric(p, s) elements.  The arithmetic itself is the header's, shared with the GPU.
 */
#include <string.h>

#include "internal.h"
#include "parray/numeric.h"

int pa_numeric_status(unsigned flags, const char *what)
{
    const char *w = what ? what : "numeric";
    if (flags & PA_NUMERIC_OVERFLOW)
        return pa__err(PA_ERR_RANGE, "%s: overflow: the result needs more than 38 digits, more than the column's "
                       "precision, or (money) more than 64 bits", w);
    if (flags & PA_NUMERIC_DIVZERO)
        return pa__err(PA_ERR_INVAL, "%s: division by zero", w);
    if (flags & PA_NUMERIC_SYNTAX)
        return pa__err(PA_ERR_PARSE, "%s: not a decimal number (expected [+-]digits[.digits], no exponent)", w);
    if (flags & PA_NUMERIC_SCALE)
        return pa__err(PA_ERR_INVAL, "%s: a scale or precision outside 0..38 (money: 0..18)", w);
    return PA_OK;
}

int pa_numeric_parse(const char *text, int precision, int scale, pa_decimal128 *out)
{
    unsigned err = 0;
    if (!text || !out || precision < 1 || precision > PA_NUMERIC_MAX_DIGITS || scale < 0 || scale > precision)
        return pa__err(PA_ERR_INVAL, "pa_numeric_parse: NULL text or output, or numeric(%d,%d) is not a type (the "
                       "precision is 1..38, the scale 0..precision)", precision, scale);
    pa_numeric v = pa_num_from_text(text, (long)strlen(text), scale, &err);
    pa_decimal128 r = err ? 0 : pa_num_store(v, precision, scale, &err);
    if (err & PA_NUMERIC_SYNTAX)
        return pa__err(PA_ERR_PARSE, "pa_numeric_parse: \"%.64s\" is not a decimal number (expected "
                       "[+-]digits[.digits] with optional spaces around; exponents are not accepted)", text);
    if (err)
        return pa__err(PA_ERR_RANGE, "pa_numeric_parse: \"%.64s\" has more digits than numeric(%d,%d) holds", text,
                       precision, scale);
    *out = r;
    return PA_OK;
}

int pa_numeric_format(pa_decimal128 value, int scale, char *buf, size_t len)
{
    char tmp[PA_NUMERIC_TEXT_MAX];
    pa_numeric v = {value, scale};
    if (!buf || scale < 0 || scale > PA_NUMERIC_MAX_DIGITS || pa__num_mag(value) >= PA__NUM_LIMIT)
        return pa__err(PA_ERR_INVAL, "pa_numeric_format: NULL buffer, scale %d outside 0..38, or a stored value "
                       "of more than 38 digits", scale);
    int n = pa_num_to_text(v, tmp, sizeof tmp);
    if (n < 0 || (size_t)n >= len)
        return pa__err(PA_ERR_RANGE, "pa_numeric_format: the text needs %d bytes, the buffer has %zu", n + 1, len);
    memcpy(buf, tmp, (size_t)n + 1);
    return PA_OK;
}
