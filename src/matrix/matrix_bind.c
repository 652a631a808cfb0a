/*
 * parray — rbind, cbind (pairwise and aggregate) and transpose (matrix.h).
 *
 * Every one is a set of pa_copy calls between matrix windows (matrix_view.c) plus zero fills of the padding:
 * an input of rbind becomes the window of its rows in the result, an input of cbind the window of its columns,
 * and transpose copies the source's (row, column) view into the result's columns.  The copy planner turns the
 * windows into memcpy runs, cudaMemcpy2D or its transpose kernels, so the operations run at copy speed on the
 * host and the GPU; inputs in other memory than the result (the first input's) are moved by the same copies.
 */
#include <stdlib.h>
#include <string.h>

#include "matrix_internal.h"

typedef struct bind_in {
    const pa_matrix *m;
    pa__mloc loc;
    pa_matrix h;
} bind_in;

/* Reads and checks the inputs: headers, and one element type for all. */
static int read_inputs(const char *what, const pa_matrix *const *ms, int n, bind_in *in)
{
    int rc;
    if (!ms || n < 1)
        return pa__err(PA_ERR_INVAL, "%s: no matrices (n = %d)", what, n);
    for (int k = 0; k < n; k++) {
        if (!ms[k])
            return pa__err(PA_ERR_INVAL, "%s: matrix %d is NULL", what, k);
        in[k].m = ms[k];
        if ((rc = pa__matrix_locate(ms[k], &in[k].loc)) != PA_OK ||
            (rc = pa__matrix_read_header(ms[k], &in[k].loc, &in[k].h)) != PA_OK)
            return pa__err_wrap(rc, "%s: matrix %d", what, k);
        if (in[k].h.elm != in[0].h.elm)
            return pa__err(PA_ERR_ELM, "%s: matrix %d has element type %s, matrix 0 has %s (mixed element types)",
                           what, k, pa_matrix_elm_name(in[k].h.elm), pa_matrix_elm_name(in[0].h.elm));
    }
    return PA_OK;
}

/* Copies input x into the window of the result r at (row r0, column c0); queued (pa_copy_async on the default
 * stream) when queue is set. */
static int place(pa__mviews *v, pa_matrix *r, const pa__mloc *rloc, const pa_matrix *rh, const bind_in *x,
                 int64_t r0, int64_t c0, int queue)
{
    int elm = rh->elm;
    int64_t base = pa__matrix_base(pa_matrix_elm_size(elm));
    if (x->h.height == 0 || x->h.width == 0)
        return PA_OK;
    const pa_type *dt = pa__matrix_view_get(v, rloc->mtt, elm, x->h.height, x->h.width, rh->height,
                                            base + c0 * rh->height + r0, PA__BY_COLUMNS);
    const pa_type *st = pa__matrix_view_get(v, x->loc.mtt, elm, x->h.height, x->h.width, x->h.height, base,
                                            PA__BY_COLUMNS);
    if (!dt || !st)
        return pa__last_status();
    return queue ? pa_copy_async(dt, r, st, x->m, NULL) : pa_copy(dt, r, st, x->m);
}

/* into NULL: the result is allocated in the first input's memory and returned in *out; else it is written into
 * the existing matrix into, which must have the result's shape and element type. */
static int bind(const char *what, int by_rows, const pa_matrix *const *ms, int n, pa_matrix *into, pa_matrix **out)
{
    bind_in *in = NULL;
    pa_matrix rh, *r = NULL;
    pa__mloc rloc;
    pa__mviews views;
    int64_t height = 0, width = 0, at = 0;
    int rc;
    if (!out && !into)
        return pa__err(PA_ERR_INVAL, "%s: NULL out", what);
    if (n > 0 && !(in = calloc((size_t)n, sizeof *in)))
        return pa__err(PA_ERR_NOMEM, "%s: %d inputs", what, n);
    if ((rc = read_inputs(what, ms, n, in)) != PA_OK)
        goto fail;
    for (int k = 0; k < n; k++) {
        int64_t along = by_rows ? in[k].h.height : in[k].h.width, across = by_rows ? in[k].h.width : in[k].h.height;
        if (by_rows) {
            height += along;
            width = across > width ? across : width;
        } else {
            width += along;
            height = across > height ? across : height;
        }
    }
    if (height > INT32_MAX || width > INT32_MAX) {
        rc = pa__err(PA_ERR_RANGE, "%s: the result would be %lld x %lld, above 2^31-1", what, (long long)height,
                     (long long)width);
        goto fail;
    }
    rh = (pa_matrix){in[0].h.elm, (int32_t)height, (int32_t)width, PA_MATRIX_MAGIC};
    if (into) {
        pa_matrix ih;
        if ((rc = pa__matrix_locate(into, &rloc)) != PA_OK || (rc = pa__matrix_read_header(into, &rloc, &ih)) != PA_OK) {
            rc = pa__err_wrap(rc, "%s: the destination", what);
            goto fail;
        }
        if (ih.elm != rh.elm || ih.height != rh.height || ih.width != rh.width) {
            rc = pa__err(ih.elm != rh.elm ? PA_ERR_ELM : PA_ERR_SIZE, "%s: the destination is %d x %d %s, the result "
                         "is %d x %d %s", what, ih.height, ih.width, pa_matrix_elm_name(ih.elm), rh.height, rh.width,
                         pa_matrix_elm_name(rh.elm));
            goto fail;
        }
        r = into;
    } else if ((rc = pa__matrix_alloc(in[0].loc.mtt, &rh, &r)) != PA_OK || (rc = pa__matrix_locate(r, &rloc)) != PA_OK) {
        goto fail;
    }
    /* With a device on either side the copies and zero fills are queued on the default stream and waited for
     * once at the end: the GPU runs them back to back instead of idling while the next one is planned. */
    int queue = rloc.device;
    for (int k = 0; k < n; k++)
        queue |= in[k].loc.device;
    size_t esz = pa_matrix_elm_size(rh.elm);
    pa__matrix_views_begin(&views);
    for (int k = 0; k < n; k++) {
        const pa_matrix *h = &in[k].h;
        if (by_rows) {
            rc = place(&views, r, &rloc, &rh, &in[k], at, 0, queue);
            if (rc == PA_OK)   /* the columns this input lacks, in its rows */
                rc = pa__matrix_zero(r, &rloc, esz, (int64_t)h->width * height + at, h->height, height,
                                     width - h->width, queue);
            at += h->height;
        } else {
            rc = place(&views, r, &rloc, &rh, &in[k], 0, at, queue);
            if (rc == PA_OK)   /* below this input, in its columns */
                rc = pa__matrix_zero(r, &rloc, esz, at * height + h->height, height - h->height, height, h->width,
                                     queue);
            at += h->width;
        }
        if (rc != PA_OK) {
            rc = pa__err_wrap(rc, "%s: matrix %d", what, k);
            break;
        }
    }
    if (queue) {   /* whatever was queued ends before the views and, on failure, the result go */
        int w = pa__matrix_gpu_wait();
        if (rc == PA_OK && w != PA_OK)
            rc = pa__err_wrap(w, "%s", what);
    }
    pa__matrix_views_end(&views);
    if (rc != PA_OK)
        goto fail;
    free(in);
    if (!into)
        *out = r;
    return PA_OK;

fail:
    if (r != into)
        pa_matrix_destroy(r);
    free(in);
    return rc;
}

int pa_matrix_rbind_n(const pa_matrix *const *ms, int n, pa_matrix **out)
{
    return bind("rbind", 1, ms, n, NULL, out);
}

int pa_matrix_cbind_n(const pa_matrix *const *ms, int n, pa_matrix **out)
{
    return bind("cbind", 0, ms, n, NULL, out);
}

int pa_matrix_store_rbind(pa_matrix *out, const pa_matrix *const *ms, int n)
{
    if (!out)
        return pa__err(PA_ERR_INVAL, "rbind: NULL destination");
    return bind("rbind", 1, ms, n, out, NULL);
}

int pa_matrix_store_cbind(pa_matrix *out, const pa_matrix *const *ms, int n)
{
    if (!out)
        return pa__err(PA_ERR_INVAL, "cbind: NULL destination");
    return bind("cbind", 0, ms, n, out, NULL);
}

int pa_matrix_rbind(const pa_matrix *a, const pa_matrix *b, pa_matrix **out)
{
    const pa_matrix *ms[2] = {a, b};
    return bind("rbind", 1, ms, 2, NULL, out);
}

int pa_matrix_cbind(const pa_matrix *a, const pa_matrix *b, pa_matrix **out)
{
    const pa_matrix *ms[2] = {a, b};
    return bind("cbind", 0, ms, 2, NULL, out);
}

/* Copies m's transpose into t (th: its header, already checked to be m's transposed shape). */
static int transpose_copy(const pa_matrix *m, const pa__mloc *loc, const pa_matrix *h, pa_matrix *t,
                          const pa__mloc *tloc)
{
    pa__mviews v;
    int rc;
    if (h->height == 0 || h->width == 0)
        return PA_OK;
    int64_t base = pa__matrix_base(pa_matrix_elm_size(h->elm));
    pa__matrix_views_begin(&v);
    /* Source by rows (i, j); the result's columns hold t(j, i) for j down a column: the same flat order. */
    const pa_type *st = pa__matrix_view_get(&v, loc->mtt, h->elm, h->height, h->width, h->height, base, PA__BY_ROWS);
    const pa_type *dt = pa__matrix_view_get(&v, tloc->mtt, h->elm, h->width, h->height, h->width, base,
                                            PA__BY_COLUMNS);
    rc = st && dt ? pa_copy(dt, t, st, m) : pa__last_status();
    pa__matrix_views_end(&v);
    return rc;
}

int pa_matrix_transpose(const pa_matrix *m, pa_matrix **out)
{
    pa__mloc loc, tloc;
    pa_matrix h, th, *t = NULL;
    int rc;
    if (!out)
        return pa__err(PA_ERR_INVAL, "transpose: NULL out");
    if ((rc = pa__matrix_locate(m, &loc)) != PA_OK || (rc = pa__matrix_read_header(m, &loc, &h)) != PA_OK)
        return pa__err_wrap(rc, "transpose");
    th = (pa_matrix){h.elm, h.width, h.height, PA_MATRIX_MAGIC};
    if ((rc = pa__matrix_alloc(loc.mtt, &th, &t)) != PA_OK)
        return rc;
    if ((rc = pa__matrix_locate(t, &tloc)) != PA_OK || (rc = transpose_copy(m, &loc, &h, t, &tloc)) != PA_OK) {
        pa_matrix_destroy(t);
        return rc;
    }
    *out = t;
    return PA_OK;
}

int pa_matrix_store_transpose(pa_matrix *t, const pa_matrix *m)
{
    pa__mloc loc, tloc;
    pa_matrix h, th;
    int rc;
    if ((rc = pa__matrix_locate(m, &loc)) != PA_OK || (rc = pa__matrix_read_header(m, &loc, &h)) != PA_OK)
        return pa__err_wrap(rc, "transpose");
    if ((rc = pa__matrix_locate(t, &tloc)) != PA_OK || (rc = pa__matrix_read_header(t, &tloc, &th)) != PA_OK)
        return pa__err_wrap(rc, "transpose: the destination");
    if (th.elm != h.elm || th.height != h.width || th.width != h.height)
        return pa__err(th.elm != h.elm ? PA_ERR_ELM : PA_ERR_SIZE, "transpose: the destination is %d x %d %s, the "
                       "transpose of %d x %d %s is %d x %d", th.height, th.width, pa_matrix_elm_name(th.elm),
                       h.height, h.width, pa_matrix_elm_name(h.elm), h.width, h.height);
    return transpose_copy(m, &loc, &h, t, &tloc);
}
