/*
 * parray — barriers for pa_sync.
 *
 * A generation-counting barrier on a mutex and a condition variable: the last thread to arrive starts a new
 * generation and wakes the others, who wait for the generation to change (not for a count, which the next
 * round may already have changed).  ThreadSanitizer understands these primitives, so the suite can check the
 * happens-before that pa_sync promises.
 */
#include "thread_internal.h"

void pa__barrier_init(pa__barrier *b, int64_t need)
{
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->cv, NULL);
    b->need = need;
    b->arrived = 0;
    b->generation = 0;
}

void pa__barrier_destroy(pa__barrier *b)
{
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
}

void pa__barrier_wait(pa__barrier *b)
{
    pthread_mutex_lock(&b->mu);
    uint64_t gen = b->generation;
    if (++b->arrived == b->need) {
        b->arrived = 0;
        b->generation++;
        pthread_cond_broadcast(&b->cv);
    } else {
        while (b->generation == gen)
            pthread_cond_wait(&b->cv, &b->mu);
    }
    pthread_mutex_unlock(&b->mu);
}
