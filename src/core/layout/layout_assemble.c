/*
 * parray — assembling a compiled layout: the digits' final forms (layout_compile.c) laid out as modes, the
 * whole-type table of last resort from the walk, the extent checked against +-PA__MAX_OFFSET, and the entry
 * points pa__layout_compile, pa__layout_compile_box and pa__layout_digits.
 */
#include <stdlib.h>
#include <string.h>

#include "layout_compile.h"

static int keep_table(pa_type *t, int64_t *table)
{
    int64_t **p = realloc(t->tables, (size_t)(t->ntables + 1) * sizeof *p);
    if (!p)
        return pa__err(PA_ERR_NOMEM, "no memory while compiling a layout");
    t->tables = p;
    t->tables[t->ntables++] = table;
    return PA_OK;
}

static int push_mode(pa__layout *l, int64_t size, int64_t stride, const int64_t *table)
{
    if (l->nmodes >= PA__MAX_MODES) {
        pa__layout_coalesce(l);
        if (l->nmodes >= PA__MAX_MODES)
            return FAIL_IRREGULAR;
    }
    l->modes[l->nmodes++] = (pa__mode){size, table ? 0 : stride, table};
    if (table)
        l->affine = 0;
    return 0;
}

/* Lays the digits' final forms out as modes, outermost first. */
static int assemble(comp *c, pa_type *t, pa__layout *l)
{
    int st;
    qsort(c->fp, (size_t)c->nfp, sizeof *c->fp, pa__compile_part_cmp);
    l->base = c->base;
    l->affine = 1;
    for (int d = 0, k = 0; d < c->nd; d++) {
        switch (c->kind[d]) {
        case 1:
            for (; k < c->nfp && c->fp[k].digit == d; k++)
                if ((st = push_mode(l, c->fp[k].size, c->fp[k].coeff, NULL)))
                    return st;
            break;
        case 2:
            for (int i = 0; i < c->alias[d]->nmodes; i++)
                if ((st = push_mode(l, c->alias[d]->modes[i].size, c->alias[d]->modes[i].stride,
                                    c->alias[d]->modes[i].table)))
                    return st;
            break;
        case 3: {
            group *g = &c->gr[c->group_of[d]];
            if (g->dig[0] != d)
                return FAIL_IRREGULAR;            /* the group's digits are not adjacent */
            for (int i = 1; i < g->ndig; i++)
                if (g->dig[i] != d + i)
                    return FAIL_IRREGULAR;
            if ((st = push_mode(l, g->n, 0, g->table)) || (st = keep_table(t, g->table)))
                return st;
            g->live = 0;
            d += g->ndig - 1;
            break;
        }
        default:
            return FAIL_IRREGULAR;
        }
    }
    return 0;
}

static int64_t count_nodes(const pa_type *n)
{
    int64_t c = 1;
    for (int i = 0; i < n->nchild; i++)
        c += count_nodes(n->child[i]);
    return c;
}

/* The last resort: one table with every offset, from the walk.  Each entry walks the whole sub-tree, so the
 * work (entries times dimensions) is bounded as well as the table's size. */
static int whole_table(pa_type *t, pa__layout *l)
{
    int64_t *table;
    if (t->size > TABLE_CAP || t->size * count_nodes(t) > WALK_CAP)   /* known too costly before starting */
        return pa__err(PA_ERR_UNSUPPORTED, "%s is too irregular to compile and too large (%lld elements) for a table",
                       t->name, (long long)t->size);
    if (!(table = malloc((size_t)t->size * sizeof *table)))
        return pa__err(PA_ERR_NOMEM, "no memory for a gather table of %lld offsets", (long long)t->size);
    int64_t saved = pa__walk_budget_begin(WALK_CAP);
    for (int64_t i = 0; i < t->size; i++)
        if ((table[i] = pa__node_offset_fast(t, i)) == PA_BAD_OFFSET) {
            pa__walk_budget_end(saved);
            free(table);
            return PA_ERR_RANGE;          /* the walk has said which index */
        }
    if (pa__walk_budget_end(saved)) {
        free(table);
        return pa__err(PA_ERR_UNSUPPORTED, "%s is too irregular to compile and too costly (more than %lld dimension visits) to tabulate",
                       t->name, (long long)WALK_CAP);
    }
    if (keep_table(t, table)) {
        free(table);
        return PA_ERR_NOMEM;
    }
    memset(l, 0, sizeof *l);
    l->nmodes = 1;
    l->modes[0] = (pa__mode){t->size, 0, table};
    return PA_OK;
}

/* The extent, computed without overflow; PA_ERR_RANGE when an offset (or a partial sum of the modes' parts,
 * which the copy kernels form) would leave +-PA__MAX_OFFSET. */
static int extent(const pa_type *t, pa__layout *l)
{
    __int128 lo_all = l->base, hi_all = l->base, lo_part = l->base, hi_part = l->base;
    for (int i = 0; i < l->nmodes; i++) {
        const pa__mode *m = &l->modes[i];
        __int128 lo = 0, hi = 0;
        if (m->table) {
            lo = hi = m->table[0];
            for (int64_t k = 1; k < m->size; k++) {
                lo = m->table[k] < lo ? m->table[k] : lo;
                hi = m->table[k] > hi ? m->table[k] : hi;
            }
        } else if (m->stride < 0) {
            lo = (__int128)m->stride * (m->size - 1);
        } else {
            hi = (__int128)m->stride * (m->size - 1);
        }
        lo_all += lo;
        hi_all += hi;
        lo_part += lo < 0 ? lo : 0;
        hi_part += hi > 0 ? hi : 0;
    }
    if (lo_part < -PA__MAX_OFFSET || hi_part > PA__MAX_OFFSET)
        return pa__err(PA_ERR_RANGE, "%s: its offsets reach %s%lld..%lld (they must lie within +-2^62)", t->name,
                       lo_all < -PA__MAX_OFFSET || hi_all > PA__MAX_OFFSET ? "" : "partial sums beyond ",
                       (long long)(lo_all < INT64_MIN ? INT64_MIN : lo_all > INT64_MAX ? INT64_MAX : lo_all),
                       (long long)(hi_all > INT64_MAX ? INT64_MAX : hi_all < INT64_MIN ? INT64_MIN : hi_all));
    l->min_off = (int64_t)lo_all;
    l->max_off = (int64_t)hi_all;
    return PA_OK;
}

/* The compilation of a node whose digits are numbered: the symbolic forms (layout_compile.c), then the modes. */
static int run(comp *c, pa_type *t, symval *v, pa__layout *l)
{
    int st = pa__compile_sym(c, t, v);
    if (!st)
        st = assemble(c, t, l);
    return st;
}

int pa__layout_compile_box(const pa_type *t, const int64_t *lo, const int64_t *len, pa__layout *l, int *split_digit,
                           int64_t *split_at, int *nsplit)
{
    comp *c = calloc(1, sizeof *c);
    symval *v = malloc(sizeof *v);
    int st;
    *nsplit = 0;
    if (!c || !v) {
        free(c);
        free(v);
        return pa__err(PA_ERR_NOMEM, "no memory while compiling a layout");
    }
    memset(l, 0, sizeof *l);
    c->pieces = 1;
    if (t->alias || pa__compile_digits(c, t)) {
        st = PA_ERR_UNSUPPORTED;
        goto done;
    }
    for (int d = 0; d < c->nd; d++) {
        c->rlo[d] = lo[d];
        c->dsize[d] = len[d];
    }
    st = run(c, (pa_type *)t, v, l);
    if (st == SPLIT) {
        *split_digit = c->split_digit;
        *nsplit = c->nsplit;
        memcpy(split_at, c->split_at, (size_t)c->nsplit * sizeof *split_at);
        st = PA_OK;
    } else if (st == PA_OK) {
        l->size = 1;
        for (int d = 0; d < c->nd; d++)
            l->size *= len[d];
        pa__layout_coalesce(l);
        st = l->affine ? extent(t, l) : PA_ERR_UNSUPPORTED;
    } else if (st > 0) {
        st = PA_ERR_UNSUPPORTED;      /* not piecewise affine */
    }
done:
    for (int i = 0; i < c->ngr; i++)
        free(c->gr[i].table);
    free(c);
    free(v);
    return st;
}

int pa__layout_digits(const pa_type *t, int64_t *dsize)
{
    comp *c = calloc(1, sizeof *c);
    int nd = -1;
    if (c && !t->alias && !pa__compile_digits(c, t)) {
        nd = c->nd;
        memcpy(dsize, c->dsize, (size_t)nd * sizeof *dsize);
    }
    free(c);
    return nd;
}

int pa__layout_compile(const pa_type *ct, pa__layout **out)
{
    pa_type *t = (pa_type *)ct;   /* the layout and its tables are cached on the node */
    comp *c = calloc(1, sizeof *c);
    symval *v = malloc(sizeof *v);
    pa__layout *l = calloc(1, sizeof *l);
    int st = PA_ERR_NOMEM;
    /* Every table this compilation fills, in nested compilations too, draws on one budget of walk visits. */
    int64_t budget = pa__walk_budget_begin(WALK_CAP);
    if (!c || !v || !l) {
        pa__err(PA_ERR_NOMEM, "no memory while compiling a layout");
        goto done;
    }
    if (t->alias) {
        const pa__layout *a = pa__type_layout(t->alias);
        if (a) {
            *l = *a;
            st = PA_OK;
        }
        goto done;
    }
    if (t->size == 0) {   /* no elements, no offsets: one empty mode, an empty extent [0, -1] */
        l->nmodes = 1;
        l->modes[0] = (pa__mode){.size = 0, .stride = 1};
        l->affine = 1;
        l->max_off = -1;
        st = PA_OK;
        goto done;
    }
    st = pa__compile_digits(c, t);
    if (!st)
        st = run(c, t, v, l);
    if (st == FAIL_IRREGULAR) {
        for (int i = 0; i < c->ngr; i++)
            if (c->gr[i].live && c->gr[i].table) {
                free(c->gr[i].table);
                c->gr[i].live = 0;
            }
        /* Tables already handed to the node stay owned by it and are freed with it. */
        st = whole_table(t, l);
    }
    if (!st) {
        l->size = t->size;
        pa__layout_coalesce(l);
        st = extent(t, l);
    }
done:
    pa__walk_budget_end(budget);
    if (c)
        for (int i = 0; i < c->ngr; i++)
            if (c->gr[i].live)
                free(c->gr[i].table);
    free(c);
    free(v);
    if (st) {
        free(l);
        return st;
    }
    *out = l;
    return PA_OK;
}
