/*
 * parray — the pool of worker threads behind pthd arrays.
 *
 * Workers are created on demand and never exit: a launch takes idle workers (making new ones only when none is
 * idle), so after the first launch of a given width a for costs a hand-over per thread instead of a
 * pthread_create.  Nested arrays and parallel regions simply take more workers; since every thread of an array
 * gets its own worker, barriers inside an array can never wait on a thread that has no worker.
 *
 * The fork/join path takes no lock a worker also takes.  A launch takes all the workers it needs from the idle
 * stack under the pool's mutex at once (only launching threads take it); a worker puts itself back with a
 * compare-and-swap (a stack popped under one mutex and pushed lock-free has no ABA problem: no other pop can
 * remove the head between a pop's read and its swap).  A job is handed over by storing it and raising the
 * worker's flag; the worker's mutex and condition variable are used only when the worker has gone to sleep.
 * Before sleeping a worker polls its flag for a while (PA__WORKER_SPIN_NS), since a back-to-back launch hands
 * it the next job within microseconds; it yields the CPU every few polls, so that on a machine with fewer
 * cores than threads the polling costs little.  Measured on a 16-core host (bench/threads): an empty pa_for
 * over 8 threads took 12-116 us when every hand-over and every return went through mutexes (contended ones
 * sleep in the kernel), against 3-5 us for omp parallel; see docs/gpu-results.md for the times now.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "thread_internal.h"

typedef struct pa__worker {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_int has_job;     /* raised by the submitter after writing job; cleared by the worker */
    atomic_int sleeping;    /* the worker waits on cv: the submitter must signal it */
    pa__job job;
    struct pa__worker *next_idle;
} pa__worker;

static struct {
    pthread_mutex_t mu;              /* serialises pops (launches) and worker creation */
    _Atomic(pa__worker *) idle;      /* stack of idle workers; workers push themselves lock-free */
    atomic_int nworkers;             /* changed under mu; read by polling workers */
} pool = {PTHREAD_MUTEX_INITIALIZER, NULL, 0};

/*
 * How long a worker polls for a new job before it sleeps, ns; for the first PA__WORKER_POLL_NS it only polls,
 * after that it also yields the CPU between polls.  A yield is a system call of about a microsecond during
 * which a hand-over waits, and of the 15 workers of a 16-thread launch one was nearly always inside one.
 */
#define PA__WORKER_SPIN_NS 200000
#define PA__WORKER_POLL_NS 50000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void pool_put_idle(pa__worker *w)
{
    pa__worker *head = atomic_load_explicit(&pool.idle, memory_order_relaxed);
    do
        w->next_idle = head;
    while (!atomic_compare_exchange_weak_explicit(&pool.idle, &head, w, memory_order_release,
                                                  memory_order_relaxed));
}

/* Pops one idle worker, or NULL.  Called with pool.mu held, so pops never race each other. */
static pa__worker *pool_pop_idle(void)
{
    pa__worker *head = atomic_load_explicit(&pool.idle, memory_order_acquire);
    while (head != NULL && !atomic_compare_exchange_weak_explicit(&pool.idle, &head, head->next_idle,
                                                                  memory_order_acquire, memory_order_acquire))
        ;
    return head;
}

/* Waits for the next job: polling the flag for a while, then the condition variable. */
static void worker_wait(pa__worker *w)
{
    int64_t start = 0;
    for (int i = 0;; i++) {
        if (atomic_load_explicit(&w->has_job, memory_order_acquire))
            goto got;
        cpu_relax();
        if (i % 64 == 63) {
            int64_t t = now_ns();
            if (start == 0)
                start = t;
            else if (t - start > PA__WORKER_SPIN_NS)
                break;
            /* More workers than CPUs (an oversubscribed machine): yield from the start. */
            if (t - start > PA__WORKER_POLL_NS ||
                atomic_load_explicit(&pool.nworkers, memory_order_relaxed) >= pa__process_cpus())
                sched_yield();
        }
    }
    pthread_mutex_lock(&w->mu);
    /* Dekker with the submitter (hand_over): flag, fence, check on both sides, so that either the worker sees
     * the job or the submitter sees the worker asleep and signals it. */
    atomic_store_explicit(&w->sleeping, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    while (!atomic_load_explicit(&w->has_job, memory_order_acquire))
        pthread_cond_wait(&w->cv, &w->mu);
    atomic_store_explicit(&w->sleeping, 0, memory_order_relaxed);
    pthread_mutex_unlock(&w->mu);
got:
    atomic_store_explicit(&w->has_job, 0, memory_order_relaxed);
}

static void *worker_main(void *p)
{
    pa__worker *w = p;
    for (;;) {
        worker_wait(w);
        pa__job job = w->job;   /* written before the flag was raised (release), read after (acquire) */
        job.run(job.arg);
        /* Idle again before the caller can be woken: see pa__job. */
        pool_put_idle(w);
        job.finish(job.arg);
    }
    return NULL;
}

static int worker_create(pa__worker **out)
{
    pa__worker *w = calloc(1, sizeof *w);
    pthread_attr_t attr;
    int attr_ok = 0;
    int rc;
    if (w == NULL)
        return pa__err(PA_ERR_NOMEM, "pthd pool: cannot allocate worker %d", atomic_load(&pool.nworkers));
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    rc = pthread_attr_init(&attr);
    if (rc != 0)
        goto fail;
    attr_ok = 1;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    rc = pthread_create(&th, &attr, worker_main, w);
    if (rc != 0)
        goto fail;
    pthread_attr_destroy(&attr);
    *out = w;
    return PA_OK;
fail:
    if (attr_ok)
        pthread_attr_destroy(&attr);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
    return pa__err(PA_ERR_SYS, "pthd pool: pthread_create failed for worker %d: %s", atomic_load(&pool.nworkers),
                   rc == EAGAIN ? "too many threads (EAGAIN)" : "system error");
}

/* Hands job to worker w: the job, then the flag (release).  hand_over_wake finishes the hand-over. */
static void hand_over(pa__worker *w, const pa__job *job)
{
    w->job = *job;
    atomic_store_explicit(&w->has_job, 1, memory_order_release);
}

/* After a fence that orders every flag raised before it (see worker_wait): wakes w if it went to sleep. */
static void hand_over_wake(pa__worker *w)
{
    if (atomic_load_explicit(&w->sleeping, memory_order_relaxed)) {
        pthread_mutex_lock(&w->mu);
        pthread_cond_signal(&w->cv);
        pthread_mutex_unlock(&w->mu);
    }
}

int pa__pool_submit_range(void (*run)(void *), void (*finish)(void *), char *arg0, size_t stride, int64_t n,
                          int64_t *started)
{
    enum { BATCH = 64 };
    pa__worker *ws[BATCH];
    int st = PA_OK;
    *started = 0;
    while (*started < n && st == PA_OK) {
        int k = 0, want = n - *started < BATCH ? (int)(n - *started) : BATCH;
        pthread_mutex_lock(&pool.mu);
        for (; k < want; k++) {
            ws[k] = pool_pop_idle();
            if (ws[k] == NULL) {
                st = worker_create(&ws[k]);
                if (st != PA_OK)
                    break;
                atomic_fetch_add(&pool.nworkers, 1);
            }
        }
        pthread_mutex_unlock(&pool.mu);
        /* Every flag first, so that the workers' cache lines are fetched in parallel, then one fence. */
        for (int i = 0; i < k; i++) {
            pa__job job = {run, finish, arg0 + (size_t)(*started + i) * stride};
            hand_over(ws[i], &job);
        }
        atomic_thread_fence(memory_order_seq_cst);
        for (int i = 0; i < k; i++)
            hand_over_wake(ws[i]);
        *started += k;
    }
    return st;
}

int pa__pool_submit(const pa__job *job)
{
    pa__worker *w;
    int st = PA_OK;
    pthread_mutex_lock(&pool.mu);
    w = pool_pop_idle();
    if (w == NULL && (st = worker_create(&w)) == PA_OK)
        atomic_fetch_add(&pool.nworkers, 1);
    pthread_mutex_unlock(&pool.mu);
    if (st != PA_OK)
        return st;
    hand_over(w, job);
    atomic_thread_fence(memory_order_seq_cst);
    hand_over_wake(w);
    return PA_OK;
}

int pa__pool_size(void)
{
    pthread_mutex_lock(&pool.mu);
    int n = atomic_load(&pool.nworkers);
    pthread_mutex_unlock(&pool.mu);
    return n;
}
