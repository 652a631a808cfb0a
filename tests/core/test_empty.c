/*
 * Empty types: a dimension of size 0 (docs/types.md).  Every declaration here was refused before ("dimension
 * size 0 is not in 1..2^50").  An empty type has no elements and no offsets: its layout is (0):(1)+0, its
 * extent 0..-1, pa_alloc_bytes 0 (no error), pa_create gives a real array (room for one element) that
 * pa_destroy frees, and a copy between two empty types moves nothing, whatever the pointers (NULL too), while
 * its checks still hold: sizes, element sizes, bound parameters.  What stays refused: negative sizes, and a
 * dimension with elements that refers to an empty one (its index would be taken modulo 0).
 */
#include <stdio.h>
#include <string.h>

#include "parray/parray.h"
#include "testutil.h"

static pa_scope *s;

static void setup(void)
{
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "E = paged float [0]\n"
                                "ROWS0 = paged float [[0][5]]\n"
                                "COLS0 = paged float [[3][0]]\n"
                                "T = paged float [[#ROWS0_1][#ROWS0_0]]\n"
                                "M = paged float [[4][5]]\n"
                                "W = paged float [0 # disp(3) # [10]]\n"
                                "R = paged float [0 # step(-1) # disp(9) # [10]]\n"
                                "MW = paged float [[0 # M_0][#M_1]]\n"
                                "D0 = paged double [0]\n"
                                "F = [0]\n"
                                "PW = <int n> paged float [n # M]"));
}

static void teardown(void)
{
    pa_scope_destroy(s);
}

static const char *const empties[] = {"E", "ROWS0", "COLS0", "T", "W", "R", "MW", "PW<0>"};

START_TEST(test_queries)
{
    const pa_type *t = pa_type_get(s, empties[_i]);
    char buf[128];
    int64_t lo = 7, hi = 7;
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(pa_size(t), 0);
    ck_assert_int_gt(pa_layout_format(t, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "(0):(1)+0");
    PA_CK_OK(pa_extent(t, &lo, &hi));
    ck_assert_int_eq(lo, 0);
    ck_assert_int_eq(hi, -1);
    pa_error_clear();
    ck_assert_uint_eq(pa_alloc_bytes(t), 0);
    ck_assert_str_eq(pa_last_error(), "");
    ck_assert_int_eq(pa_offset(t, 0), PA_BAD_OFFSET);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "whose size is 0"));
}
END_TEST

START_TEST(test_create_copy)
{
    const pa_type *t = pa_type_get(s, empties[_i]), *e = pa_type_get(s, "E");
    float *a = pa_create(t), *b = pa_create(e), x = 5;
    pa_copy_info info;
    char buf[160];
    ck_assert_msg(a != NULL && b != NULL, "pa_create(%s): %s", empties[_i], pa_last_error());
    ck_assert_ptr_ne(a, b);
    PA_CK_OK(pa_copy(t, a, e, b));
    PA_CK_OK(pa_copy(e, b, t, a));
    PA_CK_OK(pa_copy(t, NULL, e, NULL));   /* nothing is read or written */
    PA_CK_OK(pa_copy(t, &x, t, &x));
    ck_assert(x == 5);
    PA_CK_OK(pa_copy_async(t, NULL, e, NULL, NULL));
    ck_assert_int_gt(pa_copy_explain(t, e, buf, sizeof buf), 0);
    ck_assert_ptr_nonnull(strstr(buf, "nothing to move"));
    PA_CK_OK(pa_copy_query(t, e, &info));
    ck_assert_str_eq(info.strategy, "none");
    PA_CK_OK(pa_destroy(t, a));
    PA_CK_OK(pa_destroy(e, b));
}
END_TEST

/* The checks of a copy hold for empty types too. */
START_TEST(test_copy_checks)
{
    const pa_type *e = pa_type_get(s, "E"), *m = pa_type_get(s, "M");
    float buf[20];
    PA_CK_ERR(pa_copy(e, buf, m, buf), PA_ERR_SIZE);
    PA_CK_ERR(pa_copy(m, buf, e, buf), PA_ERR_SIZE);
    PA_CK_ERR(pa_copy(e, NULL, pa_type_get(s, "D0"), NULL), PA_ERR_ELM);   /* 4 and 8 bytes */
    PA_CK_ERR(pa_copy(e, NULL, pa_type_get(s, "F"), NULL), PA_ERR_ELM);   /* no element type */
    PA_CK_ERR(pa_copy(e, buf, pa_type_get(s, "PW"), buf), PA_ERR_PARAM);   /* unbound, not empty */
    ck_assert_ptr_null(pa_create(pa_type_get(s, "F")));
}
END_TEST

/* Every offset of t and of its sub-dimensions (parse_fuzz's queries): nothing may divide by an empty size. */
static void query_all(const pa_type *t, int depth)
{
    for (int64_t i = 0; i < pa_size(t) && i < 64; i++)
        ck_assert_int_ge(pa_offset(t, i), 0);
    for (int i = 0; depth < 8 && i < pa_ndim(t); i++)
        query_all(pa_type_child(t, i), depth + 1);
}

/* parse_fuzz's input that divided by zero compiling a layout (an empty dimension with sub-dimensions of elements
 * referring to an empty type, at column 4): the declaration is kept (declarations are instantiated when used),
 * its instantiation is refused, and the other dimensions of its shape answer every query. */
START_TEST(test_fuzz_empty_reference)
{
    static const char text[] = "X = [[[[[[[4]][2]][1][[0][[[2]][2]][2]]#[[[[[[2]][2]][2][[2][2][[2][[[2]][2]][2]]][0]][2]]"
                               "#[2]][[3]][2]][[2][[[2]][2]][2]]#[2]][2][[[[2]][2]][4]]#[1]][2]]";
    PA_CK_OK(pa_declare_text(s, text));
    ck_assert_ptr_null(pa_type_get(s, "X"));
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "at column 4: a dimension of 0 elements (with sub-dimensions that "
                                                  "have elements) refers to (anonymous), which has none"));
    const pa_type *ok = pa_type_parse(s, "[[[[4]][2]][1][[0][[[2]][2]][2]]]");   /* its first dimension, no reference */
    ck_assert_msg(ok != NULL, "%s", pa_last_error());
    query_all(ok, 0);
}
END_TEST

/* Empty dimensions inside types with elements: an empty sub-tree gives the whole type no elements, and a
 * dimension with elements cannot refer to an empty one. */
START_TEST(test_refused)
{
    ck_assert_ptr_null(pa_type_parse(s, "paged float [-1]"));
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "size -1 is not in 0..2^50"));
    ck_assert_ptr_null(pa_type_parse(s, "paged float [3 # E]"));
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "refers to E, which has none"));
    ck_assert_ptr_null(pa_type_parse(s, "paged float [[2][2] # disp(1) # COLS0]"));
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "which has none"));
    /* nor an empty dimension whose sub-dimensions have elements: their offsets go through its chain (found by
     * parse_fuzz, an integer division by zero in the layout's compilation before) */
    ck_assert_ptr_null(pa_type_parse(s, "paged float [[2][0][3] # E]"));
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "with sub-dimensions that have elements"));
    ck_assert_ptr_null(pa_type_parse(s, "[[[[4]][0] # [[2][0]]][2]]"));
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "refers to (anonymous), which has none"));
    /* a pure reference to an empty dimension and a window of 0 over one are fine */
    const pa_type *a = pa_type_parse(s, "paged float [[#COLS0_1][#M_1]]"), *b = pa_type_parse(s, "paged float [0 # E]");
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(pa_size(a), 0);
    ck_assert_int_eq(pa_size(b), 0);
    /* the non-empty dimensions of an empty type keep their sizes */
    ck_assert_int_eq(pa_size(pa_type_dim(pa_type_get(s, "COLS0"), "0")), 3);
}
END_TEST

/* The builder makes empty dimensions too; negative sizes stay refused. */
START_TEST(test_builder)
{
    pa_builder *b = NULL;
    PA_CK_OK(pa_builder_start(s, "paged", "double", &b));
    pa_dim *kids[2] = {pa_dim_size(b, 4), pa_dim_size(b, 0)};
    ck_assert_ptr_nonnull(kids[1]);
    const pa_type *t = pa_builder_finish(b, pa_dim_tree(b, 2, kids), "BUILT");
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(pa_size(t), 0);
    void *p = pa_create(t);
    ck_assert_ptr_nonnull(p);
    PA_CK_OK(pa_destroy(t, p));
    b = NULL;
    PA_CK_OK(pa_builder_start(s, "paged", "double", &b));
    ck_assert_ptr_null(pa_dim_size(b, -3));
    pa_builder_destroy(b);
}
END_TEST

/* A distribution with no elements: every thread passes NULL and nothing moves; pa_for over no threads is
 * refused. */
static int empty_parts(pa_ctx *ctx, void *arg)
{
    (void)ctx;
    (void)arg;
    return pa_copy(pa_type_get(s, "U"), NULL, pa_type_get(s, "G"), NULL);
}

static int never(pa_ctx *ctx, void *arg)
{
    (void)ctx;
    (void)arg;
    return PA_ERR_INVAL;
}

START_TEST(test_distributed)
{
    PA_CK_OK(pa_declare_text(s, "P = pthd [3]\nL = paged float [2]\nU = [0 # [#P][#L]]\nG = paged float [0]\n"
                                "Z = pthd [0]"));
    ck_assert_int_eq(pa_size(pa_type_get(s, "U")), 0);
    PA_CK_OK(pa_for(pa_type_get(s, "P"), empty_parts, NULL, 0));
    PA_CK_ERR(pa_for(pa_type_get(s, "Z"), never, NULL, 0), PA_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "0 threads"));
}
END_TEST

int main(void)
{
    Suite *su = suite_create("empty");
    TCase *tc = tcase_create("empty");
    tcase_add_checked_fixture(tc, setup, teardown);
    int n = (int)(sizeof empties / sizeof empties[0]);
    tcase_add_loop_test(tc, test_queries, 0, n);
    tcase_add_loop_test(tc, test_create_copy, 0, n);
    tcase_add_test(tc, test_copy_checks);
    tcase_add_test(tc, test_refused);
    tcase_add_test(tc, test_fuzz_empty_reference);
    tcase_add_test(tc, test_builder);
    tcase_add_test(tc, test_distributed);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
