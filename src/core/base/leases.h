/*
 * parray — leases of a few interchangeable resources per key (src/core/base/leases.c): the CUDA backend's staging
 * sets, a few per GPU, so that staged copies on one GPU run side by side instead of one at a time under one
 * process-wide lock.  A taker gets the lowest free index of its key (so one thread alone always reuses the
 * first) and keeps it until it gives it back; when every index of the key is taken it waits for one.  Plain C,
 * tested on the CPU (tests/core/test_leases.c, under TSan in CI).
 */
#ifndef PARRAY_LEASES_H
#define PARRAY_LEASES_H

#include <pthread.h>

#define PA__LEASE_KEYS 64   /* keys 0 .. 63 (GPUs) */
#define PA__LEASE_MAX 8     /* indices per key at most */

typedef struct pa__leases {
    int per_key;                                      /* indices per key, 1 .. PA__LEASE_MAX */
    pthread_mutex_t lock;
    pthread_cond_t freed;
    unsigned char taken[PA__LEASE_KEYS][PA__LEASE_MAX];
    int busy, peak;                                   /* taken now, most taken at once (all keys) */
    long waits;                                       /* takers that had to wait */
} pa__leases;

#define PA__LEASES_INIT(per_key_) \
    {.per_key = (per_key_), .lock = PTHREAD_MUTEX_INITIALIZER, .freed = PTHREAD_COND_INITIALIZER}

/** The lowest free index of key (0 <= key < PA__LEASE_KEYS), taken for the caller; waits while all are taken. */
int pa__lease_take(pa__leases *l, int key);
/** Gives back an index pa__lease_take gave. */
void pa__lease_give(pa__leases *l, int key, int index);
/** 1 when the index is taken now (for a caller that holds the lock's guarantee by other means: tests, exit). */
int pa__lease_taken(pa__leases *l, int key, int index);
/** The most indices taken at once so far, and how many takers waited (for tests and explanations). */
void pa__lease_stats(pa__leases *l, int *peak, long *waits);

#endif
