/* Bad input to the type language: each case gives a specific error code and a message that says where and
 * what, never a crash or a leak (the suite also runs under ASan in CI). */
#include <string.h>

#include "internal.h"
#include "testutil.h"

static pa_scope *s;

static void setup(void)
{
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "A = paged float [[3][3]][2]\n"
                                "WINDOW = <int y, int x> paged int [[2 # disp(y) # A_0][2 # disp(x) # A_1]]"));
}

static void teardown(void)
{
    pa_scope_destroy(s);
}

typedef struct bad { const char *decl; int code; const char *in_message; } bad;

/* Malformed declarations: rejected by pa_declare itself. */
static const bad malformed[] = {
    {"", PA_ERR_PARSE, "column 1: expected '[' to start the dimension tree, found end of declaration"},
    {"paged float [3", PA_ERR_PARSE, "column 15: expected '#' or ']'"},
    {"paged float [3]]", PA_ERR_PARSE, "column 16: expected '[' or the end of the declaration, found ']'"},
    {"paged float []", PA_ERR_PARSE, "column 14: expected a size"},
    {"paged float 3", PA_ERR_PARSE, "column 13: expected '[' to start the dimension tree, found 3"},
    {"[3 # ]", PA_ERR_PARSE, "column 6: expected a type name, disp(...), step(...), func(...) or '[' after '#'"},
    {"[3 # 5]", PA_ERR_PARSE, "column 6: expected a type name"},
    {"[disp(3]", PA_ERR_PARSE, "column 8: expected ')' to close disp("},
    {"[4 # func()]", PA_ERR_PARSE, "column 11: expected the name of an offset function"},
    {"[3 $ 4]", PA_ERR_PARSE, "column 4: unexpected character '$'"},
    {"[[1][2][3][4][5][6][7][8][9][10][11]]", PA_ERR_PARSE, "more than 10 sub-dimensions"},
    {"[99999999999999999999]", PA_ERR_PARSE, "column 2: number too large"},
    {"[3x]", PA_ERR_PARSE, "column 2: malformed number"},
    {"<int n paged float [n]", PA_ERR_PARSE, "column 20: expected a parameter type followed by its name"},
    {"<int n, int n> paged float [n]", PA_ERR_PARSE, "parameter 'n' is declared twice"},
    {"<> [3]", PA_ERR_PARSE, "column 2: expected a parameter such as 'int n'"},
    {"[(3 + 4]", PA_ERR_PARSE, "column 8: expected ')'"},
    {"[3 * ]", PA_ERR_PARSE, "column 6: expected a number, a name or '('"},
    {"pagedd float [4]", PA_ERR_MTT, "unknown memory/thread type or element type 'pagedd float'"},
    {"pagedd [4]", PA_ERR_MTT, "'pagedd' is neither a memory/thread type nor an element type"},
    {"paged floot [4]", PA_ERR_ELM, "column 7: unknown element type 'floot'"},
    {"[#Q]", PA_ERR_NAME, "column 3: type 'Q' is not declared"},
    {"[[2][2] # Q_0_1]", PA_ERR_NAME, "type 'Q' is not declared"},
};

START_TEST(test_malformed)
{
    const bad *b = &malformed[_i];
    PA_CK_ERR(pa_declare(s, "T", b->decl), b->code);
    ck_assert_msg(strstr(pa_last_error(), b->in_message) != NULL, "\"%s\": message \"%s\" lacks \"%s\"", b->decl,
                  pa_last_error(), b->in_message);
    ck_assert_ptr_null(pa_type_get(s, "T"));   /* nothing half-declared */
    ck_assert_ptr_null(pa_type_parse(s, b->decl));
}
END_TEST

START_TEST(test_too_deep)
{
    char decl[512] = "";
    for (int i = 0; i < 40; i++)
        strcat(decl, "[");
    strcat(decl, "2");
    for (int i = 0; i < 40; i++)
        strcat(decl, "]");
    PA_CK_ERR(pa_declare(s, "T", decl), PA_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "nested more than"));
}
END_TEST

/* Declarations that parse but cannot be instantiated: the error comes when a handle is taken. */
static const bad unbound[] = {
    {"[-1]", PA_ERR_RANGE, "column 1: dimension size -1 is not in 0..2^50"},
    {"[3 # [0]]", PA_ERR_RANGE, "a dimension of 3 elements refers to (anonymous), which has none"},
    {"[[2][2] # disp(1) # [[4][0]]]", PA_ERR_RANGE, "which has none"},
    {"[[3][-2]]", PA_ERR_RANGE, "column 5: dimension size -2"},
    {"[n]", PA_ERR_NAME, "column 2: 'n' is neither a parameter nor a variable of the scope"},
    {"[1024*1024*1024*1024*1024*1024*1024]", PA_ERR_RANGE, "integer overflow"},
    {"[[1048576][1048576][1048576]]", PA_ERR_RANGE, "the dimension's size overflows"},
    /* empty, but the strides of the first dimension would be 2^60 (found by dlpack_fuzz) */
    {"[[0][1048576][1048576][1048576]]", PA_ERR_RANGE, "column 23: the dimension's size overflows"},
    {"[4/(2-2)]", PA_ERR_RANGE, "column 3: division by zero"},
    {"[#A_5]", PA_ERR_DIM, "dimension A has 2 sub-dimensions, so it has no sub-dimension 5"},
    {"[#A_0_1_0]", PA_ERR_DIM, "dimension A_0_1 has 0 sub-dimensions"},
    {"[#WINDOW]", PA_ERR_PARAM, "WINDOW takes 2 parameters, 0 given"},
    {"[#WINDOW<1>]", PA_ERR_PARAM, "WINDOW takes 2 parameters, 1 given"},
    {"[4 # func(nothere)]", PA_ERR_NAME, "offset function 'nothere' is not defined"},
};

START_TEST(test_unbound)
{
    const bad *b = &unbound[_i];
    PA_CK_OK(pa_declare(s, "T", b->decl));
    pa_error_clear();
    ck_assert_ptr_null(pa_type_get(s, "T"));
    ck_assert_msg(strstr(pa_last_error(), pa_status_name(b->code)) == pa_last_error(), "\"%s\": got \"%s\"", b->decl,
                  pa_last_error());
    ck_assert_msg(strstr(pa_last_error(), b->in_message) != NULL, "\"%s\": message \"%s\" lacks \"%s\"", b->decl,
                  pa_last_error(), b->in_message);
}
END_TEST

START_TEST(test_names_and_nulls)
{
    const pa_type *A = pa_type_get(s, "A");
    int64_t lo, hi;
    char buf[16];
    PA_CK_ERR(pa_declare(s, "A", "[3]"), PA_ERR_EXISTS);
    PA_CK_ERR(pa_declare(s, "B_0", "[3]"), PA_ERR_INVAL);
    PA_CK_ERR(pa_declare(s, "1x", "[3]"), PA_ERR_INVAL);
    PA_CK_ERR(pa_declare(s, "", "[3]"), PA_ERR_INVAL);
    PA_CK_ERR(pa_declare(NULL, "X", "[3]"), PA_ERR_INVAL);
    PA_CK_ERR(pa_declare(s, NULL, "[3]"), PA_ERR_INVAL);
    PA_CK_ERR(pa_declare(s, "X", NULL), PA_ERR_INVAL);
    PA_CK_ERR(pa_declare_text(NULL, "X = [3]"), PA_ERR_INVAL);
    PA_CK_ERR(pa_scope_create(NULL, NULL), PA_ERR_INVAL);
    PA_CK_ERR(pa_scope_set_int(s, "a b", 1), PA_ERR_INVAL);
    PA_CK_ERR(pa_scope_def_func(s, "f", NULL, NULL), PA_ERR_INVAL);
    PA_CK_ERR(pa_scope_def_elm(s, "big", 5000), PA_ERR_INVAL);
    PA_CK_ERR(pa_scope_def_elm(s, "float", 4), PA_ERR_EXISTS);
    PA_CK_ERR(pa_extent(NULL, &lo, &hi), PA_ERR_INVAL);
    PA_CK_ERR(pa_args(NULL, buf, sizeof buf), PA_ERR_INVAL);
    pa_error_clear();
    ck_assert_ptr_null(pa_type_get(s, NULL));
    ck_assert_ptr_null(pa_type_get(s, "Nope"));
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "type 'Nope' is not declared"));
    ck_assert_ptr_null(pa_type_get(s, "A<1>"));
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "A takes 0 parameters, 1 given"));
    ck_assert_ptr_null(pa_type_get(s, "A +"));
    ck_assert_ptr_null(pa_type_parse(s, "<int n> [n]"));
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "anonymous type cannot have parameters"));
    ck_assert_ptr_null(pa_type_dim(A, "0_x"));
    ck_assert_ptr_null(pa_type_dim(A, "2"));
    ck_assert_ptr_null(pa_type_child(A, -1));
    ck_assert_ptr_null(pa_type_bind(A, 1, (int64_t[]){1}));
    ck_assert_int_eq(pa_size(NULL), -1);
    ck_assert_int_eq(pa_ndim(NULL), -1);
    ck_assert_ptr_null(pa_elm(NULL));
    ck_assert_ptr_null(pa_mtt(NULL));
    ck_assert_int_eq(pa_stp(NULL), 0);
    pa_error_clear();
    ck_assert_int_eq(pa_offset(NULL, 0), PA_BAD_OFFSET);
    ck_assert_str_eq(pa_status_name(PA_ERR_INVAL), "ERR_INVAL");
    ck_assert_int_eq(pa_offset(A, 18), PA_BAD_OFFSET);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "index 18 is outside A, whose size is 18"));
    ck_assert_int_eq(pa_offset(A, -1), PA_BAD_OFFSET);
    ck_assert_int_eq(pa_offset_nd(A, 4, (int64_t[]){0, 0, 0, 0}), PA_BAD_OFFSET);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "takes 1, 2 (sub-dimensions) or 3 (leaf dimensions) indices, not 4"));
    ck_assert_int_eq(pa_offset_nd(A, 3, (int64_t[]){0, 3, 0}), PA_BAD_OFFSET);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "index 3 is outside A_0_1"));
}
END_TEST

START_TEST(test_text_statements)
{
    PA_CK_ERR(pa_declare_text(s, "X = [3]\n\nY = [3 # ]"), PA_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "line 3: in \"[3 # ]\" at column 6"));
    ck_assert_ptr_nonnull(pa_type_get(s, "X"));      /* statements before the bad one stay declared */
    PA_CK_ERR(pa_declare_text(s, "hello world"), PA_ERR_PARSE);
    PA_CK_ERR(pa_declare_text(s, "var q = 3 +"), PA_ERR_PARSE);
    PA_CK_ERR(pa_declare_text(s, "parray [3]"), PA_ERR_PARSE);
}
END_TEST

START_TEST(test_builder_errors)
{
    pa_builder *b = NULL;
    PA_CK_ERR(pa_builder_start(s, "pagedx", "float", &b), PA_ERR_MTT);
    ck_assert_ptr_null(b);   /* the output is untouched on failure */
    PA_CK_ERR(pa_builder_start(s, "paged", "floaty", &b), PA_ERR_ELM);
    PA_CK_ERR(pa_builder_start(NULL, "paged", "float", &b), PA_ERR_INVAL);
    PA_CK_ERR(pa_builder_start(s, "paged", "float", NULL), PA_ERR_INVAL);
    ck_assert_ptr_null(b);
    PA_CK_OK(pa_builder_start(s, "paged", "float", &b));
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_null(pa_dim_size(b, -1));
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "size -1 is not in 0..2^50"));
    pa_dim *x = pa_dim_size(b, 3);
    ck_assert_ptr_null(pa_dim_tree(b, 11, (pa_dim *[11]){0}));
    pa_dim *t = pa_dim_tree(b, 1, &x);
    ck_assert_ptr_null(pa_dim_tree(b, 1, &x));        /* x is already used */
    ck_assert_ptr_null(pa_builder_finish(b, x, NULL)); /* frees the builder */
    PA_CK_OK(pa_builder_start(s, "paged", "float", &b));
    (void)t;
    pa_dim_size(b, 4);
    pa_builder_destroy(b);                              /* unfinished: no leak */
}
END_TEST

int main(void)
{
    Suite *su = suite_create("bad_input");
    TCase *tc = tcase_create("types");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_malformed, 0, (int)(sizeof malformed / sizeof malformed[0]));
    tcase_add_test(tc, test_too_deep);
    tcase_add_loop_test(tc, test_unbound, 0, (int)(sizeof unbound / sizeof unbound[0]));
    tcase_add_test(tc, test_names_and_nulls);
    tcase_add_test(tc, test_text_statements);
    tcase_add_test(tc, test_builder_errors);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
