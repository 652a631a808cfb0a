/*
 * parray — the shape of a thread array, read from its thread type's dimension tree.
 *
 * Thread ids are row-major over the leaves of the tree (the last leaf fastest), as PARRAY numbers them, so the
 * leaves under any dimension are contiguous and a dimension's own id is a plain digit of the overall id:
 * tid_path = (tid / inner) % size, where inner is the product of the sizes of the leaves after it.  The
 * threads that share every index outside a dimension (a sync group) are those whose ids differ only in that
 * digit.
 */
#include <stdio.h>
#include <string.h>

#include "tshape.h"

typedef struct shape_walk {
    pa__tshape *s;
    const pa_type *root;
} shape_walk;

/* sub = path "_" i ("i" under the root), cut to PA__MAX_TPATH - 1 characters (then add_node refuses it), without
 * snprintf: a pa_for reads its type's shape on every launch. */
static void path_child(char sub[PA__MAX_TPATH], const char *path, int i)
{
    char full[PA__MAX_TPATH + 24], digits[16];
    int nd = 0;
    size_t len = strlen(path);
    do
        digits[nd++] = (char)('0' + i % 10);
    while ((i /= 10) > 0 && nd < 15);
    len = len < PA__MAX_TPATH ? len : PA__MAX_TPATH;
    memcpy(full, path, len);
    if (len > 0)
        full[len++] = '_';
    while (nd > 0)
        full[len++] = digits[--nd];
    len = len < PA__MAX_TPATH - 1 ? len : PA__MAX_TPATH - 1;
    memcpy(sub, full, len);
    sub[len] = 0;
}

/* Adds node t (at path) and its sub-tree; returns the node's index or a negative status. */
static int add_node(shape_walk *w, const pa_type *t, const char *path, int depth)
{
    pa__tshape *s = w->s;
    int me = s->nnodes;
    int nd = pa_ndim(t);
    if (me >= PA__MAX_TNODES || strlen(path) + 3 > PA__MAX_TPATH)
        return pa__err(PA_ERR_RANGE, "thread type %s has more than %d dimensions or is deeper than %d levels",
                       pa_type_name(w->root), PA__MAX_TNODES, PA__MAX_TPATH / 2 - 1);
    s->nnodes++;
    memcpy(s->nodes[me].path, path, strlen(path) + 1);   /* fits: checked above */
    s->nodes[me].size = pa_size(t);
    if (nd <= 0) {
        s->leaf_size[s->nleaves++] = s->nodes[me].size;
        s->nodes[me].inner = s->nleaves;   /* the leaf index after this node's leaves; see fill_inner */
        return me;
    }
    int64_t prod = 1;
    for (int i = 0; i < nd; i++) {
        char sub[PA__MAX_TPATH];
        const pa_type *c = pa_type_child(t, i);
        if (c == NULL)
            return pa__err_wrap(PA_ERR_DIM, "thread type %s, dimension '%s'", pa_type_name(w->root), path);
        path_child(sub, path, i);
        int st = add_node(w, c, sub, depth + 1);
        if (st < 0)
            return st;
        prod *= pa_size(c);
    }
    if (prod != s->nodes[me].size)
        return pa__err(PA_ERR_SIZE, "thread type %s: dimension '%s' has size %lld but its sub-dimensions "
                       "make %lld threads", pa_type_name(w->root), path, (long long)s->nodes[me].size,
                       (long long)prod);
    s->nodes[me].inner = s->nleaves;
    return me;
}

/* Turns each node's inner field, which holds the index after its last leaf, into the product of the sizes of
 * the leaves from there on. */
static void fill_inner(pa__tshape *s)
{
    int64_t after[PA__MAX_TNODES + 1];
    after[s->nleaves] = 1;
    for (int i = s->nleaves - 1; i >= 0; i--)
        after[i] = after[i + 1] * s->leaf_size[i];
    for (int i = 0; i < s->nnodes; i++)
        s->nodes[i].inner = after[s->nodes[i].inner];
}

int pa__tshape_of(const pa_type *t, pa__tshape *out)
{
    shape_walk w = {out, t};
    /* Only the counts: the walk writes every node and leaf it counts (the arrays are 3 KiB, and pa_for reads a
     * shape on every launch). */
    out->n = 0;
    out->nnodes = 0;
    out->nleaves = 0;
    if (pa__bound(t, "thread type"))
        return PA_ERR_PARAM;
    int st = add_node(&w, t, "", 0);
    if (st < 0)
        return st;
    out->n = out->nodes[0].size;
    fill_inner(out);
    return PA_OK;
}

void pa__tshape_copy(pa__tshape *dst, const pa__tshape *src)
{
    dst->n = src->n;
    dst->nnodes = src->nnodes;
    dst->nleaves = src->nleaves;
    memcpy(dst->nodes, src->nodes, (size_t)src->nnodes * sizeof src->nodes[0]);
    memcpy(dst->leaf_size, src->leaf_size, (size_t)src->nleaves * sizeof src->leaf_size[0]);
}

void pa__tshape_flat(int64_t n, pa__tshape *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->nnodes = 1;
    out->nodes[0].size = n;
    out->nodes[0].inner = 1;
    out->nleaves = 1;
    out->leaf_size[0] = n;
}

int pa__tshape_find(const pa__tshape *s, const char *path)
{
    for (int i = 0; i < s->nnodes; i++)
        if (strcmp(s->nodes[i].path, path) == 0)
            return i;
    return -1;
}

int64_t pa__tshape_tid(const pa__tshape *s, int i, int64_t tid)
{
    return (tid / s->nodes[i].inner) % s->nodes[i].size;
}

int64_t pa__tshape_group(const pa__tshape *s, int i, int64_t tid)
{
    int64_t inner = s->nodes[i].inner;
    int64_t outer = tid / (inner * s->nodes[i].size);
    return outer * inner + tid % inner;
}
