/*
 * parray — the NCCL communicators of the pthd all-to-all's route: a set of one per thread (rank t of n on thread
 * t's GPU: thread 0 makes the id, every thread joins with its own GPU current, copy_exchange_gpu.c) is borrowed
 * by a thread array's launch at its first such copy and given back when the launch ends; idle sets are kept for
 * the next launch over the same GPUs (at most SETS, the least recently used dropped) and destroyed at exit.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "copy_exchange_gpu_internal.h"

#define SETS 8


static pthread_mutex_t sets_mu = PTHREAD_MUTEX_INITIALIZER;
static cset *sets;
static int nsets;
static unsigned long set_clock;

static void cset_free(cset *c)
{
    for (int i = 0; c && c->comm && i < c->n; i++)
        if (c->comm[i])
            c->dc->comm_free(c->comm[i]);
    if (c) {
        free(c->comm);
        free(c->dev);
    }
    free(c);
}

/* Unlinks c from the list (under sets_mu). */
static void unlink_set(cset *c)
{
    for (cset **pp = &sets; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            nsets--;
            return;
        }
}

static void free_sets(void);

/* An idle set over these GPUs, or a new one (fresh: its communicators are made by the threads, its id here).
 * NULL: no memory (the message set). */
cset *pa__xg_acquire(const pa__devcomm_ops *dc, const int *dev, int n)
{
    cset *c, *old = NULL;
    pthread_mutex_lock(&sets_mu);
    for (c = sets; c; c = c->next)
        if (!c->busy && !c->bad && c->n == n && memcmp(c->dev, dev, (size_t)n * sizeof *dev) == 0)
            break;
    if (c) {
        c->busy = 1;
        c->used = ++set_clock;
        pthread_mutex_unlock(&sets_mu);
        return c;
    }
    if (nsets >= SETS) {   /* the least recently used idle set goes */
        for (cset *e = sets; e; e = e->next)
            if (!e->busy && (!old || e->used < old->used))
                old = e;
        if (old)
            unlink_set(old);
    }
    pthread_mutex_unlock(&sets_mu);
    cset_free(old);
    c = calloc(1, sizeof *c);
    if (!c || !(c->dev = malloc((size_t)n * sizeof *c->dev)) || !(c->comm = calloc((size_t)n, sizeof *c->comm))) {
        cset_free(c);
        pa__err(PA_ERR_NOMEM, "NCCL route: no memory for the communicators of %d GPUs", n);
        return NULL;
    }
    memcpy(c->dev, dev, (size_t)n * sizeof *dev);
    c->n = n;
    c->dc = dc;
    c->busy = c->fresh = 1;
    if (dc->make_id(c->id) != PA_OK)
        c->bad = 1;
    static atomic_int hooked;
    if (atomic_exchange(&hooked, 1) == 0)
        atexit(free_sets);
    pthread_mutex_lock(&sets_mu);
    c->used = ++set_clock;
    c->next = sets;
    sets = c;
    nsets++;
    pthread_mutex_unlock(&sets_mu);
    return c;
}

/* Gives a set back; a bad one (its communicators could not all be made) is destroyed. */
void pa__xg_give_back(cset *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&sets_mu);
    c->busy = 0;
    int bad = c->bad;
    if (bad)
        unlink_set(c);
    pthread_mutex_unlock(&sets_mu);
    if (bad)
        cset_free(c);
}

static void free_sets(void)
{
    pthread_mutex_lock(&sets_mu);
    cset *c = sets;
    sets = NULL;
    nsets = 0;
    pthread_mutex_unlock(&sets_mu);
    for (cset *next; c; c = next) {
        next = c->next;
        cset_free(c);
    }
}
