/*
 * parray — the pool of worker threads behind pthd arrays.
 *
 * Workers are created on demand and never exit: a launch takes idle workers (making new ones only when none is
 * idle), so after the first launch of a given width a for costs a wake-up per thread instead of a
 * pthread_create.  Nested arrays and parallel regions simply take more workers; since every thread of an array
 * gets its own worker, barriers inside an array can never wait on a thread that has no worker.
 *
 * A worker sleeps on its own condition variable.  Before sleeping it spins briefly, because a back-to-back
 * launch usually hands it the next job within microseconds; the spin is short so that it costs little on a
 * machine with fewer cores than threads.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "thread_internal.h"

typedef struct pa__worker {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_int has_job;     /* set by the submitter with job (under mu); cleared by the worker */
    pa__job job;
    struct pa__worker *next_idle;
} pa__worker;

static struct {
    pthread_mutex_t mu;
    pa__worker *idle;
    int nworkers;
} pool = {PTHREAD_MUTEX_INITIALIZER, NULL, 0};

/* How many polls a worker makes for a new job before it sleeps. */
#define PA__WORKER_SPIN 20000

static void pool_put_idle(pa__worker *w)
{
    pthread_mutex_lock(&pool.mu);
    w->next_idle = pool.idle;
    pool.idle = w;
    pthread_mutex_unlock(&pool.mu);
}

/* Waits for the next job: a short spin on the job flag, then the condition variable. */
static void worker_wait(pa__worker *w)
{
    for (int i = 0; i < PA__WORKER_SPIN; i++) {
        if (atomic_load_explicit(&w->has_job, memory_order_acquire))
            break;
        if (i % 64 == 63)
            sched_yield();
    }
    pthread_mutex_lock(&w->mu);
    while (!atomic_load_explicit(&w->has_job, memory_order_acquire))
        pthread_cond_wait(&w->cv, &w->mu);
    atomic_store_explicit(&w->has_job, 0, memory_order_relaxed);
    pthread_mutex_unlock(&w->mu);
}

static void *worker_main(void *p)
{
    pa__worker *w = p;
    for (;;) {
        worker_wait(w);
        pa__job job = w->job;   /* read after the mutex hand-over in worker_wait */
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
        return pa__err(PA_ERR_NOMEM, "pthd pool: cannot allocate worker %d", pool.nworkers);
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
    return pa__err(PA_ERR_SYS, "pthd pool: pthread_create failed for worker %d: %s", pool.nworkers,
                   rc == EAGAIN ? "too many threads (EAGAIN)" : "system error");
}

int pa__pool_submit(const pa__job *job)
{
    pa__worker *w;
    pthread_mutex_lock(&pool.mu);
    w = pool.idle;
    if (w != NULL) {
        pool.idle = w->next_idle;
    } else {
        int st = worker_create(&w);
        if (st != PA_OK) {
            pthread_mutex_unlock(&pool.mu);
            return st;
        }
        pool.nworkers++;
    }
    pthread_mutex_unlock(&pool.mu);
    /* The job is copied into the worker under its mutex, so the caller's job may live on its stack. */
    pthread_mutex_lock(&w->mu);
    w->job = *job;
    atomic_store_explicit(&w->has_job, 1, memory_order_release);
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return PA_OK;
}

int pa__pool_size(void)
{
    pthread_mutex_lock(&pool.mu);
    int n = pool.nworkers;
    pthread_mutex_unlock(&pool.mu);
    return n;
}
