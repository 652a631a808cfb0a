/*
 * parray — for over data types in host memory (PARRAY's for k A(a)): an element or run function over every
 * element, through the type's compiled offsets, split into contiguous ranges of flat indices over pool
 * threads (like OpenMP's static schedule, so pages first touched by a map are touched by the same thread the
 * next time).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "thread_internal.h"

/* Below this many elements per thread a map runs on fewer threads; a wake-up costs about a microsecond. */
#define PA__MAP_GRAIN 2048

static _Atomic int num_threads;   /* 0: not read from PA_NUM_THREADS yet */

int pa_get_num_threads(void)
{
    int n = atomic_load_explicit(&num_threads, memory_order_relaxed);
    if (n == 0) {
        static atomic_int warned;
        long cpus = pa__process_cpus();   /* this process's share: the node's ranks share the cores */
        cpus = cpus >= 1 && cpus <= PA_MAX_THREADS ? cpus : cpus > PA_MAX_THREADS ? PA_MAX_THREADS : 1;
        n = (int)pa__env_int("PA_NUM_THREADS", 1, PA_MAX_THREADS, cpus, "this process's share of the CPUs", &warned);
        atomic_store_explicit(&num_threads, n, memory_order_relaxed);
    }
    return n;
}

int pa_set_num_threads(int n)
{
    if (n < 1 || n > PA_MAX_THREADS)
        return pa__err(PA_ERR_RANGE, "pa_set_num_threads(%d): outside 1..%d", n, PA_MAX_THREADS);
    atomic_store_explicit(&num_threads, n, memory_order_relaxed);
    return PA_OK;
}

typedef struct map_job {
    const pa__layout *l1, *l2;
    char *p1, *p2;
    size_t e1, e2;
    int64_t n;
    pa_elem_fn elem;
    pa_elem2_fn elem2;
    pa_run_fn run;
    void *arg;
} map_job;

/*
 * The element function over one run.  It is called through a pointer, once per element, so the loop keeps the
 * function and its argument in registers (a call may write any memory, so fields of the job would be loaded
 * again after every call) and makes four calls per iteration.
 */
static void elem_run(void *first, int64_t stride, int64_t k0, int64_t n, void *p)
{
    const map_job *j = p;
    pa_elem_fn f = j->elem;
    void *arg = j->arg;
    char *e = first;
    int64_t step = stride * (int64_t)j->e1, i = 0;
    for (; i + 4 <= n; i += 4, e += 4 * step) {
        f(e, k0 + i, arg);
        f(e + step, k0 + i + 1, arg);
        f(e + 2 * step, k0 + i + 2, arg);
        f(e + 3 * step, k0 + i + 3, arg);
    }
    for (; i < n; i++, e += step)
        f(e, k0 + i, arg);
}

static void elem2_run(int64_t k, int64_t n, int64_t o1, int64_t s1, int64_t o2, int64_t s2, void *p)
{
    const map_job *j = p;
    pa_elem2_fn f = j->elem2;
    void *arg = j->arg;
    char *a = j->p1 + o1 * (int64_t)j->e1, *b = j->p2 + o2 * (int64_t)j->e2;
    int64_t d1 = s1 * (int64_t)j->e1, d2 = s2 * (int64_t)j->e2;
    for (int64_t i = 0; i < n; i++, a += d1, b += d2)
        f(a, b, k + i, arg);
}

/* Maps one contiguous range of flat indices [n*t/P, n*(t+1)/P). */
static void map_range(const map_job *j, int64_t lo, int64_t hi)
{
    if (j->elem2 != NULL)
        pa__runs2(j->l1, lo, j->l2, lo, hi - lo, elem2_run, (void *)j);
    else if (j->run != NULL)
        pa__runs1(j->l1, j->p1, j->e1, lo, hi, j->run, j->arg);
    else
        pa__runs1(j->l1, j->p1, j->e1, lo, hi, elem_run, (void *)j);
}

static int map_thread(pa_ctx *ctx, void *p)
{
    const map_job *j = p;
    int64_t t = pa_tid(ctx), nt = pa_ctx_size(ctx);
    map_range(j, j->n * t / nt, j->n * (t + 1) / nt);
    return PA_OK;
}

static int map_go(map_job *j)
{
    int64_t nt = pa_get_num_threads();
    if (nt > (j->n + PA__MAP_GRAIN - 1) / PA__MAP_GRAIN)
        nt = (j->n + PA__MAP_GRAIN - 1) / PA__MAP_GRAIN;
    if (nt <= 1) {
        map_range(j, 0, j->n);
        return PA_OK;
    }
    return pa__for_flat(nt, map_thread, j);
}

static int map_prepare(const pa_type *t, void *ptr, const char *what, const pa__layout **l)
{
    if (pa__type_usable(t, what) != PA_OK)
        return PA_ERR_INVAL;
    if (ptr == NULL)
        return pa__err(PA_ERR_INVAL, "%s: the data pointer is NULL", what);
    int st = pa__check_host_type(t, what);
    if (st != PA_OK)
        return st;
    *l = pa__type_layout(t);
    return *l ? PA_OK : pa__err_wrap(PA_ERR_INVAL, "%s over %s", what, pa_type_name(t));
}

int pa_map(const pa_type *data, void *ptr, pa_elem_fn elem, void *arg)
{
    map_job j = {.p1 = ptr, .elem = elem, .arg = arg};
    int st = map_prepare(data, ptr, "pa_map", &j.l1);
    if (st != PA_OK)
        return st;
    if (elem == NULL)
        return pa__err(PA_ERR_INVAL, "pa_map over %s: the element function is NULL", pa_type_name(data));
    j.e1 = pa_elm_size(data);
    j.n = pa_size(data);
    return map_go(&j);
}

int pa_map_runs(const pa_type *data, void *ptr, pa_run_fn run, void *arg)
{
    map_job j = {.p1 = ptr, .run = run, .arg = arg};
    int st = map_prepare(data, ptr, "pa_map_runs", &j.l1);
    if (st != PA_OK)
        return st;
    if (run == NULL)
        return pa__err(PA_ERR_INVAL, "pa_map_runs over %s: the run function is NULL", pa_type_name(data));
    j.e1 = pa_elm_size(data);
    j.n = pa_size(data);
    return map_go(&j);
}

int pa_map2(const pa_type *t1, void *p1, const pa_type *t2, void *p2, pa_elem2_fn elem, void *arg)
{
    map_job j = {.p1 = p1, .p2 = p2, .elem2 = elem, .arg = arg};
    int st = map_prepare(t1, p1, "pa_map2", &j.l1);
    if (st == PA_OK)
        st = map_prepare(t2, p2, "pa_map2", &j.l2);
    if (st != PA_OK)
        return st;
    if (elem == NULL)
        return pa__err(PA_ERR_INVAL, "pa_map2: the element function is NULL");
    if (pa_size(t1) != pa_size(t2))
        return pa__err(PA_ERR_SIZE, "pa_map2: %s has %lld elements but %s has %lld", pa_type_name(t1),
                       (long long)pa_size(t1), pa_type_name(t2), (long long)pa_size(t2));
    j.e1 = pa_elm_size(t1);
    j.e2 = pa_elm_size(t2);
    j.n = pa_size(t1);
    return map_go(&j);
}
