/*
 * parray — leases of a few interchangeable resources per key (leases.h): one mutex and one condition variable;
 * the critical sections are a scan of at most PA__LEASE_MAX flags.
 */
#include "leases.h"

int pa__lease_take(pa__leases *l, int key)
{
    int waited = 0;
    pthread_mutex_lock(&l->lock);
    for (;;) {
        for (int i = 0; i < l->per_key; i++)
            if (!l->taken[key][i]) {
                l->taken[key][i] = 1;
                if (++l->busy > l->peak)
                    l->peak = l->busy;
                l->waits += waited;
                pthread_mutex_unlock(&l->lock);
                return i;
            }
        waited = 1;
        pthread_cond_wait(&l->freed, &l->lock);
    }
}

void pa__lease_give(pa__leases *l, int key, int index)
{
    pthread_mutex_lock(&l->lock);
    l->taken[key][index] = 0;
    l->busy--;
    pthread_cond_broadcast(&l->freed);
    pthread_mutex_unlock(&l->lock);
}

int pa__lease_taken(pa__leases *l, int key, int index)
{
    pthread_mutex_lock(&l->lock);
    int t = l->taken[key][index];
    pthread_mutex_unlock(&l->lock);
    return t;
}

void pa__lease_stats(pa__leases *l, int *peak, long *waits)
{
    pthread_mutex_lock(&l->lock);
    *peak = l->peak;
    *waits = l->waits;
    pthread_mutex_unlock(&l->lock);
}
