/*
 * parray — host copies on several threads.
 *
 * A copy is cut into slices along one mode of its joint shape (the outermost one that has enough indices) and
 * the slices are taken, one at a time, by the calling thread and by workers of a small persistent pool.  The
 * pool starts lazily on the first copy large enough to want it and is joined at exit.  A copy that wakes a
 * parked worker pays about 9 us (a 16 KiB transpose: 0.9 us on one thread, 9.8 on two), where pthread_create +
 * join alone costs 23-27 us (bench/copy_calibrate threads, wakeup), which is why the pool persists.  One copy uses the pool at a time; a copy that finds it busy (another user thread copying)
 * runs on its own thread rather than wait.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copy_host.h"

#define PA__MAX_WORKERS 63
#define PA__SLICES_PER_THREAD 4

typedef struct job {
    const pa__copy_shape *shape;
    char *dst;
    const char *src;
    pa__copy_kernel kernel;
    int mode;                 /* the mode cut into slices */
    int64_t nslices;
    atomic_long next;         /* the next slice to take */
    atomic_int status;
    int want;                 /* workers wanted for this job */
} job;

static atomic_int thread_setting;       /* pa_copy_set_threads; 0: the number of cores */
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t pool_busy = PTHREAD_MUTEX_INITIALIZER;   /* held by the copy using the pool */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_wake = PTHREAD_COND_INITIALIZER, pool_idle = PTHREAD_COND_INITIALIZER;
static pthread_t workers[PA__MAX_WORKERS];
static int nworkers;
static job *current;
static unsigned long generation;
static int joined, active, stopping;

static int cores(void)
{
    static atomic_int n;   /* every thread computes the same value, so a race to set it is harmless */
    int c = atomic_load_explicit(&n, memory_order_relaxed);
    if (!c) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        c = online < 1 ? 1 : online > PA__MAX_WORKERS + 1 ? PA__MAX_WORKERS + 1 : (int)online;
        atomic_store_explicit(&n, c, memory_order_relaxed);
    }
    return c;
}

void pa__copy_threads_set(int n)
{
    atomic_store(&thread_setting, n < 0 ? 0 : n);
}

int pa__copy_threads_limit(void)
{
    int set = atomic_load(&thread_setting);
    return set > 0 && set < cores() ? set : cores();
}

int pa__copy_threads_for(int64_t bytes, int64_t chunk)
{
    int64_t want = bytes / chunk;
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

static void *worker_main(void *arg)
{
    unsigned long seen = 0;
    (void)arg;
    pthread_mutex_lock(&pool_lock);
    while (!stopping) {
        if (generation == seen) {
            pthread_cond_wait(&pool_wake, &pool_lock);
            continue;
        }
        seen = generation;
        job *j = current;
        if (!j || joined >= j->want)
            continue;
        joined++;
        active++;
        pthread_mutex_unlock(&pool_lock);
        run_slices(j);
        pthread_mutex_lock(&pool_lock);
        if (--active == 0)
            pthread_cond_signal(&pool_idle);
    }
    pthread_mutex_unlock(&pool_lock);
    return NULL;
}

static void pool_start(void)
{
    int want = cores() - 1;
    for (int i = 0; i < want; i++) {
        if (pthread_create(&workers[nworkers], NULL, worker_main, NULL) != 0)
            break;   /* fewer workers only means less parallelism */
        nworkers++;
    }
}

__attribute__((destructor)) static void pool_stop(void)
{
    pthread_mutex_lock(&pool_lock);
    stopping = 1;
    pthread_cond_broadcast(&pool_wake);
    pthread_mutex_unlock(&pool_lock);
    for (int i = 0; i < nworkers; i++)
        pthread_join(workers[i], NULL);
    nworkers = 0;
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
    if (nthreads <= 1 || pthread_mutex_trylock(&pool_busy) != 0)
        return kernel(shape, dst, src);
    pthread_once(&pool_once, pool_start);
    job j = {.shape = shape, .dst = dst, .src = src, .kernel = kernel};
    j.mode = split_mode(shape, nthreads);
    j.nslices = shape->size[j.mode] < (int64_t)nthreads * PA__SLICES_PER_THREAD
                    ? shape->size[j.mode] : (int64_t)nthreads * PA__SLICES_PER_THREAD;
    j.want = nthreads - 1 < nworkers ? nthreads - 1 : nworkers;
    atomic_init(&j.next, 0);
    atomic_init(&j.status, PA_OK);
    pthread_mutex_lock(&pool_lock);
    current = &j;
    joined = 0;
    generation++;
    pthread_cond_broadcast(&pool_wake);
    pthread_mutex_unlock(&pool_lock);
    run_slices(&j);
    pthread_mutex_lock(&pool_lock);
    while (active > 0)
        pthread_cond_wait(&pool_idle, &pool_lock);
    current = NULL;
    pthread_mutex_unlock(&pool_lock);
    pthread_mutex_unlock(&pool_busy);
    return atomic_load(&j.status);
}
