/*
 * parray — NVTX ranges around the library's work (pa_copy, pa_cuda_for, pa_cuda_map, PL/CUDA calls), so that
 * Nsight Systems shows what the library did: domain "parray", one category per kind of call, the message the
 * copy's strategy or the kernel's name.  Built in with the CUDA backend where the toolkit has the header-only
 * NVTX3 (meson option nvtx, auto); otherwise the macros are empty and cost nothing.
 */
#ifndef PARRAY_TRACE_H
#define PARRAY_TRACE_H

#include "pa_config.h"

enum { PA__TRACE_COPY = 1, PA__TRACE_CUDA_FOR = 2, PA__TRACE_CUDA_MAP = 3, PA__TRACE_KERNEL = 4 };

#if PA_HAVE_NVTX
/** Opens a range of category cat named name (a string that outlives the call) on the calling thread. */
void pa__trace_push(int cat, const char *name);
/** Closes the calling thread's innermost range. */
void pa__trace_pop(void);
#else
#define pa__trace_push(cat, name) ((void)(cat), (void)(name))
#define pa__trace_pop() ((void)0)
#endif

#endif
