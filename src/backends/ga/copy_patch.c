/*
 * parray — moving one patch of a copy between a Global Array and host memory (copy_box.c says what a patch
 * is): the call's bounds and skips, the host side in place when its strides are the patch's row-major buffer
 * (the innermost dimension contiguous, each stride a whole multiple of the next and large enough for its
 * count), else packed into a buffer before a put and unpacked after a get, and the Global Arrays call, or
 * one per owner's block for a strided patch.  Each thread keeps what its last copy did, for tests.
 */
#include <ga.h>
#include <stdlib.h>
#include <string.h>

#include "ga_patch.h"

static _Thread_local pa_ga__stats stats;

void pa_ga__last_stats(pa_ga__stats *out)
{
    *out = stats;
}

void pa_ga__stats_reset(void)
{
    memset(&stats, 0, sizeof stats);
}

/* Sorts a patch's modes by dimension: ord[] gets positions in c->ms, outermost dimension first. */
void pa_ga__by_dim(const pa_ga__job *j, const pa_ga__patch *c, int *ord)
{
    for (int i = 0; i < c->q; i++) {
        int t = i;
        while (t > 0 && j->m[c->ms[ord[t - 1]]].dim > j->m[c->ms[i]].dim) {
            ord[t] = ord[t - 1];
            t--;
        }
        ord[t] = i;
    }
}

/*
 * The leading dimensions of the host side as it is (ldp[d]: the extent of dimension d, whose product over the
 * inner dimensions is each stride).  \return 1 when the host strides are such a buffer.
 */
int pa_ga__host_ld(const pa_ga__job *j, const pa_ga__patch *c, const int *ord, int64_t *ldp)
{
    int64_t inner = 1, unit = (int64_t)j->unit;
    for (int d = 0; d < j->r; d++)
        ldp[d] = 1;
    for (int t = c->q - 1; t >= 0; t--) {
        const pa_ga__mode *b = &j->m[c->ms[ord[t]]];
        if (b->htab || b->hstep <= 0 || b->hstep % unit != 0)
            return 0;
        int64_t h = b->hstep / unit;
        if (t == c->q - 1 && h != 1)
            return 0;
        if (t < c->q - 1) {
            int pos = ord[t + 1];
            if (h % inner != 0 || h / inner < c->cnt[pos])
                return 0;
            ldp[j->m[c->ms[pos]].dim] = h / inner;
        }
        inner = h;
    }
    if (c->q > 0)
        ldp[j->m[c->ms[ord[0]]].dim] = c->cnt[ord[0]];
    return 1;
}

/* Packs the host side of a patch into the buffer (to_buf) or unpacks it, in the buffer's dimension order. */
static void pack(pa_ga__job *j, const pa_ga__patch *c, const int *ord, char *h, int to_buf)
{
    int64_t idx[PA_GA__MAX_DIMS] = {0}, unit = (int64_t)j->unit;
    char *b = j->buf;
    int q = c->q, in = ord[q - 1];
    const pa_ga__mode *im = &j->m[c->ms[in]];
    int64_t n_in = c->cnt[in], f_in = c->from[in];
    for (;;) {
        char *hp = h;
        for (int t = 0; t < q - 1; t++)
            hp += hpart(j, &j->m[c->ms[ord[t]]], c->from[ord[t]] + idx[t]);
        if (!im->htab && im->hstep == unit) {
            char *run = hp + f_in * unit;
            memcpy(to_buf ? b : run, to_buf ? run : b, (size_t)(n_in * unit));
        } else {
            for (int64_t i = 0; i < n_in; i++) {
                char *e = hp + hpart(j, im, f_in + i);
                memcpy(to_buf ? b + i * unit : e, to_buf ? e : b + i * unit, (size_t)unit);
            }
        }
        b += n_in * unit;
        int t = q - 2;
        while (t >= 0 && ++idx[t] == c->cnt[ord[t]])
            idx[t--] = 0;
        if (t < 0)
            break;
    }
}

/* The Global Arrays call for one patch: lo..hi (skip), buffer p with leading dimensions ldp (ldp[d]: the
 * extent of dimension d; Global Arrays' ld[i] is that of dimension i + 1). */
static void ga_call(const pa_ga__job *j, int64_t *lo, int64_t *hi, int64_t *skip, int strided, void *p, int64_t *ldp)
{
    int g = j->a->handle;
    int64_t *ld = ldp + 1;
    if (j->put && strided) NGA_Strided_put64(g, lo, hi, skip, p, ld);
    else if (j->put) NGA_Put64(g, lo, hi, p, ld);
    else if (strided) NGA_Strided_get64(g, lo, hi, skip, p, ld);
    else NGA_Get64(g, lo, hi, p, ld);
    stats.calls++;
    stats.strided += strided;
}

/*
 * Moves one patch.  Global Arrays' strided calls misplace elements in the buffer when the patch spans
 * several owners' blocks (Global Arrays 5.8: the blocks after the first along a dimension get the buffer
 * offset of a wrong stride, even where the skip there is 1), so a strided patch goes one block at a time:
 * each piece starts at its first lattice point inside the block, with the buffer pointer moved to match and
 * the same leading dimensions; within one block the calls are right.  Plain calls span blocks correctly.
 */
static int transfer(pa_ga__job *j, int64_t *lo, int64_t *hi, int64_t *skip, int strided, char *p, int64_t *ldp)
{
    int r = j->r, nb = strided ? NGA_Locate_nnodes64(j->a->handle, lo, hi) : 1;
    if (nb <= 1) {
        ga_call(j, lo, hi, skip, strided, p, ldp);
        return PA_OK;
    }
    int64_t *map = malloc((size_t)nb * 2 * (size_t)r * sizeof *map), stride[PA_GA__MAX_DIMS];
    int *procs = malloc((size_t)nb * sizeof *procs);
    if (!map || !procs) {
        free(map);
        free(procs);
        return pa__err(PA_ERR_NOMEM, "gamem: the owners of a patch of %d blocks", nb);
    }
    nb = NGA_Locate_region64(j->a->handle, lo, hi, map, procs);
    for (int d = r - 1; d >= 0; d--)
        stride[d] = d == r - 1 ? 1 : stride[d + 1] * ldp[d + 1];
    for (int b = 0; b < nb; b++) {
        int64_t blo[PA_GA__MAX_DIMS], bhi[PA_GA__MAX_DIMS], at = 0;
        int empty = 0;
        for (int d = 0; d < r && !empty; d++) {
            int64_t from = map[b * 2 * r + d] > lo[d] ? map[b * 2 * r + d] : lo[d];
            int64_t to = map[b * 2 * r + r + d] < hi[d] ? map[b * 2 * r + r + d] : hi[d];
            int64_t first = (from - lo[d] + skip[d] - 1) / skip[d], last = (to - lo[d]) / skip[d];
            empty = first > last;
            blo[d] = lo[d] + first * skip[d];
            bhi[d] = lo[d] + last * skip[d];
            at += first * stride[d];
        }
        if (!empty)
            ga_call(j, blo, bhi, skip, 1, p + at * (int64_t)j->unit, ldp);
    }
    free(map);
    free(procs);
    return PA_OK;
}

/* One Global Arrays call for a patch whose modes start at unit offset o (host h), every mode at index 0. */
int pa_ga__one_call(pa_ga__job *j, const pa_ga__patch *c, int64_t o, char *h)
{
    int64_t sub[PA_GA__MAX_DIMS], lo[PA_GA__MAX_DIMS], hi[PA_GA__MAX_DIMS], skip[PA_GA__MAX_DIMS];
    int64_t ldp[PA_GA__MAX_DIMS], units = 1;
    int ord[PA_GA__MAX_DIMS] = {0}, strided = 0;
    for (int t = 0; t < c->q; t++)
        o += gpart(j, &j->m[c->ms[t]], c->from[t]);
    subscript(j, o, sub);
    for (int d = 0; d < j->r; d++) {
        lo[d] = hi[d] = sub[d];
        skip[d] = 1;
    }
    for (int t = 0; t < c->q; t++) {
        const pa_ga__mode *b = &j->m[c->ms[t]];
        hi[b->dim] = sub[b->dim] + (c->cnt[t] - 1) * b->skip;
        skip[b->dim] = b->skip;
        strided |= b->skip > 1 && c->cnt[t] > 1;
        units *= c->cnt[t];
    }
    pa_ga__by_dim(j, c, ord);
    int inplace = pa_ga__host_ld(j, c, ord, ldp);
    char *p = h;
    if (inplace) {
        for (int t = 0; t < c->q; t++)
            p += hpart(j, &j->m[c->ms[t]], c->from[t]);
    } else {
        for (int d = 0; d < j->r; d++)
            ldp[d] = 1;
        for (int t = 0; t < c->q; t++)
            ldp[j->m[c->ms[t]].dim] = c->cnt[t];
        if (!j->buf && !(j->buf = malloc((size_t)(j->bufsize * (int64_t)j->unit))))
            return pa__err(PA_ERR_NOMEM, "gamem: a buffer of %lld bytes for a patch",
                           (long long)(j->bufsize * (int64_t)j->unit));
        p = j->buf;
        if (j->put)
            pack(j, c, ord, h, 1);
    }
    int st = transfer(j, lo, hi, skip, strided, p, ldp);
    if (st != PA_OK)
        return st;
    if (!inplace && !j->put)
        pack(j, c, ord, h, 0);
    stats.packed += !inplace;
    if (units / j->c > stats.largest)
        stats.largest = units / j->c;
    return PA_OK;
}
