/*
 * bench/map_threads — why pa_map takes chunks from slower threads (thread_map.c): the triad a[i] = b[i] + s * c[i]
 * over 3 x 128 MiB split statically over p threads, by an OpenMP parallel region and by pa_for over pthd [p]
 * (public API), each thread timing its own chunk and noting its CPU; rounds alternate after 20 ms pauses.  Each
 * line shows the run's total, the earliest and the latest thread's end, and every thread's CPU and time.  With
 * a static split the run ends with its slowest thread; on the lent H100 machine's host (16 vCPUs, 2026-11-26)
 * the threads of one 8-thread run ended up to 1.4x apart, on both sides.  Then pa_map over the same triad (its
 * chunks taken from the back of slower threads' ranges) is timed in the same rounds for comparison.
 *
 * Usage: map_threads [threads] [--smoke]   (default 8; --smoke: 2^18 elements, 2 rounds)
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <parray/parray.h>
#include "bench_clock.h"

enum { MAXT = 256 };

typedef struct run {
    double *a, *b, *c;
    int64_t n;
    int p;
    double t0, start[MAXT], end[MAXT];
    int cpu[MAXT];
} run;

static void chunk(run *r, int id)
{
    int64_t lo = r->n * id / r->p, hi = r->n * (id + 1) / r->p;
    double s0 = now();
    for (int64_t i = lo; i < hi; i++)
        r->a[i] = r->b[i] + 3.0 * r->c[i];
    r->end[id] = now() - r->t0;
    r->start[id] = s0 - r->t0;
    r->cpu[id] = sched_getcpu();
}

static int body(pa_ctx *ctx, void *arg)
{
    chunk(*(run **)arg, (int)pa_tid(ctx));
    return PA_OK;
}

static void triad_elem(void *e, int64_t k, void *arg)
{
    const run *r = arg;
    *(double *)e = r->b[k] + 3.0 * r->c[k];
}
PA_ELEM_RUNS(triad_runs, triad_elem, double)

static void report(const char *who, const run *r)
{
    double last = 0, first = 1e30;
    for (int i = 0; i < r->p; i++) {
        last = r->end[i] > last ? r->end[i] : last;
        first = r->end[i] < first ? r->end[i] : first;
    }
    printf("%-7s total %6.2f ms, ends %6.2f .. %6.2f ms (%.2fx); cpu:ms", who, last * 1e3, first * 1e3, last * 1e3,
           last / first);
    for (int i = 0; i < r->p; i++)
        printf(" %d:%.2f", r->cpu[i], (r->end[i] - r->start[i]) * 1e3);
    printf("\n");
}

int main(int argc, char **argv)
{
    int p = 8, smoke = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--smoke") == 0)
            smoke = 1;
        else if (atoi(argv[i]) > 0)
            p = atoi(argv[i]) < MAXT ? atoi(argv[i]) : MAXT;
    }
    pa_scope *s = NULL;
    if (pa_scope_create(NULL, &s) != PA_OK)
        return 1;
    int64_t n = smoke ? 1 << 18 : 1 << 24;
    char decl[64];
    snprintf(decl, sizeof decl, "paged double [%lld]", (long long)n);
    const pa_type *A = pa_type_parse(s, decl);
    run r = {pa_create(A), pa_create(A), pa_create(A), n, p, 0, {0}, {0}, {0}};
    if (r.a == NULL || r.b == NULL || r.c == NULL)
        return fprintf(stderr, "map_threads: %s\n", pa_last_error()), 1;
    for (int64_t i = 0; i < n; i++)
        r.a[i] = 0, r.b[i] = (double)(i % 100), r.c[i] = (double)(i % 7);
    snprintf(decl, sizeof decl, "pthd [%d]", p);
    const pa_type *P = pa_type_parse(s, decl);
    run *rp = &r;
    pa_threads_set_num(p);
    printf("map_threads: 3 x %lld doubles on %d threads, static chunks (OpenMP, pa_for) and pa_map_runs\n",
           (long long)n, p);
    for (int round = 0; round < (smoke ? 2 : 12); round++) {
        usleep(smoke ? 0 : 20000);
        r.t0 = now();
#pragma omp parallel num_threads(p)
        {
#ifdef _OPENMP
            chunk(&r, omp_get_thread_num());
#else
            for (int id = 0; id < p; id++)
                chunk(&r, id);
#endif
        }
        report("omp", &r);
        usleep(smoke ? 0 : 20000);
        r.t0 = now();
        if (pa_for(P, body, &rp, sizeof rp) != PA_OK)
            return fprintf(stderr, "map_threads: %s\n", pa_last_error()), 1;
        report("pa_for", &r);
        usleep(smoke ? 0 : 20000);
        double t0 = now();
        if (pa_map_runs(A, r.a, triad_runs, &r) != PA_OK)
            return fprintf(stderr, "map_threads: %s\n", pa_last_error()), 1;
        printf("pa_map  total %6.2f ms (chunks, stealing)\n", (now() - t0) * 1e3);
    }
    for (int64_t k = 0; k < n; k += 4099)
        if (r.a[k] != r.b[k] + 3.0 * r.c[k])
            return fprintf(stderr, "map_threads: wrong triad result at %lld\n", (long long)k), 1;
    pa_destroy(A, r.a);
    pa_destroy(A, r.b);
    pa_destroy(A, r.c);
    pa_scope_destroy(s);
    return 0;
}
