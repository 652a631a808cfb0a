/* parray — the queries that answer from a type's offsets: pa_offset, pa_offset_nd, pa_stp, pa_cnt, pa_extent
 * (through the compiled layout, its pieces, or the walk). */
#include "layout.h"
#include "type_internal.h"

/* A live type handle (not NULL, not stale); else the error is set, naming the function. */
#define LIVE(t, fn) (pa__type_usable((t), (fn)) == PA_OK)

int64_t pa_offset(const pa_type *t, int64_t i)
{
    const pa__layout *l;
    if (!LIVE(t, "pa_offset") || pa__bound(t, "pa_offset"))
        return PA_BAD_OFFSET;
    if (i < 0 || i >= t->size) {
        pa__err(PA_ERR_RANGE, "index %lld is outside %s, whose size is %lld", (long long)i, t->name,
                (long long)t->size);
        return PA_BAD_OFFSET;
    }
    /* A user's offset function is called when its offset is asked for, as in PARRAY (it may keep state, like
     * the manual's listing 13); compiling would call it for every index first.  Other types use the
     * compiled layout, and fall back to the walk if it cannot be made. */
    if (t->inst->has_func)
        return pa__node_offset(t, i);
    l = __atomic_load_n(&t->layout, __ATOMIC_ACQUIRE);
    if (!l)
        l = pa__type_layout(t);
    return l ? pa__layout_offset(l, i) : pa__node_offset(t, i);
}

/* The flat index of an index per leaf dimension, in the leaves' order. */
static int leaf_index(const pa_type *t, const int64_t *idx, int *k, int64_t *flat)
{
    if (t->nchild == 0) {
        if (idx[*k] < 0 || idx[*k] >= t->size)
            return pa__err(PA_ERR_RANGE, "index %lld is outside %s, whose size is %lld", (long long)idx[*k],
                           t->name, (long long)t->size);
        *flat = *flat * t->size + idx[(*k)++];
        return PA_OK;
    }
    for (int c = 0; c < t->nchild; c++)
        if (leaf_index(t->child[c], idx, k, flat))
            return PA_ERR_RANGE;
    return PA_OK;
}

int64_t pa_offset_nd(const pa_type *t, int n, const int64_t *idx)
{
    int64_t flat = 0;
    int k = 0;
    if (!LIVE(t, "pa_offset_nd"))
        return PA_BAD_OFFSET;
    if (!idx) {
        pa__err(PA_ERR_INVAL, "pa_offset_nd: NULL index");
        return PA_BAD_OFFSET;
    }
    if (pa__bound(t, "pa_offset_nd"))
        return PA_BAD_OFFSET;
    if (n == 1)
        return pa_offset(t, idx[0]);
    if (n == t->nchild) {
        for (int c = 0; c < n; c++) {
            if (idx[c] < 0 || idx[c] >= t->child[c]->size) {
                pa__err(PA_ERR_RANGE, "index %lld is outside %s, whose size is %lld", (long long)idx[c],
                        t->child[c]->name, (long long)t->child[c]->size);
                return PA_BAD_OFFSET;
            }
            flat = flat * t->child[c]->size + idx[c];
        }
        return pa_offset(t, flat);
    }
    if (n == t->nleaves)
        return leaf_index(t, idx, &k, &flat) ? PA_BAD_OFFSET : pa_offset(t, flat);
    pa__err(PA_ERR_DIM, "%s takes 1, %d (sub-dimensions) or %d (leaf dimensions) indices, not %d", t->name,
            t->nchild, t->nleaves, n);
    return PA_BAD_OFFSET;
}

int64_t pa_stp(const pa_type *t)
{
    const pa__layout *l;
    if (!LIVE(t, "pa_stp") || !(l = pa__type_layout(t)))
        return 0;
    if (t->size == 1)
        return 1;
    if (l->nmodes != 1)
        return 0;
    if (!l->modes[0].table)
        return l->modes[0].stride;
    int64_t d = l->modes[0].table[1] - l->modes[0].table[0];
    for (int64_t i = 2; i < l->modes[0].size; i++)
        if (l->modes[0].table[i] - l->modes[0].table[i - 1] != d)
            return 0;
    return d;
}

int pa_cnt(const pa_type *t)
{
    return pa_stp(t) == 1;
}

/*
 * The extent of a type the compiler refused, by walking every index (kept on the node).  The walk is bounded: at
 * most 16 times the compiler's walk limit (pa__walk_cap: 2^26 dimension visits by default, well under a second),
 * beyond which the type's extent is refused like its layout.  Without the bound a short declaration such as
 * "[1099511627776 # func(f)]" (a func type the compiler cannot tabulate) walked for hours in pa_extent and
 * pa_create (seen while adding pa_extent to parse_fuzz's questions).  The fast walk, which goes through the
 * references' compiled layouts, keeps nested references from costing exponential time; types that reach a func
 * call it for every index either way.
 */
static int walk_extent(const pa_type *t, int64_t *min_off, int64_t *max_off)
{
    pa_type *n = (pa_type *)t;
    int st = PA_OK;
    pa__scope_lock(t->inst->decl->scope);
    if (n->walk_extent_done == 2) {
        st = pa__err(PA_ERR_UNSUPPORTED, "%s is too irregular to compile and its extent too costly to walk (%lld "
                     "elements)", t->name, (long long)t->size);
    } else if (!n->walk_extent_done) {
        int64_t lo = 0, hi = 0, cap = pa__walk_cap > INT64_MAX / 16 ? INT64_MAX : pa__walk_cap * 16;
        int64_t saved = pa__walk_budget_begin(cap);
        for (int64_t k = 0; k < t->size && st == PA_OK && !pa__walk_budget_spent(); k++) {
            int64_t o = pa__node_offset_fast(t, k);
            if (o == PA_BAD_OFFSET)
                st = PA_ERR_RANGE;
            lo = k == 0 || o < lo ? o : lo;
            hi = k == 0 || o > hi ? o : hi;
        }
        if (pa__walk_budget_end(saved) && st == PA_OK) {
            n->walk_extent_done = 2;
            st = pa__err(PA_ERR_UNSUPPORTED,
                         "%s is too irregular to compile and its extent too costly to walk (%lld elements, more than "
                         "%lld dimension visits)", t->name, (long long)t->size, (long long)cap);
        } else if (st == PA_OK) {
            n->walk_lo = lo;
            n->walk_hi = hi;
            n->walk_extent_done = 1;
        }
    }
    pa__scope_unlock(t->inst->decl->scope);
    if (st == PA_OK) {
        *min_off = n->walk_lo;
        *max_off = n->walk_hi;
    }
    return st;
}

int pa_extent(const pa_type *t, int64_t *min_off, int64_t *max_off)
{
    const pa__layout *l;
    if (!LIVE(t, "pa_extent"))
        return PA_ERR_INVAL;
    if (!min_off || !max_off)
        return pa__err(PA_ERR_INVAL, "pa_extent: NULL argument");
    if (pa__bound(t, "pa_extent"))
        return PA_ERR_PARAM;
    if ((l = pa__type_layout(t))) {
        *min_off = l->min_off;
        *max_off = l->max_off;
        return PA_OK;
    }
    if (t->layout_status != PA_ERR_UNSUPPORTED)
        return t->layout_status ? t->layout_status : PA_ERR_NOMEM;
    /* Refused as one layout (too irregular for its size): the pieces' extent, else the walk's, once. */
    const pa__pieces *p = pa__type_pieces(t);
    if (p) {
        *min_off = p->min_off;
        *max_off = p->max_off;
        return PA_OK;
    }
    return walk_extent(t, min_off, max_off);
}
