/*
 * bench/far_call — why pa_map's per-element loop is compiled into the caller (thread.h's pa_map macro): the
 * triad a[k] = b[k] + s * c[k] through an element function called by pointer once per element, with the loop
 * and the function each either in this executable or in a shared library (far_call_lib.c), so that the call
 * is near (same image) or far (more than 4 GiB apart).  One thread, the four cases taking turns, median of 21.
 * Not linked to parray.  On the lent H100 machine's host (Xeon model 207, KVM; 2026-11-26) the far cases ran at
 * 8.9 GB/s against 11.1 near for 128 MiB arrays, and 10.5 against 15.8 in cache; on an AMD EPYC all four equal.
 *
 * Usage: far_call [elements]   (default 2^24; try 4096 for the in-cache rate)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "far_call.h"
#include "../bench_clock.h"

__attribute__((noinline)) static void exe_loop(far_elem_fn f, char *e, int64_t n, void *arg)
{
    for (int64_t k = 0; k < n; k++, e += sizeof(double))
        f(e, k, arg);
}

static void exe_elem(void *e, int64_t k, void *arg)
{
    const far_triad *t = arg;
    *(double *)e = t->b[k] + t->s * t->c[k];
}

int main(int argc, char **argv)
{
    enum { REPS = 21, CASES = 4 };
    int64_t n = argc > 1 && atoll(argv[1]) > 0 ? atoll(argv[1]) : 1 << 24;
    far_triad t = {malloc((size_t)n * 8), malloc((size_t)n * 8), malloc((size_t)n * 8), 3.0};
    if (t.a == NULL || t.b == NULL || t.c == NULL)
        return 1;
    for (int64_t i = 0; i < n; i++)
        t.a[i] = 0, t.b[i] = (double)(i % 100), t.c[i] = (double)(i % 7);
    /* Read through volatile so that the compiler cannot inline either side. */
    void (*volatile loops[CASES])(far_elem_fn, char *, int64_t, void *) = {exe_loop, far_lib_loop, exe_loop,
                                                                            far_lib_loop};
    far_elem_fn volatile elems[CASES] = {exe_elem, exe_elem, far_lib_elem, far_lib_elem};
    const char *names[CASES] = {"executable loop -> executable function (near)",
                                "library loop -> executable function (far)",
                                "executable loop -> library function (far)", "library loop -> library function (near)"};
    double tm[CASES][REPS];
    for (int r = 0; r < REPS; r++)
        for (int v = 0; v < CASES; v++) {
            int w = (v + r) % CASES;
            double t0 = now();
            loops[w](elems[w], (char *)t.a, n, &t);
            tm[w][r] = now() - t0;
        }
    for (int64_t k = 0; k < n; k += 4099)
        if (t.a[k] != t.b[k] + 3.0 * t.c[k])
            return fprintf(stderr, "far_call: wrong result at %lld\n", (long long)k), 1;
    printf("far_call: %lld doubles; loops at %p (executable) and %p (library)\n", (long long)n, (void *)exe_loop,
           (void *)far_lib_loop);
    for (int v = 0; v < CASES; v++) {
        qsort(tm[v], REPS, sizeof(double), cmp_double);
        printf("%-48s median %8.3f ms  %6.2f GB/s\n", names[v], tm[v][REPS / 2] * 1e3,
               24.0 * (double)n / tm[v][REPS / 2] / 1e9);
    }
    free(t.a);
    free(t.b);
    free(t.c);
    return 0;
}
