/*
 * parray MPI tests — checking one distributed copy against the reference semantics: every rank fills its
 * local source array with values that name (rank, offset), poisons its destination, copies, and checks every
 * element it owns against pa_offset_on() (the tree-walking offsets) of both types (a copy between two local
 * types is every process's own copy).  Positions no index maps
 * to must keep the poison.
 */
#ifndef PARRAY_MPI_VERIFY_H
#define PARRAY_MPI_VERIFY_H

#include "mpi_check.h"
#include <parray/mpi.h>

#define POISON (-7)

static int mv_encode(int64_t pid, int64_t off)
{
    return (int)(pid * 100000 + off);
}

/* One more than the largest local offset of a type (its per-process array length). */
static int64_t mv_local_len(const pa_type *t)
{
    int64_t hi = 0;
    for (int64_t k = 0; k < pa_size(t); k++) {
        int64_t o = pa_offset_on(t, PA_ON_LOCAL, k);
        hi = o + 1 > hi ? o + 1 : hi;
    }
    return hi;
}

/* Copies src_type to dst_type on every rank and checks this rank's elements.  \return failures here. */
static int mv_check_copy(const pa_type *dt, const pa_type *st, const char *what)
{
    int me = pa_mpi_rank(), bad = 0;
    int64_t dlen = mv_local_len(dt), slen = mv_local_len(st);
    int *src = malloc((size_t)slen * sizeof *src), *dst = malloc((size_t)dlen * sizeof *dst);
    char *hit = calloc((size_t)dlen, 1);
    for (int64_t o = 0; o < slen; o++)
        src[o] = mv_encode(me, o);
    for (int64_t o = 0; o < dlen; o++)
        dst[o] = POISON;
    /* Between two local types every process copies its own arrays; otherwise a local side is process 0's. */
    int own = strcmp(pa_mtt(dt), "distributed") != 0 && strcmp(pa_mtt(st), "distributed") != 0;
    int st_ = pa_copy(dt, dst, st, src);
    MCK(st_ == PA_OK, "%s: pa_copy: %s: %s", what, pa_status_name(st_), pa_last_error());
    for (int64_t k = 0; st_ == PA_OK && k < pa_size(dt) && bad < 5; k++) {
        if (!own && pa_offset_on(dt, PA_ON_THREAD, k) != me)
            continue;
        int64_t ld = pa_offset_on(dt, PA_ON_LOCAL, k);
        int want = mv_encode(own ? me : pa_offset_on(st, PA_ON_THREAD, k), pa_offset_on(st, PA_ON_LOCAL, k));
        hit[ld] = 1;
        if (dst[ld] != want) {
            MCK(0, "%s: element %lld at local offset %lld is %d, expected %d", what, (long long)k,
                (long long)ld, dst[ld], want);
            bad++;
        }
    }
    for (int64_t o = 0; st_ == PA_OK && o < dlen && bad < 5; o++)
        if (!hit[o] && dst[o] != POISON) {
            MCK(0, "%s: local offset %lld was written (%d) but no element maps there", what, (long long)o,
                dst[o]);
            bad++;
        }
    free(src);
    free(dst);
    free(hit);
    return bad + (st_ != PA_OK);
}

#endif
