/*
 * parray — a matrix from rows and back (matrix.h): PG-Strom's aggregate array_matrix (rows one at a time or in
 * blocks), column arrays, and matrix_unnest (a callback per row, or column arrays).
 *
 * Rows are gathered row-major in a growing host buffer; finishing makes the matrix in the requested memory and
 * puts the rows in column order with one pa_copy from the buffer's [n][width] type to the matrix's (row,
 * column) type (a host transpose, or a staged copy with the permutation on the GPU for dmem).  Unnesting runs
 * the other way in blocks of rows, so a dmem matrix needs only a block's worth of host memory.
 */
#include <stdlib.h>
#include <string.h>

#include "matrix_internal.h"

struct pa_matrix_rows {
    int elm;
    size_t esz;
    int64_t width;
    int64_t n, cap;      /* rows held, rows the buffer can hold */
    unsigned char *buf;  /* n rows of width elements, row-major */
};

int pa_matrix_rows_create(int elm, int64_t width, pa_matrix_rows **out)
{
    pa_matrix_rows *r;
    if (!out || !pa_matrix_rawsize(elm, 0, width))
        return pa__err(PA_ERR_INVAL, "pa_matrix_rows_create(elm %d, width %lld): %s", elm, (long long)width,
                       !out ? "NULL out" : "unknown element type, or a width negative or above 2^31-1");
    if (!(r = calloc(1, sizeof *r)))
        return pa__err(PA_ERR_NOMEM, "pa_matrix_rows_create");
    r->elm = elm;
    r->esz = pa_matrix_elm_size(elm);
    r->width = width;
    *out = r;
    return PA_OK;
}

void pa_matrix_rows_destroy(pa_matrix_rows *r)
{
    if (!r)
        return;
    free(r->buf);
    free(r);
}

int64_t pa_matrix_rows_count(const pa_matrix_rows *r)
{
    return r ? r->n : -1;
}

int pa_matrix_rows_add_block(pa_matrix_rows *r, const void *rows, int64_t n)
{
    if (!r || (!rows && n > 0) || n < 0)
        return pa__err(PA_ERR_INVAL, "pa_matrix_rows_add: %s", !r ? "NULL rows object" : "NULL rows or n < 0");
    if (n > INT32_MAX - r->n)
        return pa__err(PA_ERR_RANGE, "pa_matrix_rows_add: %lld + %lld rows would pass 2^31-1", (long long)r->n,
                       (long long)n);
    size_t rowbytes = (size_t)r->width * r->esz;
    if (r->n + n > r->cap && rowbytes > 0) {
        int64_t cap = r->cap ? r->cap : 64;
        while (cap < r->n + n)
            cap *= 2;
        unsigned char *b = realloc(r->buf, (size_t)cap * rowbytes);
        if (!b)
            return pa__err(PA_ERR_NOMEM, "pa_matrix_rows_add: %lld rows of %zu bytes", (long long)cap, rowbytes);
        r->buf = b;
        r->cap = cap;
    }
    if (n > 0 && rowbytes > 0)
        memcpy(r->buf + (size_t)r->n * rowbytes, rows, (size_t)n * rowbytes);
    r->n += n;
    return PA_OK;
}

int pa_matrix_rows_add(pa_matrix_rows *r, const void *row)
{
    if (!row)
        return pa__err(PA_ERR_INVAL, "pa_matrix_rows_add: NULL row");
    return pa_matrix_rows_add_block(r, row, 1);
}

/* Copies n x width row-major host elements into rows [r0, r0 + n) of m (any memory). */
static int put_rows(pa_scope *s, pa_matrix *m, const pa__mloc *loc, const pa_matrix *h, int64_t r0, int64_t n,
                    const void *rows)
{
    char decl[96];
    int64_t base = pa__matrix_base(pa_matrix_elm_size(h->elm));
    if (n == 0 || h->width == 0)
        return PA_OK;
    snprintf(decl, sizeof decl, "paged %s [%lld][%d]", pa_matrix_elm_name(h->elm), (long long)n, h->width);
    const pa_type *st = pa_type_parse(s, decl);
    const pa_type *dt = pa__matrix_view(s, loc->mtt, h->elm, n, h->width, h->height, base + r0, PA__BY_ROWS);
    if (!st || !dt)
        return pa__last_status();
    return pa_copy(dt, m, st, rows);
}

int pa_matrix_rows_finish(const pa_matrix_rows *r, const char *mtt, pa_matrix **out)
{
    pa_matrix h, *m = NULL;
    pa__mloc loc;
    pa_scope *s = NULL;
    int rc;
    if (!r || !out)
        return pa__err(PA_ERR_INVAL, "pa_matrix_rows_finish: NULL %s", !r ? "rows" : "out");
    h = (pa_matrix){r->elm, (int32_t)r->n, (int32_t)r->width, PA_MATRIX_MAGIC};
    if ((rc = pa__matrix_alloc(mtt, &h, &m)) != PA_OK)
        return rc;
    if ((rc = pa__matrix_locate(m, &loc)) != PA_OK || (rc = pa_scope_create(NULL, &s)) != PA_OK ||
        (rc = put_rows(s, m, &loc, &h, 0, r->n, r->buf)) != PA_OK) {
        pa_scope_destroy(s);
        pa_matrix_destroy(m);
        return rc;
    }
    pa_scope_destroy(s);
    *out = m;
    return PA_OK;
}

int pa_matrix_from_columns(int elm, int64_t height, int64_t width, const void *const *cols, const char *mtt,
                           pa_matrix **out)
{
    pa_matrix h, *m = NULL;
    pa__mloc loc;
    pa_scope *s = NULL;
    char decl[96];
    int rc = PA_OK;
    if (!out || (!cols && width > 0))
        return pa__err(PA_ERR_INVAL, "pa_matrix_from_columns: NULL %s", !out ? "out" : "column array");
    if (!pa_matrix_rawsize(elm, height, width))
        return pa__err(PA_ERR_INVAL, "pa_matrix_from_columns(elm %d, %lld x %lld): unknown element type or bad "
                       "dimensions", elm, (long long)height, (long long)width);
    for (int64_t j = 0; j < width; j++)
        if (!cols[j] && height > 0)
            return pa__err(PA_ERR_INVAL, "pa_matrix_from_columns: column %lld is NULL", (long long)j);
    h = (pa_matrix){elm, (int32_t)height, (int32_t)width, PA_MATRIX_MAGIC};
    if ((rc = pa__matrix_alloc(mtt, &h, &m)) != PA_OK)
        return rc;
    if (height > 0 && width > 0) {
        int64_t base = pa__matrix_base(pa_matrix_elm_size(elm));
        if ((rc = pa__matrix_locate(m, &loc)) != PA_OK || (rc = pa_scope_create(NULL, &s)) != PA_OK)
            goto fail;
        snprintf(decl, sizeof decl, "paged %s [%lld]", pa_matrix_elm_name(elm), (long long)height);
        const pa_type *st = pa_type_parse(s, decl);
        for (int64_t j = 0; j < width && rc == PA_OK; j++) {
            const pa_type *dt = pa__matrix_view(s, loc.mtt, elm, height, 1, height, base + j * height, PA__BY_ROWS);
            rc = st && dt ? pa_copy(dt, m, st, cols[j]) : pa__last_status();
        }
        if (rc != PA_OK)
            goto fail;
    }
    pa_scope_destroy(s);
    *out = m;
    return PA_OK;

fail:
    pa_scope_destroy(s);
    pa_matrix_destroy(m);
    return rc;
}

/* Rows brought to the host per block while unnesting: about 4 MiB. */
static int64_t block_rows(const pa_matrix *h)
{
    int64_t rowbytes = (int64_t)h->width * (int64_t)pa_matrix_elm_size(h->elm);
    int64_t n = rowbytes ? (4 << 20) / rowbytes : h->height;
    return n < 1 ? 1 : n;
}

int pa_matrix_unnest_rows(const pa_matrix *m, pa_matrix_unnest_fn fn, void *ctx)
{
    pa__mloc loc;
    pa_matrix h;
    pa_scope *s = NULL;
    unsigned char *buf = NULL;
    char decl[96];
    int rc;
    if (!fn)
        return pa__err(PA_ERR_INVAL, "pa_matrix_unnest_rows: NULL callback");
    if ((rc = pa__matrix_locate(m, &loc)) != PA_OK || (rc = pa__matrix_read_header(m, &loc, &h)) != PA_OK)
        return pa__err_wrap(rc, "matrix_unnest");
    size_t esz = pa_matrix_elm_size(h.elm);
    int64_t nb = block_rows(&h), base = pa__matrix_base(esz);
    if (h.width == 0) {   /* rows without values */
        for (int64_t i = 0; i < h.height; i++)
            if ((rc = fn(i, NULL, 0, ctx)) != 0)
                return rc;
        return PA_OK;
    }
    if (h.height == 0)
        return PA_OK;
    nb = nb < h.height ? nb : h.height;
    if (!(buf = malloc((size_t)nb * (size_t)h.width * esz)))
        return pa__err(PA_ERR_NOMEM, "matrix_unnest: %lld rows of %d elements", (long long)nb, h.width);
    if ((rc = pa_scope_create(NULL, &s)) != PA_OK)
        goto done;
    for (int64_t r0 = 0; r0 < h.height && rc == PA_OK; r0 += nb) {
        int64_t n = h.height - r0 < nb ? h.height - r0 : nb;
        snprintf(decl, sizeof decl, "paged %s [%lld][%d]", pa_matrix_elm_name(h.elm), (long long)n, h.width);
        const pa_type *dt = pa_type_parse(s, decl);
        const pa_type *st = pa__matrix_view(s, loc.mtt, h.elm, n, h.width, h.height, base + r0, PA__BY_ROWS);
        if (!dt || !st) {
            rc = pa__last_status();
            break;
        }
        if ((rc = pa_copy(dt, buf, st, m)) != PA_OK)
            break;
        for (int64_t i = 0; i < n && rc == PA_OK; i++)
            rc = fn(r0 + i, buf + (size_t)i * (size_t)h.width * esz, h.width, ctx);
        /* Types of finished blocks are not needed again: a fresh scope keeps the memory flat. */
        pa_scope_destroy(s);
        s = NULL;
        if (rc == PA_OK && (rc = pa_scope_create(NULL, &s)) != PA_OK)
            break;
    }
done:
    pa_scope_destroy(s);
    free(buf);
    return rc;
}

int pa_matrix_unnest_columns(const pa_matrix *m, void *const *cols)
{
    pa__mloc loc;
    pa_matrix h;
    pa_scope *s = NULL;
    char decl[96];
    int rc;
    if ((rc = pa__matrix_locate(m, &loc)) != PA_OK || (rc = pa__matrix_read_header(m, &loc, &h)) != PA_OK)
        return pa__err_wrap(rc, "matrix_unnest");
    if (h.height == 0 || h.width == 0)
        return PA_OK;
    if (!cols)
        return pa__err(PA_ERR_INVAL, "pa_matrix_unnest_columns: NULL column array");
    for (int j = 0; j < h.width; j++)
        if (!cols[j])
            return pa__err(PA_ERR_INVAL, "pa_matrix_unnest_columns: column %d is NULL", j);
    if ((rc = pa_scope_create(NULL, &s)) != PA_OK)
        return rc;
    int64_t base = pa__matrix_base(pa_matrix_elm_size(h.elm));
    snprintf(decl, sizeof decl, "paged %s [%d]", pa_matrix_elm_name(h.elm), h.height);
    const pa_type *dt = pa_type_parse(s, decl);
    for (int j = 0; j < h.width && rc == PA_OK; j++) {
        const pa_type *st = pa__matrix_view(s, loc.mtt, h.elm, h.height, 1, h.height, base + (int64_t)j * h.height,
                                            PA__BY_ROWS);
        rc = dt && st ? pa_copy(dt, cols[j], st, m) : pa__last_status();
    }
    pa_scope_destroy(s);
    return rc;
}
