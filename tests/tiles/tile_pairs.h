/*
 * parray tests — random pairs of tile types for copies inside kernels: a tile of 2 or 3 modes cut out of a
 * larger dmem array (a window: displaced references into each dimension), and an smem tile storing the same
 * modes in a random permutation with optional padding of its innermost dimension.  Sizes are drawn so that
 * some are multiples of the vector width and some are not; elements are 4, 8 or 16 bytes.
 *
 *     BIG = dmem E [N0][N1][N2]                       the array the tile lies in (Ni >= ni)
 *     SRC = dmem E [n0 # disp(o0) # BIG_0][...]       the tile, in flat order (i0, i1, i2)
 *     STO = smem E [n_p0][n_p1][n_p2 + pad]           the storage, modes permuted by p
 *     DST = smem E [n0 # STO_q0][n1 # STO_q1]...      STO seen in SRC's flat order
 *     OUT = dmem E [n0 * n1 * n2]                     a plain array the test reads back
 *     RDST = rmem E [n0][n1][n2]                      a thread's registers (small tiles only)
 */
#ifndef PARRAY_TILE_PAIRS_H
#define PARRAY_TILE_PAIRS_H

#include <stdio.h>
#include <string.h>

#include "testutil.h"

typedef struct tile_pair {
    int nmodes, elm;
    int64_t n[3], big[3], disp[3];
    int perm[3], pad;
    int64_t size;
    char elm_name[16];
} tile_pair;

static inline void tile_pair_draw(tile_pair *p, pa_rng *r)
{
    static const int elms[] = {4, 8, 16};
    memset(p, 0, sizeof *p);
    p->nmodes = (int)pa_rng_range(r, 2, 3);
    p->elm = elms[pa_rng_range(r, 0, 2)];
    snprintf(p->elm_name, sizeof p->elm_name, "bytes%d", p->elm);
    p->size = 1;
    for (int i = 0; i < p->nmodes; i++) {
        int64_t lim = p->nmodes == 2 ? 40 : 12;
        p->n[i] = pa_rng_range(r, 0, 1) ? 4 * pa_rng_range(r, 1, lim / 4) : pa_rng_range(r, 1, lim);
        p->big[i] = p->n[i] + (pa_rng_range(r, 0, 2) == 0 ? 0 : pa_rng_range(r, 1, 9));
        p->disp[i] = pa_rng_range(r, 0, p->big[i] - p->n[i]);
        p->size *= p->n[i];
        p->perm[i] = i;
    }
    for (int i = p->nmodes - 1; i > 0; i--) {
        int j = (int)pa_rng_range(r, 0, i), t = p->perm[i];
        p->perm[i] = p->perm[j];
        p->perm[j] = t;
    }
    p->pad = (int)pa_rng_range(r, 0, 2) == 0 ? 0 : (int)pa_rng_range(r, 1, 4);
}

/* Declares BIG, SRC, STO, DST, OUT (and RDST) of pair p in scope s.  \return PA_OK or the first error. */
static inline int tile_pair_declare(const tile_pair *p, pa_scope *s)
{
    char d[1024];
    int at = 0, inv[3], st;
    for (int i = 0; i < p->nmodes; i++)
        inv[p->perm[i]] = i;
    at = snprintf(d, sizeof d, "parray dmem %s ", p->elm_name);
    for (int i = 0; i < p->nmodes; i++)
        at += snprintf(d + at, sizeof d - at, "[%lld]", (long long)p->big[i]);
    at += snprintf(d + at, sizeof d - at, " BIG; parray dmem %s ", p->elm_name);
    for (int i = 0; i < p->nmodes; i++)
        at += snprintf(d + at, sizeof d - at, "[%lld # disp(%lld) # BIG_%d]", (long long)p->n[i],
                       (long long)p->disp[i], i);
    at += snprintf(d + at, sizeof d - at, " SRC; parray smem %s ", p->elm_name);
    for (int i = 0; i < p->nmodes; i++)
        at += snprintf(d + at, sizeof d - at, "[%lld]",
                       (long long)(p->n[p->perm[i]] + (i == p->nmodes - 1 ? p->pad : 0)));
    at += snprintf(d + at, sizeof d - at, " STO; parray smem %s ", p->elm_name);
    for (int i = 0; i < p->nmodes; i++)
        at += snprintf(d + at, sizeof d - at, "[%lld # STO_%d]", (long long)p->n[i], inv[i]);
    at += snprintf(d + at, sizeof d - at, " DST; parray dmem %s [%lld] OUT; parray rmem %s ", p->elm_name,
                   (long long)p->size, p->elm_name);
    for (int i = 0; i < p->nmodes; i++)
        at += snprintf(d + at, sizeof d - at, "[%lld]", (long long)p->n[i]);
    snprintf(d + at, sizeof d - at, " RDST;");
    if ((st = pa_declare_text(s, d)) != PA_OK)
        fprintf(stderr, "tile_pair_declare: %s\n  %s\n", pa_last_error(), d);
    return st;
}

#endif
