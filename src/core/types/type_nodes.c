/*
 * parray — the memory of type nodes (struct pa_type), kept by the library so that a stale handle is told apart.
 *
 * Type handles are pointers to nodes, and pa_scope_destroy ends every node of its scope.  A program that keeps a
 * handle past that and passes it to the library (pa_size, pa_copy...) would make the library read freed memory.
 * Nodes are therefore never given back to malloc: a destroyed node is zeroed (its `live` mark with it) and queued
 * in a pool, and only reused for a new node once more than QUARANTINE others wait behind it.  The entry points
 * check the mark (pa__type_usable, one load) and report a stale handle as PA_ERR_INVAL.  A handle is recognised as
 * stale until its node is reused, that is until QUARANTINE more nodes have been destroyed after it; the pool holds
 * at most the peak number of live nodes plus QUARANTINE, and is freed at exit.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "type_internal.h"

#define QUARANTINE 4096

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pa_type *head, *tail;    /* the queue of dead nodes, oldest first, linked by next_alloc */
static size_t queued;

pa_type *pa__node_alloc(void)
{
    pa_type *n = NULL;
    pthread_mutex_lock(&pool_lock);
    if (queued > QUARANTINE) {
        n = head;
        head = n->next_alloc;
        if (!head)
            tail = NULL;
        queued--;
    }
    pthread_mutex_unlock(&pool_lock);
    if (n)
        memset(n, 0, sizeof *n);
    else if (!(n = calloc(1, sizeof *n)))
        return NULL;
    n->live = PA__TYPE_LIVE;
    return n;
}

void pa__node_release(pa_type *n)
{
    memset(n, 0, sizeof *n);
    pthread_mutex_lock(&pool_lock);
    if (tail)
        tail->next_alloc = n;
    else
        head = n;
    tail = n;
    queued++;
    pthread_mutex_unlock(&pool_lock);
}

__attribute__((destructor)) static void pool_free(void)
{
    pthread_mutex_lock(&pool_lock);
    for (pa_type *n = head, *next; n; n = next) {
        next = n->next_alloc;
        free(n);
    }
    head = tail = NULL;
    queued = 0;
    pthread_mutex_unlock(&pool_lock);
}

int pa__type_usable(const pa_type *t, const char *fn)
{
    if (!t)
        return pa__err(PA_ERR_INVAL, "%s: the type is NULL", fn);
    if (t->live != PA__TYPE_LIVE)
        return pa__err(PA_ERR_INVAL, "%s: the type handle %p is stale: the scope it came from was destroyed (or "
                       "it is not a type handle)", fn, (const void *)t);
    return PA_OK;
}
