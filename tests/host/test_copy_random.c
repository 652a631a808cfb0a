/*
 * Random copies through real types, compared element by element with the reference tree walk.
 *
 * Each round declares a pool of types of one size and element size in a fresh scope: a random dimension tree
 * T (up to 4 levels), a plain array, types whose dimensions refer to T's sub-trees in a random order and
 * grouping (permutations, transpositions in units), a window into a padded array and a permutation of that
 * window, a cyclic displacement and a reversing func().  Random pairs of the pool are copied with pa_copy
 * into a destination poisoned with 0xA5, and every byte is compared with what the reference walk
 * (pa__offset_walk) says, including the bytes the destination's offsets never reach.  The seed is printed.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

#define ROUNDS 2500
#define PAIRS 6
#define MAXPOOL 12

static pa_rng rng;

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
static int64_t gen_tree(text *t, int depth, int64_t *budget)
{
    int kids = depth >= 3 ? 0 : (int)pa_rng_range(&rng, depth == 0 ? 1 : 0, 3);
    if (kids == 0) {
        int64_t hi = *budget < 6 ? *budget : 6, n = pa_rng_range(&rng, 1, hi < 1 ? 1 : hi);
        *budget /= n;
        put(t, "%lld", (long long)n);
        return n;
    }
    int64_t size = 1;
    for (int i = 0; i < kids; i++) {
        put(t, "[");
        size *= gen_tree(t, depth + 1, budget);
        put(t, "]");
    }
    return size;
}

/* The paths of a cut through T's tree (sub-trees taken whole), found by asking the type for its children. */
static int cut(const pa_type *t, const char *path, char units[][64], int n, int whole_ok)
{
    int nd = pa_ndim(t);
    if (nd == 0 || (whole_ok && pa_rng_next(&rng) % 3 == 0)) {
        snprintf(units[n], 64, "%s", path);
        return n + 1;
    }
    for (int i = 0; i < nd; i++) {
        char sub[64];
        snprintf(sub, sizeof sub, "%s_%d", path, i);
        n = cut(pa_type_child(t, i), sub, units, n, 1);
    }
    return n;
}

/* A declaration referring to the units in a random order, grouped at random into up to 3 levels. */
static void permuted(text *t, char units[][64], int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)pa_rng_range(&rng, 0, i);
        char x[64];
        memcpy(x, units[i], 64);
        memcpy(units[i], units[j], 64);
        memcpy(units[j], x, 64);
    }
    for (int i = 0, items = 0; i < n; items++) {
        /* At most 10 sub-dimensions per node: groups grow when the units left would need more. */
        int need = (n - i + (9 - items)) / (10 - items);
        int g = (int)pa_rng_range(&rng, need, n - i < 3 ? n - i : 3 > need ? 3 : need);
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

typedef struct pool {
    pa_scope *scope;
    const pa_type *t[MAXPOOL];
    int n;
    int64_t size;
} pool;

static void add(pool *p, const char *name, const char *decl)
{
    PA_CK_OK(pa_declare(p->scope, name, decl));
    const pa_type *t = pa_type_get(p->scope, name);
    ck_assert_msg(t, "%s = %s: %s", name, decl, pa_last_error());
    ck_assert_msg(pa_size(t) == p->size, "%s = %s has size %lld, not %lld", name, decl, (long long)pa_size(t),
                  (long long)p->size);
    p->t[p->n++] = t;
}

static void make_pool(pool *p, int elm, int64_t *rev_n)
{
    text t = {.n = 0}, d;
    char units[64][64], head[32];
    int64_t budget = pa_rng_range(&rng, 1, 8) == 1 ? 5000 : 400;
    PA_CK_OK(pa_scope_create(NULL, &p->scope));
    p->n = 0;
    snprintf(head, sizeof head, "paged bytes%d ", elm);
    put(&t, "%s", head);
    p->size = gen_tree(&t, 0, &budget);
    add(p, "T", t.s);
    d = (text){.n = 0};
    put(&d, "%s[%lld]", head, (long long)p->size);
    add(p, "PLAIN", d.s);
    for (int k = 0; k < 3; k++) {      /* permutations of T's sub-trees */
        char name[8];
        int n = cut(p->t[0], "T", units, 0, 0);
        d = (text){.n = 0};
        put(&d, "%s", head);
        permuted(&d, units, n);
        snprintf(name, sizeof name, "Q%d", k);
        add(p, name, d.s);
    }
    /* A window into a padded array over T's leaves, and a permutation of that window. */
    int nl = cut(p->t[0], "T", units, 0, 0);   /* only the sizes of the units matter */
    for (int tries = 0; nl > 10 && tries < 50; tries++)
        nl = cut(p->t[0], "T", units, 0, 0);
    if (nl > 10) {                              /* every child of T whole: at most 3 */
        nl = pa_ndim(p->t[0]);
        for (int i = 0; i < nl; i++)
            snprintf(units[i], 64, "T_%d", i);
    }
    text pad = {.n = 0}, win = {.n = 0};
    put(&pad, "%s[", head);
    put(&win, "%s[", head);
    for (int i = 0; i < nl; i++) {
        int64_t s = pa_size(pa_type_get(p->scope, units[i])), extra = pa_rng_range(&rng, 0, 3);
        put(&pad, "[%lld]", (long long)(s + extra));
        put(&win, "[%lld # disp(%lld) # P_%d]", (long long)s, (long long)pa_rng_range(&rng, 0, extra), i);
    }
    put(&pad, "]");
    put(&win, "]");
    PA_CK_OK(pa_declare(p->scope, "P", pad.s));
    add(p, "W", win.s);
    int nw = cut(p->t[p->n - 1], "W", units, 0, 0);
    d = (text){.n = 0};
    put(&d, "%s", head);
    permuted(&d, units, nw);
    add(p, "WP", d.s);
    d = (text){.n = 0};
    put(&d, "%s[%lld # disp(%lld) # [%lld]]", head, (long long)p->size, (long long)pa_rng_range(&rng, 0, p->size),
        (long long)p->size);
    add(p, "CYC", d.s);
    *rev_n = p->size;
    PA_CK_OK(pa_scope_def_func(p->scope, "rev", reverse_fn, rev_n));
    d = (text){.n = 0};
    put(&d, "%s[%lld # func(rev)]", head, (long long)p->size);
    add(p, "REV", d.s);
}

static unsigned char *buffer_for(const pa_type *t, int64_t *elems)
{
    int64_t lo, hi;
    PA_CK_OK(pa_extent(t, &lo, &hi));
    ck_assert_msg(lo >= 0, "%s has negative offsets", pa_type_name(t));
    *elems = hi + 1;
    return malloc((size_t)(hi + 1) * pa_elm_size(t));
}

static void check_pair(const pa_type *dt, const pa_type *st, uint64_t seed)
{
    int64_t dn, sn, e = (int64_t)pa_elm_size(dt);
    unsigned char *dst = buffer_for(dt, &dn), *src = buffer_for(st, &sn), *want = malloc((size_t)(dn * e));
    char dl[256], sl[256], line[1024];
    for (int64_t i = 0; i < sn * e; i++)
        src[i] = (unsigned char)pa_rng_next(&rng);
    memset(dst, 0xA5, (size_t)(dn * e));
    memset(want, 0xA5, (size_t)(dn * e));
    for (int64_t k = 0; k < pa_size(dt); k++)
        memcpy(want + pa__offset_walk(dt, k) * e, src + pa__offset_walk(st, k) * e, (size_t)e);
    PA_CK_OK(pa_copy(dt, dst, st, src));
    if (memcmp(dst, want, (size_t)(dn * e)) != 0) {
        int64_t i = 0;
        while (dst[i] == want[i]) i++;
        pa_layout_format(dt, dl, sizeof dl);
        pa_layout_format(st, sl, sizeof sl);
        pa_copy_explain(dt, st, line, sizeof line);
        ck_abort_msg("seed %llu: copy %s %s <- %s %s: byte %lld is 0x%02x, expected 0x%02x; %s",
                     (unsigned long long)seed, pa_type_name(dt), dl, pa_type_name(st), sl, (long long)i, dst[i],
                     want[i], line);
    }
    free(dst);
    free(src);
    free(want);
}

START_TEST(test_random_pairs)
{
    uint64_t seed = pa_test_seed("host_copy_random");
    static const int elms[] = {1, 2, 3, 4, 8, 12, 16, 5};
    rng.s = seed;
    for (int round = 0; round < ROUNDS; round++) {
        pool p;
        int64_t rev_n;
        make_pool(&p, elms[pa_rng_range(&rng, 0, 7)], &rev_n);
        for (int k = 0; k < PAIRS; k++) {
            int a = (int)pa_rng_range(&rng, 0, p.n - 1), b = (int)pa_rng_range(&rng, 0, p.n - 1);
            check_pair(p.t[a], p.t[b], seed);
        }
        pa_scope_destroy(p.scope);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("host_copy_random");
    TCase *tc = tcase_create("random");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_random_pairs);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
