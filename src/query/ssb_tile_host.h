/*
 * parray — the block-wide query primitives of include/parray/query/block.h for the host: a thread works on a
 * tile of PA__TH_TILE consecutive lineorder rows at a time (a few thousand: each column's slice of the tile is
 * 8 KiB and stays in L1/L2 while the steps of a query pass over it).
 *
 * Where the GPU keeps a tile in registers and its selection as flags per item, the host keeps
 *
 *   - a byte mask m[0 .. n) (1: the row is still selected), narrowed by whole-tile loops that the compiler
 *     vectorises (no branches: a predicate is one unsigned compare and one equality per row), as long as the
 *     rows still selected are dense enough that every cache line of the next column is read anyway; then
 *   - a selection vector sel[0 .. k) of row numbers within the tile, made from the mask by skipping the mask's
 *     zero 8-byte words (an early out for the whole tile when nothing is left), and narrowed row by row by the
 *     later, more selective steps (late materialisation: a later column is read only at the selected rows).
 *
 * The "hash table" of a dimension is a perfect hash: SSB's keys are dense (1..n, and yyyymmdd dates over a
 * range of 61,131 values), so a dimension is a bitmap over key - kmin (the rows that pass its filters: 1 bit a
 * key, so that part's 1,000,000 keys at SF 20 are 125 KiB) and an array of group values (ranks, one or two
 * bytes) over the same range.  A key outside the range indexes the pad entry at [range], which never passes.
 *
 * Every function is static inline: the scan that uses them is compiled once per target (AVX2 and the
 * baseline, ssb_cpu_tiles.c) and each copy vectorises them for its instruction set.
 */
#ifndef PARRAY_SSB_TILE_HOST_H
#define PARRAY_SSB_TILE_HOST_H

#include <stdint.h>
#include <string.h>

/** Rows in a tile: a multiple of 64 (the mask is walked 8 bytes at a time), below 65,536 (uint16 positions). */
#define PA__TH_TILE 2048

/** A predicate lo <= v <= hi or v == alt, as unsigned arithmetic: (uint32)(v - lo) <= span (an empty range,
 *  hi < lo, becomes lo = alt, span 0: v == alt alone). */
typedef struct pa__th_pred {
    uint32_t lo, span, alt;
} pa__th_pred;

/** A dimension as the scan sees it: pass bits and group values over key - kmin, range + 1 entries.  A group
 *  value is the rank of the key's attribute among those that pass, one byte where the ranks fit one (SSB's
 *  nations, cities, years, categories and brands all do), else two: q3.1's customers at SF 20 are 600 KB of
 *  ranks, not 2.4 MB of int32, and stay in a core's L2 with the tile. */
typedef struct pa__th_dim {
    const uint64_t *bits;
    const uint8_t *val8;        /* group values of one byte, or NULL */
    const uint16_t *val16;      /* of two bytes, or NULL (neither: the dimension gives no group column) */
    uint32_t kmin, range;
} pa__th_dim;

static inline uint32_t pa__th_pass(pa__th_pred p, int32_t v)
{
    return ((uint32_t)v - p.lo <= p.span) | ((uint32_t)v == p.alt);
}

/** The entry of key in a dimension: key - kmin, or the pad entry (range) for a key outside the range. */
static inline uint32_t pa__th_slot(const pa__th_dim *d, int32_t key)
{
    uint32_t u = (uint32_t)key - d->kmin;
    return u < d->range ? u : d->range;
}

static inline uint32_t pa__th_bit(const pa__th_dim *d, int32_t key)
{
    uint32_t u = pa__th_slot(d, key);
    return (uint32_t)(d->bits[u >> 6] >> (u & 63)) & 1u;
}

/** The group value (rank) of a key whose bit is set. */
static inline uint32_t pa__th_val(const pa__th_dim *d, int32_t key)
{
    uint32_t u = pa__th_slot(d, key);
    return d->val8 ? d->val8[u] : d->val16[u];
}

/** Predicate into the mask: m[i] = pred(col[i]) (first) or m[i] &= pred(col[i]).  Reads the whole tile. */
static inline void pa__th_pred_mask(const int32_t *restrict col, int n, pa__th_pred p, uint8_t *restrict m, int first)
{
    if (first)
        for (int i = 0; i < n; i++)
            m[i] = (uint8_t)pa__th_pass(p, col[i]);
    else
        for (int i = 0; i < n; i++)
            m[i] &= (uint8_t)pa__th_pass(p, col[i]);
}

/** Probe (semi-join) into the mask: m[i] (&)= the key's bit.  Reads the whole tile of keys. */
static inline void pa__th_probe_mask(const int32_t *restrict key, int n, const pa__th_dim *d, uint8_t *restrict m,
                                     int first)
{
    if (first)
        for (int i = 0; i < n; i++)
            m[i] = (uint8_t)pa__th_bit(d, key[i]);
    else
        for (int i = 0; i < n; i++)
            m[i] &= (uint8_t)pa__th_bit(d, key[i]);
}

/** The mask as a selection vector: the positions of its set bytes, in order.  \return their number. */
static inline int pa__th_compact(const uint8_t *restrict m, int n, uint16_t *restrict sel)
{
    int k = 0;
    for (int i = 0; i < n; i += 8) {
        uint64_t w;
        memcpy(&w, m + i, 8);
        w &= 0x0101010101010101ULL;
        while (w) {
            sel[k++] = (uint16_t)(i + (__builtin_ctzll(w) >> 3));
            w &= w - 1;
        }
    }
    return k;
}

/** How many selected rows ahead the sparse loops ask for their row's cache line (__builtin_prefetch): a column
 *  read at scattered rows would otherwise wait for memory at every line, one line at a time. */
#define PA__TH_AHEAD 16

/** The position of the row PA__TH_AHEAD selected rows ahead of i (i itself near the end). */
static inline uint16_t pa__th_ahead(const uint16_t *sel, int i, int k)
{
    return sel[i + PA__TH_AHEAD < k ? i + PA__TH_AHEAD : i];
}

/** Predicate on the selected rows only: keeps those that pass, in order.  \return how many. */
static inline int pa__th_pred_sel(const int32_t *restrict col, uint16_t *restrict sel, int k, pa__th_pred p)
{
    int j = 0;
    for (int i = 0; i < k; i++) {
        __builtin_prefetch(col + pa__th_ahead(sel, i, k));
        uint16_t r = sel[i];
        sel[j] = r;
        j += (int)pa__th_pass(p, col[r]);
    }
    return j;
}

/** Probe on the selected rows only.  \return how many keep their selection. */
static inline int pa__th_probe_sel(const int32_t *restrict key, uint16_t *restrict sel, int k, const pa__th_dim *d)
{
    int j = 0;
    for (int i = 0; i < k; i++) {
        __builtin_prefetch(key + pa__th_ahead(sel, i, k));
        uint16_t r = sel[i];
        sel[j] = r;
        j += (int)pa__th_bit(d, key[r]);
    }
    return j;
}

/** The selected rows' sum of a[r] * b[r] (q1.x: lo_extendedprice * lo_discount). */
static inline int64_t pa__th_sum_product(const int32_t *a, const int32_t *b, const uint16_t *sel, int k)
{
    int64_t s = 0;
    for (int i = 0; i < k; i++) {
        __builtin_prefetch(a + pa__th_ahead(sel, i, k));
        __builtin_prefetch(b + pa__th_ahead(sel, i, k));
        s += (int64_t)a[sel[i]] * b[sel[i]];
    }
    return s;
}

#endif
