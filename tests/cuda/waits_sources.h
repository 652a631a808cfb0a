/*
 * The kernels and element functions of the suite cuda_waits (test_cuda_waits.c), in one place so that the suite
 * cuda_map_source compiles them for sm_90 with NVRTC where there is no GPU.
 */
#ifndef PARRAY_TEST_WAITS_SOURCES_H
#define PARRAY_TEST_WAITS_SOURCES_H

/* spin: one thread busy for `cycles` clocks, then *flag = 1; trap: a kernel that faults (the context is lost). */
static const char *const waits_kernels_src =
    "extern \"C\" __global__ void spin(long long cycles, int *flag)\n"
    "{\n"
    "    long long t0 = clock64();\n"
    "    while (clock64() - t0 < cycles) { }\n"
    "    *flag = 1;\n"
    "}\n"
    "extern \"C\" __global__ void trap(int *flag)\n"
    "{\n"
    "    if (*flag != 12345) __trap();\n"
    "}\n";

/* Element functions for pa_cuda_map over dmem int arrays: an increment, and one that faults. */
static const char *const waits_inc_src = "__device__ void inc(int *x, long long k, const void *a) { *x += 1; }";
static const char *const waits_trap_src =
    "__device__ void boom(int *x, long long k, const void *a) { if (*x != 12345) __trap(); }";

#endif
