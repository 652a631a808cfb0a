/*
 * parray — omp thread arrays: the threads of the array are the threads of one OpenMP parallel region, so that
 * code inside may use OpenMP itself (omp for, reductions) as PARRAY's omp type allowed.
 */
#include "thread_internal.h"

#ifdef _OPENMP
#include <omp.h>

int pa__omp_available(void)
{
    return 1;
}

int pa__omp_run(pa__launch *l)
{
    int n = (int)l->shape.n;
    int got = 0;
    /* libgomp's join barrier is invisible to ThreadSanitizer (libgomp is not instrumented), so each thread also
     * publishes its end through an atomic the caller acquires: the happens-before that lets the caller free
     * the launch (its barriers) is then one TSan can see, and it costs one atomic per thread. */
    atomic_int ended = 0;
    /* Nested arrays need nested parallelism; the user's own setting is kept when it already allows it. */
    if (omp_get_max_active_levels() < 8)
        omp_set_max_active_levels(8);
#pragma omp parallel num_threads(n)
    {
#pragma omp single
        got = omp_get_num_threads();
        /* The implicit barrier after single publishes got. */
        if (got == n)
            pa__launch_run_one(l, omp_get_thread_num());
        atomic_fetch_add_explicit(&ended, 1, memory_order_release);
    }
    (void)atomic_load_explicit(&ended, memory_order_acquire);
    if (got != n)
        return pa__err(PA_ERR_SYS, "omp array %s: OpenMP gave %d threads instead of %d (OMP_THREAD_LIMIT?)",
                       l->self ? pa_type_name(l->self) : "(internal)", got, n);
    return PA_OK;
}

#else

int pa__omp_available(void)
{
    return 0;
}

int pa__omp_run(pa__launch *l)
{
    (void)l;
    return pa__err(PA_ERR_NODEV, "omp thread arrays need OpenMP, which this build does not have");
}

#endif
