/*
 * parray — the allocation table: every pointer made by pa_create, with the allocator that made it, its size
 * and the allocator's cookie.  pa_destroy looks pointers up here so that a foreign pointer, a second destroy
 * or a destroy through a type of another memory type is reported instead of crashing inside free() or
 * munmap(); the copy planner asks it (pa__mem_blocks2) which block a raw pointer lies in, so that a pointer inside
 * an array is known as that array's memory and a copy that would leave the block is refused.
 *
 * An array of blocks sorted by start address, behind one mutex: a lookup is a binary search for the last block
 * that starts at or below the pointer (exact for pa_destroy, by range for copies), a few compares even with
 * thousands of live arrays.  pa_create and pa_destroy are rare next to the copies between them, so the
 * insertion's memmove is no bottleneck.  The array is freed when the last allocation goes, so that a program
 * that destroys everything it created leaves nothing behind, not even memory still reachable at exit.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem_internal.h"

typedef struct entry {
    uintptr_t start;
    pa__alloc_rec rec;
} entry;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static entry *table;            /* count entries sorted by start, NULL while empty */
static size_t count, cap;

/* The number of blocks that start at or below p (the index after the last such).  Called with the lock held. */
static size_t upper(uintptr_t p)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (table[mid].start <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The entry that starts exactly at ptr, or NULL.  Called with the lock held. */
static entry *exact(const void *ptr)
{
    size_t i = upper((uintptr_t)ptr);
    return i > 0 && table[i - 1].start == (uintptr_t)ptr ? &table[i - 1] : NULL;
}

/* The entry whose bytes hold ptr, or NULL.  Called with the lock held. */
static entry *containing(const void *ptr)
{
    size_t i = upper((uintptr_t)ptr);
    if (i == 0)
        return NULL;
    entry *e = &table[i - 1];
    return (uintptr_t)ptr - e->start < (e->rec.bytes ? e->rec.bytes : 1) ? e : NULL;
}

int pa__alloc_register(void *ptr, const pa__alloc_rec *rec)
{
    int rc = PA_OK;
    pthread_mutex_lock(&table_lock);
    if (count == cap) {
        size_t ncap = cap ? cap * 2 : 64;
        entry *fresh = realloc(table, ncap * sizeof *fresh);
        if (fresh == NULL) {
            rc = PA_ERR_NOMEM;
            goto done;
        }
        table = fresh;
        cap = ncap;
    }
    size_t i = upper((uintptr_t)ptr);
    if (i > 0 && table[i - 1].start == (uintptr_t)ptr) {
        rc = PA_ERR_EXISTS;
        goto done;
    }
    memmove(&table[i + 1], &table[i], (count - i) * sizeof *table);
    table[i].start = (uintptr_t)ptr;
    table[i].rec = *rec;
    count++;
done:
    pthread_mutex_unlock(&table_lock);
    return rc;
}

pa__alloc_take pa__alloc_unregister(const void *ptr, const pa__mem_ops *expect, pa__alloc_rec *out)
{
    pa__alloc_take result = PA__ALLOC_UNKNOWN;
    pthread_mutex_lock(&table_lock);
    entry *e = table ? exact(ptr) : NULL;
    if (e != NULL) {
        *out = e->rec;
        if (e->rec.ops == expect) {
            size_t i = (size_t)(e - table);
            memmove(&table[i], &table[i + 1], (count - i - 1) * sizeof *table);
            count--;
            result = PA__ALLOC_TAKEN;
        } else {
            result = PA__ALLOC_OTHER_MTT;
        }
    }
    if (count == 0 && table != NULL) {
        free(table);
        table = NULL;
        cap = 0;
    }
    pthread_mutex_unlock(&table_lock);
    return result;
}

const pa__mem_ops *pa__mem_of(const void *ptr)
{
    const pa__mem_ops *ops = NULL;
    pthread_mutex_lock(&table_lock);
    entry *e = table && ptr ? containing(ptr) : NULL;
    if (e != NULL)
        ops = e->rec.ops;
    pthread_mutex_unlock(&table_lock);
    return ops;
}

static void block_of(const void *ptr, pa__block *out)
{
    entry *e = table && ptr ? containing(ptr) : NULL;
    out->ops = e ? e->rec.ops : NULL;
    out->start = e ? e->start : 0;
    out->bytes = e ? e->rec.bytes : 0;
}

void pa__mem_blocks2(const void *a, const void *b, pa__block *out_a, pa__block *out_b)
{
    pthread_mutex_lock(&table_lock);
    block_of(a, out_a);
    block_of(b, out_b);
    pthread_mutex_unlock(&table_lock);
}

void pa__mem_of2(const void *a, const void *b, const pa__mem_ops **out_a, const pa__mem_ops **out_b)
{
    pa__block ba, bb;
    pa__mem_blocks2(a, b, &ba, &bb);
    *out_a = ba.ops;
    *out_b = bb.ops;
}

int pa__alloc_lookup(const void *ptr, pa__alloc_rec *out)
{
    int found = 0;
    pthread_mutex_lock(&table_lock);
    entry *e = table && ptr ? exact(ptr) : NULL;
    if (e != NULL) {
        *out = e->rec;
        found = 1;
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
