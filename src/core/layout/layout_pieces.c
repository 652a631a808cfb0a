/*
 * parray — piecewise-affine layouts: a type that one layout cannot hold without tables (a cyclic shift
 * [n # disp(k) # [n]], a window that wraps around an axis) is cut into boxes of its digits on which it is
 * affine.
 *
 * The compiler (pa__layout_compile_box) works on one box at a time with tables refused.  When a reference
 * wraps a value that is one whole digit times a coefficient plus a constant, it says where the quotient by the
 * reference's size changes; the box is cut there on that digit and each part compiled again, until every box
 * is affine (or more than PA__MAX_PIECES boxes would be needed, or something other than such a wrap stands in
 * the way: then the type has no pieces and keeps its table, or the walk).  A wrap on each of two axes gives
 * four boxes after two rounds.  Each piece's layout is over the box's own flat index, so a copy between a
 * pieced side and another side runs one affine plan per box, the other side restricted to the same box
 * (pa__layout_restrict; copy_pieces.c).
 */
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "type_internal.h"

void pa__pieces_free(pa__pieces *p)
{
    if (!p)
        return;
    free(p->p);
    free(p->boxes);
    free(p);
}

typedef struct box { int64_t lo[PA__MAX_DIGITS], len[PA__MAX_DIGITS]; } box;

static int compile(const pa_type *t, pa__pieces **out)
{
    box *work = NULL, *done = NULL;
    pa__layout *lay = NULL;
    pa__pieces *p = calloc(1, sizeof *p);
    int nwork = 1, ndone = 0, st = PA_ERR_NOMEM, nd;
    work = malloc(PA__MAX_PIECES * sizeof *work);
    done = malloc(PA__MAX_PIECES * sizeof *done);
    lay = malloc(PA__MAX_PIECES * sizeof *lay);
    if (!p || !work || !done || !lay)
        goto fail;
    if ((nd = pa__layout_digits(t, p->dsize)) < 1) {
        st = PA_ERR_UNSUPPORTED;
        goto fail;
    }
    p->nd = nd;
    memset(&work[0], 0, sizeof work[0]);
    memcpy(work[0].len, p->dsize, (size_t)nd * sizeof *p->dsize);
    while (nwork > 0) {
        box b = work[--nwork];
        int64_t at[8];
        int dig = 0, ns = 0;
        if ((st = pa__layout_compile_box(t, b.lo, b.len, &lay[ndone], &dig, at, &ns)) != PA_OK)
            goto fail;
        if (ns == 0) {
            done[ndone++] = b;
            continue;
        }
        if (ndone + nwork + ns + 1 > PA__MAX_PIECES) {
            st = PA_ERR_UNSUPPORTED;
            goto fail;
        }
        for (int k = 0; k <= ns; k++) {     /* the cuts split the digit's range into ns + 1 parts */
            int64_t from = k ? at[k - 1] : 0, to = k < ns ? at[k] : b.len[dig];
            if (to <= from)
                continue;
            work[nwork] = b;
            work[nwork].lo[dig] = b.lo[dig] + from;
            work[nwork++].len[dig] = to - from;
        }
    }
    if (!(p->p = calloc((size_t)ndone, sizeof *p->p)) || !(p->boxes = malloc((size_t)ndone * 2 * (size_t)nd * sizeof *p->boxes)))
        goto fail;
    p->n = ndone;
    for (int i = 0; i < ndone; i++) {
        int64_t *lo = p->boxes + (size_t)i * 2 * (size_t)nd, *len = lo + nd;
        memcpy(lo, done[i].lo, (size_t)nd * sizeof *lo);
        memcpy(len, done[i].len, (size_t)nd * sizeof *len);
        p->p[i] = (pa__piece){lo, len, lay[i]};
        p->min_off = i == 0 || lay[i].min_off < p->min_off ? lay[i].min_off : p->min_off;
        p->max_off = i == 0 || lay[i].max_off > p->max_off ? lay[i].max_off : p->max_off;
    }
    free(work);
    free(done);
    free(lay);
    *out = p;
    return PA_OK;
fail:
    free(work);
    free(done);
    free(lay);
    pa__pieces_free(p);
    return st;
}

const pa__pieces *pa__type_pieces(const pa_type *t)
{
    pa_type *n = (pa_type *)t;
    if (__atomic_load_n(&n->pieces_done, __ATOMIC_ACQUIRE))
        return n->pieces;
    if (t->inst->unbound || t->inst->has_func)
        return NULL;
    pa_scope *s = t->inst->decl->scope;
    /* Only types that need them: one affine layout is better than pieces. */
    const pa__layout *l = pa__type_layout(t);
    if (l && l->affine)
        return NULL;
    if (!l && t->layout_status != PA_ERR_UNSUPPORTED)
        return NULL;        /* refused for another reason (an overflow): that error stands */
    pa__scope_lock(s);
    if (!n->pieces_done) {
        pa__pieces *p = NULL;
        int64_t saved = pa__walk_budget_begin(pa__walk_cap);
        if (compile(t, &p) == PA_OK) {
            n->pieces_free = pa__pieces_free;
            n->pieces = p;
        }
        pa__walk_budget_end(saved);
        __atomic_store_n(&n->pieces_done, 1, __ATOMIC_RELEASE);
    }
    pa__scope_unlock(s);
    return n->pieces;
}

int pa__pieces_format(const pa__pieces *p, char *buf, size_t len)
{
    size_t n = 0;
    int r = snprintf(buf, len, "{");
    n += r > 0 ? (size_t)r : 0;
    for (int i = 0; i < p->n; i++) {
        char lay[512];
        pa__layout_format(&p->p[i].l, lay, sizeof lay);
        r = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%s over [", i ? ", " : "", lay);
        n += r > 0 ? (size_t)r : 0;
        for (int d = 0; d < p->nd; d++) {
            r = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%lld:%lld", d ? "," : "",
                         (long long)p->p[i].lo[d], (long long)(p->p[i].lo[d] + p->p[i].len[d]));
            n += r > 0 ? (size_t)r : 0;
        }
        r = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, ")");
        n += r > 0 ? (size_t)r : 0;
    }
    r = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "}");
    n += r > 0 ? (size_t)r : 0;
    return (int)n;
}

/* ---- restricting a layout to a box -------------------------------------------------------------------- */

typedef struct cursor {
    const pa__layout *l;
    int m;                    /* the mode being consumed (innermost first: from nmodes - 1 down) */
    int64_t rest, stride;     /* what is left of it: size and stride (affine) */
    const int64_t *table;     /* or its table, when gathered (then never split) */
} cursor;

/* Takes modes of l, innermost first, covering exactly n flat indices; appends them (innermost first). */
static int take(cursor *c, int64_t n, pa__mode *grp, int *ng)
{
    while (n > 1) {
        if (c->rest == 1) {
            if (--c->m < 0)
                return PA_ERR_UNSUPPORTED;
            c->rest = c->l->modes[c->m].size;
            c->stride = c->l->modes[c->m].stride;
            c->table = c->l->modes[c->m].table;
        }
        if (*ng >= PA__MAX_MODES)
            return PA_ERR_UNSUPPORTED;
        if (c->rest <= n) {
            if (n % c->rest)
                return PA_ERR_UNSUPPORTED;
            grp[(*ng)++] = (pa__mode){c->rest, c->stride, c->table};
            n /= c->rest;
            c->rest = 1;
        } else {
            if (c->table || c->rest % n)
                return PA_ERR_UNSUPPORTED;
            grp[(*ng)++] = (pa__mode){n, c->stride, NULL};
            c->rest /= n;
            c->stride *= n;
            n = 1;
        }
    }
    return PA_OK;
}

int pa__layout_restrict(const pa__layout *l, int nd, const int64_t *dsize, const int64_t *lo, const int64_t *len,
                        pa__layout *out)
{
    pa__layout src = *l, res;
    cursor c = {&src, 0, 1, 0, NULL};
    pa__mode inner[PA__MAX_MODES];   /* the result, innermost first */
    int ni = 0;
    pa__layout_coalesce(&src);
    c.m = src.nmodes;
    memset(&res, 0, sizeof res);
    res.base = src.base;
    res.size = 1;
    for (int d = nd - 1; d >= 0; d--) {
        pa__mode grp[PA__MAX_MODES];
        int ng = 0;
        if (take(&c, dsize[d], grp, &ng) != PA_OK)
            return PA_ERR_UNSUPPORTED;
        res.size *= len[d];
        if (lo[d] == 0 && len[d] == dsize[d]) {
            if (ni + ng > PA__MAX_MODES)
                return PA_ERR_UNSUPPORTED;
            memcpy(inner + ni, grp, (size_t)ng * sizeof *grp);
            ni += ng;
            continue;
        }
        /* A part of the digit: its modes must merge into one (outer.stride == inner.stride * inner.size). */
        pa__mode one = ng ? grp[0] : (pa__mode){1, 0, NULL};
        for (int k = 1; k < ng; k++) {
            if (one.table || grp[k].table || grp[k].stride != one.stride * one.size)
                return PA_ERR_UNSUPPORTED;
            one.size *= grp[k].size;
        }
        if (ni >= PA__MAX_MODES)
            return PA_ERR_UNSUPPORTED;
        if (one.table) {
            inner[ni++] = (pa__mode){len[d], 0, one.table + lo[d]};
        } else {
            res.base += lo[d] * one.stride;
            inner[ni++] = (pa__mode){len[d], one.stride, NULL};
        }
    }
    if (c.rest != 1 || c.m > 0)
        return PA_ERR_UNSUPPORTED;    /* the digits do not cover the layout: not the same index space */
    res.nmodes = ni;
    res.affine = 1;
    for (int i = 0; i < ni; i++) {
        res.modes[i] = inner[ni - 1 - i];
        res.affine &= res.modes[i].table == NULL;
    }
    pa__layout_coalesce(&res);
    res.min_off = res.max_off = res.base;
    for (int i = 0; i < res.nmodes; i++) {
        const pa__mode *m = &res.modes[i];
        int64_t a = m->table ? m->table[0] : 0, b = a;
        for (int64_t k = 0; k < m->size && m->table; k++) {
            a = m->table[k] < a ? m->table[k] : a;
            b = m->table[k] > b ? m->table[k] : b;
        }
        if (!m->table) {
            a = m->stride < 0 ? m->stride * (m->size - 1) : 0;
            b = m->stride > 0 ? m->stride * (m->size - 1) : 0;
        }
        res.min_off += a;
        res.max_off += b;
    }
    *out = res;
    return PA_OK;
}
