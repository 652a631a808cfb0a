/*
 * parray — the local arrays of a distribution over several axes, packed as MPI's darray packs them.
 *
 * A distributed dimension with several sub-dimensions (axes) gives each element a process, the sum of its
 * axes' process parts, and a local offset, the sum of their local parts.  Where an axis is dealt unevenly (a
 * window [n # ...] whose processes own different numbers of its indices), the local type is the largest
 * process's block, so a process with a smaller block along an inner axis would leave a gap at the end of every
 * row.  MPI_Type_create_darray packs instead: each process's array is exactly its own extents, row-major.
 *
 * So here each axis numbers its indices per process coordinate (the value of the axis's process part): an
 * index's place is the rank of its local part among the local parts of its coordinate's indices, and the
 * coordinate's extent is how many places it has.  The axes are ordered as the local type orders them, from the
 * one whose local part spans most (outermost) to the one that spans least, and the packed offset is row-major
 * over the extents of the element's own coordinates:
 *
 *     offset = (...(place_0 * extent_1 + place_1) * extent_2 + ...) * extent_last + place_last
 *
 * Packing is made where an axis other than the outermost holds a window (the way an uneven distribution is
 * written), unless it changes no offset (an even distribution whose local type is exactly its blocks).  A
 * distribution without such a window keeps its local type's offsets as they are (a local type padded on
 * purpose stays padded).
 */
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "type_internal.h"

typedef struct pack_axis {
    int64_t size;
    int64_t *place;    /* per index: its place along the axis on its coordinate; NULL: no local part (0) */
    int64_t *extent;   /* per index: its coordinate's number of places (NULL with place: 1) */
    int64_t *loc;      /* while the packing is made: per index, the local part the local type gives it */
} pack_axis;

struct pa__dist_pack {
    int naxes;
    int order[PA__MAX_CHILDREN];   /* the axes from the outermost in the local array */
    pack_axis axis[PA__MAX_CHILDREN];
};

static int is_mixed(const pa_type *n)
{
    return strcmp(n->mtt, "distributed") == 0;
}

static int is_window(const pa_type *n)
{
    return !n->alias && n->nchild == 0 && n->nfn > 0;
}

static const pa_type *resolve(const pa_type *n)
{
    while (n->alias && is_mixed(n->alias))
        n = n->alias;
    return n;
}

/* 1 when an axis may deal its indices unevenly: it is or holds a window of a distributed type. */
static int maybe_uneven(const pa_type *c)
{
    c = resolve(c);
    if (!is_mixed(c))
        return 0;
    if (is_window(c))
        return 1;
    for (int k = 0; k < c->nchild; k++)
        if (maybe_uneven(c->child[k]))
            return 1;
    return 0;
}

int pa__dist_pack_candidate(const pa_type *n)
{
    n = resolve(n);
    if (!is_mixed(n) || n->nchild < 2 || is_window(n))
        return 0;
    for (int k = 0; k < n->nchild; k++)
        if (maybe_uneven(n->child[k]))
            return 1;
    return 0;
}

/* How far an axis's local parts spread (its place among the axes of the local array), without listing them. */
static int local_span(const pa_type *c, int64_t *span)
{
    *span = 0;
    if (is_mixed(resolve(c))) {
        const pa__dist_split *cs;
        int st = pa__dist_split_get(c, &cs);
        if (st == PA_OK)
            *span = cs->local.max_off - cs->local.min_off;
        return st;
    }
    if (pa__mtt_kind_of(c->mtt) == PA__MTT_THREAD)
        return PA_OK;
    const pa__layout *l;
    int st = pa__layout_get(c, &l);
    if (st == PA_OK)
        *span = l->max_off - l->min_off;
    return st;
}

/* Every index's process part and local part along one axis. */
static int axis_parts(const pa_type *c, int64_t *pid, int64_t *loc)
{
    int st;
    if (is_mixed(resolve(c))) {
        const pa__dist_split *cs;
        if ((st = pa__dist_split_get(c, &cs)) != PA_OK)
            return st;
        for (int64_t i = 0; i < c->size; i++) {
            pid[i] = pa__layout_offset(&cs->pid, i);
            loc[i] = pa__dist_local(cs, i);
        }
        return PA_OK;
    }
    const pa__layout *l;
    if ((st = pa__layout_get(c, &l)) != PA_OK)
        return st;
    int thread = pa__mtt_kind_of(c->mtt) == PA__MTT_THREAD;
    for (int64_t i = 0; i < c->size; i++) {
        int64_t v = pa__layout_offset(l, i);
        pid[i] = thread ? v : 0;
        loc[i] = thread ? 0 : v;
    }
    return PA_OK;
}

typedef struct entry {
    int64_t pid, loc, i;
} entry;

static int by_pid_loc(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The places and extents of one axis (a thread-only axis has none: place 0, extent 1). */
static int axis_places(const pa_type *root, const pa_type *c, pack_axis *a)
{
    int64_t m = c->size;
    a->size = m;
    if (!is_mixed(resolve(c)) && pa__mtt_kind_of(c->mtt) == PA__MTT_THREAD)
        return PA_OK;
    int64_t *pid = malloc((size_t)(m ? m : 1) * sizeof *pid), *loc = a->loc = malloc((size_t)(m ? m : 1) * sizeof *loc);
    entry *e = malloc((size_t)(m ? m : 1) * sizeof *e);
    a->place = malloc((size_t)(m ? m : 1) * sizeof *a->place);
    a->extent = malloc((size_t)(m ? m : 1) * sizeof *a->extent);
    int st = PA_OK;
    if (!pid || !loc || !e || !a->place || !a->extent) {
        st = pa__err(PA_ERR_NOMEM, "distributed type %s: no memory to pack the local arrays along %s (%lld "
                     "indices)", pa_type_name(root), pa_type_name(c), (long long)m);
        goto done;
    }
    if ((st = axis_parts(c, pid, loc)) != PA_OK)
        goto done;
    for (int64_t i = 0; i < m; i++)
        e[i] = (entry){pid[i], loc[i], i};
    qsort(e, (size_t)m, sizeof *e, by_pid_loc);
    for (int64_t g = 0, end; g < m; g = end) {   /* one group per process coordinate */
        int64_t places = 0;
        for (end = g; end < m && e[end].pid == e[g].pid; end++) {
            places += end == g || e[end].loc != e[end - 1].loc;
            a->place[e[end].i] = places - 1;
        }
        for (int64_t k = g; k < end; k++)
            a->extent[e[k].i] = places;
    }
done:
    free(pid);
    free(e);
    return st;
}

/*
 * 1 when packing changes no offset: from the innermost axis out, every extent is the same (W grows by it) and
 * every local part is its place times W, the product of the inner axes' extents (the outermost axis may be
 * uneven: its extent multiplies nothing).
 */
static int identity(const pa__dist_pack *p)
{
    int64_t w = 1;
    for (int j = p->naxes - 1; j >= 0; j--) {
        const pack_axis *a = &p->axis[p->order[j]];
        if (!a->place)
            continue;
        for (int64_t i = 0; i < a->size; i++)
            if (a->loc[i] != a->place[i] * w || (j > 0 && a->extent[i] != a->extent[0]))
                return 0;
        if (a->size > 0 && __builtin_mul_overflow(w, a->extent[0], &w))
            return 0;
    }
    return 1;
}

void pa__dist_pack_free(pa__dist_pack *p)
{
    if (!p)
        return;
    for (int a = 0; a < p->naxes; a++) {
        free(p->axis[a].place);
        free(p->axis[a].extent);
        free(p->axis[a].loc);
    }
    free(p);
}

int pa__dist_pack_make(const pa_type *n, pa__dist_pack **out)
{
    int64_t span[PA__MAX_CHILDREN];
    int st = PA_OK, windowed = 0;
    *out = NULL;
    if (!pa__dist_pack_candidate(n))
        return PA_OK;
    n = resolve(n);
    pa__dist_pack *p = calloc(1, sizeof *p);
    if (!p)
        return pa__err(PA_ERR_NOMEM, "distributed type %s: no memory to pack its local arrays",
                       pa_type_name(pa_type_root(n)));
    p->naxes = n->nchild;
    for (int a = 0; a < n->nchild && st == PA_OK; a++) {
        st = local_span(n->child[a], &span[a]);
        int k = a;   /* insertion by span, the widest first; equal spans keep the axes' order */
        for (; k > 0 && span[p->order[k - 1]] < span[a]; k--)
            p->order[k] = p->order[k - 1];
        p->order[k] = a;
    }
    /* packed where an inner axis holds a window, unless that changes nothing (an even distribution whose local
     * type is exactly its blocks) */
    for (int k = 1; k < p->naxes; k++)
        windowed |= maybe_uneven(n->child[p->order[k]]);
    for (int a = 0; a < p->naxes && st == PA_OK && windowed; a++)
        st = axis_places(pa_type_root(n), n->child[a], &p->axis[a]);
    if (st != PA_OK || !windowed || identity(p)) {
        pa__dist_pack_free(p);
        return st;
    }
    for (int a = 0; a < p->naxes; a++) {
        free(p->axis[a].loc);
        p->axis[a].loc = NULL;
    }
    *out = p;
    return PA_OK;
}

int64_t pa__dist_pack_offset(const pa__dist_pack *p, int64_t k)
{
    int64_t digit[PA__MAX_CHILDREN], off = 0;
    for (int a = p->naxes - 1; a >= 0; a--) {
        digit[a] = k % p->axis[a].size;
        k /= p->axis[a].size;
    }
    for (int j = 0; j < p->naxes; j++) {
        const pack_axis *a = &p->axis[p->order[j]];
        if (a->place)
            off = off * a->extent[digit[p->order[j]]] + a->place[digit[p->order[j]]];
    }
    return off;
}

int64_t pa__dist_local(const pa__dist_split *s, int64_t k)
{
    return s->pack ? pa__dist_pack_offset(s->pack, k) : pa__layout_offset(&s->local, k);
}
