/*
 * The host anchor of P3, P4 and P13: an OpenMP-parallel memcpy, each of t threads copying its contiguous 1/t
 * of the bytes (cut at cache lines) with glibc's memcpy, as a program would write it.  Bytes are counted once.
 */
#ifndef PARRAY_BENCH_OMP_MEMCPY_H
#define PARRAY_BENCH_OMP_MEMCPY_H

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_clock.h"

static inline void omp_memcpy(char *d, const char *s, size_t n, int t)
{
#pragma omp parallel num_threads(t)
    {
#ifdef _OPENMP
        size_t id = (size_t)omp_get_thread_num(), p = (size_t)omp_get_num_threads();
#else
        size_t id = 0, p = 1;
#endif
        size_t lines = n / 64, lo = lines * id / p * 64, hi = id + 1 == p ? n : lines * (id + 1) / p * 64;
        memcpy(d + lo, s + lo, hi - lo);
    }
    (void)t;
}

/* The median rate of reps (at most 63) OpenMP memcpys of n bytes on t threads, GB/s, after one warm-up. */
static inline double omp_memcpy_rate(char *d, const char *s, size_t n, int t, int reps)
{
    double v[64];
    reps = reps < 1 ? 1 : reps > 63 ? 63 : reps;
    omp_memcpy(d, s, n, t);
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        omp_memcpy(d, s, n, t);
        v[r] = now() - t0;
    }
    qsort(v, (size_t)reps, sizeof *v, cmp_double);
    return (double)n / v[reps / 2] * 1e-9;
}

#endif
