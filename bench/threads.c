/*
 * bench/threads — target P10 and the cost of a launch, measured in one run.
 *
 *   1. Stream triad a[i] = b[i] + s * c[i] over paged double arrays (3 x 128 MiB by default), through
 *      pa_map_runs (the run form, which vectorises), pa_map (one indirect call per element) and pa_for over a
 *      pthd array (each thread its static chunk), against a plain OpenMP loop with the same thread count.
 *      P10 asks pa_map (run form) / OpenMP >= 0.95.
 *   2. An empty pa_for over pthd [n], n = 2, 4, 8, against pthread_create + pthread_join of n threads that
 *      do nothing (and an empty OpenMP parallel region for reference).
 *
 * Medians of repeated, interleaved measurements.  Usage: threads [log2 elements] (default 24).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <parray/parray.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* ---- triad ------------------------------------------------------------------------------------------- */

typedef struct triad {
    double *a, *b, *c, s;
    int64_t n;
} triad;

static void triad_run(void *first, int64_t stride, int64_t k0, int64_t n, void *arg)
{
    const triad *t = arg;
    double *restrict a = first;
    const double *restrict b = t->b + k0, *restrict c = t->c + k0;
    double s = t->s;
    if (stride == 1) {
        for (int64_t i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
    } else {
        for (int64_t i = 0; i < n; i++)
            a[i * stride] = b[i] + s * c[i];
    }
}

static void triad_elem(void *e, int64_t k, void *arg)
{
    const triad *t = arg;
    *(double *)e = t->b[k] + t->s * t->c[k];
}

static int triad_thread(pa_ctx *ctx, void *arg)
{
    const triad *t = *(triad **)arg;
    int64_t id = pa_tid(ctx), p = pa_ctx_size(ctx);
    int64_t lo = t->n * id / p, hi = t->n * (id + 1) / p;
    double *restrict a = t->a;
    const double *restrict b = t->b, *restrict c = t->c;
    double s = t->s;
    for (int64_t i = lo; i < hi; i++)
        a[i] = b[i] + s * c[i];
    return PA_OK;
}

static void triad_omp(triad *t, int p)
{
    double *restrict a = t->a;
    const double *restrict b = t->b, *restrict c = t->c;
    double s = t->s;
    int64_t n = t->n;
#pragma omp parallel for schedule(static) num_threads(p)
    for (int64_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
    (void)p;
}

#define REPS 15

static void bench_triad(pa_scope *scope, int log2n, int p)
{
    char decl[64], size[32];
    snprintf(decl, sizeof decl, "paged double [%lld]", 1LL << log2n);
    const pa_type *A = pa_type_parse(scope, decl);
    triad t = {pa_create(A), pa_create(A), pa_create(A), 3.0, 1LL << log2n};
    triad *tp = &t;
    if (t.a == NULL || t.b == NULL || t.c == NULL) {
        fprintf(stderr, "threads: cannot allocate the triad arrays: %s\n", pa_last_error());
        exit(1);
    }
    /* First touch with the same static partition both sides use. */
#pragma omp parallel for schedule(static) num_threads(p)
    for (int64_t i = 0; i < t.n; i++) {
        t.a[i] = 0;
        t.b[i] = (double)(i % 1000);
        t.c[i] = (double)(i % 77);
    }
    snprintf(decl, sizeof decl, "pthd [%d]", p);
    const pa_type *P = pa_type_parse(scope, decl);
    double runs[REPS], elem[REPS], forr[REPS], omp[REPS];
    /* Between cases a pause lets spinning threads (OpenMP's and the pool's) go to sleep, so no case pays
     * for the previous one's idle threads on a machine with few cores. */
    for (int r = 0; r < REPS + 1; r++) {
        double t0 = now();
        triad_omp(&t, p);
        double t1 = now();
        usleep(50000);
        double t2 = now();
        pa_map_runs(A, t.a, triad_run, &t);
        double t3 = now();
        usleep(50000);
        double t4 = now();
        pa_map(A, t.a, triad_elem, &t);
        double t5 = now();
        usleep(50000);
        double t6 = now();
        pa_for(P, triad_thread, &tp, sizeof tp);
        double t7 = now();
        usleep(50000);
        if (r > 0) {   /* the first round warms up */
            omp[r - 1] = t1 - t0;
            runs[r - 1] = t3 - t2;
            elem[r - 1] = t5 - t4;
            forr[r - 1] = t7 - t6;
        }
    }
    for (int64_t i = 0; i < t.n; i += 4099)
        if (t.a[i] != t.b[i] + 3.0 * t.c[i]) {
            fprintf(stderr, "threads: wrong triad result at %lld\n", (long long)i);
            exit(1);
        }
    double bytes = 3.0 * 8.0 * (double)t.n, gomp = bytes / median(omp, REPS) / 1e9;
    snprintf(size, sizeof size, "2^%d", log2n);
    printf("%-40s %-8s %10s %10s %8s %8s %s\n", "case", "size", "ours", "anchor", "ratio", "target", "result");
    double cases[3] = {bytes / median(runs, REPS) / 1e9, bytes / median(elem, REPS) / 1e9,
                       bytes / median(forr, REPS) / 1e9};
    const char *names[3] = {"triad pa_map_runs (P10) GB/s", "triad pa_map element fn GB/s", "triad pa_for pthd chunks GB/s"};
    for (int i = 0; i < 3; i++) {
        double ratio = cases[i] / gomp;
        printf("%-40s %-8s %10.2f %10.2f %8.3f %8s %s\n", names[i], size, cases[i], gomp, ratio,
               i == 0 ? "0.95" : "-", i == 0 ? (ratio >= 0.95 ? "pass" : "FAIL") : "");
    }
    pa_destroy(A, t.a);
    pa_destroy(A, t.b);
    pa_destroy(A, t.c);
}

/* ---- empty launches ---------------------------------------------------------------------------------- */

static int nop(pa_ctx *ctx, void *arg)
{
    return PA_OK;
}

static void *nop_thread(void *arg)
{
    return arg;
}

#define BATCH 200
#define BATCHES 15

static double time_pa_for(const pa_type *t)
{
    double v[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now();
        for (int i = 0; i < BATCH; i++)
            pa_for(t, nop, NULL, 0);
        v[b] = (now() - t0) / BATCH;
    }
    return median(v, BATCHES);
}

static double time_create_join(int n)
{
    double v[BATCHES];
    pthread_t th[64];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now();
        for (int i = 0; i < BATCH; i++) {
            for (int k = 0; k < n; k++)
                pthread_create(&th[k], NULL, nop_thread, NULL);
            for (int k = 0; k < n; k++)
                pthread_join(th[k], NULL);
        }
        v[b] = (now() - t0) / BATCH;
    }
    return median(v, BATCHES);
}

static double time_omp_region(int n)
{
    double v[BATCHES];
    volatile int sink = 0;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now();
        for (int i = 0; i < BATCH; i++) {
#pragma omp parallel num_threads(n)
            sink = 1;
        }
        v[b] = (now() - t0) / BATCH;
    }
    (void)sink;
    return median(v, BATCHES);
}

static void bench_launch(pa_scope *scope)
{
    int ns[3] = {2, 4, 8};
    for (int i = 0; i < 3; i++) {
        char decl[32], size[16];
        snprintf(decl, sizeof decl, "pthd [%d]", ns[i]);
        snprintf(size, sizeof size, "%d thr", ns[i]);
        const pa_type *t = pa_type_parse(scope, decl);
        pa_for(t, nop, NULL, 0);   /* the pool makes its workers once */
        double ours = time_pa_for(t) * 1e6, cj = time_create_join(ns[i]) * 1e6, omp = time_omp_region(ns[i]) * 1e6;
        printf("%-40s %-8s %10.2f %10.2f %8.3f %8s %s\n", "empty pa_for vs create+join (us)", size, ours, cj,
               cj / ours, ">1", cj > ours ? "pass" : "FAIL");
        printf("%-40s %-8s %10.2f %10.2f %8.3f %8s %s\n", "empty pa_for vs omp parallel (us)", size, ours, omp,
               omp / ours, "-", "");
    }
}

int main(int argc, char **argv)
{
    int log2n = argc > 1 ? atoi(argv[1]) : 24;
    int p = pa_get_num_threads();
    pa_scope *scope = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK)
        return 1;
#ifndef _OPENMP
    printf("built without OpenMP: the anchor loops run on one thread\n");
#endif
    printf("threads: %d (pa_get_num_threads; PA_NUM_THREADS to change)\n", p);
    pa_topology_print(stdout);
    bench_triad(scope, log2n, p);
    bench_launch(scope);
    pa_scope_destroy(scope);
    return 0;
}
