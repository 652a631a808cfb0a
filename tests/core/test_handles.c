/*
 * Handles: the unbound handle of a parameterised type's bare name (pa_type_get "WINDOW"), which pa_type_bind
 * binds and every query refuses with PA_ERR_PARAM; and the manual's "T on<mtt>" (pa_type_on, in reference
 * text and in declarations).
 */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

static pa_scope *s;

static void setup(void)
{
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "DATA = paged int [[6][6]]\n"
                                "WINDOW = <int y, int x> paged int [[2 # disp(y) # DATA_0][4 # disp(x) # DATA_1]]\n"
                                "A = paged float [[3][4]]\n"
                                "X = float [[3][4]]"));
}

static void teardown(void)
{
    pa_scope_destroy(s);
}

#define CK_PARAM(expr)                                                                                   \
    do {                                                                                                 \
        pa_error_clear();                                                                                \
        expr;                                                                                            \
        ck_assert_msg(strncmp(pa_last_error(), "ERR_PARAM", 9) == 0, "%s set \"%s\"", #expr,            \
                      pa_last_error());                                                                  \
        ck_assert_msg(strstr(pa_last_error(), "WINDOW has parameters <int y, int x>"), "%s: \"%s\"", #expr, \
                      pa_last_error());                                                                  \
    } while (0)

START_TEST(test_unbound_handle)
{
    const pa_type *w = pa_type_get(s, "WINDOW");
    char buf[64];
    int64_t lo, hi, idx[2] = {0, 0};
    int data[36], out[8];
    ck_assert_msg(w != NULL, "%s", pa_last_error());
    ck_assert_ptr_eq(pa_type_get(s, "WINDOW"), w);             /* one handle per declaration */
    ck_assert_str_eq(pa_type_name(w), "WINDOW");
    ck_assert_int_eq(pa_nparams(w), 2);
    ck_assert_int_gt(pa_args(w, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "int y, int x");
    ck_assert_int_gt(pa_vars(w, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "y, x");
    ck_assert_str_eq(pa_mtt(w), "paged");
    ck_assert_str_eq(pa_elm(w), "int");
    /* every query that needs the parameters refuses */
    CK_PARAM(ck_assert_int_eq(pa_size(w), -1));
    CK_PARAM(ck_assert_int_eq(pa_ndim(w), -1));
    CK_PARAM(ck_assert_int_eq(pa_offset(w, 0), PA_BAD_OFFSET));
    CK_PARAM(ck_assert_int_eq(pa_offset_nd(w, 2, idx), PA_BAD_OFFSET));
    CK_PARAM(ck_assert_int_eq(pa_offset_on(w, PA_ON_LOCAL, 0), PA_BAD_OFFSET));
    CK_PARAM(ck_assert_int_eq(pa_stp(w), 0));
    CK_PARAM(ck_assert_int_eq(pa_extent(w, &lo, &hi), PA_ERR_PARAM));
    CK_PARAM(ck_assert_int_eq(pa_layout_format(w, buf, sizeof buf), PA_ERR_PARAM));
    CK_PARAM(ck_assert_int_eq(pa_type_format(w, buf, sizeof buf), PA_ERR_PARAM));
    CK_PARAM(ck_assert_int_eq(pa_para(w, buf, sizeof buf), PA_ERR_PARAM));
    CK_PARAM(ck_assert_ptr_null(pa_type_dim(w, "0")));
    CK_PARAM(ck_assert_ptr_null(pa_type_child(w, 0)));
    CK_PARAM(ck_assert_ptr_null(pa_create(w)));
    CK_PARAM(ck_assert_ptr_null(pa_type_on(w, "pinned")));
    memset(out, 0x5A, sizeof out);
    const pa_type *plain = pa_type_parse(s, "paged int [8]");
    CK_PARAM(ck_assert_int_eq(pa_copy(plain, out, w, data), PA_ERR_PARAM));
    for (size_t i = 0; i < sizeof out; i++)
        ck_assert_int_eq(((unsigned char *)out)[i], 0x5A);
    /* pa_type_bind starts from it */
    int64_t args[2] = {1, 2};
    const pa_type *b = pa_type_bind(w, 2, args);
    ck_assert_msg(b != NULL, "%s", pa_last_error());
    ck_assert_ptr_eq(b, pa_type_get(s, "WINDOW<1,2>"));
    ck_assert_int_eq(pa_size(b), 8);
    ck_assert_int_eq(pa_offset(b, 0), 8);
    PA_CK_ERR(pa_type_bind(w, 1, args) == NULL ? PA_ERR_PARAM : PA_OK, PA_ERR_PARAM);
    /* in declarations the bare name is still an error: a reference needs its values */
    PA_CK_OK(pa_declare(s, "BAD", "[#WINDOW]"));
    pa_error_clear();
    ck_assert_ptr_null(pa_type_get(s, "BAD"));
    ck_assert_msg(strstr(pa_last_error(), "WINDOW takes 2 parameters, 0 given"), "%s", pa_last_error());
}
END_TEST

START_TEST(test_type_on)
{
    const pa_type *a = pa_type_get(s, "A"), *p = pa_type_on(a, "pinned");
    char l1[64], l2[64], text[64];
    ck_assert_msg(p != NULL, "%s", pa_last_error());
    ck_assert_str_eq(pa_mtt(p), "pinned");
    ck_assert_str_eq(pa_elm(p), "float");
    ck_assert_str_eq(pa_type_name(p), "A on<pinned>");
    ck_assert_str_eq(pa_type_name(pa_type_child(p, 1)), "A_1 on<pinned>");
    ck_assert_str_eq(pa_mtt(pa_type_child(p, 1)), "pinned");
    ck_assert_int_eq(pa_size(p), 12);
    pa_layout_format(a, l1, sizeof l1);
    pa_layout_format(p, l2, sizeof l2);
    ck_assert_str_eq(l1, l2);
    ck_assert_ptr_eq(pa_type_on(a, "paged"), a);
    pa_error_clear();
    ck_assert_ptr_null(pa_type_on(a, "nonsense"));
    ck_assert_msg(strncmp(pa_last_error(), "ERR_MTT", 7) == 0, "%s", pa_last_error());
    /* in reference text and in declarations */
    const pa_type *d = pa_type_get(s, "A on<dmem>");
    ck_assert_msg(d != NULL, "%s", pa_last_error());
    ck_assert_str_eq(pa_mtt(d), "dmem");
    const pa_type *wp = pa_type_get(s, "WINDOW<1,2> on<pinned>");
    ck_assert_msg(wp != NULL, "%s", pa_last_error());
    ck_assert_str_eq(pa_mtt(wp), "pinned");
    ck_assert_int_eq(pa_offset(wp, 5), pa_offset(pa_type_get(s, "WINDOW<1,2>"), 5));
    PA_CK_OK(pa_declare(s, "B", "[[#A_1 on<dmem>][#A_0 on<dmem>]]"));
    const pa_type *bt = pa_type_get(s, "B");
    ck_assert_str_eq(pa_mtt(bt), "dmem");
    ck_assert_int_eq(pa_offset(bt, 1), 4);     /* the transpose: B(0, 1) = A(1, 0) */
    ck_assert_int_gt(pa_type_format(bt, text, sizeof text), 0);
    ck_assert_str_eq(text, "dmem float [#A_1 on<dmem>][#A_0 on<dmem>]");
    PA_CK_ERR(pa_declare(s, "C", "[#A on<nonsense>]"), PA_ERR_MTT);
    PA_CK_ERR(pa_declare(s, "C", "[#A on<dmem]"), PA_ERR_PARSE);
    ck_assert_ptr_null(pa_type_get(s, "A on<dmem> x"));
    /* an "any" type placed in paged memory: created and copied like a declared paged type */
    const pa_type *x = pa_type_get(s, "X"), *xp = pa_type_on(x, "paged");
    float *m = pa_create(xp), src[12];
    ck_assert_ptr_null(pa_create(x));
    ck_assert_ptr_nonnull(m);
    for (int i = 0; i < 12; i++)
        src[i] = (float)i;
    PA_CK_OK(pa_copy(xp, m, pa_type_get(s, "A"), src));
    for (int i = 0; i < 12; i++)
        ck_assert_float_eq(m[i], (float)i);
    PA_CK_OK(pa_destroy(xp, m));
}
END_TEST

int main(void)
{
    Suite *su = suite_create("core_handles");
    TCase *tc = tcase_create("handles");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_unbound_handle);
    tcase_add_test(tc, test_type_on);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
