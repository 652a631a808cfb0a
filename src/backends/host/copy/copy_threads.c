/*
 * parray — host copies on several threads.
 *
 * A copy is cut into slices along one mode of its joint shape (the outermost one that has enough indices) and
 * the slices are taken, one at a time, by the calling thread and by workers of the pthd pool (thread_pool.c),
 * forked and joined as pthd arrays are: the job is handed over without a lock when the worker is polling (woken
 * otherwise), and each worker replies on its own cache line.  One copy uses
 * workers at a time; a copy that finds another one running (another user thread copying) runs on its own
 * thread rather than add its threads to the machine's.  The thread count comes from the plan (copy_strategies.c:
 * the copy's bytes over a per-thread chunk, at most this process's share of the host, host_share.c).
 */
#include <stdatomic.h>

#include "copy_host.h"

#include "thread_internal.h"

#define PA__MAX_WORKERS 63
/* Slices per thread: several, so that a thread started late or slowed down takes fewer (bench/host_probe). */
int pa__copy_slices = 4;

typedef struct job {
    const pa__copy_shape *shape;
    char *dst;
    const char *src;
    pa__copy_kernel kernel;
    int mode;                 /* the mode cut into slices */
    int64_t nslices;
    atomic_long next;         /* the next slice to take */
    atomic_int status;
} job;

static atomic_int thread_setting = -1;  /* pa_copy_set_threads; 0: this process's share; -1: PA_COPY_THREADS */
/*
 * Copies from several user threads share the pool's workers: each copy that enters takes at most its fair share
 * of the copy threads (the limit over the copies running now) and no more workers than are left of the limit, so
 * that the workers in use never exceed it (the pool makes a worker whenever none is idle).  A copy that finds none
 * left runs on its caller's thread alone.
 */
static atomic_int copies_running;
static atomic_int workers_taken;

/* Reserves up to want workers for a copy among `running` copies.  \return how many it got. */
static int take_workers(int want, int running)
{
    int limit = pa__copy_threads_limit(), fair = limit / (running > 0 ? running : 1) - 1;
    want = want < fair ? want : fair;
    int taken = atomic_load(&workers_taken);
    for (;;) {
        int left = limit - 1 - taken, k = want < left ? want : left;
        if (k <= 0)
            return 0;
        if (atomic_compare_exchange_weak(&workers_taken, &taken, taken + k))
            return k;
    }
}

/* This process's share of the host's CPUs (host_share.c), at most 64. */
static int cores(void)
{
    int c = pa__process_cpus();
    return c < 1 ? 1 : c > PA__MAX_WORKERS + 1 ? PA__MAX_WORKERS + 1 : c;
}

void pa__copy_threads_set(int n)
{
    atomic_store(&thread_setting, n < 0 ? 0 : n);
}

int pa__copy_threads_limit(void)
{
    int set = atomic_load(&thread_setting);
    if (set < 0) {
        static atomic_int warned;
        set = (int)pa__env_int("PA_COPY_THREADS", 0, 4096, 0, "this process's share of the CPUs", &warned);
        atomic_store(&thread_setting, set);
    }
    return set > 0 && set < cores() ? set : cores();
}

int pa__copy_threads_for(int64_t bytes, int64_t chunk)
{
    int64_t want = (bytes + chunk - 1) / chunk;
    int lim = pa__copy_threads_limit();
    return want < 1 ? 1 : want < lim ? (int)want : lim;
}

/* Runs the job's slices until none is left; the slice is the kernel's shape with one mode narrowed. */
static void run_slices(job *j)
{
    pa__copy_shape sub = *j->shape;
    int m = j->mode;
    int64_t size = j->shape->size[m];
    for (;;) {
        int64_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->nslices)
            break;
        int64_t lo = size * i / j->nslices, hi = size * (i + 1) / j->nslices;
        sub.size[m] = hi - lo;
        sub.total = j->shape->total / size * (hi - lo);
        sub.dst_base = j->shape->dst_base;
        sub.src_base = j->shape->src_base;
        /* A gathered mode is narrowed by moving its table pointer, an affine one by moving the base. */
        if (j->shape->dst_table[m]) sub.dst_table[m] = j->shape->dst_table[m] + lo;
        else sub.dst_base += lo * j->shape->dst_stride[m];
        if (j->shape->src_table[m]) sub.src_table[m] = j->shape->src_table[m] + lo;
        else sub.src_base += lo * j->shape->src_stride[m];
        int st = j->kernel(&sub, j->dst, j->src);
        if (st != PA_OK)
            atomic_store(&j->status, st);
    }
}

static void worker_run(void *p)
{
    pa__unbind_thread();   /* a worker a bound pthd array used keeps no placement for copies */
    run_slices(p);
}

/* The mode to cut: the outermost with at least two slices per thread, else the largest; the innermost only
 * when it is the only one, because kernels read its length as their run or unit. */
static int split_mode(const pa__copy_shape *s, int nthreads)
{
    int best = 0, n = s->nmodes > 1 ? s->nmodes - 1 : 1;
    for (int m = 0; m < n; m++) {
        if (s->size[m] >= 2 * nthreads)
            return m;
        if (s->size[m] > s->size[best])
            best = m;
    }
    return best;
}

int pa__copy_parallel(const pa__copy_shape *shape, char *dst, const char *src, int nthreads,
                      pa__copy_kernel kernel)
{
    return pa__copy_parallel_on(shape, dst, src, nthreads, kernel, -1);
}

int pa__copy_parallel_on(const pa__copy_shape *shape, char *dst, const char *src, int nthreads,
                         pa__copy_kernel kernel, int mode)
{
    if (nthreads <= 1)
        return kernel(shape, dst, src);
    int running = atomic_fetch_add(&copies_running, 1) + 1;
    int workers = take_workers(nthreads - 1, running);
    if (workers == 0) {
        atomic_fetch_sub(&copies_running, 1);
        return kernel(shape, dst, src);
    }
    nthreads = workers + 1;
    job j = {.shape = shape, .dst = dst, .src = src, .kernel = kernel};
    j.mode = mode >= 0 && mode < shape->nmodes ? mode : split_mode(shape, nthreads);
    int64_t slices = (int64_t)nthreads * (pa__copy_slices > 0 ? pa__copy_slices : 1);
    j.nslices = shape->size[j.mode] < slices ? shape->size[j.mode] : slices;
    int64_t want = nthreads - 1 < j.nslices - 1 ? nthreads - 1 : j.nslices - 1, started = 0;
    atomic_init(&j.next, 0);
    atomic_init(&j.status, PA_OK);
    /* The pool's fork and join, as pthd arrays have (each worker replies on its own line); workers that did not
     * start leave their slices to the others. */
    pa__worker *ws[PA__MAX_WORKERS];
    if (want > 0)
        (void)pa__pool_fork(worker_run, (char *)&j, 0, want, ws, &started);
    run_slices(&j);
    pa__pool_join(ws, started, nthreads);
    atomic_fetch_sub(&workers_taken, workers);
    atomic_fetch_sub(&copies_running, 1);
    return atomic_load(&j.status);
}
