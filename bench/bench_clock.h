/* Helpers every benchmark uses: a monotonic clock in seconds, a comparator of doubles and a median (sorts v). */
#ifndef PARRAY_BENCH_CLOCK_H
#define PARRAY_BENCH_CLOCK_H

#include <stdlib.h>
#include <time.h>

static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The upper median of n values (v[n / 2] after sorting v in place). */
static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}
#endif
