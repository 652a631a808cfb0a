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
#include "bench_clock.h"

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

/*
 * n x 8 dependent integer adds, one per cycle.  Register to register: the host's cores (like other recent x86
 * cores) fold chains of additions of an immediate in the renamer, and such a chain measured 6.4-8.2 "GHz" there.
 */
double cpu_add_chain_ghz(long n)
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
    long reps;           /* FMA kernel repetitions (0: none) */
    long adds;           /* then this many x 8 dependent adds (0: none) */
    const char *isa;
    int lanes;
    pthread_barrier_t *bar;
    double gflops, ghz;  /* results */
    double t0, t1;       /* when its FMAs began and ended */
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
    if (q->reps > 0) {
        q->t0 = now();
        cpu_fma_run(q->isa, c, a, b, q->reps, 0);
        q->t1 = now();
        q->gflops = c[0] == c[0] ? (double)q->reps * cpu_fma_nvec(q->isa) * q->lanes * 2 * 1e-9 / (q->t1 - q->t0) : 0;
    }
    if (q->adds > 0)
        q->ghz = cpu_add_chain_ghz(q->adds);
    free(buf);
    return NULL;
}

/* Runs k probes at once, probe i bound to cpus[i] (NULL: unbound); out[i] gets each one's results. */
static void run_probes(const int *cpus, int k, long reps, long adds, const char *isa, int lanes, probe *out)
{
    pthread_t th[1024];
    pthread_barrier_t bar;
    k = k > 1024 ? 1024 : k;
    pthread_barrier_init(&bar, NULL, (unsigned)k);
    for (int i = 0; i < k; i++) {
        out[i] = (probe){cpus ? cpus[i] : -1, reps, adds, isa, lanes, &bar, 0, 0, 0, 0};
        pthread_create(&th[i], NULL, probe_main, &out[i]);
    }
    for (int i = 0; i < k; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&bar);
}

double cpu_max(const double *v, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
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

static probe q[1024];   /* the probes' results (one measurement at a time) */

/*
 * The k probes' FMAs together: their flops over the time from the first one's start to the last one's end.  Not
 * the sum of each one's own rate: on the host the 16 vCPUs' threads each ran at one alone's rate over their own
 * time (the sum 1114-1193 GFLOP/s) while together they took twice as long (vCPUs taking turns on cores).
 */
static double together(int k, long reps, const char *isa, int lanes)
{
    double lo = 1e300, hi = 0;
    for (int i = 0; i < k; i++) {
        lo = q[i].t0 < lo ? q[i].t0 : lo;
        hi = q[i].t1 > hi ? q[i].t1 : hi;
    }
    return hi > lo ? (double)k * reps * cpu_fma_nvec(isa) * lanes * 2 * 1e-9 / (hi - lo) : 0;
}

int cpu_peak_measure(int cpus, int lanes, int quick, cpu_peak *out)
{
    const char *isa = pa_vmem_isa();
    int list[1024], nv = cpu_fma_nvec(isa);
    double v[1024];
    memset(out, 0, sizeof *out);
    cpus = cpus < 1 ? 1 : cpus > 1024 ? 1024 : cpus;
    int n = list_cpus(list, cpus), st = n == cpus ? 0 : -1;
    const int *cl = st == 0 ? list : NULL;
    long post = CPU_POST_ADDS;
    /* FMA repetitions for 25 GFLOP: about 0.3 s at one AVX-512 core's 85 GFLOP/s (the host's) */
    long sec = quick ? 20000 : (long)(25e9 / (nv * lanes * 2));
    out->cpus = cpus;
    out->measured = st == 0;
    /* The add chain with nothing before it, best of three. */
    for (int r = 0; r < (quick ? 1 : 3); r++) {
        run_probes(cl, 1, 0, quick ? 100000 : 2000000, isa, lanes, q);
        out->ghz_idle = q[0].ghz > out->ghz_idle ? q[0].ghz : out->ghz_idle;
    }
    /* One thread alone: FMAs for about 0.1 s, then its clock; the best of two. */
    for (int r = 0; r < (quick ? 1 : 2); r++) {
        run_probes(cl, 1, sec / 3, post, isa, lanes, q);
        if (q[0].gflops > out->gflops_one)
            out->gflops_one = q[0].gflops, out->ghz_one = q[0].ghz;
    }
    out->flop_per_cycle = out->ghz_one > 0 ? out->gflops_one / out->ghz_one : 0;
    out->units = (int)(out->flop_per_cycle / (lanes * 2) + 0.5);
    out->units = out->units < 1 ? 1 : out->units;
    /* Bursts of about 20 ms on every CPU at once, the best of three: CPUs that share a core's vector units (or
     * take turns on cores) run together at about 1 / (threads per core) of one alone each. */
    long burst = quick ? 2000 : sec / 15;
    for (int r = 0; r < (quick ? 1 : 3); r++) {
        run_probes(cl, cpus, burst, 0, isa, lanes, q);
        double total = together(cpus, burst, isa, lanes);
        out->burst_total = total > out->burst_total ? total : out->burst_total;
    }
    double share = out->gflops_one > 0 ? out->burst_total / cpus / out->gflops_one : 1;
    out->threads_per_vcore = share > 0 ? (int)(1 / share + 0.5) : 1;
    out->threads_per_vcore = out->threads_per_vcore < 1 ? 1 : out->threads_per_vcore > cpus ? cpus
                             : out->threads_per_vcore;
    out->vcores = cpus / out->threads_per_vcore;
    /* Sustained: every CPU at once for about 0.3 s, then each one's clock. */
    run_probes(cl, cpus, quick ? 2000 : sec, post, isa, lanes, q);
    out->sustained_total = together(cpus, quick ? 2000 : sec, isa, lanes);
    for (int i = 0; i < cpus; i++)
        v[i] = q[i].ghz;
    out->ghz_sustained = cpu_max(v, cpus);
    if (getenv("PA_FMA_UNITS") && atoi(getenv("PA_FMA_UNITS")) > 0)
        out->units = atoi(getenv("PA_FMA_UNITS"));
    return st;
}
