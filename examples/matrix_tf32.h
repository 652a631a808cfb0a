/*
 * What the matrix examples' tensor-core paths share (examples/matrix_knn_tc.h, examples/matrix_kmeans_tc.h): the
 * precision a caller asks for and is told was used, and TF32's rounding on the host.
 *
 * TF32 keeps float's exponent and 10 of its 23 mantissa bits; the tensor cores read a float operand's top 19 bits
 * (the low 13 are ignored: truncation, a relative error below 2^-10) and accumulate in fp32.  A number with at
 * most 11 significant bits (every integer of magnitude up to 2048) is exact in TF32, and so are the products of
 * two of them, so integer data of that size give the fp32 path's results bit for bit.
 */
#ifndef PARRAY_EXAMPLE_MATRIX_TF32_H
#define PARRAY_EXAMPLE_MATRIX_TF32_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/** How the distances are computed: MX_FP32 (the default: fp32 FMAs) or MX_TF32 (tensor cores, when allowed). */
typedef enum mx_precision { MX_FP32 = 0, MX_TF32 = 1 } mx_precision;

static inline const char *mx_precision_name(mx_precision p)
{
    return p == MX_TF32 ? "tf32 (tensor cores)" : "fp32";
}

/* The caller allows TF32: the program's argument --tf32, or PA_ALLOW_TF32=1 in the environment. */
static inline mx_precision mx_precision_from(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--tf32") == 0)
            return MX_TF32;
    const char *e = getenv("PA_ALLOW_TF32");
    return e != NULL && atoi(e) != 0 ? MX_TF32 : MX_FP32;
}

/* x with its low 13 mantissa bits cleared: the value the tensor cores read. */
static inline float mx_tf32_truncate(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    u &= ~(uint32_t)0x1fff;
    memcpy(&x, &u, sizeof x);
    return x;
}

#endif
