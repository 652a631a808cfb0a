/*
 * parray — SSB on the CPU: the dimension lookups (shared with the GPU path, which copies them) and the scan.
 */
#ifndef PARRAY_SSB_CPU_H
#define PARRAY_SSB_CPU_H

#include "ssb_internal.h"

/** Per joined dimension: a dense array over [kmin, kmin + size) of key -> group attribute, 0 or -1 (filtered). */
typedef struct pa__ssb_lookups {
    int32_t *map[PA__SSB_NDIMS];
    int32_t kmin[PA__SSB_NDIMS];
    int64_t size[PA__SSB_NDIMS];
} pa__ssb_lookups;

int pa__ssb_lookups_make(const pa_ssb_db *db, const pa__ssb_plan *p, pa__ssb_lookups *l);
void pa__ssb_lookups_free(pa__ssb_lookups *l);

/** The number of lineorder rows that pass every filter and join of plan p. */
int pa__ssb_count_matches(const pa_ssb_db *db, const pa__ssb_plan *p, int nthreads, int64_t *matches);

#endif
