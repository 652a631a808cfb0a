/*
 * Piecewise-affine layouts (layout_pieces.c, copy_pieces.c): wraps and cyclic shifts compile to a few affine
 * pieces, not tables or the walk, for any size; pa_create, pa_extent and pa_alloc_bytes work on them; copies
 * run one affine plan per piece.  Every offset and every copied element is checked against the reference walk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "internal.h"
#include "type_internal.h"

static pa_scope *s;
static pa_rng rng;

static void setup(void)
{
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "F = paged float [10]\n"
                                "M = paged float [[6][8]]\n"
                                "G = paged float [10 # disp(3) # F]\n"
                                "H = paged float [10 # disp(7) # F]"));
}

static void teardown(void)
{
    pa_scope_destroy(s);
}

/* Every piece's offsets, over its box, against the walk at the same flat index of the whole type. */
static void check_pieces(const pa_type *t, const char *decl)
{
    const pa__pieces *p = pa__type_pieces(t);
    int64_t covered = 0;
    if (!p)
        return;
    for (int i = 0; i < p->n; i++) {
        const pa__piece *q = &p->p[i];
        ck_assert_int_eq(q->l.size, ({ int64_t z = 1; for (int d = 0; d < p->nd; d++) z *= q->len[d]; z; }));
        for (int64_t k = 0; k < q->l.size; k++) {
            int64_t r = k, flat = 0, w = 1;
            for (int d = p->nd - 1; d >= 0; d--) {
                flat += (q->lo[d] + r % q->len[d]) * w;
                r /= q->len[d];
                w *= p->dsize[d];
            }
            ck_assert_msg(pa__layout_offset(&q->l, k) == pa__offset_walk(t, flat),
                          "%s: piece %d index %lld (flat %lld): %lld, the walk says %lld", decl, i, (long long)k,
                          (long long)flat, (long long)pa__layout_offset(&q->l, k), (long long)pa__offset_walk(t, flat));
        }
        covered += q->l.size;
    }
    ck_assert_int_eq(covered, pa_size(t));
}

/* dst <- src through pa_copy, against the walk: every element of the destination's extent checked (those the
 * copy does not write keep their poison). */
static void check_copy(const pa_type *dt, const pa_type *st)
{
    int64_t dlo, dhi, slo, shi, n = pa_size(dt);
    PA_CK_OK(pa_extent(dt, &dlo, &dhi));
    PA_CK_OK(pa_extent(st, &slo, &shi));
    ck_assert_int_ge(dlo, 0);
    ck_assert_int_ge(slo, 0);
    float *d = malloc((size_t)(dhi + 1) * sizeof *d), *src = malloc((size_t)(shi + 1) * sizeof *src);
    float *want = malloc((size_t)(dhi + 1) * sizeof *want);
    for (int64_t i = 0; i <= shi; i++)
        src[i] = (float)(pa_rng_next(&rng) % 100000);   /* never -1 */
    for (int64_t i = 0; i <= dhi; i++)
        d[i] = want[i] = -1.0f;
    for (int64_t k = 0; k < n; k++) {
        int64_t o = pa__offset_walk(dt, k);
        if (want[o] != -1.0f) {   /* two indices write one element: the result depends on the order; skip */
            free(d);
            free(src);
            free(want);
            return;
        }
        want[o] = src[pa__offset_walk(st, k)];
    }
    PA_CK_OK(pa_copy(dt, d, st, src));
    for (int64_t i = 0; i <= dhi; i++)
        if (d[i] != want[i])
            ck_abort_msg("copy %s <- %s: element %lld is %g, the walk says %g", pa_type_name(dt), pa_type_name(st),
                         (long long)i, d[i], want[i]);
    free(d);
    free(src);
    free(want);
}

START_TEST(test_shift_pieces)
{
    const pa_type *g = pa_type_get(s, "G"), *f = pa_type_get(s, "F"), *h = pa_type_get(s, "H");
    const pa__pieces *p = pa__type_pieces(g);
    char buf[256];
    rng.s = pa_test_seed("pieces");
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p->n, 2);
    ck_assert_ptr_null(pa__type_pieces(f));        /* affine types have none */
    pa__pieces_format(p, buf, sizeof buf);
    ck_assert_msg(strstr(buf, "(7):(1)+3 over [0:7)") && strstr(buf, "(3):(1)+0 over [7:10)"), "%s", buf);
    check_copy(f, g);
    check_copy(g, f);
    check_copy(g, h);                              /* both sides pieced */
    ck_assert_int_gt(pa_copy_explain(f, g, buf, sizeof buf), 0);
    ck_assert_msg(strstr(buf, "pieces=2"), "%s", buf);
}
END_TEST

/* Past the table budget (2^22 entries): a shift of 2^23 + 5 floats was refused and copied by the walk. */
START_TEST(test_large_shift)
{
    const int64_t n = (INT64_C(1) << 23) + 5;
    char decl[256], buf[512];
    int64_t lo, hi;
    snprintf(decl, sizeof decl, "L = paged float [%lld]\nS = paged float [%lld # disp(%lld) # L]\n"
             "R = paged float [%lld # step(-1) # disp(2) # L]", (long long)n, (long long)n, (long long)(n / 3),
             (long long)n);
    PA_CK_OK(pa_declare_text(s, decl));
    const pa_type *l = pa_type_get(s, "L"), *sh = pa_type_get(s, "S"), *r = pa_type_get(s, "R");
    PA_CK_OK(pa_extent(sh, &lo, &hi));
    ck_assert_int_eq(lo, 0);
    ck_assert_int_eq(hi, n - 1);
    ck_assert_uint_eq(pa_alloc_bytes(sh), (size_t)n * 4);
    ck_assert_int_gt(pa_layout_format(sh, buf, sizeof buf), 0);
    ck_assert_msg(strchr(buf, '*') == NULL && strstr(buf, "over"), "%s", buf);
    float *a = pa_create(sh), *b = pa_create(l);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    for (int64_t i = 0; i < n; i++)
        a[i] = (float)(i & 0xffff);
    PA_CK_OK(pa_copy(l, b, sh, a));
    for (int64_t k = 0; k < n; k++)
        if (b[k] != (float)(((k + n / 3) % n) & 0xffff))
            ck_abort_msg("shift: element %lld is %g", (long long)k, b[k]);
    ck_assert_int_gt(pa_copy_explain(l, sh, buf, sizeof buf), 0);
    ck_assert_msg(strstr(buf, "pieces=2") && strstr(buf, "strategy=memcpy"), "%s", buf);
    /* a reversal that wraps: two reversed pieces */
    PA_CK_OK(pa_copy(l, b, r, a));
    for (int64_t k = 0; k < n; k++)
        if (b[k] != (float)(((2 - k) % n + n) % n & 0xffff))
            ck_abort_msg("wrapped reversal: element %lld is %g", (long long)k, b[k]);
    pa_destroy(sh, a);
    pa_destroy(l, b);
}
END_TEST

/* Wraps on two axes, wrapping steps, and random shifts and windows that wrap, against the walk. */
START_TEST(test_random_wraps)
{
    const char *fixed[] = {"[[6 # disp(4) # M_0][8 # disp(5) # M_1]]", "[10 # step(3) # F]",
                           "[10 # step(-1) # disp(2) # F]", "[[#M_0][8 # disp(6) # M_1]]", "[[3][10 # disp(9) # F]]"};
    rng.s = pa_test_seed("pieces random");
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        const pa_type *t = pa_type_parse(s, fixed[i]);
        ck_assert_msg(t != NULL, "%s: %s", fixed[i], pa_last_error());
        ck_assert_msg(pa__type_pieces(t) != NULL, "%s has no pieces", fixed[i]);
        check_pieces(t, fixed[i]);
        char plain[64];
        snprintf(plain, sizeof plain, "paged float [%lld]", (long long)pa_size(t));
        check_copy(pa_type_parse(s, plain), t);
        check_copy(t, pa_type_parse(s, plain));
    }
    for (int round = 0; round < 200; round++) {
        char decl[160];
        int64_t a = pa_rng_range(&rng, 1, 9), b = pa_rng_range(&rng, 1, 9);
        snprintf(decl, sizeof decl, "[[%lld # step(%lld) # disp(%lld) # [%lld]][%lld # disp(%lld) # M_1]]",
                 (long long)pa_rng_range(&rng, 1, 8), (long long)pa_rng_range(&rng, -2, 2),
                 (long long)pa_rng_range(&rng, -9, 9), (long long)a, (long long)b, (long long)pa_rng_range(&rng, -9, 9));
        const pa_type *t = pa_type_parse(s, decl);
        ck_assert_msg(t != NULL, "%s: %s", decl, pa_last_error());
        if (getenv("PA_TEST_VERBOSE"))
            fprintf(stderr, "%s\n", decl);
        check_pieces(t, decl);
        for (int64_t k = 0; k < pa_size(t); k++)
            ck_assert_int_eq(pa_offset(t, k), pa__offset_walk(t, k));
        char plain[64];
        snprintf(plain, sizeof plain, "paged float [%lld]", (long long)pa_size(t));
        const pa_type *pl = pa_type_parse(s, plain), *pt = pa_type_on(t, "paged");
        check_copy(pl, pt);
        check_copy(pt, pl);
    }
}
END_TEST

int main(void)
{
    Suite *su = suite_create("core_pieces");
    TCase *tc = tcase_create("pieces");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_shift_pieces);
    tcase_add_test(tc, test_large_shift);
    tcase_add_test(tc, test_random_wraps);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
