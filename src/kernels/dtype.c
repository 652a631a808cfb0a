/*
 * parray — the device descriptions of device.h, filled on the host: a data type's compiled layout
 * (pa_dtype) and a cuda thread type's dimensions and launch shape (pa_dthreads).  Plain host arithmetic with
 * no CUDA call, so they exist in every build and are tested without a GPU.
 */
#include <string.h>

#include "internal.h"
#include "tshape.h"

int pa_cuda_dtype(const pa_type *type, pa_dtype *out)
{
    if (type == NULL || out == NULL)
        return pa__err(PA_ERR_INVAL, "pa_cuda_dtype: NULL %s", type == NULL ? "type" : "output");
    const pa__layout *l = pa__type_layout(type);
    if (l == NULL)
        return pa__err_wrap(PA_ERR_UNSUPPORTED, "pa_cuda_dtype(%s)", pa_type_name(type));
    if (!l->affine)
        return pa__err(PA_ERR_UNSUPPORTED, "pa_cuda_dtype(%s): the layout is not affine (a func dimension or a "
                       "wrap that needs an offset table); kernels take affine layouts only", pa_type_name(type));
    if (l->nmodes > PA_DEV_MAX_MODES)
        return pa__err(PA_ERR_UNSUPPORTED, "pa_cuda_dtype(%s): the layout has %d modes after coalescing, more than "
                       "the %d a kernel takes", pa_type_name(type), l->nmodes, PA_DEV_MAX_MODES);
    pa_dtype d;
    memset(&d, 0, sizeof d);
    d.size = l->size;
    d.base = l->base;
    d.nmodes = l->nmodes;
    d.elm = (int)pa_elm_size(type);
    for (int m = 0; m < l->nmodes; m++) {
        d.msize[m] = l->modes[m].size;
        d.mstride[m] = l->modes[m].stride;
    }
    *out = d;
    return PA_OK;
}

/* The parent of a node: the node whose path is this one's without its last component. */
static int parent_of(const pa__tshape *s, int i)
{
    char p[PA__MAX_TPATH];
    strcpy(p, s->nodes[i].path);
    char *cut = strrchr(p, '_');
    if (cut)
        *cut = '\0';
    else
        p[0] = '\0';
    return pa__tshape_find(s, p);
}

/* The launch dimensions of the leaves under node i (at most three, the rightmost x) into dim. */
static int leaf_dims(const pa_type *t, const pa__tshape *s, const pa_dthreads *d, int i, const char *what,
                     unsigned dim[3])
{
    int leaves[3], n = 0;
    size_t len = strlen(s->nodes[i].path);
    for (int j = i; j < s->nnodes; j++) {
        if (j > i && (strncmp(s->nodes[j].path, s->nodes[i].path, len) != 0 || s->nodes[j].path[len] != '_'))
            break;
        if (d->child[j] >= 0)
            continue;
        if (n == 3)
            return pa__err(PA_ERR_RANGE, "pa_cuda_threads(%s): the %s dimension '%s' has more than 3 leaves; "
                           "CUDA grids and blocks have x, y and z", pa_type_name(t), what, s->nodes[i].path);
        leaves[n++] = j;
    }
    dim[0] = dim[1] = dim[2] = 1;
    for (int k = 0; k < n; k++) {
        int64_t size = s->nodes[leaves[n - 1 - k]].size;
        if (size > 0x7fffffff)
            return pa__err(PA_ERR_RANGE, "pa_cuda_threads(%s): %s dimension '%s' has %lld threads",
                           pa_type_name(t), what, s->nodes[leaves[n - 1 - k]].path, (long long)size);
        dim[k] = (unsigned)size;
    }
    return PA_OK;
}

/* The grid convention: [grid][block], checked against CUDA's limits. */
static int grid_launch(const pa_type *t, const pa__tshape *s, pa_dthreads *d)
{
    if (pa_ndim(t) != 2)
        return pa__err(PA_ERR_DIM, "pa_cuda_threads(%s, PA_CUDA_GRID): the type has %d top-level dimensions; "
                       "the grid convention needs two, [grid][block]", pa_type_name(t), pa_ndim(t));
    int st = leaf_dims(t, s, d, pa__tshape_find(s, "0"), "grid", d->gdim);
    if (st == PA_OK)
        st = leaf_dims(t, s, d, pa__tshape_find(s, "1"), "block", d->bdim);
    if (st != PA_OK)
        return st;
    uint64_t block = (uint64_t)d->bdim[0] * d->bdim[1] * d->bdim[2];
    if (block > 1024 || d->bdim[2] > 64)
        return pa__err(PA_ERR_RANGE, "pa_cuda_threads(%s): a block of %ux%ux%u threads is beyond CUDA's limits "
                       "(1024 threads, z at most 64)", pa_type_name(t), d->bdim[0], d->bdim[1], d->bdim[2]);
    if (d->gdim[1] > 65535 || d->gdim[2] > 65535)
        return pa__err(PA_ERR_RANGE, "pa_cuda_threads(%s): a grid of %ux%ux%u blocks is beyond CUDA's limits "
                       "(y and z at most 65535)", pa_type_name(t), d->gdim[0], d->gdim[1], d->gdim[2]);
    return PA_OK;
}

/* The default: n threads regrouped into blocks of PA_DEV_BLOCK, the blocks spread over x and then y. */
static int flat_launch(const pa_type *t, pa_dthreads *d)
{
    int64_t block = d->n < PA_DEV_BLOCK ? d->n : PA_DEV_BLOCK;
    int64_t blocks = (d->n + block - 1) / block;
    int64_t y = (blocks + 0x7ffffffe) / 0x7fffffff;   /* x holds at most 2^31 - 1 blocks */
    if (y > 65535)
        return pa__err(PA_ERR_RANGE, "pa_cuda_threads(%s): %lld threads do not fit one CUDA grid",
                       pa_type_name(t), (long long)d->n);
    d->bdim[0] = (unsigned)block;
    d->bdim[1] = d->bdim[2] = 1;
    d->gdim[0] = (unsigned)((blocks + y - 1) / y);
    d->gdim[1] = (unsigned)y;
    d->gdim[2] = 1;
    return PA_OK;
}

int pa_cuda_threads(const pa_type *threads, int flags, pa_dthreads *out)
{
    if (threads == NULL || out == NULL || (flags & ~PA_CUDA_GRID) != 0)
        return pa__err(PA_ERR_INVAL, "pa_cuda_threads: %s", threads == NULL ? "NULL type"
                       : out == NULL ? "NULL output" : "unknown flags");
    if (strcmp(pa_mtt(threads), "cuda") != 0)
        return pa__err(PA_ERR_MTT, "pa_cuda_threads(%s): the type's mtt is %s, not cuda", pa_type_name(threads),
                       pa_mtt(threads));
    pa__tshape s;
    int st = pa__tshape_of(threads, &s);
    if (st != PA_OK)
        return st;
    if (s.nnodes > PA_DEV_MAX_TNODES)
        return pa__err(PA_ERR_RANGE, "pa_cuda_threads(%s): %d dimensions, more than the %d a kernel takes",
                       pa_type_name(threads), s.nnodes, PA_DEV_MAX_TNODES);
    if (s.n < 1)
        return pa__err(PA_ERR_RANGE, "pa_cuda_threads(%s): the type has no threads", pa_type_name(threads));
    pa_dthreads d;
    memset(&d, 0, sizeof d);
    d.n = s.n;
    d.grid = (flags & PA_CUDA_GRID) != 0;
    d.nnodes = s.nnodes;
    int last[PA_DEV_MAX_TNODES];
    for (int i = 0; i < s.nnodes; i++) {
        d.inner[i] = s.nodes[i].inner;
        d.size[i] = s.nodes[i].size;
        d.child[i] = d.next[i] = -1;
        last[i] = -1;
        int p = i > 0 ? parent_of(&s, i) : -1;
        if (p < 0)
            continue;
        if (last[p] < 0)
            d.child[p] = (signed char)i;
        else
            d.next[last[p]] = (signed char)i;
        last[p] = i;
    }
    st = d.grid ? grid_launch(threads, &s, &d) : flat_launch(threads, &d);
    if (st != PA_OK)
        return st;
    *out = d;
    return PA_OK;
}

const char *pa__elm_cuda_name(const pa_type *t)
{
    static const char *const same[] = {"char", "signed char", "unsigned char", "bool", "short", "unsigned short",
                                       "int", "unsigned", "unsigned int", "float", "long", "unsigned long",
                                       "long long", "unsigned long long", "double", "float2", "int2", "float4",
                                       "double2", "int4"};
    static const char *const fixed[][2] = {{"int8_t", "signed char"}, {"uint8_t", "unsigned char"},
                                           {"int16_t", "short"}, {"uint16_t", "unsigned short"},
                                           {"int32_t", "int"}, {"uint32_t", "unsigned"}, {"int64_t", "long long"},
                                           {"uint64_t", "unsigned long long"}, {"size_t", "unsigned long long"}};
    const char *e = pa_elm(t);
    if (e == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        if (strcmp(e, same[i]) == 0)
            return same[i];
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strcmp(e, fixed[i][0]) == 0)
            return fixed[i][1];
    return NULL;
}
