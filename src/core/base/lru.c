/*
 * parray — bounded, hashed caches with least-recently-used eviction (lru.h); the keys of layouts they file by
 * are layout.c's (pa__layout_key_hash).  A lookup hashes its key once and compares only the entries of one
 * bucket (256 buckets; a cache holds a few dozen to a few hundred entries), instead of comparing every
 * entry's layouts in full.  The lock guards
 * the buckets, the recency list and the counts; nothing is made or freed under it.
 */
#include <string.h>

#include "lru.h"

void pa__lru_entry_init(pa__lru_entry *e, uint64_t hash)
{
    memset(e, 0, sizeof *e);
    e->hash = hash;
    atomic_init(&e->refs, 1);
}

void pa__lru_ref(pa__lru_entry *e)
{
    atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
}

void pa__lru_release(pa__lru *c, pa__lru_entry *e)
{
    if (e && atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) == 1)
        c->destroy(e);
}

static pa__lru_entry **bucket_of(pa__lru *c, uint64_t hash)
{
    return &c->bucket[(hash ^ (hash >> 32)) % PA__LRU_BUCKETS];
}

/* The recency list: newest first. */
static void unlink_recent(pa__lru *c, pa__lru_entry *e)
{
    if (e->newer) e->newer->older = e->older;
    else c->newest = e->older;
    if (e->older) e->older->newer = e->newer;
    else c->oldest = e->newer;
    e->newer = e->older = NULL;
}

static void push_newest(pa__lru *c, pa__lru_entry *e)
{
    e->older = c->newest;
    e->newer = NULL;
    if (c->newest) c->newest->newer = e;
    else c->oldest = e;
    c->newest = e;
}

static pa__lru_entry *find_locked(pa__lru *c, uint64_t hash, const void *key)
{
    for (pa__lru_entry *e = *bucket_of(c, hash); e; e = e->chain)
        if (e->hash == hash && c->same(e, key))
            return e;
    return NULL;
}

/* Takes e out of the cache; the cache's reference goes onto *dropped, released by the caller after the lock. */
static void unfile_locked(pa__lru *c, pa__lru_entry *e, pa__lru_entry **dropped)
{
    pa__lru_entry **link = bucket_of(c, e->hash);
    while (*link != e)
        link = &(*link)->chain;
    *link = e->chain;
    unlink_recent(c, e);
    e->filed = 0;
    c->count--;
    e->chain = *dropped;   /* reused as the list of entries to release */
    *dropped = e;
}

/* Evicts the least recently used entries that are not pinned while more than the capacity are unpinned. */
static void evict_locked(pa__lru *c, pa__lru_entry **dropped)
{
    if (c->count <= c->capacity)
        return;   /* no more entries than room, pinned or not: nothing to count (the count ran at every add) */
    int unpinned = c->pinned ? 0 : c->count;   /* without pins every entry counts, without a walk of the list */
    for (pa__lru_entry *e = c->pinned ? c->newest : NULL; e; e = e->older)
        unpinned += !c->pinned(e);
    for (pa__lru_entry *e = c->oldest; e && unpinned > c->capacity;) {
        pa__lru_entry *next = e->newer;
        if (!(c->pinned && c->pinned(e))) {
            unfile_locked(c, e, dropped);
            c->evictions++;
            unpinned--;
        }
        e = next;
    }
}

static void release_all(pa__lru *c, pa__lru_entry *dropped)
{
    while (dropped) {
        pa__lru_entry *next = dropped->chain;
        dropped->chain = NULL;
        pa__lru_release(c, dropped);
        dropped = next;
    }
}

pa__lru_entry *pa__lru_find(pa__lru *c, uint64_t hash, const void *key, int touch)
{
    pthread_mutex_lock(&c->lock);
    pa__lru_entry *e = find_locked(c, hash, key);
    if (e) {
        pa__lru_ref(e);
        if (touch) {
            unlink_recent(c, e);
            push_newest(c, e);
        }
        c->hits++;
    } else {
        c->misses++;
    }
    pthread_mutex_unlock(&c->lock);
    return e;
}

pa__lru_entry *pa__lru_add(pa__lru *c, pa__lru_entry *e, const void *key)
{
    pa__lru_entry *dropped = NULL;
    pthread_mutex_lock(&c->lock);
    pa__lru_entry *first = find_locked(c, e->hash, key);
    if (first) {
        pa__lru_ref(first);
        unlink_recent(c, first);
        push_newest(c, first);
        c->duplicates++;
    } else {
        pa__lru_ref(e);   /* the cache's */
        pa__lru_entry **b = bucket_of(c, e->hash);
        e->chain = *b;
        *b = e;
        push_newest(c, e);
        e->filed = 1;
        c->count++;
        evict_locked(c, &dropped);
    }
    pthread_mutex_unlock(&c->lock);
    release_all(c, dropped);
    if (first) {
        pa__lru_release(c, e);
        return first;
    }
    return e;
}

void pa__lru_clear(pa__lru *c)
{
    pa__lru_entry *dropped = NULL;
    pthread_mutex_lock(&c->lock);
    while (c->newest)
        unfile_locked(c, c->newest, &dropped);
    pthread_mutex_unlock(&c->lock);
    release_all(c, dropped);
}

void pa__lru_set_capacity(pa__lru *c, int capacity)
{
    pa__lru_entry *dropped = NULL;
    pthread_mutex_lock(&c->lock);
    c->capacity = capacity < 1 ? 1 : capacity;
    evict_locked(c, &dropped);
    pthread_mutex_unlock(&c->lock);
    release_all(c, dropped);
}

void pa__lru_stats_of(pa__lru *c, pa__lru_stats *out)
{
    pthread_mutex_lock(&c->lock);
    *out = (pa__lru_stats){.count = c->count, .capacity = c->capacity, .hits = c->hits, .misses = c->misses,
                           .evictions = c->evictions, .duplicates = c->duplicates};
    pthread_mutex_unlock(&c->lock);
}
