/*
 * parray — copies where a side is piecewise affine (layout_pieces.c): one affine plan per piece.
 *
 * The pieced side's boxes cut the flat index; the other side is restricted to each box
 * (pa__layout_restrict), or, when it is pieced too over the same digits, both are restricted to every
 * non-empty intersection of their boxes.  Every plan is made before a byte moves, so a refused piece refuses
 * the copy whole (and the caller falls back to the one-layout path: tables or the walk).  A cyclic shift of n
 * elements against a contiguous array is two memcpy-class copies, whatever n.
 */
#include <stdlib.h>
#include <string.h>

#include "copy_internal.h"

/* A box's intersection with another: 0 when empty. */
static int intersect(int nd, const pa__piece *a, const pa__piece *b, int64_t *lo, int64_t *len)
{
    for (int d = 0; d < nd; d++) {
        int64_t from = a->lo[d] > b->lo[d] ? a->lo[d] : b->lo[d];
        int64_t to = a->lo[d] + a->len[d] < b->lo[d] + b->len[d] ? a->lo[d] + a->len[d] : b->lo[d] + b->len[d];
        if (to <= from)
            return 0;
        lo[d] = from;
        len[d] = to - from;
    }
    return 1;
}

/* A piece's layout restricted to a sub-box given in the type's digit coordinates. */
static int sub_box(int nd, const pa__piece *p, const int64_t *lo, const int64_t *len, pa__layout *out)
{
    int64_t rel[PA__MAX_DIGITS];
    for (int d = 0; d < nd; d++)
        rel[d] = lo[d] - p->lo[d];
    return pa__layout_restrict(&p->l, nd, p->len, rel, len, out);
}

static int add(pa__piece_plan *pp, const pa__layout *dl, const pa__layout *sl, size_t elm, const pa__mem_ops *dm,
               const pa__mem_ops *sm)
{
    pa__plan *p;
    int st;
    if (pp->n >= 2 * PA__MAX_PIECES)
        return PA_ERR_UNSUPPORTED;
    if ((st = pa__plan_get(dl, sl, elm, dm, sm, &p)) != PA_OK)
        return st;
    pp->e[pp->n].plan = p;
    pp->e[pp->n].dbase = dl->base;
    pp->e[pp->n].sbase = sl->base;
    pp->e[pp->n++].size = dl->size;
    return PA_OK;
}

void pa__piece_plan_free(pa__piece_plan *pp)
{
    for (int i = 0; i < pp->n; i++)
        pa__plan_unref(pp->e[i].plan);
    free(pp->e);
    memset(pp, 0, sizeof *pp);
}

int pa__piece_plan_make(const pa_type *dt, const pa_type *st, size_t elm, const pa__mem_ops *dm,
                        const pa__mem_ops *sm, pa__piece_plan *pp)
{
    const pa__pieces *dp = pa__type_pieces(dt), *sp = pa__type_pieces(st);
    const pa__pieces *x = dp ? dp : sp, *o = dp ? sp : NULL;
    const pa__layout *other = NULL;
    int rc = PA_ERR_UNSUPPORTED;
    memset(pp, 0, sizeof *pp);
    if (!x)
        return PA_ERR_UNSUPPORTED;
    if (o && (o->nd != x->nd || memcmp(o->dsize, x->dsize, (size_t)x->nd * sizeof *x->dsize) != 0))
        return PA_ERR_UNSUPPORTED;    /* pieced over different digits: not supported, the caller falls back */
    if (!o && !(other = pa__type_layout(x == dp ? st : dt))) {
        pa_error_clear();
        return PA_ERR_UNSUPPORTED;
    }
    if (!(pp->e = calloc(2 * PA__MAX_PIECES, sizeof *pp->e)))
        return pa__err(PA_ERR_NOMEM, "copy: no memory for the plans of %d pieces", x->n);
    for (int i = 0; i < x->n; i++) {
        const pa__piece *bx = &x->p[i];
        pa__layout lx, lo;
        if (!o) {
            if ((rc = pa__layout_restrict(other, x->nd, x->dsize, bx->lo, bx->len, &lo)) != PA_OK)
                goto fail;
            rc = x == dp ? add(pp, &bx->l, &lo, elm, dm, sm) : add(pp, &lo, &bx->l, elm, dm, sm);
            if (rc != PA_OK)
                goto fail;
            continue;
        }
        for (int j = 0; j < o->n; j++) {
            int64_t ilo[PA__MAX_DIGITS], ilen[PA__MAX_DIGITS];
            if (!intersect(x->nd, bx, &o->p[j], ilo, ilen))
                continue;
            if ((rc = sub_box(x->nd, bx, ilo, ilen, &lx)) != PA_OK ||
                (rc = sub_box(x->nd, &o->p[j], ilo, ilen, &lo)) != PA_OK || (rc = add(pp, &lx, &lo, elm, dm, sm)))
                goto fail;
        }
    }
    return PA_OK;
fail:
    pa__piece_plan_free(pp);
    if (rc == PA_ERR_UNSUPPORTED)
        pa_error_clear();
    return rc;
}

int pa__piece_plan_exec(const pa__piece_plan *pp, void *dst, const void *src, void *stream, int async)
{
    for (int i = 0; i < pp->n; i++) {
        int st = async ? pa__plan_exec_async(pp->e[i].plan, dst, pp->e[i].dbase, src, pp->e[i].sbase, stream)
                       : pa__plan_exec(pp->e[i].plan, dst, pp->e[i].dbase, src, pp->e[i].sbase);
        if (st != PA_OK)
            return st;
    }
    return PA_OK;
}

int pa__piece_plan_explain(const pa__piece_plan *pp, char *buf, size_t len)
{
    int big = 0;
    for (int i = 1; i < pp->n; i++)
        if (pp->e[i].size > pp->e[big].size)
            big = i;
    int n = snprintf(buf, len, "pieces=%d (a piecewise-affine layout: one plan per piece); the largest: ", pp->n);
    if (n < 0)
        return n;
    int m = pa__plan_explain(pp->e[big].plan, buf ? buf + ((size_t)n < len ? (size_t)n : len) : NULL,
                             (size_t)n < len ? len - (size_t)n : 0);
    return m < 0 ? m : n + m;
}
