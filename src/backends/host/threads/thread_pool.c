/*
 * parray — the pool of worker threads behind pthd arrays.
 *
 * Workers are created on demand and never exit: a launch takes idle workers (making new ones only when none is
 * idle), so after the first launch of a given width a for costs a hand-over per thread instead of a
 * pthread_create.  Nested arrays and parallel regions simply take more workers; since every thread of an array
 * gets its own worker, barriers inside an array can never wait on a thread that has no worker.
 *
 * The fork/join path takes no lock a worker also takes, and moves each worker's cache lines once each way.  A
 * submitter takes all the workers it needs from the idle stack under the pool's mutex with one compare-and-swap
 * (only submitters take the mutex; a stack popped under one mutex and pushed lock-free has no ABA problem: no
 * other pop can remove the head between a pop's read and its swap).  A job is handed over by storing it and
 * raising the worker's go counter; the worker's mutex and condition variables are used only when a side has
 * gone to sleep.  Before sleeping a worker polls go for a while (PA__WORKER_SPIN_NS), since a back-to-back
 * launch hands it the next job within microseconds; it yields the CPU every few polls, so that on a machine
 * with fewer cores than threads the polling costs little.  A worker that shares its CPU with the thread that
 * joins it (the OS put them together) yields at once, and that joiner yields at every poll for it.
 *
 * Two kinds of jobs: a fork's (pa__pool_fork: pthd arrays, parallel copies) replies on the worker's own reply
 * line, which the joiner polls, and the joiner puts the whole team back on the idle stack with one
 * compare-and-swap; a job with a finish function (an asynchronous omp array) puts its worker back itself and
 * then calls finish.
 * Measured on a 16-core host (bench/threads): an empty pa_for over 8 threads took 12-116 us when every
 * hand-over and every return went through mutexes (contended ones sleep in the kernel), against 3-5 us for omp
 * parallel; 5.4 us when the workers pushed themselves back and counted down one shared counter (every
 * finishing worker fighting for two cache lines); see docs/gpu-results.md for the times now.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "thread_internal.h"

/*
 * A worker.  The hand-over line is written by the submitter and polled by the worker; the reply line is written
 * by the worker and polled by a joiner (pa__pool_join), so that a fork and a join move each line once each way.
 */
struct pa__worker {
    /* the hand-over */
    _Alignas(64) atomic_uint go;    /* raised (incremented) by the submitter after writing job */
    atomic_int sleeping;            /* the worker waits on cv: the submitter must signal it */
    atomic_int from_cpu;            /* the CPU the submitter of the last job ran on */
    pa__job job;
    /* the reply of a job without finish (a fork): done reaches go when it has run */
    _Alignas(64) atomic_uint done;
    atomic_int joiner_sleeps;       /* a joiner waits on join_cv: the worker must broadcast */
    atomic_int cpu;                 /* the CPU the worker ran its last job on */
    /* the rest: the sleeping side's mutex and condition variables, the idle stack's link */
    _Alignas(64) pthread_mutex_t mu;
    pthread_cond_t cv, join_cv;
    struct pa__worker *next_idle;
};

static struct {
    pthread_mutex_t mu;              /* serialises pops (launches) and worker creation */
    _Atomic(pa__worker *) idle;      /* stack of idle workers, pushed lock-free (by joiners, and by workers
                                      * that ran a job with a finish function) */
    atomic_int nworkers;             /* changed under mu; read by polling workers */
} pool = {PTHREAD_MUTEX_INITIALIZER, NULL, 0};

/*
 * How long a worker polls for a new job before it sleeps, ns; for the first PA__WORKER_POLL_NS it only polls,
 * after that it also yields the CPU between polls.  A yield is a system call of about a microsecond during
 * which a hand-over waits, and of the 15 workers of a 16-thread launch one was nearly always inside one.
 */
#define PA__WORKER_SPIN_NS 200000
#define PA__WORKER_POLL_NS 50000
/* How many polls a joiner makes for a worker's reply before it sleeps; of which the first only poll (a yield
 * delays the join by about a microsecond). */
#define PA__JOIN_SPIN 20000
#define PA__JOIN_POLL 2000

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

/* Waits for the next job (go moving past seen): polling the counter for a while, then the condition variable. */
static void worker_wait(pa__worker *w, unsigned seen)
{
    int64_t start = 0;
    int crowded = 0;
    for (int i = 0;; i++) {
        if (atomic_load_explicit(&w->go, memory_order_acquire) != seen)
            return;
        cpu_relax();
        if (i % 64 == 63) {
            int64_t t = now_ns();
            if (start == 0) {
                start = t;
                int w_cpu = sched_getcpu();
                /* More workers than CPUs (an oversubscribed machine), or this worker shares its CPU with the
                 * thread that handed it its last job, which will join it: yield from the start. */
                crowded = atomic_load_explicit(&pool.nworkers, memory_order_relaxed) >= pa__process_cpus() ||
                          (w_cpu >= 0 && w_cpu == atomic_load_explicit(&w->from_cpu, memory_order_relaxed));
            } else if (t - start > PA__WORKER_SPIN_NS) {
                break;
            }
            if (crowded || t - start > PA__WORKER_POLL_NS)
                sched_yield();
        }
    }
    pthread_mutex_lock(&w->mu);
    /* Dekker with the submitter (hand_over): flag, fence, check on both sides, so that either the worker sees
     * the job or the submitter sees the worker asleep and signals it. */
    atomic_store_explicit(&w->sleeping, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    while (atomic_load_explicit(&w->go, memory_order_acquire) == seen)
        pthread_cond_wait(&w->cv, &w->mu);
    atomic_store_explicit(&w->sleeping, 0, memory_order_relaxed);
    pthread_mutex_unlock(&w->mu);
}

static void *worker_main(void *p)
{
    pa__worker *w = p;
    for (unsigned seen = 0;; seen++) {
        worker_wait(w, seen);
        pa__job job = w->job;   /* written before go was raised (release), read after (acquire) */
        job.run(job.arg);
        if (job.finish == NULL) {
            atomic_store_explicit(&w->cpu, sched_getcpu(), memory_order_relaxed);
            /* A fork's job: the reply, then (Dekker with pa__pool_join) a wake-up if the joiner sleeps.  Only
             * this worker's own struct is touched after the reply, so the joiner may free the job's memory. */
            atomic_store_explicit(&w->done, seen + 1, memory_order_release);
            atomic_thread_fence(memory_order_seq_cst);
            if (atomic_load_explicit(&w->joiner_sleeps, memory_order_relaxed)) {
                pthread_mutex_lock(&w->mu);
                pthread_cond_broadcast(&w->join_cv);
                pthread_mutex_unlock(&w->mu);
            }
            continue;
        }
        /* Idle again before the caller can be woken: see pa__job. */
        pool_put_idle(w);
        job.finish(job.arg);
    }
    return NULL;
}

static int worker_create(pa__worker **out)
{
    pa__worker *w = NULL;
    pthread_attr_t attr;
    int attr_ok = 0;
    int rc;
    if (posix_memalign((void **)&w, 64, sizeof *w) != 0)
        return pa__err(PA_ERR_NOMEM, "pthd pool: cannot allocate worker %d", atomic_load(&pool.nworkers));
    memset(w, 0, sizeof *w);
    atomic_init(&w->from_cpu, -1);
    atomic_init(&w->cpu, -1);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    pthread_cond_init(&w->join_cv, NULL);
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
    pthread_cond_destroy(&w->join_cv);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
    return pa__err(PA_ERR_SYS, "pthd pool: pthread_create failed for worker %d: %s", atomic_load(&pool.nworkers),
                   rc == EAGAIN ? "too many threads (EAGAIN)" : "system error");
}

/* Hands job to worker w: the job, then go (release).  hand_over_wake finishes the hand-over. */
static void hand_over(pa__worker *w, const pa__job *job, int cpu)
{
    w->job = *job;
    atomic_store_explicit(&w->from_cpu, cpu, memory_order_relaxed);
    atomic_store_explicit(&w->go, atomic_load_explicit(&w->go, memory_order_relaxed) + 1, memory_order_release);
}

/* After a fence that orders every go raised before it (see worker_wait): wakes w if it went to sleep. */
static void hand_over_wake(pa__worker *w)
{
    if (atomic_load_explicit(&w->sleeping, memory_order_relaxed)) {
        pthread_mutex_lock(&w->mu);
        pthread_cond_signal(&w->cv);
        pthread_mutex_unlock(&w->mu);
    }
}

/*
 * Takes k workers for one submitter into ws: the idle stack's top k with one compare-and-swap (the nodes under
 * the head cannot be popped meanwhile, since pops hold pool.mu, nor pushed again, since they are in the stack),
 * new workers for those missing.  \return how many it got (k unless worker creation failed; *st says why).
 */
static int64_t pool_take(pa__worker **ws, int64_t k, int *st)
{
    int64_t got = 0;
    *st = PA_OK;
    pthread_mutex_lock(&pool.mu);
    pa__worker *head = atomic_load_explicit(&pool.idle, memory_order_acquire), *rest;
    do {
        got = 0;
        rest = head;
        while (got < k && rest != NULL) {
            ws[got++] = rest;
            rest = rest->next_idle;
        }
    } while (got > 0 && !atomic_compare_exchange_weak_explicit(&pool.idle, &head, rest, memory_order_acquire,
                                                               memory_order_acquire));
    for (; got < k; got++) {
        *st = worker_create(&ws[got]);
        if (*st != PA_OK)
            break;
        atomic_fetch_add(&pool.nworkers, 1);
    }
    pthread_mutex_unlock(&pool.mu);
    return got;
}

/* Puts k workers back on the idle stack with one compare-and-swap, ws[0] on top (the next take gets them in
 * the same order). */
static void pool_give_back(pa__worker **ws, int64_t k)
{
    if (k <= 0)
        return;
    for (int64_t i = 0; i + 1 < k; i++)
        ws[i]->next_idle = ws[i + 1];
    pa__worker *head = atomic_load_explicit(&pool.idle, memory_order_relaxed);
    do
        ws[k - 1]->next_idle = head;
    while (!atomic_compare_exchange_weak_explicit(&pool.idle, &head, ws[0], memory_order_release,
                                                  memory_order_relaxed));
}

int pa__pool_fork(void (*run)(void *), char *arg0, size_t stride, int64_t n, pa__worker **ws, int64_t *started)
{
    int st = PA_OK;
    *started = pool_take(ws, n, &st);
    int cpu = sched_getcpu();
    for (int64_t i = 0; i < *started; i++) {
        pa__job job = {run, NULL, arg0 + (size_t)i * stride};
        hand_over(ws[i], &job, cpu);
    }
    atomic_thread_fence(memory_order_seq_cst);
    for (int64_t i = 0; i < *started; i++)
        hand_over_wake(ws[i]);
    return st;
}

/*
 * Waits until worker w has replied to its last job: polling, then (Dekker with worker_main) its join_cv.  *poll
 * is how many of the polls only poll (a yield delays the join by about a microsecond); -1 until decided, after
 * 64 polls, since most arrays end before that.  A worker whose last job ran on this CPU may be queued behind
 * this thread (the OS put them together and left another CPU idle, which a join that only polls keeps so: seen
 * on the lent 16-vCPU host as 16-thread joins of 100 us, the polls' length): then every poll yields.
 */
static void join_one(pa__worker *w, int64_t threads, int *poll, int cpu)
{
    unsigned want = atomic_load_explicit(&w->go, memory_order_relaxed);   /* this thread wrote it */
    int here = cpu >= 0 && atomic_load_explicit(&w->cpu, memory_order_relaxed) == cpu;
    for (int i = 0; i < PA__JOIN_SPIN; i++) {
        if (atomic_load_explicit(&w->done, memory_order_acquire) == want)
            return;
        if (here) {
            sched_yield();
            continue;
        }
        cpu_relax();
        if (i % 64 == 63) {
            if (*poll < 0)   /* more threads than CPUs: yield at once */
                *poll = threads <= pa__process_cpus() ? PA__JOIN_POLL : 0;
            if (i >= *poll)
                sched_yield();
        }
    }
    pthread_mutex_lock(&w->mu);
    atomic_store_explicit(&w->joiner_sleeps, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    while (atomic_load_explicit(&w->done, memory_order_acquire) != want)
        pthread_cond_wait(&w->join_cv, &w->mu);
    atomic_store_explicit(&w->joiner_sleeps, 0, memory_order_relaxed);
    pthread_mutex_unlock(&w->mu);
}

void pa__pool_join(pa__worker **ws, int64_t n, int64_t threads)
{
    /* Short arrays finish within microseconds: poll for a while before sleeping, since a futex wake-up costs
     * several microseconds; yield at once where the array's threads outnumber the CPUs. */
    int poll = -1, cpu = sched_getcpu();
    for (int64_t i = 0; i < n; i++)
        join_one(ws[i], threads, &poll, cpu);
    pool_give_back(ws, n);
}

int pa__pool_submit(const pa__job *job)
{
    pa__worker *w;
    int st = PA_OK;
    if (pool_take(&w, 1, &st) != 1)
        return st;
    hand_over(w, job, -1);   /* nobody joins it */
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
