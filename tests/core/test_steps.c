/*
 * Steps and reversals (docs/types.md): "# step(k)" multiplies the index, so NumPy's sliced views are types
 * whose layouts have (negative) strides, never gather tables, for any axis length.  Every view of the table in
 * the docs is checked here: its compiled layout's text, every offset against NumPy's formula and the walk,
 * and a copy out of it against a reference loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

static pa_scope *s;

static void setup(void)
{
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "V = paged float [10]\n"
                                "M = paged float [[6][8]]\n"
                                "N = paged float [[3][4]][5]\n"
                                "T = paged float [[#N_0_1][#N_0_0]][#N_1]"));
}

static void teardown(void)
{
    pa_scope_destroy(s);
}

/* A NumPy view of V (10) or M (6x8, row-major): per axis start, step and count; the offset of (i, j) is
 * sum(start + i*step) * the axis's stride. */
typedef struct view {
    const char *numpy, *decl, *layout;
    int naxes;
    int64_t start[2], step[2], count[2], stride[2];
} view;

static const view views[] = {
    {"v[::-1]", "[10 # step(-1) # disp(9) # V]", "(10):(-1)+9", 1, {9}, {-1}, {10}, {1}},
    {"v[::2]", "[5 # step(2) # V]", "(5):(2)+0", 1, {0}, {2}, {5}, {1}},
    {"v[1::3]", "[3 # step(3) # disp(1) # V]", "(3):(3)+1", 1, {1}, {3}, {3}, {1}},
    {"v[8:2:-2]", "[3 # step(-2) # disp(8) # V]", "(3):(-2)+8", 1, {8}, {-2}, {3}, {1}},
    {"v[2:7]", "[5 # disp(2) # V]", "(5):(1)+2", 1, {2}, {1}, {5}, {1}},
    {"m[::-1]", "[[6 # step(-1) # disp(5) # M_0][#M_1]]", "(6,8):(-8,1)+40", 2, {5, 0}, {-1, 1}, {6, 8}, {8, 1}},
    {"m[:, ::-1]", "[[#M_0][8 # step(-1) # disp(7) # M_1]]", "(6,8):(8,-1)+7", 2, {0, 7}, {1, -1}, {6, 8}, {8, 1}},
    {"m[::-1, ::-1]", "[[6 # step(-1) # disp(5) # M_0][8 # step(-1) # disp(7) # M_1]]", "(48):(-1)+47", 2,
     {5, 7}, {-1, -1}, {6, 8}, {8, 1}},
    {"m[::2, 1::3]", "[[3 # step(2) # M_0][3 # step(3) # disp(1) # M_1]]", "(3,3):(16,3)+1", 2, {0, 1}, {2, 3},
     {3, 3}, {8, 1}},
    {"m[1:5, 2:7]", "[[4 # disp(1) # M_0][5 # disp(2) # M_1]]", "(4,5):(8,1)+10", 2, {1, 2}, {1, 1}, {4, 5}, {8, 1}},
    {"m.T", "[[#M_1][#M_0]]", "(8,6):(1,8)+0", 2, {0, 0}, {1, 1}, {8, 6}, {1, 8}},
    {"m.T[::-1]", "[[8 # step(-1) # disp(7) # M_1][#M_0]]", "(8,6):(-1,8)+7", 2, {7, 0}, {-1, 1}, {8, 6}, {1, 8}},
    {"m[5:0:-2, ::-3]", "[[3 # step(-2) # disp(5) # M_0][3 # step(-3) # disp(7) # M_1]]", "(3,3):(-16,-3)+47", 2,
     {5, 7}, {-2, -3}, {3, 3}, {8, 1}},
};

static int64_t numpy_offset(const view *v, int64_t k)
{
    int64_t i = v->naxes == 2 ? k / v->count[1] : k, j = v->naxes == 2 ? k % v->count[1] : 0, off;
    off = (v->start[0] + i * v->step[0]) * v->stride[0];
    if (v->naxes == 2)
        off += (v->start[1] + j * v->step[1]) * v->stride[1];
    return off;
}

START_TEST(test_numpy_views)
{
    const view *v = &views[_i];
    const pa_type *t = pa_type_parse(s, v->decl);
    char lay[128];
    ck_assert_msg(t != NULL, "%s: %s", v->decl, pa_last_error());
    ck_assert_int_gt(pa_layout_format(t, lay, sizeof lay), 0);
    ck_assert_msg(strcmp(lay, v->layout) == 0, "%s (%s): layout %s, expected %s", v->numpy, v->decl, lay, v->layout);
    for (int64_t k = 0; k < pa_size(t); k++) {
        ck_assert_int_eq(pa_offset(t, k), numpy_offset(v, k));
        ck_assert_int_eq(pa__offset_walk(t, k), numpy_offset(v, k));
    }
    /* Copied out into a plain array: element k is the view's k-th. */
    float src[48], dst[48];
    char plain[64];
    for (int i = 0; i < 48; i++)
        src[i] = (float)i;
    memset(dst, 0xA5, sizeof dst);
    snprintf(plain, sizeof plain, "paged float [%lld]", (long long)pa_size(t));
    const pa_type *p = pa_type_parse(s, plain);
    PA_CK_OK(pa_copy(p, dst, t, src));
    for (int64_t k = 0; k < pa_size(t); k++)
        ck_assert_float_eq(dst[k], (float)numpy_offset(v, k));
    /* and back into the view: the elements outside it keep their values */
    float back[48];
    for (int i = 0; i < 48; i++)
        back[i] = -1.0f;
    PA_CK_OK(pa_copy(t, back, p, dst));
    for (int i = 0; i < 48; i++) {
        int in = 0;
        for (int64_t k = 0; k < pa_size(t); k++)
            in |= numpy_offset(v, k) == i;
        ck_assert_float_eq(back[i], in ? (float)i : -1.0f);
    }
}
END_TEST

/* A reversal through a target that is not one affine mode (a transposed pair of dimensions): still strides. */
START_TEST(test_reversal_through_modes)
{
    const char *decls[] = {"[12 # step(-1) # disp(11) # N_0]", "[12 # step(-1) # disp(11) # T_0]",
                           "[4 # step(-3) # disp(9) # T_0]", "[[3 # step(-1) # disp(2) # T_0_1][#T_0_0]]"};
    for (size_t d = 0; d < sizeof decls / sizeof decls[0]; d++) {
        const pa_type *t = pa_type_parse(s, decls[d]);
        char lay[128];
        ck_assert_msg(t != NULL, "%s: %s", decls[d], pa_last_error());
        pa_layout_format(t, lay, sizeof lay);
        ck_assert_msg(strchr(lay, '*') == NULL, "%s compiled to a table: %s", decls[d], lay);
        for (int64_t k = 0; k < pa_size(t); k++)
            ck_assert_int_eq(pa_offset(t, k), pa__offset_walk(t, k));
    }
}
END_TEST

/* Axes of any length: a reversal of 2^40 elements (the wrap trick needed a type of n*(n-1) elements, so stopped
 * near 3.3e7), checked at its ends without touching memory. */
START_TEST(test_long_axes)
{
    const int64_t n = INT64_C(1) << 40;
    char decl[128], lay[128];
    snprintf(decl, sizeof decl, "float [%lld # step(-1) # disp(%lld)]", (long long)n, (long long)(n - 1));
    const pa_type *t = pa_type_parse(s, decl);
    int64_t lo, hi;
    ck_assert_msg(t != NULL, "%s", pa_last_error());
    pa_layout_format(t, lay, sizeof lay);
    ck_assert_str_eq(lay, "(1099511627776):(-1)+1099511627775");
    ck_assert_int_eq(pa_offset(t, 0), n - 1);
    ck_assert_int_eq(pa_offset(t, n - 1), 0);
    ck_assert_int_eq(pa__offset_walk(t, 12345), n - 1 - 12345);
    PA_CK_OK(pa_extent(t, &lo, &hi));
    ck_assert_int_eq(lo, 0);
    ck_assert_int_eq(hi, n - 1);
    ck_assert_int_eq(pa_stp(t), -1);
    /* 2^26 + 3 floats reversed through a declared array: made and copied (the old limit was about 3.3e7). */
    const int64_t m = (INT64_C(1) << 25) + 3;
    snprintf(decl, sizeof decl, "R = paged float [%lld # step(-1) # disp(%lld) # L]", (long long)m, (long long)(m - 1));
    char ldecl[64];
    snprintf(ldecl, sizeof ldecl, "L = paged float [%lld]", (long long)m);
    PA_CK_OK(pa_declare_text(s, ldecl));
    PA_CK_OK(pa_declare_text(s, decl));
    const pa_type *r = pa_type_get(s, "R"), *l = pa_type_get(s, "L");
    float *a = pa_create(l), *b = pa_create(l);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    for (int64_t i = 0; i < m; i++)
        a[i] = (float)(i % 1000003);
    PA_CK_OK(pa_copy(l, b, r, a));
    for (int64_t i = 0; i < m; i++)
        if (b[i] != (float)((m - 1 - i) % 1000003))
            ck_abort_msg("reversal of %lld floats: element %lld is %g", (long long)m, (long long)i, b[i]);
    pa_destroy(l, a);
    pa_destroy(l, b);
}
END_TEST

/* The builder writes the same chains: pa_dim_then_step. */
START_TEST(test_builder_step)
{
    pa_builder *b = NULL;
    PA_CK_OK(pa_builder_start(s, "paged", "float", &b));
    const pa_type *m0 = pa_type_get(s, "M_0"), *m1 = pa_type_get(s, "M_1");
    pa_dim *r = pa_dim_size(b, 6), *c = pa_dim_size(b, 4);
    PA_CK_OK(pa_dim_then_step(r, -1));
    PA_CK_OK(pa_dim_then_disp(r, 5));
    PA_CK_OK(pa_dim_then_ref(r, m0));
    PA_CK_OK(pa_dim_then_step(c, 2));
    PA_CK_OK(pa_dim_then_ref(c, m1));
    pa_dim *kids[2] = {r, c};
    const pa_type *t = pa_builder_finish(b, pa_dim_tree(b, 2, kids), "RB");
    char lay[64], text[128];
    ck_assert_msg(t != NULL, "%s", pa_last_error());
    pa_layout_format(t, lay, sizeof lay);
    ck_assert_str_eq(lay, "(6,4):(-8,2)+40");
    pa_type_format(t, text, sizeof text);
    ck_assert_str_eq(text, "paged float [6 # step(-1) # disp(5) # M_0][4 # step(2) # M_1]");
}
END_TEST

/* A step that makes an offset overflow is an error, not a wrapped offset. */
START_TEST(test_step_overflow)
{
    const pa_type *t = pa_type_parse(s, "[3 # step(4611686018427387904)]");
    int64_t lo, hi;
    ck_assert_ptr_nonnull(t);
    PA_CK_ERR(pa_extent(t, &lo, &hi), PA_ERR_RANGE);
    pa_error_clear();
    ck_assert_int_eq(pa_offset(t, 2), PA_BAD_OFFSET);
    ck_assert_msg(strstr(pa_last_error(), "ERR_RANGE") != NULL, "%s", pa_last_error());
    PA_CK_ERR(pa_declare(s, "Z", "[3 # step(]"), PA_ERR_PARSE);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("core_steps");
    TCase *tc = tcase_create("steps");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_numpy_views, 0, (int)(sizeof views / sizeof views[0]));
    tcase_add_test(tc, test_reversal_through_modes);
    tcase_add_test(tc, test_long_axes);
    tcase_add_test(tc, test_builder_step);
    tcase_add_test(tc, test_step_overflow);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
