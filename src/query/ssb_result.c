/*
 * parray — SSB results: made from (slot, sum) pairs, sorted in the query's ORDER BY, compared and printed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ssb_internal.h"

typedef struct row {
    int32_t g[3];
    int64_t v;
} row;

/* q3.x: ORDER BY d_year ASC, revenue DESC; the others by their group columns.  Ties by the group columns. */
static int cmp_q3(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->g[2] != y->g[2])
        return x->g[2] < y->g[2] ? -1 : 1;
    if (x->v != y->v)
        return x->v > y->v ? -1 : 1;
    for (int i = 0; i < 2; i++)
        if (x->g[i] != y->g[i])
            return x->g[i] < y->g[i] ? -1 : 1;
    return 0;
}

static int cmp_groups(const void *a, const void *b)
{
    const row *x = a, *y = b;
    for (int i = 0; i < 3; i++)
        if (x->g[i] != y->g[i])
            return x->g[i] < y->g[i] ? -1 : 1;
    return 0;
}

int pa__ssb_result_from_pairs(const pa__ssb_plan *p, const int64_t *slots, const int64_t *sums, int64_t n,
                              pa_ssb_result *out)
{
    int64_t m = 0;
    row *rows = malloc(((size_t)n + 1) * sizeof *rows);
    if (!rows)
        return pa__err(PA_ERR_NOMEM, "ssb: a result of %lld rows", (long long)n);
    if (p->ngroups == 0) {
        rows[0] = (row){{0, 0, 0}, 0};
        for (int64_t i = 0; i < n; i++)
            rows[0].v += sums[i];
        m = 1;
    }
    for (int64_t i = 0; p->ngroups > 0 && i < n; i++) {
        if (sums[i] == 0)
            continue;
        row r = {{0, 0, 0}, sums[i]};
        int64_t s = slots[i];
        for (int g = p->ngroups - 1; g >= 0; g--) {
            const pa__ssb_dim *d = &p->dim[p->gdim[g]];
            r.g[g] = (int32_t)((int64_t)d->vmin + s % d->vcount);
            s /= d->vcount;
        }
        rows[m++] = r;
    }
    qsort(rows, (size_t)m, sizeof *rows, p->q >= 6 && p->q <= 9 ? cmp_q3 : cmp_groups);
    out->query = p->q;
    out->ngroups = p->ngroups;
    out->nrows = m;
    out->groups = malloc(((size_t)m + 1) * 3 * sizeof *out->groups);
    out->values = malloc(((size_t)m + 1) * sizeof *out->values);
    if (!out->groups || !out->values) {
        free(rows);
        pa_ssb_result_destroy(out);
        return pa__err(PA_ERR_NOMEM, "ssb: a result of %lld rows", (long long)m);
    }
    for (int64_t i = 0; i < m; i++) {
        memcpy(&out->groups[i * 3], rows[i].g, sizeof rows[i].g);
        out->values[i] = rows[i].v;
    }
    free(rows);
    return PA_OK;
}

void pa_ssb_result_destroy(pa_ssb_result *r)
{
    if (!r)
        return;
    free(r->groups);
    free(r->values);
    r->groups = NULL;
    r->values = NULL;
    r->nrows = 0;
}

/* Whether r is a result the functions below can read: a query, 0..3 groups, its rows' arrays. */
static const char *malformed(const pa_ssb_result *r)
{
    if (!r)
        return "NULL";
    if (r->query < 0 || r->query >= PA_SSB_NQUERIES)
        return "of no query (query out of range)";
    if (r->ngroups < 0 || r->ngroups > 3 || r->nrows < 0)
        return "malformed (group or row count out of range)";
    if (r->nrows > 0 && (!r->values || (r->ngroups > 0 && !r->groups)))
        return "malformed (NULL rows)";
    return NULL;
}

int pa_ssb_result_equal(const pa_ssb_result *a, const pa_ssb_result *b, char *why, size_t len)
{
    char dummy[8];
    const char *bad;
    if (!why) {
        why = dummy;
        len = sizeof dummy;
    }
    if ((bad = malformed(a)) != NULL || (bad = malformed(b)) != NULL) {
        snprintf(why, len, "result %s is %s", malformed(a) ? "a" : "b", bad);
        return 0;
    }
    if (a->query != b->query || a->ngroups != b->ngroups) {
        snprintf(why, len, "different queries (%d and %d) or group counts", a->query, b->query);
        return 0;
    }
    if (a->nrows != b->nrows) {
        snprintf(why, len, "%lld rows vs %lld", (long long)a->nrows, (long long)b->nrows);
        return 0;
    }
    for (int64_t i = 0; i < a->nrows; i++) {
        for (int g = 0; g < a->ngroups; g++)
            if (a->groups[i * 3 + g] != b->groups[i * 3 + g]) {
                snprintf(why, len, "row %lld: %s %d vs %d", (long long)i, pa_ssb_result_column(a->query, g),
                         a->groups[i * 3 + g], b->groups[i * 3 + g]);
                return 0;
            }
        if (a->values[i] != b->values[i]) {
            snprintf(why, len, "row %lld: sum %" PRId64 " vs %" PRId64, (long long)i, a->values[i], b->values[i]);
            return 0;
        }
    }
    return 1;
}

int pa_ssb_result_print(const pa_ssb_db *db, const pa_ssb_result *r, FILE *f)
{
    const char *bad = malformed(r);
    if (!db || !f)
        return pa__err(PA_ERR_INVAL, "pa_ssb_result_print: NULL %s", !db ? "database" : "file");
    if (bad)
        return pa__err(PA_ERR_INVAL, "pa_ssb_result_print: the result is %s", bad);
    for (int64_t i = 0; i < r->nrows; i++) {
        for (int g = 0; g < r->ngroups; g++) {
            const char *col = pa_ssb_result_column(r->query, g);
            int32_t v = r->groups[i * 3 + g];
            if (col && strcmp(col, "d_year") == 0) {
                fprintf(f, "%d|", v);
            } else {
                const char *s = col ? pa_ssb_dict_string(db, col, v) : NULL;
                fprintf(f, "%s|", s ? s : "?");
            }
        }
        fprintf(f, "%" PRId64 "\n", r->values[i]);
    }
    return ferror(f) ? pa__err(PA_ERR_SYS, "ssb: writing a result failed") : PA_OK;
}
