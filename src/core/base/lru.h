/*
 * parray — bounded, hashed caches of reference-counted entries, least recently used evicted (src/core/base/lru.c),
 * for the caches of distributed-copy plans (the MPI backend's, the pthd copies' and all-to-alls').
 *
 * An entry is embedded in the cached object (first member or found with offsetof) and carries the hash of its
 * key; the cache compares keys through its `same` callback.  Lookups return the entry with a reference for
 * the caller, which it gives back with pa__lru_release.  Entries are made outside the cache's lock and filed
 * by pa__lru_add, which keeps the first of two equal entries filed by racing threads.  Past `capacity`
 * entries, the least recently used one that is not pinned is dropped from the cache; it is destroyed when
 * its last user releases it, never under the lock.
 */
#ifndef PARRAY_LRU_H
#define PARRAY_LRU_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "base.h"

#define PA__LRU_BUCKETS 256

typedef struct pa__lru_entry {
    struct pa__lru_entry *chain;            /* the next entry of its hash bucket */
    struct pa__lru_entry *newer, *older;    /* the recency list */
    uint64_t hash;
    atomic_int refs;                        /* the cache's one while filed, and each user's */
    int filed;
} pa__lru_entry;

typedef struct pa__lru {
    /* set once (PA__LRU_INIT) */
    const char *name;
    int capacity;                                                 /* entries kept, pinned ones aside */
    int (*same)(const pa__lru_entry *e, const void *key);         /* 1 when e's key is key */
    void (*destroy)(pa__lru_entry *e);                            /* frees the object holding e */
    int (*pinned)(const pa__lru_entry *e);                        /* optional: 1 for an entry never evicted */
    /* state, under lock */
    pthread_mutex_t lock;
    pa__lru_entry *bucket[PA__LRU_BUCKETS];
    pa__lru_entry *newest, *oldest;
    int count;
    long hits, misses, evictions, duplicates;
} pa__lru;

#define PA__LRU_INIT(name_, capacity_, same_, destroy_, pinned_)                                              \
    {.name = (name_), .capacity = (capacity_), .same = (same_), .destroy = (destroy_), .pinned = (pinned_),   \
     .lock = PTHREAD_MUTEX_INITIALIZER}

/** What a cache holds and has done (for tests and explanations). */
typedef struct pa__lru_stats {
    int count, capacity;
    long hits, misses, evictions, duplicates;   /* duplicates: entries made twice by racing threads, dropped */
} pa__lru_stats;

/** One step of the hash the caches use (a 64-bit mix). */
static inline uint64_t pa__hash_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

/** Readies a new entry with its key's hash and one reference, the maker's. */
void pa__lru_entry_init(pa__lru_entry *e, uint64_t hash);
/** The entry filed under key, with a reference for the caller, or NULL.  touch 0 leaves the recency order
 *  as it is (an explanation must not change which plans later copies find). */
pa__lru_entry *pa__lru_find(pa__lru *c, uint64_t hash, const void *key, int touch);
/**
 * Files e, made by the caller (who holds its one reference) for key, unless an equal entry was filed
 * meanwhile: then e is released (destroyed) and that entry returned instead.  Evicts past the capacity.
 * \return the entry to use, with a reference for the caller.
 */
pa__lru_entry *pa__lru_add(pa__lru *c, pa__lru_entry *e, const void *key);
/** One more reference to an entry the caller holds one of. */
void pa__lru_ref(pa__lru_entry *e);
/** Gives back a reference; the last one destroys the entry. */
void pa__lru_release(pa__lru *c, pa__lru_entry *e);
/** Drops every entry from the cache (each destroyed once its users release it). */
void pa__lru_clear(pa__lru *c);
/** Sets the capacity (at least 1), evicting down to it.  For tests and the environment. */
void pa__lru_set_capacity(pa__lru *c, int capacity);
void pa__lru_stats_of(pa__lru *c, pa__lru_stats *out);

#endif
