/*
 * parray — PL/CUDA device library "math" (#plcuda_include "math"): arithmetic that raises an error status
 * instead of overflowing, for int, long (64-bit), float and double.
 *
 *     pa_add_int(kcxt, a, b)   pa_sub_long(kcxt, a, b)   pa_mul_float(kcxt, a, b)   pa_div_double(kcxt, a, b)
 *
 * On overflow (a result out of the type's range; a finite float operation giving an infinity) the call raises
 * PA_KERR_OVERFLOW, on a division by zero PA_KERR_DIVZERO, at the caller's line, and returns 0; the function
 * call then fails with PA_ERR_KERNEL.  PG-Strom's pgfn_int4pl, _int4mi, _int4mul, _int8pl, ... are aliases.
 *
 * Device code for NVRTC, after the PL/CUDA prelude (it uses pa_kcxt and pa__raise); no standard library.
 */
#ifndef PARRAY_PLCUDA_MATH_H
#define PARRAY_PLCUDA_MATH_H

#define PA_KERR_OVERFLOW 22003 /* SQLSTATE numeric_value_out_of_range */
#define PA_KERR_DIVZERO 22012  /* SQLSTATE division_by_zero */

static __device__ __forceinline__ int pa__overflow(pa_kcxt *kcxt, int line)
{
    pa__raise(kcxt, PA_KSTATUS_ERROR, PA_KERR_OVERFLOW, line);
    return 0;
}

/* int: computed in 64 bits and range-checked. */
#define PA__INT_OP(op, expr)                                                                             \
    static __device__ __forceinline__ int pa__##op##_int(pa_kcxt *kcxt, int a, int b, int line)          \
    {                                                                                                    \
        long long r;                                                                                     \
        if (#op[0] == 'd' && b == 0) {                                                                   \
            pa__raise(kcxt, PA_KSTATUS_ERROR, PA_KERR_DIVZERO, line);                                    \
            return 0;                                                                                    \
        }                                                                                                \
        r = expr;                                                                                        \
        if (r > 2147483647LL || r < -2147483647LL - 1)                                                   \
            return pa__overflow(kcxt, line);                                                             \
        return (int)r;                                                                                   \
    }
PA__INT_OP(add, (long long)a + b)
PA__INT_OP(sub, (long long)a - b)
PA__INT_OP(mul, (long long)a * b)
PA__INT_OP(div, (long long)a / b)

#define PA__LMAX 9223372036854775807LL
#define PA__LMIN (-PA__LMAX - 1)

static __device__ __forceinline__ long pa__add_long(pa_kcxt *kcxt, long a, long b, int line)
{
    if ((b > 0 && a > PA__LMAX - b) || (b < 0 && a < PA__LMIN - b))
        return pa__overflow(kcxt, line);
    return a + b;
}

static __device__ __forceinline__ long pa__sub_long(pa_kcxt *kcxt, long a, long b, int line)
{
    if ((b < 0 && a > PA__LMAX + b) || (b > 0 && a < PA__LMIN + b))
        return pa__overflow(kcxt, line);
    return a - b;
}

static __device__ __forceinline__ long pa__mul_long(pa_kcxt *kcxt, long a, long b, int line)
{
    long long lo = (long long)((unsigned long long)a * (unsigned long long)b);
    long long hi = __mul64hi((long long)a, (long long)b);
    if (hi != (lo >> 63))
        return pa__overflow(kcxt, line);
    return (long)lo;
}

static __device__ __forceinline__ long pa__div_long(pa_kcxt *kcxt, long a, long b, int line)
{
    if (b == 0) {
        pa__raise(kcxt, PA_KSTATUS_ERROR, PA_KERR_DIVZERO, line);
        return 0;
    }
    if (a == PA__LMIN && b == -1)
        return pa__overflow(kcxt, line);
    return a / b;
}

/* Floating point: x - x is 0 exactly when x is finite. */
#define PA__FP_OP(T, op, sym)                                                                            \
    static __device__ __forceinline__ T pa__##op##_##T(pa_kcxt *kcxt, T a, T b, int line)                \
    {                                                                                                    \
        T r;                                                                                             \
        if (#op[0] == 'd' && b == 0) {                                                                   \
            pa__raise(kcxt, PA_KSTATUS_ERROR, PA_KERR_DIVZERO, line);                                    \
            return 0;                                                                                    \
        }                                                                                                \
        r = a sym b;                                                                                     \
        if (a - a == 0 && b - b == 0 && !(r - r == 0))                                                   \
            return pa__overflow(kcxt, line);                                                             \
        return r;                                                                                        \
    }
PA__FP_OP(float, add, +)
PA__FP_OP(float, sub, -)
PA__FP_OP(float, mul, *)
PA__FP_OP(float, div, /)
PA__FP_OP(double, add, +)
PA__FP_OP(double, sub, -)
PA__FP_OP(double, mul, *)
PA__FP_OP(double, div, /)

#define pa_add_int(kcxt, a, b) pa__add_int((kcxt), (a), (b), __LINE__)
#define pa_sub_int(kcxt, a, b) pa__sub_int((kcxt), (a), (b), __LINE__)
#define pa_mul_int(kcxt, a, b) pa__mul_int((kcxt), (a), (b), __LINE__)
#define pa_div_int(kcxt, a, b) pa__div_int((kcxt), (a), (b), __LINE__)
#define pa_add_long(kcxt, a, b) pa__add_long((kcxt), (a), (b), __LINE__)
#define pa_sub_long(kcxt, a, b) pa__sub_long((kcxt), (a), (b), __LINE__)
#define pa_mul_long(kcxt, a, b) pa__mul_long((kcxt), (a), (b), __LINE__)
#define pa_div_long(kcxt, a, b) pa__div_long((kcxt), (a), (b), __LINE__)
#define pa_add_float(kcxt, a, b) pa__add_float((kcxt), (a), (b), __LINE__)
#define pa_sub_float(kcxt, a, b) pa__sub_float((kcxt), (a), (b), __LINE__)
#define pa_mul_float(kcxt, a, b) pa__mul_float((kcxt), (a), (b), __LINE__)
#define pa_div_float(kcxt, a, b) pa__div_float((kcxt), (a), (b), __LINE__)
#define pa_add_double(kcxt, a, b) pa__add_double((kcxt), (a), (b), __LINE__)
#define pa_sub_double(kcxt, a, b) pa__sub_double((kcxt), (a), (b), __LINE__)
#define pa_mul_double(kcxt, a, b) pa__mul_double((kcxt), (a), (b), __LINE__)
#define pa_div_double(kcxt, a, b) pa__div_double((kcxt), (a), (b), __LINE__)

/* PG-Strom's names (cuda_mathlib.h) for the same operations. */
#define pgfn_int4pl pa_add_int
#define pgfn_int4mi pa_sub_int
#define pgfn_int4mul pa_mul_int
#define pgfn_int4div pa_div_int
#define pgfn_int8pl pa_add_long
#define pgfn_int8mi pa_sub_long
#define pgfn_int8mul pa_mul_long
#define pgfn_int8div pa_div_long
#define pgfn_float4pl pa_add_float
#define pgfn_float8pl pa_add_double

#endif
