/*
 * bench/cpu_peak — measures the terms of the host's FMA peak (see cpu_peak.h).
 *
 * Why measured: the lent GPU machine's host shows 16 cores to hwloc and 2.1 GHz in /proc/cpuinfo, which gives
 * 16 x 2.1 x 2 x 8 x 2 = 1075 GFLOP/s; yet one thread ran AVX-512 FMAs at 88 GFLOP/s (a dependent add chain at
 * 2.66 GHz: 33 flop per cycle, two units) and 16 threads at 674, 42 each: its 16 vCPUs are 8 cores' two hardware
 * threads each as far as the vector units go (docs/gpu-results.md, 2026-11-26).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <parray/parray.h>

#include "cpu_peak.h"

#define NACC 16   /* vectors in flight: enough to cover the FMA latency on two units */

#if defined(__x86_64__)
__attribute__((target("avx512f"))) static void fma_avx512(double *c, const double *a, const double *b, long reps,
                                                          int div)
{
    __m512d acc[NACC], va = _mm512_load_pd(a), vb = _mm512_load_pd(b);
    for (int k = 0; k < NACC; k++)
        acc[k] = _mm512_load_pd(c + 8 * k);
    if (div)
        for (long r = 0; r < reps; r++)
            for (int k = 0; k < NACC; k++)
                acc[k] = _mm512_add_pd(_mm512_div_pd(acc[k], va), vb);
    else
        for (long r = 0; r < reps; r++)
            for (int k = 0; k < NACC; k++)
                acc[k] = _mm512_fmadd_pd(acc[k], va, vb);
    for (int k = 0; k < NACC; k++)
        _mm512_store_pd(c + 8 * k, acc[k]);
}

__attribute__((target("avx2,fma"))) static void fma_avx2(double *c, const double *a, const double *b, long reps,
                                                        int div)
{
    __m256d acc[NACC / 2], va = _mm256_load_pd(a), vb = _mm256_load_pd(b);
    for (int k = 0; k < NACC / 2; k++)
        acc[k] = _mm256_load_pd(c + 4 * k);
    if (div)
        for (long r = 0; r < reps; r++)
            for (int k = 0; k < NACC / 2; k++)
                acc[k] = _mm256_add_pd(_mm256_div_pd(acc[k], va), vb);
    else
        for (long r = 0; r < reps; r++)
            for (int k = 0; k < NACC / 2; k++)
                acc[k] = _mm256_fmadd_pd(acc[k], va, vb);
    for (int k = 0; k < NACC / 2; k++)
        _mm256_store_pd(c + 4 * k, acc[k]);
}
#endif

/* SSE2 or scalar: a multiply and an add (no FMA), counted as two flops like an FMA. */
static void fma_plain(double *c, const double *a, const double *b, long reps, int div, int n)
{
    for (long r = 0; r < reps; r++)
        for (int k = 0; k < n; k++)
            c[k] = div ? c[k] / a[k % 2] + b[k % 2] : c[k] * a[k % 2] + b[k % 2];
}

int cpu_fma_nvec(const char *isa)
{
    return strcmp(isa, "avx512") == 0 ? NACC : strcmp(isa, "avx2") == 0 ? NACC / 2 : 8;
}

void cpu_fma_run(const char *isa, double *c, const double *a, const double *b, long reps, int div)
{
#if defined(__x86_64__)
    if (strcmp(isa, "avx512") == 0) {
        fma_avx512(c, a, b, reps, div);
        return;
    }
    if (strcmp(isa, "avx2") == 0) {
        fma_avx2(c, a, b, reps, div);
        return;
    }
#endif
    fma_plain(c, a, b, reps, div, cpu_fma_nvec(isa) * (strcmp(isa, "sse2") == 0 ? 2 : 1));   /* SSE2: 2 lanes */
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/*
 * n x 8 dependent integer adds, one per cycle.  Register to register: the host's cores (like other recent x86
 * cores) fold chains of additions of an immediate in the renamer, and such a chain measured 6.4-8.2 "GHz" there.
 */
static double add_chain_ghz(long n)
{
    unsigned long x = 0, one = 1;
    __asm__ volatile("" : "+r"(one));   /* the compiler may not know it is 1 */
    double t0 = now();
    for (long i = 0; i < n; i++) {
#if defined(__x86_64__)
        __asm__ volatile("add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
                         "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0"
                         : "+r"(x) : "r"(one));
#else
#define ADD1 x += one; __asm__ volatile("" : "+r"(x));
        ADD1 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1
#undef ADD1
#endif
    }
    double dt = now() - t0;
    return x == 8UL * (unsigned long)n ? 8.0 * (double)n / dt * 1e-9 : 0;
}

typedef struct probe {
    int cpu;             /* -1: unbound */
    int fma;             /* 1: FMA kernel, 0: add chain */
    long n;              /* reps of the kernel or of 8 adds */
    const char *isa;
    int lanes;
    pthread_barrier_t *bar;
    double rate;         /* GFLOP/s or GHz */
} probe;

static void *probe_main(void *p)
{
    probe *q = p;
#ifdef __linux__
    if (q->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(q->cpu, &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
#endif
    /* a and b: 8 doubles each (one AVX-512 vector); c: the kernel's vectors, at most 16 x 8 doubles. */
    double *buf = aligned_alloc(64, (8 + 8 + NACC * 8) * sizeof(double));
    double *a = buf, *b = buf + 8, *c = buf + 16;
    for (int i = 0; i < 8; i++)
        a[i] = 1.0 + 1e-9 * i, b[i] = 1e-9 * i;
    for (int i = 0; i < NACC * 8; i++)
        c[i] = 1.0 + i;
    pthread_barrier_wait(q->bar);
    if (q->fma) {
        double t0 = now();
        cpu_fma_run(q->isa, c, a, b, q->n, 0);
        double dt = now() - t0;
        q->rate = (double)q->n * cpu_fma_nvec(q->isa) * q->lanes * 2 * 1e-9 / dt;
        if (!(c[0] == c[0]))
            q->rate = 0;
    } else {
        q->rate = add_chain_ghz(q->n);
    }
    free(buf);
    return NULL;
}

/* Runs k probes at once, probe i bound to cpus[i] (NULL: unbound); rates[i] gets each one's rate. */
static void run_probes(const int *cpus, int k, int fma, long n, const char *isa, int lanes, double *rates)
{
    pthread_t th[1024];
    probe q[1024];
    pthread_barrier_t bar;
    k = k > 1024 ? 1024 : k;
    pthread_barrier_init(&bar, NULL, (unsigned)k);
    for (int i = 0; i < k; i++) {
        q[i] = (probe){cpus ? cpus[i] : -1, fma, n, isa, lanes, &bar, 0};
        pthread_create(&th[i], NULL, probe_main, &q[i]);
    }
    for (int i = 0; i < k; i++) {
        pthread_join(th[i], NULL);
        rates[i] = q[i].rate;
    }
    pthread_barrier_destroy(&bar);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The CPUs this process may run on, at most max.  \return how many, or -1. */
static int list_cpus(int *out, int max)
{
#ifdef __linux__
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set))
            out[n++] = c;
    return n;
#else
    (void)out;
    (void)max;
    return -1;
#endif
}

/* Best of k runs of one probe on one CPU (noise only slows a run down). */
static double best_one(const int *cpu, int fma, long n, const char *isa, int lanes, int k)
{
    double best = 0, r;
    for (int i = 0; i < k; i++) {
        run_probes(cpu, 1, fma, n, isa, lanes, &r);
        best = r > best ? r : best;
    }
    return best;
}

/* The slowest of k threads' FMA rates, bound to the first k CPUs (cpus NULL: unbound); the best of two runs. */
static double slowest_of(const int *cpus, int k, long reps, const char *isa, int lanes, double *total)
{
    double rates[1024], best = 0;
    *total = 0;
    for (int r = 0; r < 2; r++) {
        double lo = 1e300, sum = 0;
        run_probes(cpus, k, 1, reps, isa, lanes, rates);
        for (int i = 0; i < k; i++) {
            lo = rates[i] < lo ? rates[i] : lo;
            sum += rates[i];
        }
        best = lo > best ? lo : best;
        *total = sum > *total ? sum : *total;
    }
    return best;
}

int cpu_peak_measure(int cpus, int lanes, int quick, cpu_peak *out)
{
    const char *isa = pa_vmem_isa();
    int list[1024], nv = cpu_fma_nvec(isa);
    double rates[1024];
    memset(out, 0, sizeof *out);
    cpus = cpus < 1 ? 1 : cpus > 1024 ? 1024 : cpus;
    int n = list_cpus(list, cpus), st = n == cpus ? 0 : -1;
    const int *cl = st == 0 ? list : NULL;
    long adds = quick ? 200000 : 4000000;         /* x 8 adds: 1.6 M or 32 M cycles */
    long reps = quick ? 20000 : 20000000 / nv;    /* about 0.1 s at 2-3 GHz on two units */
    /* One thread alone: its clock and its FMA rate, hence the FMA units. */
    out->ghz_one = best_one(cl, 0, adds, isa, lanes, quick ? 1 : 3);
    out->gflops_one = best_one(cl, 1, reps, isa, lanes, quick ? 1 : 3);
    out->flop_per_cycle = out->ghz_one > 0 ? out->gflops_one / out->ghz_one : 0;
    out->units = (int)(out->flop_per_cycle / (lanes * 2) + 0.5);
    out->units = out->units < 1 ? 1 : out->units;
    /* Vector cores: k threads on k CPUs at once, k = 1, 2, ...: the largest k at which the slowest of them still
     * runs at 0.75 of one thread alone.  Past it some threads share a core's vector units and run at about half. */
    out->cpus = cpus;
    out->vcores = 1;
    long kreps = quick ? 2000 : reps / 5;   /* about 20 ms */
    for (int k = 1; k <= cpus; k++) {
        double total, slow = slowest_of(cl, k, kreps, isa, lanes, &total);
        out->slowest[k - 1] = slow;
        out->total_max = total > out->total_max ? total : out->total_max;
        if (slow >= 0.75 * out->gflops_one)   /* a disturbed run can only fail a k, never pass one */
            out->vcores = k;
    }
    out->measured = st == 0;
    /* The clock with the cores busy: the add chain on all CPUs at once and on as many as there are vector cores
     * (a sibling's chain might compete for its core's issue slots and read low): the higher of the two medians. */
    run_probes(cl, cpus, 0, adds, isa, lanes, rates);
    qsort(rates, (size_t)cpus, sizeof *rates, cmp_double);
    out->ghz_cpus = rates[cpus / 2];
    run_probes(cl, out->vcores, 0, adds, isa, lanes, rates);
    qsort(rates, (size_t)out->vcores, sizeof *rates, cmp_double);
    out->ghz_vcores = rates[out->vcores / 2];
    out->ghz_all = out->ghz_cpus > out->ghz_vcores ? out->ghz_cpus : out->ghz_vcores;
    if (getenv("PA_CPU_GHZ") && atof(getenv("PA_CPU_GHZ")) > 0)
        out->ghz_all = out->ghz_one = atof(getenv("PA_CPU_GHZ"));
    if (getenv("PA_FMA_UNITS") && atoi(getenv("PA_FMA_UNITS")) > 0)
        out->units = atoi(getenv("PA_FMA_UNITS"));
    out->peak = out->vcores * out->ghz_all * out->units * lanes * 2;
    return st;
}
