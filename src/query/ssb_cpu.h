/*
 * parray — SSB on the CPU: the dimension lookups (shared with the GPU path, which copies them) and the scan.
 */
#ifndef PARRAY_SSB_CPU_H
#define PARRAY_SSB_CPU_H

#include "ssb_internal.h"

/**
 * Per joined dimension, key -> group attribute, 0 (semi-join) or -1 (filtered out, or no such key): a dense array
 * over [kmin, kmin + size) when the keys' range is at most PA__SSB_DENSE_FACTOR times the rows plus
 * PA__SSB_DENSE_SLACK (ssb_internal.h; the generator's keys 1..n always are), else an open-addressing hash table
 * of at least twice the rows (a power of two: keys[d] beside map[d]), so that sparse keys never cost an array over
 * their whole range (up to 2^32 entries, 16 GiB).  The GPU's tables (ssb_gpu.c) follow the same rule.
 */
typedef struct pa__ssb_lookups {
    int32_t *map[PA__SSB_NDIMS];
    int32_t *keys[PA__SSB_NDIMS];   /* hashed: the keys (map holds their values); NULL when dense */
    int32_t kmin[PA__SSB_NDIMS];
    int64_t size[PA__SSB_NDIMS];
} pa__ssb_lookups;

int pa__ssb_lookups_make(const pa_ssb_db *db, const pa__ssb_plan *p, pa__ssb_lookups *l);
void pa__ssb_lookups_free(pa__ssb_lookups *l);

/** The number of lineorder rows that pass every filter and join of plan p. */
int pa__ssb_count_matches(const pa_ssb_db *db, const pa__ssb_plan *p, int nthreads, int64_t *matches);

#endif
