/*
 * Both sides of a host row on the same CPUs: the pool's threads bound (spread over the cores, unless PA_BIND
 * chose a policy) and OpenMP thread i pinned to the CPU of the pool's thread i.  Unbound, the OS places each
 * side's threads once for a whole run, and on a host whose vCPUs share cores unseen (the lent host shows 16
 * cores; they behave as 8 for the vector units and the line-fill buffers) that placement, not the code, decided
 * a row: 0.86 to 1.34 at 8 threads in one call of bench/threads.  Used by bench/threads and bench/tiling.
 */
#ifndef PARRAY_BENCH_OMP_PIN_H
#define PARRAY_BENCH_OMP_PIN_H

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <parray/parray.h>

typedef struct omp_pin {
    cpu_set_t mask;   /* the process's CPUs before pinning, given back by omp_pin_end */
    pa_bind before;   /* the binding policy before omp_pin_begin */
    int bound;        /* 1: the pool binds, so OpenMP's threads follow it */
} omp_pin;

/* Binds the pool (spread unless PA_BIND is set); \return a line saying what was done. */
static inline const char *omp_pin_begin(omp_pin *p)
{
    sched_getaffinity(0, sizeof p->mask, &p->mask);
    p->before = pa_get_binding();
    if (getenv("PA_BIND") == NULL && pa_set_binding(PA_BIND_SPREAD) != PA_OK)
        return p->bound = 0, "unbound (the build has no hwloc)";
    p->bound = pa_get_binding() != PA_BIND_NONE;
    return !p->bound ? "unbound (PA_BIND=none)" : getenv("PA_BIND") ? "the pool bound as PA_BIND says, OpenMP's "
           "threads pinned to the same CPUs" : "the pool bound spread over the cores, OpenMP's threads pinned to the "
           "same CPUs";
}

static int omp_pin_cpu[PA_MAX_THREADS];

static inline int omp_pin_report(pa_ctx *ctx, void *arg)
{
    (void)arg;
    omp_pin_cpu[pa_tid(ctx)] = sched_getcpu();
    return PA_OK;
}

/* Pins OpenMP's threads 0..t-1 to the CPUs of the pool's threads 0..t-1 (a pthd [t] array asks them). */
static inline void omp_pin_threads(const omp_pin *p, pa_scope *scope, int t)
{
    char decl[32];
    snprintf(decl, sizeof decl, "pthd [%d]", t);
    const pa_type *P = pa_type_parse(scope, decl);
    if (!p->bound || P == NULL || pa_for(P, omp_pin_report, NULL, 0) != PA_OK)
        return;
#pragma omp parallel num_threads(t)
    {
#ifdef _OPENMP
        int i = omp_get_thread_num();
#else
        int i = 0;
#endif
        cpu_set_t set;
        CPU_ZERO(&set);
        if (omp_pin_cpu[i] >= 0) {
            CPU_SET(omp_pin_cpu[i], &set);
            pthread_setaffinity_np(pthread_self(), sizeof set, &set);
        }
    }
    (void)t;
}

/* The binding policy as before, and OpenMP's threads (up to t) free on the process's CPUs again. */
static inline void omp_pin_end(const omp_pin *p, int t)
{
    pa_set_binding(p->before);
#pragma omp parallel num_threads(t)
    pthread_setaffinity_np(pthread_self(), sizeof p->mask, &p->mask);
    (void)t;
}

#endif
