/*
 * parray — DLPack export: an array of a strided-affine type as a DLManagedTensor (include/parray/dlpack.h).
 *
 * The tensor's shape is the type's dimensions, else its leaves; each axis's stride is read from pa_offset_nd at
 * the unit index, and the axes are accepted only when the affine layout they make, coalesced, is the type's own
 * compiled layout: then every element's offset is base + sum(index * stride), whatever the declaration looked
 * like (references, windows, steps, transpositions).
 */
#include <stdlib.h>
#include <string.h>

#include "dlpack_map.h"
#include "mem_internal.h"

typedef struct axes {
    int n;
    const pa_type *dim[PA__MAX_MODES];
    int64_t size[PA__MAX_MODES], stride[PA__MAX_MODES], base;
} axes;

/* A managed tensor with its shape and strides in one allocation, freed by its deleter. */
typedef struct held {
    DLManagedTensor m;
    int64_t dims[2 * PA__MAX_MODES];
} held;

static void held_free(DLManagedTensor *self)
{
    free(self);
}

/* The leaf dimensions under t, left to right.  \return 0 when there are more than PA__MAX_MODES. */
static int leaves_of(const pa_type *t, axes *a)
{
    int nd = pa_ndim(t);
    if (nd == 0) {
        if (a->n == PA__MAX_MODES)
            return 0;
        a->dim[a->n++] = t;
        return 1;
    }
    for (int i = 0; i < nd; i++)
        if (!leaves_of(pa_type_child(t, i), a))
            return 0;
    return 1;
}

/* Fills the axes' sizes and strides, and checks that they are the type's compiled layout l.  \return 1 if so. */
static int affine_over(const pa_type *t, const pa__layout *l, axes *a)
{
    int64_t idx[PA__MAX_MODES] = {0};
    a->base = pa_offset_nd(t, a->n, idx);
    if (a->base == PA_BAD_OFFSET)
        return 0;
    pa__layout c;
    memset(&c, 0, sizeof c);
    c.size = 1;
    c.base = a->base;
    c.nmodes = a->n;
    for (int k = 0; k < a->n; k++) {
        a->size[k] = pa_size(a->dim[k]);
        a->stride[k] = 0;
        if (a->size[k] > 1) {
            idx[k] = 1;
            int64_t o = pa_offset_nd(t, a->n, idx);
            idx[k] = 0;
            if (o == PA_BAD_OFFSET)
                return 0;
            a->stride[k] = o - a->base;
        }
        c.size *= a->size[k];
        c.modes[k].size = a->size[k];
        c.modes[k].stride = a->stride[k];
    }
    pa__layout_coalesce(&c);
    if (c.size != l->size || c.base != l->base || c.nmodes != l->nmodes)
        return 0;
    for (int m = 0; m < c.nmodes; m++)
        if (c.modes[m].size != l->modes[m].size || c.modes[m].stride != l->modes[m].stride)
            return 0;
    /* A size-1 axis has no stride of its own: the compact one (the product of the sizes after it). */
    int64_t run = 1;
    for (int k = a->n - 1; k >= 0; run *= a->size[k], k--)
        if (a->size[k] == 1)
            a->stride[k] = run;
    return 1;
}

/* The axes of t: its dimensions (itself for a leaf), else its leaves.  \return 1, or 0 when neither is affine. */
static int find_axes(const pa_type *t, const pa__layout *l, axes *a)
{
    memset(a, 0, sizeof *a);
    int nd = pa_ndim(t);
    if (nd == 0)
        a->dim[a->n++] = t;
    for (int i = 0; i < nd; i++)
        a->dim[a->n++] = pa_type_child(t, i);
    if (affine_over(t, l, a))
        return 1;
    memset(a, 0, sizeof *a);
    return nd > 0 && leaves_of(t, a) && affine_over(t, l, a);
}

/* An empty type's axes: its dimensions (itself for a leaf), with a zero among the sizes; no element has an
 * offset, so the strides are the compact ones and the base is 0. */
static void empty_axes(const pa_type *t, axes *a)
{
    memset(a, 0, sizeof *a);
    int nd = pa_ndim(t);
    if (nd == 0)
        a->dim[a->n++] = t;
    for (int i = 0; i < nd && a->n < PA__MAX_MODES; i++)
        a->dim[a->n++] = pa_type_child(t, i);
    int64_t run = 1;
    for (int k = a->n - 1; k >= 0; k--) {
        a->size[k] = pa_size(a->dim[k]);
        a->stride[k] = run;
        run *= a->size[k] > 0 ? a->size[k] : 1;
    }
}

int pa_dlpack_export(const pa_type *type, void *data, DLManagedTensor **out)
{
    int st = pa__type_usable(type, "pa_dlpack_export");
    if (st != PA_OK)
        return st;
    const char *name = pa_type_name(type), *mtt = pa_mtt(type), *elm = pa_elm(type);
    if (data == NULL || out == NULL)
        return pa__err(PA_ERR_INVAL, "pa_dlpack_export(%s): NULL %s", name, data == NULL ? "data" : "output");
    if (pa__bound(type, "pa_dlpack_export"))
        return PA_ERR_PARAM;
    int devtype = pa__dl_device_of(mtt);
    if (devtype == 0)
        return pa__err(PA_ERR_MTT, "pa_dlpack_export(%s): memory type '%s' has no DLPack device (paged, numa, mmap, "
                       "vmem, pinned and dmem have)", name, mtt);
    DLDataType dt;
    int dp, ds;
    if (pa__elm_numeric(elm, &dp, &ds))
        return pa__err(PA_ERR_ELM, "pa_dlpack_export(%s): element type '%s' has no DLPack data type: DLPack has no "
                       "decimal type, and its 16-byte integers would reach a consumer as some other number (copy to "
                       "double, or export the stored integers as int4 or bytes16 and apply the scale %d yourself)",
                       name, elm, ds);
    if (!pa__dl_dtype_of(elm, &dt))
        return pa__err(PA_ERR_ELM, "pa_dlpack_export(%s): element type '%s' has no DLPack data type", name, elm);
    const pa__mem_ops *made = pa__mem_of(data);
    if (made != NULL && strcmp(made->name, mtt) != 0)
        return pa__err(PA_ERR_MTT, "pa_dlpack_export(%s): %p was made by pa_create for %s, but the type is %s",
                       name, data, made->name, mtt);
    const pa__layout *l = pa_size(type) == 0 ? NULL : pa__type_layout(type);
    if (l == NULL && pa_size(type) != 0)
        return pa__err_wrap(pa__last_status(), "pa_dlpack_export(%s)", name);
    char lay[256];
    axes a;
    if (l == NULL) {
        empty_axes(type, &a);   /* an empty array: a zero in the shape, nothing to place */
    } else if (!l->affine || !find_axes(type, l, &a)) {
        pa__layout_format(l, lay, sizeof lay);
        return pa__err(PA_ERR_UNSUPPORTED, "pa_dlpack_export(%s): the layout %s is not strided over the type's "
                       "dimensions or leaves (a wrap, a func or a gather table)", name, lay);
    }
    int dev = 0;
    if (devtype == kDLCUDA && (st = pa__backends_pointer_device(data, "pa_dlpack_export", &dev)) != PA_OK)
        return st;
    int64_t boff;
    if (__builtin_mul_overflow(a.base, (int64_t)pa_elm_size(type), &boff))
        return pa__err(PA_ERR_RANGE, "pa_dlpack_export(%s): the first element's byte offset overflows", name);
    held *h = calloc(1, sizeof *h);
    if (h == NULL)
        return pa__err(PA_ERR_NOMEM, "pa_dlpack_export(%s): no memory for the tensor", name);
    DLTensor *t = &h->m.dl_tensor;
    t->data = boff >= 0 ? data : (char *)data + boff;
    t->byte_offset = boff >= 0 ? (uint64_t)boff : 0;
    t->device.device_type = (DLDeviceType)devtype;
    t->device.device_id = dev;
    t->ndim = a.n;
    t->dtype = dt;
    t->shape = h->dims;
    t->strides = h->dims + PA__MAX_MODES;
    for (int k = 0; k < a.n; k++) {
        t->shape[k] = a.size[k];
        t->strides[k] = a.stride[k];
    }
    h->m.manager_ctx = NULL;
    h->m.deleter = held_free;
    *out = &h->m;
    return PA_OK;
}
