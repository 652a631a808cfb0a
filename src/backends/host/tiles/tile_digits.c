/*
 * parray — tile plans (tile_internal.h): the digits of a tile's index and of the index inside a tile on which
 * the source's, destination's and buffer's compiled layouts are all affine.
 *
 * A layout's modes cover ranges of cumulative inner products [p, p*size) of the flat index.  The digits of two or
 * three layouts over [lo, hi) are cut at every layout's mode boundaries in that range; a digit [a, b) inside a
 * mode [p, q) has the stride mode.stride * a/p when p | a, a | b and b | q (a mode cut where it does not divide
 * leaves no plan).  Adjacent digits where every side continues the next (outer stride = inner stride x inner
 * size) are merged.
 */
#include <stdlib.h>

#include "tile_internal.h"

#define MAXB (3 * PA__MAX_MODES + 2)

/* The stride of the modes m[0..n) (outermost first) over the digit [a, b).  \return 0 when they do not split there. */
static int digit_stride(const pa__mode *m, int n, int64_t a, int64_t b, int64_t *stride)
{
    int64_t p = 1;
    for (int i = n - 1; i >= 0; i--) {
        int64_t q = p * m[i].size;
        if (a >= p && b <= q && q > p) {
            if (a % p != 0 || q % b != 0)
                return 0;
            *stride = m[i].stride * (a / p);
            return 1;
        }
        p = q;
    }
    return 0;
}

static int cmp64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/*
 * The joint digits of nl layouts' modes over the index range [lo, hi) (lo | hi): *nd digits, outermost first,
 * sizes in size[], the strides of layout l in st[l][].  \return 1, or 0 when they do not split or need more than
 * PA__TILE_DIGITS digits.
 */
static int joint(int nl, const pa__layout *const *ls, int64_t lo, int64_t hi, int *nd, int64_t *size,
                 int64_t (*st)[PA__TILE_DIGITS])
{
    int64_t b[MAXB], dsz[MAXB], dst[3][MAXB];
    int nb = 0, n = 0;
    b[nb++] = lo;
    b[nb++] = hi;
    for (int l = 0; l < nl; l++) {
        int64_t p = 1;
        for (int i = ls[l]->nmodes - 1; i >= 0 && nb < MAXB; i--) {
            p *= ls[l]->modes[i].size;
            if (p > lo && p < hi)
                b[nb++] = p;
        }
    }
    qsort(b, (size_t)nb, sizeof *b, cmp64);
    for (int i = 1; i < nb; i++) {   /* digits innermost first */
        if (b[i] == b[i - 1])
            continue;
        int64_t a = b[i - 1];
        if (b[i] % a != 0)
            return 0;
        dsz[n] = b[i] / a;
        for (int l = 0; l < nl; l++)
            if (!digit_stride(ls[l]->modes, ls[l]->nmodes, a, b[i], &dst[l][n]))
                return 0;
        n++;
    }
    /* merge, from the innermost outwards: digit j (outer) into the kept digit below it where every side allows */
    int m = 0;
    for (int j = 0; j < n; j++) {
        int merge = m > 0;
        for (int l = 0; l < nl && merge; l++)
            merge = dst[l][j] == dst[l][m - 1] * dsz[m - 1];
        if (merge) {
            dsz[m - 1] *= dsz[j];
            continue;
        }
        dsz[m] = dsz[j];
        for (int l = 0; l < nl; l++)
            dst[l][m] = dst[l][j];
        m++;
    }
    if (m > PA__TILE_DIGITS)
        return 0;
    for (int j = 0; j < m; j++) {   /* outermost first */
        size[j] = dsz[m - 1 - j];
        for (int l = 0; l < nl; l++)
            st[l][j] = dst[l][m - 1 - j];
    }
    *nd = m;
    return 1;
}

int pa__tile_plan_make(const pa__layout *src, const pa__layout *dst, const pa__layout *inner, int64_t S,
                       pa__tile_plan *p)
{
    if (!src->affine || !dst->affine || !inner->affine || S < 1 || src->size != dst->size || inner->size != S ||
        src->size % S != 0)
        return 0;
    int64_t st[3][PA__TILE_DIGITS];
    const pa__layout *outer[2] = {src, dst}, *all[3] = {src, dst, inner};
    if (!joint(2, outer, S, src->size, &p->nt, p->tsize, st))
        return 0;
    for (int j = 0; j < p->nt; j++)
        p->ts[j] = st[0][j], p->td[j] = st[1][j];
    if (!joint(3, all, 1, S, &p->nk, p->ksize, st))
        return 0;
    for (int j = 0; j < p->nk; j++)
        p->ks[j] = st[0][j], p->kd[j] = st[1][j], p->kb[j] = st[2][j];
    p->sbase = src->base;
    p->dbase = dst->base;
    p->bbase = inner->base;
    return 1;
}
