/*
 * parray — what the two caches of pthd-distributed plans share (copy_dist.c: each thread's own part;
 * copy_exchange.c: the all-to-all between threads): the key a thread's plan is filed under, and the layout of
 * a list of local offsets.  Included only by those two files.
 */
#ifndef PARRAY_COPY_DIST_KEY_H
#define PARRAY_COPY_DIST_KEY_H

#include "thread_internal.h"

/* A thread's plan for a pair of splits: the same on every call of that thread with those two types. */
typedef struct pa__pthd_key {
    pa__layout l[4];            /* the splits' layouts: destination pid, local, source pid, local */
    uint64_t dser, sser;        /* the types' serials when a split has gather tables (uneven windows), whose
                                   contents the layouts do not hold; 0 when the layouts are the whole key */
    size_t elm;
    int64_t tid, nthreads;
} pa__pthd_key;

/** Fills *k for thread tid of n copying between splits d and s of elm-byte elements; dser and sser are the
 *  types' serials (kept only where a split is gathered). */
void pa__pthd_key_set(pa__pthd_key *k, const pa__dist_split *d, const pa__dist_split *s, size_t elm, int64_t tid,
                      int64_t n, uint64_t dser, uint64_t sser);
/** 1 when two keys name the same plan. */
int pa__pthd_key_same(const pa__pthd_key *a, const pa__pthd_key *b);
/** The key's hash for the bounded caches (src/core/base/lru.h). */
uint64_t pa__pthd_key_hash(const pa__pthd_key *k);
/** n local offsets at t as a layout: affine where they are, else one gathered mode over t itself (the plan
 *  made from it copies the table). */
void pa__pthd_offsets_layout(int64_t *t, int64_t n, pa__layout *out);

/* The offsets of a layout for k = 0, 1, 2, ... in turn, without the divisions of pa__layout_offset (an odometer
 * over its modes, outermost first): the all-to-alls list every element of a copy once. */
typedef struct pa__pthd_walker {
    const pa__layout *l;
    int64_t off;                /* the offset of the current k */
    int64_t idx[PA__MAX_MODES];
} pa__pthd_walker;

/** Starts w at k = 0 of l. */
void pa__pthd_walk_start(pa__pthd_walker *w, const pa__layout *l);
/** Moves w to the next k (past the last one it wraps around to k = 0). */
void pa__pthd_walk_next(pa__pthd_walker *w);

#endif
