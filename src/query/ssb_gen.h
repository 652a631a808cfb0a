/*
 * parray — the SSB generator's internals: counter-based random numbers and the vocabularies' codes.
 *
 * Every random value is a hash of (seed, stream, index): the stream names the attribute (PA__SSB_S_*), the index
 * the row (for lineorder lines, order * 8 + line).  No state is carried from row to row, so any thread can make
 * any row, and the data depend on the seed and the scale factor only.
 */
#ifndef PARRAY_SSB_GEN_H
#define PARRAY_SSB_GEN_H

#include <stdint.h>

#include "ssb_internal.h"

#define PA__SSB_DATES 2557   /* 1992-01-01 .. 1998-12-31 */

enum {
    PA__SSB_S_CNATION = 1, PA__SSB_S_CCITY, PA__SSB_S_CSEGMENT, PA__SSB_S_SNATION, PA__SSB_S_SCITY,
    PA__SSB_S_PMFGR, PA__SSB_S_PCAT, PA__SSB_S_PBRAND, PA__SSB_S_PSIZE,
    PA__SSB_S_LINES, PA__SSB_S_OCUST, PA__SSB_S_ODATE, PA__SSB_S_OPRIO,
    PA__SSB_S_LPART, PA__SSB_S_LSUPP, PA__SSB_S_LQTY, PA__SSB_S_LDISC, PA__SSB_S_LTAX, PA__SSB_S_LCOMMIT,
    PA__SSB_S_LMODE
};

static inline uint64_t pa__ssb_hash(uint64_t seed, uint64_t stream, uint64_t i)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + stream * 0xd1b54a32d192ed03ULL + i;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/** A uniform integer in [0, n). */
static inline uint64_t pa__ssb_uniform(uint64_t seed, uint64_t stream, uint64_t i, uint64_t n)
{
    return ((pa__ssb_hash(seed, stream, i) >> 32) * n) >> 32;
}

/** The codes of the fixed vocabularies in their sorted dictionaries (index: the natural order). */
typedef struct pa__ssb_vocab {
    int32_t city[250], nation[25], region[5], segment[5];
    int32_t mfgr[5], category[25], brand[1000];
    int32_t priority[5], shipmode[7];
    int32_t dayofweek[7], month[12], yearmonth[84], season[5];
} pa__ssb_vocab;

int pa__ssb_gen_vocab(pa_ssb_db *db, pa__ssb_vocab *v);
int pa__ssb_nation_region(int nation);
int64_t pa__ssb_days(int y, int m, int d);
void pa__ssb_civil(int64_t z, int *y, int *m, int *d);
int32_t pa__ssb_datekey(int64_t days);
void pa__ssb_gen_date(pa_ssb_db *db, const pa__ssb_vocab *v);
void pa__ssb_gen_customer(pa_ssb_db *db, const pa__ssb_vocab *v, int64_t lo, int64_t hi);
void pa__ssb_gen_supplier(pa_ssb_db *db, const pa__ssb_vocab *v, int64_t lo, int64_t hi);
void pa__ssb_gen_part(pa_ssb_db *db, const pa__ssb_vocab *v, int64_t lo, int64_t hi);
int64_t pa__ssb_part_rows(double sf);

#endif
