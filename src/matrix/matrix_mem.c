/*
 * parray — where a matrix lives and how its bytes are reached there (matrix.h): allocation in any memory type
 * through pa_create, the header read and written across memories, zero fills, and moving a whole matrix.
 *
 * A matrix made by pa_create is found in the allocation table, which gives its memory type and its size;
 * anything else is taken for a malloc'd host matrix (pa_matrix_create, PL/CUDA results).  Host-accessible
 * memory is touched directly; dmem through the GPU helpers of matrix_gpu.c.
 */
#include <string.h>

#include "matrix_internal.h"
#include "mem_internal.h"

int pa__matrix_locate(const pa_matrix *m, pa__mloc *out)
{
    pa__alloc_rec rec;
    if (!m)
        return pa__err(PA_ERR_INVAL, "matrix: NULL");
    memset(out, 0, sizeof *out);
    out->mtt = "paged";
    if (!pa__alloc_lookup(m, &rec))
        return PA_OK;
    out->mtt = rec.ops->name;
    out->bytes = rec.bytes;
    out->registered = 1;
    if (rec.ops->host_accessible)
        return PA_OK;
    if (strcmp(rec.ops->name, "dmem") == 0) {
        out->device = 1;
        return PA_OK;
    }
    return pa__err(PA_ERR_MTT, "matrix in %s memory: the matrix module reaches host memory and dmem only",
                   rec.ops->name);
}

int pa__matrix_read_header(const pa_matrix *m, const pa__mloc *loc, pa_matrix *h)
{
    int rc;
    if (loc->registered && loc->bytes < PA__MATRIX_HEADER)
        return pa__err(PA_ERR_INVAL, "matrix: its %s allocation of %zu bytes is shorter than the 16-byte header",
                       loc->mtt, loc->bytes);
    if (loc->device) {
        if ((rc = pa__matrix_gpu_memcpy(h, m, sizeof *h, 0)) != PA_OK)
            return rc;
    } else {
        memcpy(h, m, sizeof *h);
    }
    size_t bytes = loc->registered ? loc->bytes : pa_matrix_rawsize(h->elm, h->height, h->width);
    if ((rc = pa_matrix_validate(h, bytes ? bytes : PA__MATRIX_HEADER)) != PA_OK)
        return pa__err_wrap(rc, "matrix in %s memory", loc->mtt);
    return PA_OK;
}

/* A type of n bytes of memory mtt in scope s, for allocating and moving whole matrices. */
static const pa_type *bytes_type(pa_scope *s, const char *mtt, size_t n)
{
    char decl[96];
    snprintf(decl, sizeof decl, "%s char [%zu]", mtt, n);
    return pa_type_parse(s, decl);
}

static int check_mtt(const char *mtt)
{
    const pa__mem_ops *ops = pa__mem_find(mtt);
    if (pa__mtt_kind_of(mtt) != PA__MTT_MEMORY)
        return pa__err(PA_ERR_MTT, "matrix in \"%s\": not a memory type", mtt);
    if (ops && !ops->host_accessible && strcmp(mtt, "dmem") != 0)
        return pa__err(PA_ERR_MTT, "matrix in %s memory: the matrix module reaches host memory and dmem only", mtt);
    if (!ops && strcmp(mtt, "dmem") == 0) {   /* no CUDA backend built or switched on: no device, as in cuda.h */
        const char *why = pa__mem_missing(mtt);
        return pa__err(PA_ERR_NODEV, "matrix in dmem: %s", why ? why : "no allocator for device memory");
    }
    return PA_OK;
}

int pa__matrix_alloc(const char *mtt, const pa_matrix *h, pa_matrix **out)
{
    pa_scope *s = NULL;
    pa_matrix *m = NULL;
    const pa_type *t = NULL;
    int rc;
    size_t n = pa_matrix_rawsize(h->elm, h->height, h->width);
    if (!mtt)
        mtt = "paged";
    if (!n)
        return pa__err(PA_ERR_INVAL, "matrix %lld x %lld of element type %d: unknown element type or bad dimensions",
                       (long long)h->height, (long long)h->width, h->elm);
    if ((rc = check_mtt(mtt)) != PA_OK || (rc = pa_scope_create(NULL, &s)) != PA_OK)
        return rc;
    if (!(t = bytes_type(s, mtt, n)) || !(m = pa_create(t))) {
        rc = pa__last_status() ? pa__last_status() : PA_ERR_NOMEM;
        rc = pa__err_wrap(rc, "matrix %d x %d %s in %s memory (%zu bytes)", h->height, h->width,
                          pa_matrix_elm_name(h->elm), mtt, n);
        goto fail;
    }
    if (strcmp(mtt, "dmem") == 0)
        rc = pa__matrix_gpu_memcpy(m, h, sizeof *h, 1);
    else
        memcpy(m, h, sizeof *h);
    if (rc != PA_OK)
        goto fail;
    pa_scope_destroy(s);
    *out = m;
    return PA_OK;

fail:
    if (m)
        pa_destroy(t, m);
    pa_scope_destroy(s);
    return rc;
}

int pa__matrix_zero(pa_matrix *m, const pa__mloc *loc, size_t esz, int64_t off, int64_t len, int64_t pitch,
                    int64_t count, int queue)
{
    char *data = (char *)m + PA__MATRIX_HEADER;
    if (len <= 0 || count <= 0)
        return PA_OK;
    if (loc->device)
        return pa__matrix_gpu_zero2d(data + off * esz, (size_t)pitch * esz, (size_t)len * esz, (size_t)count,
                                     queue);
    for (int64_t c = 0; c < count; c++)
        memset(data + (off + c * pitch) * esz, 0, (size_t)len * esz);
    return PA_OK;
}

int pa_matrix_create_in(const char *mtt, int elm, int64_t height, int64_t width, pa_matrix **out)
{
    pa_matrix h = {elm, (int32_t)height, (int32_t)width, PA_MATRIX_MAGIC}, *m;
    pa__mloc loc;
    int rc;
    if (!out)
        return pa__err(PA_ERR_INVAL, "pa_matrix_create_in: NULL out");
    if (!pa_matrix_rawsize(elm, height, width))
        return pa__err(PA_ERR_INVAL, "pa_matrix_create_in(elm %d, %lld x %lld): unknown element type, or a "
                       "dimension negative or above 2^31-1", elm, (long long)height, (long long)width);
    if ((rc = pa__matrix_alloc(mtt, &h, &m)) != PA_OK)
        return rc;
    if ((rc = pa__matrix_locate(m, &loc)) != PA_OK ||
        (rc = pa__matrix_zero(m, &loc, pa_matrix_elm_size(elm), 0, height * width, 0, 1, 0)) != PA_OK) {
        pa_matrix_destroy(m);
        return rc;
    }
    *out = m;
    return PA_OK;
}

int pa_matrix_header(const pa_matrix *m, pa_matrix *out)
{
    pa__mloc loc;
    pa_matrix h;
    int rc;
    if (!out)
        return pa__err(PA_ERR_INVAL, "pa_matrix_header: NULL out");
    if ((rc = pa__matrix_locate(m, &loc)) != PA_OK || (rc = pa__matrix_read_header(m, &loc, &h)) != PA_OK)
        return rc;
    *out = h;
    return PA_OK;
}

int pa_matrix_check(const pa_matrix *m)
{
    pa_matrix h;
    return pa_matrix_header(m, &h);
}

int64_t pa_matrix_nrows(const pa_matrix *m)
{
    pa_matrix h;
    return pa_matrix_header(m, &h) == PA_OK ? h.height : -1;
}

int64_t pa_matrix_ncols(const pa_matrix *m)
{
    pa_matrix h;
    return pa_matrix_header(m, &h) == PA_OK ? h.width : -1;
}

const char *pa_matrix_mtt(const pa_matrix *m)
{
    pa__mloc loc;
    if (pa__matrix_locate(m, &loc) != PA_OK)
        return NULL;
    return loc.mtt;
}

int pa_matrix_copy_to(const pa_matrix *m, const char *mtt, pa_matrix **out)
{
    pa__mloc loc;
    pa_matrix h, *c = NULL;
    pa_scope *s = NULL;
    int rc;
    if (!out)
        return pa__err(PA_ERR_INVAL, "pa_matrix_copy_to: NULL out");
    if ((rc = pa__matrix_locate(m, &loc)) != PA_OK || (rc = pa__matrix_read_header(m, &loc, &h)) != PA_OK)
        return rc;
    if ((rc = pa__matrix_alloc(mtt, &h, &c)) != PA_OK)
        return rc;
    size_t n = pa_matrix_rawsize(h.elm, h.height, h.width);
    if ((rc = pa_scope_create(NULL, &s)) != PA_OK)
        goto fail;
    if ((rc = pa_copy(bytes_type(s, mtt ? mtt : "paged", n), c, bytes_type(s, loc.mtt, n), m)) != PA_OK)
        goto fail;
    pa_scope_destroy(s);
    *out = c;
    return PA_OK;

fail:
    pa_scope_destroy(s);
    pa_matrix_destroy(c);
    return rc;
}
