/*
 * The kernels and element functions of the suite cuda_async (test_cuda_async.c), in one place so that the suite
 * cuda_map_source compiles them for sm_90 with NVRTC where there is no GPU: a mistake in them then shows in CI,
 * not only on the GPU.
 */
#ifndef PARRAY_TEST_ASYNC_SOURCES_H
#define PARRAY_TEST_ASYNC_SOURCES_H

/* scale: a[TO(k)] = b[FROM(k)] * f over a thread array; spin: one thread busy for `cycles` clocks, then *flag = 1. */
static const char *const async_scale_src =
    "#include <parray/device.h>\n"
    "extern \"C\" __global__ void scale(pa_dthreads th, float *a, pa_dtype ta, const float *b, pa_dtype tb,\n"
    "                                  float f)\n"
    "{\n"
    "    long long k = pa_dev_tid(&th);\n"
    "    if (k < th.n) a[pa_dev_offset(&ta, k)] = b[pa_dev_offset(&tb, k)] * f;\n"
    "}\n"
    "extern \"C\" __global__ void spin(long long cycles, int *flag)\n"
    "{\n"
    "    long long t0 = clock64();\n"
    "    while (clock64() - t0 < cycles) { }\n"
    "    *flag = 1;\n"
    "}\n";

/* Element functions for pa_cuda_map over dmem int arrays (slow takes its cycle count as the argument, f a pair
 * {mul, add}). */
static const char *const async_slow_src =
    "__device__ void slow(int *x, long long k, const void *a)\n"
    "{ long long t0 = clock64(), c = *(const long long *)a; while (clock64() - t0 < c) { } *x += 7; }\n";
static const char *const async_inc_src = "__device__ void inc(int *x, long long k, const void *a) { *x += 1; }";
static const char *const async_affine_src =
    "struct ab { int mul, add; };\n"
    "__device__ void f(pa_elm_t *x, long long k, const void *a)\n"
    "{ const ab *p = (const ab *)a; *x = *x * p->mul + p->add + (int)k; }\n";
static const char *const async_neg_src = "__device__ void neg(int *x, long long k, const void *a) { *x = -*x; }";

#endif
