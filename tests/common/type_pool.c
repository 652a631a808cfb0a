/* parray tests — the random type pool shared by the random-copy suites (see type_pool.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "type_pool.h"

typedef struct text {
    char s[4096];
    size_t n;
} text;

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->s + t->n, sizeof t->s - t->n, fmt, ap);
    va_end(ap);
    ck_assert(k >= 0 && t->n + (size_t)k < sizeof t->s);
    t->n += (size_t)k;
}

/* A random tree under path: writes its children "[..][..]" and returns the size.  Leaves get sizes 1..6 and
 * the product stays under *budget. */
static int64_t gen_tree(pa_rng *rng, text *t, int depth, int64_t *budget)
{
    int kids = depth >= 3 ? 0 : (int)pa_rng_range(rng, depth == 0 ? 1 : 0, 3);
    if (kids == 0) {
        int64_t hi = *budget < 6 ? *budget : 6, n = pa_rng_range(rng, 1, hi < 1 ? 1 : hi);
        *budget /= n;
        put(t, "%lld", (long long)n);
        return n;
    }
    int64_t size = 1;
    for (int i = 0; i < kids; i++) {
        put(t, "[");
        size *= gen_tree(rng, t, depth + 1, budget);
        put(t, "]");
    }
    return size;
}

/* The paths of a cut through T's tree (sub-trees taken whole), found by asking the type for its children. */
static int cut(pa_rng *rng, const pa_type *t, const char *path, char units[][64], int n, int whole_ok)
{
    int nd = pa_ndim(t);
    if (nd == 0 || (whole_ok && pa_rng_next(rng) % 3 == 0)) {
        snprintf(units[n], 64, "%s", path);
        return n + 1;
    }
    for (int i = 0; i < nd; i++) {
        char sub[64];
        snprintf(sub, sizeof sub, "%s_%d", path, i);
        n = cut(rng, pa_type_child(t, i), sub, units, n, 1);
    }
    return n;
}

/* A declaration referring to the units in a random order, grouped at random into up to 3 levels. */
static void permuted(pa_rng *rng, text *t, char units[][64], int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)pa_rng_range(rng, 0, i);
        char x[64];
        memcpy(x, units[i], 64);
        memcpy(units[i], units[j], 64);
        memcpy(units[j], x, 64);
    }
    for (int i = 0, items = 0; i < n; items++) {
        /* At most 10 sub-dimensions per node: groups grow when the units left would need more. */
        int need = (n - i + (9 - items)) / (10 - items);
        int g = (int)pa_rng_range(rng, need, n - i < 3 ? n - i : 3 > need ? 3 : need);
        if (g > 1) put(t, "[");
        for (int k = 0; k < g; k++)
            put(t, "[#%s]", units[i + k]);
        if (g > 1) put(t, "]");
        i += g;
    }
}

static int64_t reverse_fn(int64_t i, void *ctx)
{
    return *(const int64_t *)ctx - 1 - i;
}


static void add(pa_type_pool *p, const char *name, const char *decl)
{
    PA_CK_OK(pa_declare(p->scope, name, decl));
    const pa_type *t = pa_type_get(p->scope, name);
    ck_assert_msg(t, "%s = %s: %s", name, decl, pa_last_error());
    ck_assert_msg(pa_size(t) == p->size, "%s = %s has size %lld, not %lld", name, decl, (long long)pa_size(t),
                  (long long)p->size);
    p->t[p->n++] = t;
}

void pa_type_pool_make(pa_type_pool *p, pa_rng *rng, const char *mtt, int elm, int64_t budget)
{
    text t = {.n = 0}, d;
    char units[64][64], head[48];
    PA_CK_OK(pa_scope_create(NULL, &p->scope));
    p->n = 0;
    snprintf(head, sizeof head, "%s bytes%d ", mtt, elm);
    put(&t, "%s", head);
    p->size = gen_tree(rng, &t, 0, &budget);
    add(p, "T", t.s);
    d = (text){.n = 0};
    put(&d, "%s[%lld]", head, (long long)p->size);
    add(p, "PLAIN", d.s);
    for (int k = 0; k < 3; k++) {      /* permutations of T's sub-trees */
        char name[8];
        int n = cut(rng, p->t[0], "T", units, 0, 0);
        d = (text){.n = 0};
        put(&d, "%s", head);
        permuted(rng, &d, units, n);
        snprintf(name, sizeof name, "Q%d", k);
        add(p, name, d.s);
    }
    /* A window into a padded array over T's leaves, and a permutation of that window. */
    int nl = cut(rng, p->t[0], "T", units, 0, 0);   /* only the sizes of the units matter */
    for (int tries = 0; nl > 10 && tries < 50; tries++)
        nl = cut(rng, p->t[0], "T", units, 0, 0);
    if (nl > 10) {                              /* every child of T whole: at most 3 */
        nl = pa_ndim(p->t[0]);
        for (int i = 0; i < nl; i++)
            snprintf(units[i], 64, "T_%d", i);
    }
    text pad = {.n = 0}, win = {.n = 0};
    put(&pad, "%s[", head);
    put(&win, "%s[", head);
    for (int i = 0; i < nl; i++) {
        int64_t s = pa_size(pa_type_get(p->scope, units[i])), extra = pa_rng_range(rng, 0, 3);
        put(&pad, "[%lld]", (long long)(s + extra));
        put(&win, "[%lld # disp(%lld) # P_%d]", (long long)s, (long long)pa_rng_range(rng, 0, extra), i);
    }
    put(&pad, "]");
    put(&win, "]");
    PA_CK_OK(pa_declare(p->scope, "P", pad.s));
    add(p, "W", win.s);
    int nw = cut(rng, p->t[p->n - 1], "W", units, 0, 0);
    d = (text){.n = 0};
    put(&d, "%s", head);
    permuted(rng, &d, units, nw);
    add(p, "WP", d.s);
    d = (text){.n = 0};
    put(&d, "%s[%lld # disp(%lld) # [%lld]]", head, (long long)p->size, (long long)pa_rng_range(rng, 0, p->size),
        (long long)p->size);
    add(p, "CYC", d.s);
    p->rev_n = p->size;
    PA_CK_OK(pa_scope_def_func(p->scope, "rev", reverse_fn, &p->rev_n));
    d = (text){.n = 0};
    put(&d, "%s[%lld # func(rev)]", head, (long long)p->size);
    add(p, "REV", d.s);
}

