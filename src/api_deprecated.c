/*
 * parray — the names kept for one release after the API's renames (docs/api.md, "The API's style"): each is
 * declared PA_DEPRECATED in its header and calls its new name, with the arguments in the old order.  Delete
 * this file, the declarations, tests/core/test_api_aliases.c and tests/matrix/test_matrix_aliases.c together in
 * the next release.
 *
 * pa_matrix_create is not here: it keeps its own body in src/matrix/matrix.c (it makes a malloc'd matrix,
 * which pa_matrix_create_in does not).
 */
#include <stdint.h>

#include "parray/parray.h"
#include "parray/gputile.h"
#include "parray/matrix.h"
#include "parray/ssb.h"

/* error.h */
void pa_clear_error(void)
{
    pa_error_clear();
}

/* thread.h */
int pa_set_binding(pa_bind policy)
{
    return pa_threads_set_binding(policy);
}

pa_bind pa_get_binding(void)
{
    return pa_threads_get_binding();
}

int pa_set_num_threads(int n)
{
    return pa_threads_set_num(n);
}

int pa_get_num_threads(void)
{
    return pa_threads_get_num();
}

/* tile.h and gputile.h: the source first. */
int pa_tile2(const pa_type *src_outer, const void *src, const pa_type *dst_outer, void *dst, const pa_type *inner,
             pa_tile_fn fn, void *arg)
{
    return pa_tile_copy(dst_outer, dst, src_outer, src, inner, fn, arg);
}

int pa_tile2_dmem(const pa_type *src_outer, const void *src, const pa_type *dst_outer, void *dst,
                  const pa_type *inner, const char *source, const char *fn, const void *arg, size_t arg_size)
{
    return pa_tile_copy_dmem(dst_outer, dst, src_outer, src, inner, source, fn, arg, arg_size);
}

/* type.h: the builder returned, NULL on failure. */
pa_builder *pa_builder_create(pa_scope *scope, const char *mtt, const char *elm)
{
    pa_builder *b = NULL;
    return pa_builder_start(scope, mtt, elm, &b) == PA_OK ? b : NULL;
}

/* ssb.h */
void pa_ssb_result_free(pa_ssb_result *r)
{
    pa_ssb_result_destroy(r);
}

/* matrix.h: int32_t sizes (a matrix's header holds them as int32_t, so they fit), the destination last. */
int32_t pa_matrix_height(const pa_matrix *m)
{
    return (int32_t)pa_matrix_nrows(m);
}

int32_t pa_matrix_width(const pa_matrix *m)
{
    return (int32_t)pa_matrix_ncols(m);
}

typedef struct unnest_old {
    pa_matrix_row_fn fn;
    void *ctx;
} unnest_old;

static int unnest_old_row(int64_t row, const void *values, int64_t width, void *ctx)
{
    const unnest_old *u = ctx;
    return u->fn(row, values, (int32_t)width, u->ctx);
}

int pa_matrix_unnest(const pa_matrix *m, pa_matrix_row_fn fn, void *ctx)
{
    unnest_old u = {fn, ctx};
    return pa_matrix_unnest_rows(m, fn ? unnest_old_row : NULL, &u);
}

int pa_matrix_rbind_into(const pa_matrix *const *ms, int n, pa_matrix *out)
{
    return pa_matrix_store_rbind(out, ms, n);
}

int pa_matrix_cbind_into(const pa_matrix *const *ms, int n, pa_matrix *out)
{
    return pa_matrix_store_cbind(out, ms, n);
}

int pa_matrix_transpose_into(const pa_matrix *m, pa_matrix *t)
{
    return pa_matrix_store_transpose(t, m);
}
