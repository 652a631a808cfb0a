/*
 * parray — compiling a dimension tree into a flat layout (pa__layout), symbolically.
 *
 * The walk in walk.c is followed step by step, but on symbolic values instead of numbers.  The digits are the
 * leaves (and pure references) under the compiled dimension, in row-major order.  A value is an affine form
 * cst + sum(coeff * part) over parts of digits, plus "groups": tables over a set of digits for the parts of
 * the walk that are not affine (func, wrapping references, displaced references into transposed layouts).
 * A reference whose target compiles to one affine mode scales the form; into several modes it composes per
 * part when each part lines up with the target's modes (CuTe's divisibility condition), splitting a part into
 * sub-parts; otherwise the value becomes a group whose table is computed by evaluating the rest numerically.
 * When a value is fixed, its parts become the digits' final modes.  Layouts are checked against the walk by
 * the property tests.
 *
 * This file is the symbolic composition; layout_assemble.c lays the final forms out as modes, builds the
 * whole-type table of last resort, computes the extent and holds the entry points (pa__layout_compile,
 * pa__layout_compile_box).  The state they share is in layout_compile.h.
 */
#include <stdlib.h>
#include <string.h>

#include "layout_compile.h"

static int overflow(void)
{
    return pa__err(PA_ERR_RANGE, "offsets overflow 64 bits (they must lie within +-2^62)");
}

int pa__compile_digits(comp *c, const pa_type *n)
{
    if (n->alias || n->nchild == 0) {
        if (c->nd >= MAXD)
            return FAIL_IRREGULAR;
        c->dsize[c->nd] = n->size;
        c->dnode[c->nd++] = n;
        return 0;
    }
    for (int i = 0; i < n->nchild; i++)
        if (pa__compile_digits(c, n->child[i]))
            return FAIL_IRREGULAR;
    return 0;
}

static int scale(comp *c, symval *v, int64_t s)
{
    int bad = __builtin_mul_overflow(v->cst, s, &v->cst);
    for (int i = 0; i < v->np; i++)
        bad |= __builtin_mul_overflow(v->p[i].coeff, s, &v->p[i].coeff);
    for (int g = 0; g < v->ng; g++)
        for (int64_t i = 0; i < c->gr[v->g[g]].n; i++)
            bad |= __builtin_mul_overflow(c->gr[v->g[g]].table[i], s, &c->gr[v->g[g]].table[i]);
    return bad ? pa__err(PA_ERR_RANGE, "offsets overflow 64 bits") : PA_OK;
}

int pa__compile_part_cmp(const void *a, const void *b)
{
    const part *x = a, *y = b;
    return x->digit != y->digit ? x->digit - y->digit : (x->order > y->order) - (x->order < y->order);
}

/* A digit splits row-major over its parts: part k's value is (digit / inner) % size, with inner the product
 * of the sizes of the digit's parts inside it. */
static int64_t part_inner(const symval *v, int k)
{
    int64_t inner = 1;
    for (int i = 0; i < v->np; i++)
        if (v->p[i].digit == v->p[k].digit && v->p[i].order > v->p[k].order)
            inner *= v->p[i].size;
    return inner;
}

/* Turns a whole value into one group: a table over the union of its digits. */
static int to_group(comp *c, symval *v)
{
    int in[MAXD] = {0}, dig[MAXD], nd = 0, work = 1 + v->np;
    int64_t n = 1, val[MAXD], inner[MAXP];
    group *g;
    if (c->pieces)
        return FAIL_IRREGULAR;        /* a piece is affine or the type is not piecewise affine */
    for (int i = 0; i < v->np; i++)
        in[v->p[i].digit] = 1;
    for (int k = 0; k < v->ng; k++)
        for (int i = 0; i < c->gr[v->g[k]].ndig; i++)
            in[c->gr[v->g[k]].dig[i]] = 1;
    for (int d = 0; d < c->nd; d++)
        if (in[d]) {
            dig[nd++] = d;
            if (__builtin_mul_overflow(n, c->dsize[d], &n) || n > TABLE_CAP)
                return FAIL_IRREGULAR;
        }
    for (int k = 0; k < v->ng; k++)
        work += c->gr[v->g[k]].ndig;
    if (c->ngr >= MAXG || n * work > WALK_CAP)
        return FAIL_IRREGULAR;        /* too costly a table; the whole-type fallback has its own bound */
    for (int i = 0; i < v->np; i++) /* each part's divisor within its digit, computed once */
        inner[i] = part_inner(v, i);
    g = &c->gr[c->ngr];
    if (!(g->table = malloc((size_t)n * sizeof *g->table)))
        return pa__err(PA_ERR_NOMEM, "no memory for a gather table of %lld offsets", (long long)n);
    g->ndig = nd;
    memcpy(g->dig, dig, sizeof dig);
    g->n = n;
    g->live = 1;
    for (int64_t idx = 0; idx < n; idx++) {
        int64_t x = v->cst, r = idx, y;
        int bad = 0;
        for (int i = nd - 1; i >= 0; i--) {
            val[dig[i]] = r % c->dsize[dig[i]];
            r /= c->dsize[dig[i]];
        }
        for (int i = 0; i < v->np; i++) {
            bad |= __builtin_mul_overflow(v->p[i].coeff, (val[v->p[i].digit] / inner[i]) % v->p[i].size, &y);
            bad |= __builtin_add_overflow(x, y, &x);
        }
        for (int k = 0; k < v->ng; k++) {
            const group *h = &c->gr[v->g[k]];
            int64_t hi = 0;
            for (int i = 0; i < h->ndig; i++)
                hi = hi * c->dsize[h->dig[i]] + val[h->dig[i]];
            bad |= __builtin_add_overflow(x, h->table[hi], &x);
        }
        if (bad) {
            free(g->table);
            g->table = NULL;
            return overflow();
        }
        g->table[idx] = x;
    }
    for (int k = 0; k < v->ng; k++) {
        free(c->gr[v->g[k]].table);
        c->gr[v->g[k]].table = NULL;
        c->gr[v->g[k]].live = 0;
    }
    v->cst = 0;
    v->np = 0;
    v->ng = 1;
    v->g[0] = c->ngr++;
    return 0;
}

/* Composes one part (size s, coeff k) with a multi-mode affine layout; appends sub-parts to out. */
static int compose_part(const pa__layout *l, const part *p, part *out, int *nout)
{
    int m = l->nmodes - 1, n = 0;
    int64_t rem = p->coeff, take = p->size;
    part sub[16];
    while (m >= 0 && rem > 1) {
        int64_t sz = l->modes[m].size;
        if (rem % sz == 0) {
            rem /= sz;
            m--;
        } else if (sz % rem == 0) {
            break;
        } else {
            return FAIL_IRREGULAR;
        }
    }
    while (take > 1) {
        int64_t avail, t;
        if (m < 0 || n >= 15)
            return FAIL_IRREGULAR;
        avail = l->modes[m].size / rem;
        t = take <= avail ? take : avail;
        if ((take <= avail && avail % take) || (take > avail && take % avail))
            return FAIL_IRREGULAR;
        sub[n].size = t;
        if (__builtin_mul_overflow(l->modes[m].stride, rem, &sub[n++].coeff))
            return FAIL_IRREGULAR;
        take /= t;
        rem = 1;
        m--;
    }
    if (n == 0) {
        sub[n].size = 1;
        sub[n++].coeff = 0;
    }
    for (int i = 0; i < n; i++) {    /* sub[0] is the innermost */
        out[*nout] = *p;
        out[*nout].size = sub[i].size;
        out[*nout].coeff = sub[i].coeff;
        out[(*nout)++].order = p->order * 16 + (n - 1 - i);
    }
    return 0;
}

static int coeff_cmp(const void *a, const void *b)
{
    const part *x = a, *y = b;
    return (x->coeff > y->coeff) - (x->coeff < y->coeff);
}

/*
 * A reference wraps a value that is one whole digit d (times coeff, plus cst): the places where
 * floor(value / |T|) changes split d into pieces on each of which the reference is affine.  Records up to 8 of
 * them (relative to the digit's restricted range) and returns SPLIT, else FAIL_IRREGULAR.
 */
/* floor(a / m) for m > 0, without the overflow of a - floor_mod(a, m) near INT64_MIN. */
static int64_t floor_div(int64_t a, int64_t m)
{
    return a / m - (a % m < 0);
}

static int wrap_split(comp *c, const symval *v, const pa_type *T)
{
    const part *p = NULL;
    for (int i = 0; i < v->np; i++)
        if (v->p[i].coeff != 0 && v->p[i].size > 1) {
            if (p)
                return FAIL_IRREGULAR;
            p = &v->p[i];
        }
    if (!p || v->ng || p->size != c->dsize[p->digit] || c->dnode[p->digit]->alias)
        return FAIL_IRREGULAR;
    int64_t m = T->size, k0 = v->cst, k = p->coeff, n = p->size, last, q0, q1;
    if (__builtin_mul_overflow(k, n - 1, &last) || __builtin_add_overflow(last, k0, &last))
        return FAIL_IRREGULAR;
    q0 = floor_div(k0, m);
    q1 = floor_div(last, m);
    int64_t wraps, edge;
    if (__builtin_sub_overflow(q1, q0, &wraps) || wraps > 8 || wraps < -8 || k == INT64_MIN)
        return FAIL_IRREGULAR;        /* many wraps: not a few pieces */
    /* The split points below need each edge q*m, its distance from k0 and that plus |k| as 64-bit numbers. */
    for (int64_t q = q0 < q1 ? q0 : q1; q <= (q0 < q1 ? q1 : q0); q++)
        if (__builtin_mul_overflow(q, m, &edge) || __builtin_sub_overflow(edge, k0, &edge) ||
            __builtin_sub_overflow(k0, q * m, &last) || __builtin_add_overflow(edge, k < 0 ? -k : k, &edge))
            return FAIL_IRREGULAR;
    c->nsplit = 0;
    c->split_digit = p->digit;
    if (k > 0)
        for (int64_t q = q0 + 1; q <= q1; q++)      /* first d with k0 + k*d >= q*m */
            c->split_at[c->nsplit++] = (q * m - k0 + k - 1) / k;
    else
        for (int64_t q = q0; q > q1; q--)           /* first d with k0 + k*d < q*m */
            c->split_at[c->nsplit++] = (k0 - q * m) / -k + 1;
    return c->nsplit ? SPLIT : FAIL_IRREGULAR;
}

/* x -> T(x mod |T|) on an affine value; FAIL_IRREGULAR when that is not affine. */
static int compose_ref(comp *c, symval *v, const pa_type *T)
{
    const pa__layout *l = T->inst->has_func ? NULL : pa__type_layout(T);
    int64_t lo = v->cst, hi = v->cst;
    part out[MAXP], sorted[MAXP];
    int nout = 0, ns = 0;
    if (!l)
        return FAIL_IRREGULAR;        /* evaluated entry by entry in a group instead */
    if (!l->affine)
        return FAIL_IRREGULAR;
    /* Values that do not fit 64 bits (a step(INT64_MIN), a disp(INT64_MAX) before the reference) are left to
     * the walk, whose steps are checked: it reports the overflow where an offset needs it. */
    for (int i = 0; i < v->np; i++) {
        int64_t span;
        if (__builtin_mul_overflow(v->p[i].coeff, v->p[i].size - 1, &span) ||
            (span < 0 ? __builtin_add_overflow(lo, span, &lo) : __builtin_add_overflow(hi, span, &hi)))
            return FAIL_IRREGULAR;
    }
    if (lo < 0 || hi >= T->size) {
        /* Every value in one period of the reference: the modulo takes the same multiple of |T| from all. */
        int64_t q = floor_div(lo, T->size), qm, top;
        if (__builtin_mul_overflow(q, T->size, &qm) || __builtin_sub_overflow(hi, qm, &top))
            return FAIL_IRREGULAR;
        if (top < T->size) {
            if (__builtin_sub_overflow(v->cst, qm, &v->cst))
                return FAIL_IRREGULAR;
            lo -= qm;                 /* lo - floor(lo / |T|) * |T| lies in [0, |T|) */
            hi = top;
        }
    }
    if (lo < 0 || hi >= T->size)      /* the reference wraps */
        return c->pieces ? wrap_split(c, v, T) : FAIL_IRREGULAR;
    if (l->nmodes <= 1) {
        int64_t st = l->nmodes ? l->modes[0].stride : 0;
        int bad = __builtin_mul_overflow(st, v->cst, &v->cst) || __builtin_add_overflow(v->cst, l->base, &v->cst);
        for (int i = 0; i < v->np; i++)
            bad |= __builtin_mul_overflow(v->p[i].coeff, st, &v->p[i].coeff);
        return bad ? overflow() : 0;
    }
    /* A part running backwards (a step(-k), a reversal) is read as its mirror image: coeff*p equals
     * coeff*(size-1) + |coeff|*(size-1-p), and the mirrored digit's pieces through the target are the
     * mirrors of p's pieces, so each gets a negative stride and its span in the constant. */
    int64_t cst = v->cst, back = 0;
    char reflected[MAXP] = {0};
    for (int i = 0; i < v->np; i++)
        if (v->p[i].coeff < 0 && v->p[i].size > 1) {
            if (__builtin_mul_overflow(v->p[i].coeff, v->p[i].size - 1, &back) || __builtin_add_overflow(cst, back, &cst))
                return FAIL_IRREGULAR;
            reflected[i] = 1;
            v->p[i].coeff = -v->p[i].coeff;
        }
    if (cst != 0)
        return FAIL_IRREGULAR;
    for (int i = 0; i < v->np; i++)
        if (v->p[i].coeff > 0 && v->p[i].size > 1)
            sorted[ns++] = v->p[i];
    qsort(sorted, (size_t)ns, sizeof *sorted, coeff_cmp);
    for (int i = 1; i < ns; i++)
        if (sorted[i].coeff < sorted[i - 1].coeff * sorted[i - 1].size)
            return FAIL_IRREGULAR;    /* parts overlap: the sum would carry between the target's modes */
    cst = l->base;
    for (int i = 0; i < v->np; i++) {
        int first = nout;
        if (nout + 16 > MAXP)
            return FAIL_IRREGULAR;
        if (v->p[i].coeff == 0 || v->p[i].size == 1) {
            out[nout] = v->p[i];
            out[nout++].order = v->p[i].order * 16;
            out[nout - 1].coeff = 0;
        } else if (compose_part(l, &v->p[i], out, &nout)) {
            return FAIL_IRREGULAR;
        }
        for (int j = first; reflected[i] && j < nout; j++) {
            if (__builtin_mul_overflow(out[j].coeff, out[j].size - 1, &back) || __builtin_add_overflow(cst, back, &cst))
                return FAIL_IRREGULAR;
            out[j].coeff = -out[j].coeff;
        }
    }
    memcpy(v->p, out, (size_t)nout * sizeof *out);
    v->np = nout;
    v->cst = cst;
    return 0;
}

static int apply_chain(comp *c, const pa_type *n, symval *v)
{
    int st;
    for (int k = 0; k < n->nfn; k++) {
        const pa__fn *f = &n->fn[k];
        group *g;
        if (f->kind == PA__F_DISP) {
            if (__builtin_add_overflow(v->cst, f->disp, &v->cst))
                return pa__err(PA_ERR_RANGE, "%s: a displacement overflows 64 bits", n->name);
            continue;
        }
        if (f->kind == PA__F_STEP) {
            if ((st = scale(c, v, f->disp)))
                return pa__err_wrap(st, "%s: step(%lld)", n->name, (long long)f->disp);
            continue;
        }
        if (f->kind == PA__F_REF && v->ng == 0) {
            symval save = *v;
            if ((st = compose_ref(c, v, f->target)) != FAIL_IRREGULAR)
                if (st == 0)
                    continue;
            if (st != FAIL_IRREGULAR)
                return st;
            *v = save;
        }
        if (v->np || v->ng != 1 || v->cst)
            if ((st = to_group(c, v)))
                return st;
        g = &c->gr[v->g[0]];
        int64_t saved = pa__walk_budget_begin(WALK_CAP);
        int bad = 0;
        for (int64_t i = 0; i < g->n && !bad; i++) {
            int64_t x = f->kind == PA__F_REF ? pa__node_offset_fast(f->target, pa__floor_mod(g->table[i], f->target->size))
                                             : f->fn(g->table[i], f->ctx);
            bad = x < -PA__MAX_OFFSET || x > PA__MAX_OFFSET;
            g->table[i] = x;
        }
        if (bad) {
            pa__walk_budget_end(saved);
            return pa__err(PA_ERR_RANGE, "%s: an offset of its %s overflows (offsets must lie within +-2^62)", n->name,
                           f->kind == PA__F_REF ? "reference" : "function");
        }
        if (pa__walk_budget_end(saved))
            return pa__err(PA_ERR_UNSUPPORTED, "%s: a reference in the layout is too costly to tabulate (more than %lld dimension visits)",
                           n->name, (long long)WALK_CAP);
    }
    return 0;
}

static int finalize(comp *c, symval *v)
{
    if (__builtin_add_overflow(c->base, v->cst, &c->base))
        return overflow();
    for (int i = 0; i < v->np; i++) {
        if (c->nfp >= MAXP)
            return FAIL_IRREGULAR;
        c->fp[c->nfp++] = v->p[i];
        c->kind[v->p[i].digit] = 1;
    }
    for (int k = 0; k < v->ng; k++)
        for (int i = 0; i < c->gr[v->g[k]].ndig; i++) {
            c->kind[c->gr[v->g[k]].dig[i]] = 3;
            c->group_of[c->gr[v->g[k]].dig[i]] = v->g[k];
        }
    memset(v, 0, offsetof(symval, p));
    return 0;
}

static int digit_of(const comp *c, const pa_type *n)
{
    for (int d = 0; d < c->nd; d++)
        if (c->dnode[d] == n)
            return d;
    return -1;
}

static int sym(comp *c, const pa_type *n, symval *v)
{
    int st, d;
    memset(v, 0, offsetof(symval, p));
    if (n->alias || n->nchild == 0) {
        d = digit_of(c, n);
        if (n->alias) {
            if (!(c->alias[d] = pa__type_layout(n->alias)))
                return PA_ERR_NOMEM;
            c->kind[d] = 2;
            if (__builtin_add_overflow(c->base, c->alias[d]->base, &c->base))
                return overflow();
            return 0;
        }
        v->p[0] = (part){d, 0, c->dsize[d], 1};
        v->cst = c->rlo[d];
        v->np = 1;
        v->touched = 1;
    }
    for (int i = 0; i < n->nchild; i++) {
        symval *w = malloc(sizeof *w);
        if (!w)
            return pa__err(PA_ERR_NOMEM, "no memory while compiling a layout");
        if ((st = sym(c, n->child[i], w)) || (st = scale(c, w, n->child[i]->stride_in_parent)) ||
            v->np + w->np > MAXP || v->ng + w->ng > MAXG) {
            free(w);
            return st ? st : FAIL_IRREGULAR;
        }
        if (__builtin_add_overflow(v->cst, w->cst, &v->cst)) {
            free(w);
            return overflow();
        }
        memcpy(v->p + v->np, w->p, (size_t)w->np * sizeof *w->p);
        v->np += w->np;
        memcpy(v->g + v->ng, w->g, (size_t)w->ng * sizeof *w->g);
        v->ng += w->ng;
        v->touched |= w->touched;
        free(w);
    }
    if (n->nfn && v->touched) {
        if ((st = apply_chain(c, n, v)))
            return st;
        if (n->fixed)
            return finalize(c, v);
    }
    return 0;
}

/* The symbolic compilation of a node whose digits are numbered: its value, then up through its ancestors, each
 * digit's final form in c (its parts, or the group that holds it). */
int pa__compile_sym(comp *c, pa_type *t, symval *v)
{
    int st = sym(c, t, v);
    /* The position travels up through the ancestors, as in the walk. */
    for (const pa_type *n = t; !st && v->touched && n->parent; n = n->parent) {
        if ((st = scale(c, v, n->stride_in_parent)))
            break;
        if (n->parent->nfn && !(st = apply_chain(c, n->parent, v)) && n->parent->fixed) {
            st = finalize(c, v);
            break;
        }
    }
    if (!st && v->touched)
        st = finalize(c, v);
    return st;
}
