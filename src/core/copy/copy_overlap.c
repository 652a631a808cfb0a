/*
 * parray — copies whose source and destination overlap in memory: as if through a temporary.
 *
 * pa_copy's meaning, dst[dst_type(k)] = src[src_type(k)] for every k, reads the source as it was before the copy.
 * When the two sides' byte ranges overlap (a shift inside one array, a transposition in place), the source is
 * first copied into a contiguous temporary of its own memory type (host memory for host sides, device memory
 * for dmem), and the temporary then into the destination: two plans from the cache, each between distinct
 * memory.  A copy of the same elements onto themselves (identical layouts at the same address) does nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "copy_internal.h"

/* A contiguous layout of n elements from offset 0. */
static void contiguous(pa__layout *l, int64_t n)
{
    memset(l, 0, sizeof *l);
    l->size = n;
    l->min_off = 0;
    l->max_off = n - 1;
    l->nmodes = 1;
    l->affine = 1;
    l->modes[0].size = n;
    l->modes[0].stride = 1;
    pa__layout_coalesce(l);
}

static int run(const pa__layout *dl, void *dst, const pa__mem_ops *dm, const pa__layout *sl, const void *src,
               const pa__mem_ops *sm, size_t e)
{
    pa__plan *p = NULL;
    int rc = pa__plan_get(dl, sl, e, dm, sm, &p);
    if (rc != PA_OK)
        return rc;
    rc = pa__plan_exec(p, dst, dl->base, src, sl->base);
    pa__plan_unref(p);
    return rc;
}

int pa__copy_through_temp(const pa_type *dt, const pa__layout *dl, void *dst, const pa__mem_ops *dm,
                          const pa_type *st, const pa__layout *sl, const void *src, const pa__mem_ops *sm, size_t e)
{
    pa__layout tl;
    void *tmp = NULL, *cookie = NULL;
    /* Host sides get a host temporary; others one of their own kind, from their allocator. */
    const pa__mem_ops *tm = sm != NULL && !sm->host_accessible ? sm : NULL;
    size_t bytes = (size_t)sl->size * e;
    int rc;
    if (tm != NULL && (tm->alloc == NULL || tm->alloc_type != NULL))
        return pa__err(PA_ERR_UNSUPPORTED, "copy from %s to %s: the two overlap in %s memory, where no temporary "
                       "can be made for the copy", pa_type_name(st), pa_type_name(dt), tm->name);
    if (tm != NULL) {
        pa_mem_opts o;
        pa_mem_opts_init(&o);
        if ((rc = tm->alloc(bytes, &o, &tmp, &cookie)) != PA_OK)
            return pa__err_wrap(rc, "copy from %s to %s (overlapping): a temporary of %zu bytes", pa_type_name(st),
                                pa_type_name(dt), bytes);
    } else if ((tmp = malloc(bytes ? bytes : 1)) == NULL) {
        return pa__err(PA_ERR_NOMEM, "copy from %s to %s (overlapping): no memory for a temporary of %zu bytes",
                       pa_type_name(st), pa_type_name(dt), bytes);
    }
    contiguous(&tl, sl->size);
    rc = run(&tl, tmp, tm, sl, src, sm, e);
    if (rc == PA_OK)
        rc = run(dl, dst, dm, &tl, tmp, tm, e);
    if (tm != NULL) {
        int frc = tm->free(tmp, bytes, cookie);
        rc = rc != PA_OK ? rc : frc;
    } else {
        free(tmp);
    }
    return rc;
}
