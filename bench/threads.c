/*
 * bench/threads — target P10 (shared/PERFORMANCE.md), measured in one run at 1, 2, 4, 8 and all of this
 * process's cores (pa_host_share):
 *
 *   1. Stream triad a[i] = b[i] + s * c[i] over paged double arrays (3 x 128 MiB by default) through
 *      pa_map_runs (the run form, which vectorises) and pa_map_runs of the element function compiled into runs
 *      (PA_ELEM_RUNS), against a plain OpenMP loop with the same thread count; and through pa_map (the element
 *      function called through a pointer, once per element) against a plain OpenMP loop that calls the same
 *      function through a pointer once per element, the OpenMP form of the same program.  Target >= 0.95 for
 *      each.  pa_map's rate against the inlined OpenMP triad is printed beside it without a target: on few
 *      threads the call itself costs more than the memory (docs/threads.md), in OpenMP as in pa_map.  Shown
 *      beside them without a target: the exported (pa_map), whose per-element loop sits in the library, far
 *      from the element function (thread.h says why pa_map is a macro); pa_for over a pthd array (each thread
 *      its static chunk); and the OpenMP triad against itself, the noise floor of a row.  Each case runs in
 *      rounds right beside its anchor (which goes first alternates), and a row's ratio is the median of its
 *      rounds' ratios.
 *   2. An empty pa_for over pthd [n], n = 2, 4, 8 and all cores, against an empty OpenMP parallel region of n
 *      threads: single launches timed one by one in blocks of back-to-back launches (a pause between blocks
 *      lets either side's polling threads sleep), median and 90th percentile; target: our median <= 1.5x
 *      OpenMP's.
 *
 * Usage: threads [log2 elements] [--smoke] [--triad | --launch] [-t N]   (default 24; --smoke: 2^18 elements,
 * few samples, no pass/fail; --triad or --launch: only that part; -t N: only N threads).
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
#include "bench_clock.h"

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

/* The same element function compiled into a run function (thread.h). */
PA_ELEM_RUNS(triad_elem_runs, triad_elem, double)

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

/* The element function as the OpenMP program would call it: through a pointer the compiler cannot see into
 * (read from a volatile), so neither side inlines it. */
static pa_elem_fn volatile triad_elem_ptr = triad_elem;

static void triad_omp_elem(triad *t, int p)
{
    pa_elem_fn f = triad_elem_ptr;
    double *a = t->a;
    int64_t n = t->n;
#pragma omp parallel for schedule(static) num_threads(p)
    for (int64_t i = 0; i < n; i++)
        f(a + i, i, t);
    (void)p;
}

static int smoke;
static int reps = 15;

static double pct(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[(int)(q * (n - 1) + 0.5)];
}

static void row(const char *name, const char *size, int t, double ours, double anchor, double ratio, const char *unit,
                double target, int higher_better, int *rows, int *fails)
{
    int pass = higher_better ? ratio >= target : ratio <= target;
    (*rows)++;
    *fails += !pass;
    printf("| %s | %s | %d | %.2f | %.2f | %s | %.3f | %s%.2f | %s |\n", name, size, t, ours, anchor, unit, ratio,
           higher_better ? ">= " : "<= ", target, smoke ? "(smoke)" : pass ? "pass" : "FAIL");
    fflush(stdout);
}

/* The triad's cases: ours against the OpenMP triad, and the element map against OpenMP calling its function. */
enum { C_RUNS, C_ERUNS, C_ELEM, C_ELEM_LIB, C_FOR, C_FLOOR, NCASE };

static void run_ours(int c, const pa_type *A, const pa_type *P, triad *t, triad **tp)
{
    if (c == C_RUNS)
        pa_map_runs(A, t->a, triad_run, t);
    else if (c == C_ERUNS)
        pa_map_runs(A, t->a, triad_elem_runs, t);
    else if (c == C_ELEM)
        pa_map(A, t->a, triad_elem, t);   /* thread.h's macro: the per-element loop compiled here */
    else if (c == C_ELEM_LIB)
        (pa_map)(A, t->a, triad_elem, t);   /* the exported function: the loop in the library */
    else if (c == C_FOR)
        pa_for(P, triad_thread, tp, sizeof *tp);
    else
        triad_omp(t, pa_threads_get_num());   /* the noise floor: the anchor against itself */
}

static void run_anchor(int c, triad *t, int p)
{
    if (c == C_ELEM || c == C_ELEM_LIB)
        triad_omp_elem(t, p);
    else
        triad_omp(t, p);
}

static void bench_triad(pa_scope *scope, int log2n, const int *nthr, int nt, int *rows, int *fails)
{
    char decl[64], size[32];
    int all = nthr[nt - 1];
    snprintf(decl, sizeof decl, "paged double [%lld]", 1LL << log2n);
    snprintf(size, sizeof size, "3 x 2^%d doubles", log2n);
    const pa_type *A = pa_type_parse(scope, decl);
    triad t = {pa_create(A), pa_create(A), pa_create(A), 3.0, 1LL << log2n};
    triad *tp = &t;
    if (t.a == NULL || t.b == NULL || t.c == NULL) {
        fprintf(stderr, "threads: cannot allocate the triad arrays: %s\n", pa_last_error());
        exit(1);
    }
    /* First touch with the same static partition both sides use. */
#pragma omp parallel for schedule(static) num_threads(all)
    for (int64_t i = 0; i < t.n; i++) {
        t.a[i] = 0;
        t.b[i] = (double)(i % 1000);
        t.c[i] = (double)(i % 77);
    }
    double bytes = 3.0 * 8.0 * (double)t.n;
    for (int i = 0; i < nt; i++) {
        int p = nthr[i];
        snprintf(decl, sizeof decl, "pthd [%d]", p);
        const pa_type *P = pa_type_parse(scope, decl);
        pa_threads_set_num(p);
        /* Rounds of pairs: each case of ours right beside its anchor, the one first in one round going second
         * in the next, so that a drift of the host's rate (other tenants, the clock) falls on both sides of a
         * pair; a row's ratio is the median of its rounds' ratios.  Before every run a pause lets spinning
         * threads (OpenMP's and the pool's) go to sleep, so no run pays for the previous one's polling threads. */
        double ours[NCASE][64], anchor[NCASE][64], ratio[NCASE][64];
        for (int r = 0; r < reps + 1; r++)
            for (int c = 0; c < NCASE; c++)
                for (int k = 0; k < 2; k++) {
                    int anchor_side = (k + r + c) % 2;
                    usleep(smoke ? 0 : 20000);
                    double t0 = now();
                    if (anchor_side)
                        run_anchor(c, &t, p);
                    else
                        run_ours(c, A, P, &t, &tp);
                    double dt = now() - t0;
                    if (r > 0)   /* the first round warms up */
                        (anchor_side ? anchor : ours)[c][r - 1] = dt;
                    if (r > 0 && k == 1)
                        ratio[c][r - 1] = anchor[c][r - 1] / ours[c][r - 1];
                }
        for (int64_t k = 0; k < t.n; k += 4099)
            if (t.a[k] != t.b[k] + 3.0 * t.c[k]) {
                fprintf(stderr, "threads: wrong triad result at %lld\n", (long long)k);
                exit(1);
            }
        double g[NCASE], ga[NCASE], q[NCASE];
        for (int c = 0; c < NCASE; c++) {
            g[c] = bytes / median(ours[c], reps) / 1e9;
            ga[c] = bytes / median(anchor[c], reps) / 1e9;
            q[c] = median(ratio[c], reps);
        }
        row("triad pa_map_runs", size, p, g[C_RUNS], ga[C_RUNS], q[C_RUNS], "GB/s", 0.95, 1, rows, fails);
        row("triad pa_map_runs of PA_ELEM_RUNS(element function)", size, p, g[C_ERUNS], ga[C_ERUNS], q[C_ERUNS], "GB/s",
            0.95, 1, rows, fails);
        row("triad pa_map (element function; OpenMP calls it per element)", size, p, g[C_ELEM], ga[C_ELEM], q[C_ELEM],
            "GB/s", 0.95, 1, rows, fails);
        printf("| triad pa_map (element function) vs the inlined OpenMP triad (no target) | %s | %d | %.2f | %.2f | GB/s "
               "| %.3f | - | - |\n", size, p, g[C_ELEM], ga[C_RUNS], g[C_ELEM] / ga[C_RUNS]);
        printf("| triad (pa_map) exported, its loop in the library (no target) | %s | %d | %.2f | %.2f | GB/s | %.3f | - "
               "| - |\n", size, p, g[C_ELEM_LIB], ga[C_ELEM_LIB], q[C_ELEM_LIB]);
        printf("| triad pa_for pthd chunks (no target) | %s | %d | %.2f | %.2f | GB/s | %.3f | - | - |\n", size, p,
               g[C_FOR], ga[C_FOR], q[C_FOR]);
        printf("| triad OpenMP against itself (noise floor, no target) | %s | %d | %.2f | %.2f | GB/s | %.3f | - | - |\n",
               size, p, g[C_FLOOR], ga[C_FLOOR], q[C_FLOOR]);
    }
    pa_threads_set_num(all);
    pa_destroy(A, t.a);
    pa_destroy(A, t.b);
    pa_destroy(A, t.c);
}

/* ---- empty launches ---------------------------------------------------------------------------------- */

static int nop(pa_ctx *ctx, void *arg)
{
    (void)ctx;
    (void)arg;
    return PA_OK;
}

#define BLOCK 200

static void omp_empty(int n)
{
    static volatile int sink;
#pragma omp parallel num_threads(n)
    sink = sink + 0;
    (void)n;
}

static void bench_launch(pa_scope *scope, const int *nthr, int nt, int *rows, int *fails)
{
    int blocks = smoke ? 2 : 10, total = blocks * BLOCK;
    double *vo = malloc(sizeof(double) * (size_t)total), *va = malloc(sizeof(double) * (size_t)total);
    /* One thread: no worker, only what pa_for costs its caller (the type's shape, the launch's memory). */
    const pa_type *one = pa_type_parse(scope, "pthd [1]");
    for (int k = -5; k < total; k++) {
        double t0 = now();
        pa_for(one, nop, NULL, 0);
        if (k >= 0)
            vo[k] = (now() - t0) * 1e6;
    }
    printf("| empty pa_for over pthd [1]: the caller's own cost (no target) | median | 1 | %.3f | - | us | - | - | - "
           "|\n", pct(vo, total, 0.5));
    for (int i = 0; i < nt; i++) {
        int n = nthr[i];
        if (n < 2)
            continue;
        char decl[32], size[48];
        snprintf(decl, sizeof decl, "pthd [%d]", n);
        const pa_type *t = pa_type_parse(scope, decl);
        pa_for(t, nop, NULL, 0);   /* the pool makes its workers once */
        omp_empty(n);
        for (int b = 0; b < blocks; b++) {
            for (int side = 0; side < 2; side++) {
                usleep(smoke ? 0 : 20000);
                for (int k = -5; k < BLOCK; k++) {   /* five launches wake the threads up */
                    double t0 = now();
                    if (side == 0)
                        pa_for(t, nop, NULL, 0);
                    else
                        omp_empty(n);
                    double dt = now() - t0;
                    if (k >= 0)
                        (side ? va : vo)[b * BLOCK + k] = dt * 1e6;
                }
            }
        }
        double om = pct(vo, total, 0.5), o9 = pct(vo, total, 0.9), am = pct(va, total, 0.5), a9 = pct(va, total, 0.9);
        snprintf(size, sizeof size, "p90 %.2f vs %.2f us", o9, a9);
        row("empty pa_for vs omp parallel, median", size, n, om, am, om / am, "us", 1.5, 0, rows, fails);
    }
    free(vo);
    free(va);
}

int main(int argc, char **argv)
{
    int log2n = 24, nthr[8], nt = 0, rows = 0, fails = 0, do_triad = 1, do_launch = 1, only = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--smoke") == 0)
            smoke = 1;
        else if (strcmp(argv[i], "--triad") == 0)
            do_launch = 0;
        else if (strcmp(argv[i], "--launch") == 0)
            do_triad = 0;
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0)
            only = atoi(argv[++i]);
        else if (atoi(argv[i]) > 0)
            log2n = atoi(argv[i]);
    }
    if (smoke)
        log2n = 18, reps = 3;
    pa_host_share_info sh;
    pa_host_share(&sh);
    for (int t = 1; t < sh.cpus && nt < 7; t *= 2)
        nthr[nt++] = t;
    nthr[nt++] = sh.cpus;
    if (only > 0)
        nthr[0] = only, nt = 1;
    pa_scope *scope = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK)
        return 1;
#ifndef _OPENMP
    printf("built without OpenMP: the anchor loops run on one thread\n");
#endif
    pa_topology_print(stdout);
    printf("P10: thread arrays at 1 to %d threads against OpenMP on as many threads\n", sh.cpus);
    printf("| case | size | threads | ours | OpenMP | unit | ratio | target | result |\n"
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    if (do_triad)
        bench_triad(scope, log2n, nthr, nt, &rows, &fails);
    if (do_launch)
        bench_launch(scope, nthr, nt, &rows, &fails);
    printf("%d of %d rows meet their target\n", rows - fails, rows);
    pa_scope_destroy(scope);
    return smoke ? 0 : fails != 0;
}
