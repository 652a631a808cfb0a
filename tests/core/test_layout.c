/*
 * Compiled layouts against the reference walk: random declarations (trees up to 4 levels, references to
 * dimensions of other types, displacements, windows, wraps, references with sub-dimensions), every offset
 * compared.  Also the @post of pa__layout_coalesce, brute-forced.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

static pa_rng rng;

typedef struct pool { pa_scope *s; int n; char names[64][16]; } pool;

/* A random dimension path of a declared type, and its size. */
static const pa_type *random_dim(pool *p, char *ref, size_t len)
{
    const pa_type *t;
    snprintf(ref, len, "%s", p->names[pa_rng_range(&rng, 0, p->n - 1)]);
    t = pa_type_get(p->s, ref);
    ck_assert_msg(t != NULL, "%s: %s", ref, pa_last_error());
    while (pa_ndim(t) > 0 && pa_rng_range(&rng, 0, 2) > 0) {
        int c = (int)pa_rng_range(&rng, 0, pa_ndim(t) - 1);
        size_t l = strlen(ref);
        snprintf(ref + l, len - l, "_%d", c);
        t = pa_type_child(t, c);
    }
    return t;
}

static void gen_dim(pool *p, char *out, size_t len, int depth)
{
    char ref[64];
    const pa_type *t;
    int64_t sz, d;
    int kind = (int)pa_rng_range(&rng, 0, depth >= 3 ? 6 : 8);
    switch (kind) {
    case 6: {                                /* steps and reversals: k # step(st) # disp(d) # X, in bounds */
        int64_t st;
        t = random_dim(p, ref, sizeof ref);
        sz = pa_size(t);
        do
            st = pa_rng_range(&rng, -3, 3);
        while (st == 0);
        d = pa_rng_range(&rng, 0, sz - 1);
        sz = st > 0 ? (sz - 1 - d) / st + 1 : d / -st + 1;
        snprintf(out, len, "[%lld # step(%lld) # disp(%lld) # %s]", (long long)pa_rng_range(&rng, 1, sz),
                 (long long)st, (long long)d, ref);
        return;
    }
    case 0: case 1:                          /* plain */
        snprintf(out, len, "[%lld]", (long long)pa_rng_range(&rng, 1, 6));
        return;
    case 2:                                  /* pure reference */
        random_dim(p, ref, sizeof ref);
        snprintf(out, len, "[#%s]", ref);
        return;
    case 3:                                  /* window: k # disp(d) # X */
        t = random_dim(p, ref, sizeof ref);
        sz = pa_size(t);
        d = pa_rng_range(&rng, 0, sz - 1);
        snprintf(out, len, "[%lld # disp(%lld) # %s]", (long long)pa_rng_range(&rng, 1, sz - d), (long long)d, ref);
        return;
    case 4:                                  /* wrap */
        sz = pa_rng_range(&rng, 1, 8);
        snprintf(out, len, "[%lld # disp(%lld) # [%lld]]", (long long)pa_rng_range(&rng, 1, 12),
                 (long long)pa_rng_range(&rng, -5, 9), (long long)sz);
        return;
    case 5:                                  /* size # reference, possibly wrapping */
        random_dim(p, ref, sizeof ref);
        snprintf(out, len, "[%lld # %s]", (long long)pa_rng_range(&rng, 1, 8), ref);
        return;
    case 7:
    default: {                               /* sub-dimensions, maybe with a chain */
        int n = (int)pa_rng_range(&rng, 1, 3);
        size_t l;
        snprintf(out, len, "[");
        for (int i = 0; i < n; i++) {
            l = strlen(out);
            gen_dim(p, out + l, len - l, depth + 1);
        }
        l = strlen(out);
        if (pa_rng_range(&rng, 0, 2) == 0) {
            random_dim(p, ref, sizeof ref);
            snprintf(out + l, len - l, " # %s]", ref);
        } else if (pa_rng_range(&rng, 0, 3) == 0) {
            snprintf(out + l, len - l, " # disp(%lld)]", (long long)pa_rng_range(&rng, 0, 4));
        } else {
            snprintf(out + l, len - l, "]");
        }
    }
    }
}

START_TEST(test_random_types_match_walk)
{
    pool p = {0};
    char decl[4096];
    long checked = 0, types = 0;
    rng.s = pa_test_seed("layout vs walk");
    for (int round = 0; round < 40; round++) {
        PA_CK_OK(pa_scope_create(NULL, &p.s));
        p.n = 0;
        PA_CK_OK(pa_declare(p.s, "P0", "paged float [[4][3]][5]"));
        PA_CK_OK(pa_declare(p.s, "P1", "paged float [[6][6]]"));
        PA_CK_OK(pa_declare(p.s, "P2", "paged float [2][3][2][2]"));
        strcpy(p.names[p.n++], "P0");
        strcpy(p.names[p.n++], "P1");
        strcpy(p.names[p.n++], "P2");
        for (int k = 0; k < 40; k++) {
            char name[16];
            const pa_type *t;
            gen_dim(&p, decl, sizeof decl, 0);
            snprintf(name, sizeof name, "T%d", k);
            if (pa_declare(p.s, name, decl) != PA_OK || !(t = pa_type_get(p.s, name)))
                continue;                         /* sizes may overflow the limits: that is an error, fine */
            if (pa_size(t) > 20000)
                continue;
            types++;
            if (getenv("PA_TEST_VERBOSE"))
                fprintf(stderr, "%s = %s\n", name, decl);
            if (p.n < 64)
                strcpy(p.names[p.n++], name);
            /* the type and every dimension in it */
            const pa_type *stack[256];
            int sp = 0;
            stack[sp++] = t;
            while (sp) {
                const pa_type *u = stack[--sp];
                for (int64_t i = 0; i < pa_size(u); i++) {
                    int64_t w = pa__offset_walk(u, i), o = pa_offset(u, i);
                    char lay[512];
                    if (w != o) {
                        pa_layout_format(u, lay, sizeof lay);
                        ck_abort_msg("%s of \"%s\": offset(%lld) = %lld from layout %s, walk says %lld", pa_type_name(u),
                                     decl, (long long)i, (long long)o, lay, (long long)w);
                    }
                    checked++;
                }
                for (int c = 0; c < pa_ndim(u) && sp < 256; c++)
                    stack[sp++] = pa_type_child(u, c);
            }
        }
        pa_scope_destroy(p.s);
    }
    fprintf(stderr, "layout vs walk: %ld types, %ld offsets checked\n", types, checked);
    ck_assert_int_gt(types, 500);
}
END_TEST

START_TEST(test_coalesce_post)
{
    rng.s = pa_test_seed("coalesce");
    for (int round = 0; round < 2000; round++) {
        pa__layout l = {0}, c;
        static int64_t tables[5][4];
        int64_t size = 1;
        l.nmodes = (int)pa_rng_range(&rng, 0, 5);
        l.base = pa_rng_range(&rng, -10, 10);
        for (int m = 0; m < l.nmodes; m++) {
            l.modes[m].size = pa_rng_range(&rng, 1, 4);
            l.modes[m].stride = pa_rng_range(&rng, 0, 3) == 0 ? pa_rng_range(&rng, -3, 20) : 0;
            if (pa_rng_range(&rng, 0, 4) == 0) {      /* a gathered mode */
                for (int64_t k = 0; k < l.modes[m].size; k++)
                    tables[m][k] = pa_rng_range(&rng, -50, 50);
                l.modes[m].table = tables[m];
            }
            size *= l.modes[m].size;
        }
        /* make some modes contiguous with their inner neighbour */
        for (int m = l.nmodes - 2; m >= 0; m--)
            if (pa_rng_range(&rng, 0, 1))
                l.modes[m].stride = l.modes[m + 1].stride * l.modes[m + 1].size;
        l.size = size;
        c = l;
        pa__layout_coalesce(&c);
        for (int64_t k = 0; k < size; k++)
            ck_assert_int_eq(pa__layout_offset(&c, k), pa__layout_offset(&l, k));
        for (int m = 0; m < c.nmodes; m++) {
            ck_assert_int_gt(c.modes[m].size, 1);
            if (m > 0 && !c.modes[m].table && !c.modes[m - 1].table)
                ck_assert(c.modes[m - 1].stride != c.modes[m].stride * c.modes[m].size);
        }
    }
}
END_TEST

/* Found by the fuzzer: nested anonymous references were walked once per table entry at every level
 * (14 s), and wraps of 2^26 elements built 512 MiB tables.  Now: quick, and refused with a clear error. */
START_TEST(test_fuzz_regressions)
{
    pa_scope *sc;
    char lay[256], decl[1024];
    FILE *f = fopen(SRCDIR "/../fuzz/corpus/regress-nested-anonymous-refs.pa", "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(decl, 1, sizeof decl - 1, f);
    fclose(f);
    decl[n] = '\0';
    PA_CK_OK(pa_scope_create(NULL, &sc));
    PA_CK_OK(pa_declare_text(sc, decl));
    const pa_type *x = pa_type_get(sc, "X");
    ck_assert_ptr_nonnull(x);
    ck_assert_int_gt(pa_layout_format(x, lay, sizeof lay), 0);
    rng.s = 7;
    for (int k = 0; k < 500; k++) {
        int64_t i = pa_rng_range(&rng, 0, pa_size(x) - 1);
        ck_assert_int_eq(pa_offset(x, i), pa__offset_walk(x, i));
    }
    PA_CK_OK(pa_declare(sc, "W", "[67108864 # [7]]"));
    const pa_type *w = pa_type_get(sc, "W");
    PA_CK_ERR(pa_layout_format(w, lay, sizeof lay), PA_ERR_UNSUPPORTED);
    ck_assert_int_eq(pa_offset(w, 67108863), 67108863 % 7);   /* offsets still come from the walk */
    PA_CK_ERR(pa_layout_format(w, lay, sizeof lay), PA_ERR_UNSUPPORTED);   /* the failure is kept */
    pa_scope_destroy(sc);
}
END_TEST

static int64_t spread(int64_t i, void *ctx)
{
    (void)ctx;
    return 3 * i + 5;
}

/*
 * Seen while adding pa_extent to parse_fuzz's questions: the extent of a type the compiler refuses came from a walk over every index, unbounded, so
 * pa_extent (and pa_create) of "[2^40 # func(f)]" ran for hours.  Now the walk is bounded by 16 times the walk limit
 * and the refusal is kept; below the bound the walk still gives the extent.  The limits are lowered here
 * (pa__layout_set_limits) to reach both sides with small types, as the fuzz targets do.
 */
START_TEST(test_extent_walk_bounded)
{
    pa_scope *sc;
    int64_t lo = -1, hi = -1;
    PA_CK_OK(pa_scope_create(NULL, &sc));
    PA_CK_OK(pa_scope_def_func(sc, "f", spread, NULL));
    PA_CK_OK(pa_declare(sc, "Huge", "[1099511627776 # func(f)]"));
    const pa_type *huge = pa_type_get(sc, "Huge");
    PA_CK_ERR(pa_extent(huge, &lo, &hi), PA_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "too costly to walk"));
    ck_assert_int_eq(lo, -1);   /* nothing written on error */
    PA_CK_ERR(pa_extent(huge, &lo, &hi), PA_ERR_UNSUPPORTED);   /* kept, not walked again */
    ck_assert_ptr_null(pa_create(huge));
    ck_assert_int_eq(pa_offset(huge, 1099511627775), 3 * INT64_C(1099511627775) + 5);   /* offsets still answer */

    pa__layout_set_limits(16, 16);   /* tables of 16 offsets; walks of 256 visits for an extent */
    PA_CK_OK(pa_declare(sc, "Small", "[100 # func(f)]"));
    PA_CK_OK(pa_declare(sc, "Large", "[300 # func(f)]"));
    const pa_type *small = pa_type_get(sc, "Small"), *large = pa_type_get(sc, "Large");
    char lay[128];
    PA_CK_ERR(pa_layout_format(small, lay, sizeof lay), PA_ERR_UNSUPPORTED);   /* 100 > 16 offsets: no table */
    PA_CK_OK(pa_extent(small, &lo, &hi));   /* 100 visits: walked */
    ck_assert_int_eq(lo, 5);
    ck_assert_int_eq(hi, 3 * 99 + 5);
    PA_CK_ERR(pa_extent(large, &lo, &hi), PA_ERR_UNSUPPORTED);   /* 300 > 256 visits */
    pa__layout_set_limits(0, 0);   /* the defaults again */
    ck_assert_int_eq(pa__table_cap, INT64_C(1) << 22);
    ck_assert_int_eq(pa__walk_cap, INT64_C(1) << 22);
    PA_CK_OK(pa_declare(sc, "Again", "[300 # func(f)]"));
    PA_CK_OK(pa_extent(pa_type_get(sc, "Again"), &lo, &hi));
    ck_assert_int_eq(hi, 3 * 299 + 5);
    pa_scope_destroy(sc);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("layout");
    TCase *tc = tcase_create("layout");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_random_types_match_walk);
    tcase_add_test(tc, test_coalesce_post);
    tcase_add_test(tc, test_fuzz_regressions);
    tcase_add_test(tc, test_extent_walk_bounded);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
