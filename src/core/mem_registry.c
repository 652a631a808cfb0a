/*
 * parray — the allocation table: every pointer made by pa_create, with the allocator that made it, its size
 * and the allocator's cookie.  pa_destroy looks pointers up here so that a foreign pointer, a second destroy
 * or a destroy through a type of another memory type is reported instead of crashing inside free() or
 * munmap(); the copy planner asks it (pa__mem_of) which memory a raw pointer lives in.
 *
 * A chained hash table keyed by the pointer, behind one mutex: pa_create and pa_destroy are rare next to the
 * copies between them, so a lock held for a few instructions is no bottleneck.  The bucket array is freed
 * when the last allocation goes, so that a program that destroys everything it created leaves nothing
 * behind, not even memory still reachable at exit.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "mem_internal.h"

typedef struct alloc_node {
    const void *ptr;
    pa__alloc_rec rec;
    struct alloc_node *next;
} alloc_node;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static alloc_node **buckets;    /* nbuckets entries, NULL while the table is empty */
static size_t nbuckets;         /* a power of two */
static size_t count;

#define MIN_BUCKETS 64

/* Pointers are aligned, so their low bits carry little information: mix them all in (a murmur3 finaliser). */
static size_t slot_of(const void *ptr, size_t n)
{
    uint64_t h = (uint64_t)(uintptr_t)ptr;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (size_t)h & (n - 1);
}

/* Rehashes into n buckets.  Called with the lock held.  \return PA_OK or PA_ERR_NOMEM (table unchanged). */
static int table_resize(size_t n)
{
    alloc_node **fresh = calloc(n, sizeof *fresh);
    if (fresh == NULL)
        return PA_ERR_NOMEM;
    for (size_t i = 0; i < nbuckets; i++) {
        alloc_node *node = buckets[i];
        while (node != NULL) {
            alloc_node *next = node->next;
            size_t s = slot_of(node->ptr, n);
            node->next = fresh[s];
            fresh[s] = node;
            node = next;
        }
    }
    free(buckets);
    buckets = fresh;
    nbuckets = n;
    return PA_OK;
}

/* The link that points at ptr's node (or at the NULL ending its chain).  Called with the lock held. */
static alloc_node **table_link(const void *ptr)
{
    alloc_node **link = &buckets[slot_of(ptr, nbuckets)];
    while (*link != NULL && (*link)->ptr != ptr)
        link = &(*link)->next;
    return link;
}

int pa__alloc_register(void *ptr, const pa__alloc_rec *rec)
{
    int rc = PA_OK;
    alloc_node *node = malloc(sizeof *node);
    if (node == NULL)
        return PA_ERR_NOMEM;
    node->ptr = ptr;
    node->rec = *rec;

    pthread_mutex_lock(&table_lock);
    /* Grow at a load factor of 1: chains stay short and the table at most doubles the nodes' memory. */
    if (buckets == NULL || count + 1 > nbuckets) {
        rc = table_resize(buckets == NULL ? MIN_BUCKETS : nbuckets * 2);
        if (rc != PA_OK)
            goto fail;
    }
    alloc_node **link = table_link(ptr);
    if (*link != NULL) {
        rc = PA_ERR_EXISTS;
        goto fail;
    }
    node->next = NULL;
    *link = node;
    count++;
    pthread_mutex_unlock(&table_lock);
    return PA_OK;

fail:
    pthread_mutex_unlock(&table_lock);
    free(node);
    return rc;
}

pa__alloc_take pa__alloc_unregister(const void *ptr, const pa__mem_ops *expect, pa__alloc_rec *out)
{
    pa__alloc_take result = PA__ALLOC_UNKNOWN;
    alloc_node *gone = NULL;

    pthread_mutex_lock(&table_lock);
    if (buckets != NULL) {
        alloc_node **link = table_link(ptr);
        if (*link != NULL) {
            *out = (*link)->rec;
            if ((*link)->rec.ops == expect) {
                gone = *link;
                *link = gone->next;
                count--;
                result = PA__ALLOC_TAKEN;
            } else {
                result = PA__ALLOC_OTHER_MTT;
            }
        }
    }
    if (count == 0 && buckets != NULL) {
        free(buckets);
        buckets = NULL;
        nbuckets = 0;
    }
    pthread_mutex_unlock(&table_lock);
    free(gone);
    return result;
}

const pa__mem_ops *pa__mem_of(const void *ptr)
{
    const pa__mem_ops *ops = NULL;
    pthread_mutex_lock(&table_lock);
    if (buckets != NULL && ptr != NULL) {
        alloc_node *node = *table_link(ptr);
        if (node != NULL)
            ops = node->rec.ops;
    }
    pthread_mutex_unlock(&table_lock);
    return ops;
}

void pa__mem_of2(const void *a, const void *b, const pa__mem_ops **out_a, const pa__mem_ops **out_b)
{
    alloc_node *node;
    *out_a = *out_b = NULL;
    pthread_mutex_lock(&table_lock);
    if (buckets != NULL) {
        if (a != NULL && (node = *table_link(a)) != NULL)
            *out_a = node->rec.ops;
        if (b != NULL && (node = *table_link(b)) != NULL)
            *out_b = node->rec.ops;
    }
    pthread_mutex_unlock(&table_lock);
}

int pa__alloc_lookup(const void *ptr, pa__alloc_rec *out)
{
    int found = 0;
    pthread_mutex_lock(&table_lock);
    if (buckets != NULL && ptr != NULL) {
        alloc_node *node = *table_link(ptr);
        if (node != NULL) {
            *out = node->rec;
            found = 1;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return found;
}

size_t pa__alloc_count(void)
{
    size_t n;
    pthread_mutex_lock(&table_lock);
    n = count;
    pthread_mutex_unlock(&table_lock);
    return n;
}
