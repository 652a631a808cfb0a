/*
 * parray — the decimal element types: numeric(p, s), an exact decimal of p <= 38 digits with s of them after the
 * point, stored as a 16-byte two's-complement integer (value * 10^s, Arrow's decimal128), and money, a 64-bit
 * count of the currency's smallest unit.  Their arithmetic is the "numeric" and "money" device libraries
 * (include/parray/plcuda/numeric.h, money.h); here only the names.  Declarations keep numeric's canonical
 * spelling "numeric(18,2)"; the builder also takes spaces inside the parentheses.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types.h"

static const char *spaces(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static const char *number(const char *p, int *out)
{
    long v = 0;
    p = spaces(p);
    if (!isdigit((unsigned char)*p))
        return NULL;
    while (isdigit((unsigned char)*p) && v < 1000)
        v = v * 10 + (*p++ - '0');
    *out = (int)v;
    return isdigit((unsigned char)*p) ? NULL : spaces(p);
}

int pa__elm_numeric(const char *name, int *precision, int *scale)
{
    int p = 0, s = 0;
    if (strncmp(name, "numeric", 7) != 0)
        return 0;
    const char *c = spaces(name + 7);
    if (*c++ != '(' || !(c = number(c, &p)))
        return 0;
    if (*c == ',' && !(c = number(c + 1, &s)))
        return 0;
    if (*c != ')' || *spaces(c + 1) != '\0' || p < 1 || p > 38 || s > p)
        return 0;
    *precision = p;
    *scale = s;
    return 1;
}

int pa__elm_numeric_check(const char *name, const char *src, int col)
{
    int p, s;
    if (strncmp(name, "numeric", 7) != 0 || (name[7] != '\0' && name[7] != '(') || pa__elm_numeric(name, &p, &s))
        return PA_OK;
    if (name[7] == '\0')
        return pa__err(PA_ERR_ELM, "in \"%s\" at column %d: numeric needs its precision and scale, as in numeric(18,2) "
                       "(a fixed-size exact decimal of up to 38 digits)", src, col);
    return pa__err(PA_ERR_ELM, "in \"%s\" at column %d: %s: the precision is 1 to 38 digits and the scale 0 to the "
                   "precision", src, col, name);
}

int pa__elm_copy_check(const char *dst_name, const char *dst_elm, const char *src_name, const char *src_elm)
{
    int dp, ds, sp, ss;
    if (!dst_elm || !src_elm || !pa__elm_numeric(dst_elm, &dp, &ds) || !pa__elm_numeric(src_elm, &sp, &ss))
        return PA_OK;
    if (ds != ss)
        return pa__err(PA_ERR_ELM, "copy from %s (%s) to %s (%s): the scales differ, and a copy moves the stored "
                       "integers unchanged, which would change every value (rescale with pa_num_round)", src_name,
                       src_elm, dst_name, dst_elm);
    if (dp < sp)
        return pa__err(PA_ERR_ELM, "copy from %s (%s) to %s (%s): the destination's precision is smaller, so it "
                       "may not hold the values (check them with pa_num_store)", src_name, src_elm, dst_name, dst_elm);
    return PA_OK;
}
