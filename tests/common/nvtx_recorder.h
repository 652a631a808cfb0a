/*
 * An NVTX tool built into a test program, so that tests see the library's NVTX ranges without Nsight Systems.
 * NVTX3 looks for a statically linked injection through the symbol InitializeInjectionNvtx2_fnptr, which
 * nvtx_recorder.c defines; its initialiser subscribes to the range callbacks and records every range the library
 * opens (nesting depth, category, message, start and end time on the calling thread).  Link nvtx_recorder.c into
 * one test program only where NVTX is built in.
 */
#ifndef PA_TEST_NVTX_RECORDER_H
#define PA_TEST_NVTX_RECORDER_H

#include <stdint.h>

enum { PA_TEST_MAX_RANGES = 256 };

typedef struct pa_test_range {
    int depth;            /* 0: outermost */
    uint32_t category;    /* the library's categories: 1 pa_copy, 2 pa_cuda_for, 3 pa_cuda_map, 4 pa_kernel_call */
    char message[96];
    double start, end;    /* microseconds since pa_test_ranges_reset; end < 0 while open */
} pa_test_range;

extern pa_test_range pa_test_ranges[PA_TEST_MAX_RANGES];
extern int pa_test_nranges;       /* ranges recorded since the last reset (at most PA_TEST_MAX_RANGES) */
extern int pa_test_range_depth;   /* ranges open now */

/* Forgets the recorded ranges and restarts the clock. */
void pa_test_ranges_reset(void);

/* The name of a category, "?" for one the library does not define. */
const char *pa_test_range_category(uint32_t category);

#endif
