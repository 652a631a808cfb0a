/* Helpers of the probes of the host copies (bench/probe/): hand-made layouts, random buffers, timers (and bench_clock.h). */
#ifndef PARRAY_PROBE_UTIL_H
#define PARRAY_PROBE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "copy_host.h"
#include "cost_model.h"

static inline pa__layout mk(int n, const int64_t *sizes, const int64_t *strides)
{
    return pa__cost_affine(n, sizes, strides);
}
#define L(n, ...) mk_list(n, (const int64_t[]){__VA_ARGS__})
static inline pa__layout mk_list(int n, const int64_t *v)
{
    return mk(n, v, v + n);
}

/* Largest offset + 1 of an affine layout with non-negative strides. */
static inline int64_t extent(const pa__layout *l)
{
    int64_t hi = l->base;
    for (int m = 0; m < l->nmodes; m++)
        hi += (l->modes[m].size - 1) * l->modes[m].stride;
    return hi + 1;
}

static inline void *random_buffer(size_t bytes)
{
    unsigned char *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    uint64_t x = 0x9e3779b97f4a7c15ULL ^ bytes;
    for (size_t i = 0; i < bytes; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = (unsigned char)x;
    }
    return p;
}

static inline double time_kernel(const pa__copy_shape *s, void *d, const void *src, int threads, pa__copy_kernel k,
                          int reps)
{
    double v[256];
    for (int i = 0; i < 2; i++)
        pa__copy_parallel(s, d, src, threads, k);
    for (int i = 0; i < reps; i++) {
        double t0 = now();
        pa__copy_parallel(s, d, src, threads, k);
        v[i] = now() - t0;
    }
    return median(v, reps);
}

static inline double time_plan(const pa__plan *p, void *d, const void *s, int reps)
{
    double v[256];
    for (int i = 0; i < 2; i++)
        pa__plan_exec(p, d, 0, s, 0);
    for (int i = 0; i < reps; i++) {
        double t0 = now();
        pa__plan_exec(p, d, 0, s, 0);
        v[i] = now() - t0;
    }
    return median(v, reps);
}

static inline double time_memcpy(void *d, const void *s, size_t bytes, int reps)
{
    double v[256];
    for (int i = 0; i < 2; i++)
        memcpy(d, s, bytes);
    for (int i = 0; i < reps; i++) {
        double t0 = now();
        memcpy(d, s, bytes);
        v[i] = now() - t0;
    }
    return median(v, reps);
}

#endif
