/* parray tests — the decimal element types numeric(p, s) and money in declarations (parsed, formatted, created,
 * copied, explained; byte copies that would change the values refused; DLPack export refused for numeric), the
 * host calls of numeric.h (statuses and messages for bad text, overflow, division by zero), and the PL/CUDA front
 * end accepting "cuda_numeric.h" and "cuda_money.h" (registration and generated source, no GPU needed).  The
 * arithmetic itself is checked against Python's decimal module by numeric_oracle_*. */
#include <string.h>

#include "parray/dlpack.h"
#include "testutil.h"
#include <parray/kernel.h>

static pa_scope *scope;

static void setup(void)
{
    ck_assert_int_eq(pa_scope_create(NULL, &scope), PA_OK);
}

static void teardown(void)
{
    pa_scope_destroy(scope);
}

START_TEST(test_declare)
{
    char buf[256];
    PA_CK_OK(pa_declare(scope, "P", "paged numeric(18,2) [1000]"));
    const pa_type *p = pa_type_get(scope, "P");
    ck_assert_ptr_nonnull(p);
    ck_assert_str_eq(pa_elm(p), "numeric(18,2)");
    ck_assert_uint_eq(pa_elm_size(p), 16);
    ck_assert_int_gt(pa_type_format(p, buf, sizeof buf), 0);
    ck_assert_msg(strstr(buf, "numeric(18,2)"), "%s", buf);
    /* spaces inside, and the scale left out (0) */
    const pa_type *q = pa_type_parse(scope, "paged numeric ( 38 ) [[4][5]]");
    ck_assert_msg(q, "%s", pa_last_error());
    ck_assert_str_eq(pa_elm(q), "numeric(38,0)");
    const pa_type *m = pa_type_parse(scope, "pinned money [10]");
    ck_assert_msg(m, "%s", pa_last_error());
    ck_assert_uint_eq(pa_elm_size(m), 8);
    pa_builder *b = NULL;
    PA_CK_OK(pa_builder_start(scope, "paged", "numeric(9, 4)", &b));
    ck_assert_msg(b, "%s", pa_last_error());
    const pa_type *t = pa_builder_finish(b, pa_dim_size(b, 7), "B");
    ck_assert_msg(t, "%s", pa_last_error());
    ck_assert_uint_eq(pa_elm_size(t), 16);
}
END_TEST

static const struct { const char *decl, *says; } bad_decls[] = {
    {"paged numeric [10]", "needs its precision and scale"},
    {"paged numeric(39,2) [10]", "the precision is 1 to 38"},
    {"paged numeric(0) [10]", "the precision is 1 to 38"},
    {"paged numeric(5,6) [10]", "the precision is 1 to 38"},
    {"paged numeric(5,) [10]", "precision and scale"},
    {"paged numeric(5,2,1) [10]", "')'"},
};

START_TEST(test_bad_declarations)
{
    pa_error_clear();
    ck_assert_ptr_null(pa_type_parse(scope, bad_decls[_i].decl));
    ck_assert_msg(strstr(pa_last_error(), bad_decls[_i].says), "%s: %s", bad_decls[_i].decl, pa_last_error());
}
END_TEST

/* A transposing copy moves the 16-byte integers: every value arrives, and text shows it. */
START_TEST(test_create_copy_explain)
{
    char buf[1024], txt[PA_NUMERIC_TEXT_MAX];
    PA_CK_OK(pa_declare(scope, "A", "paged numeric(15,2) [[3][4]]"));
    PA_CK_OK(pa_declare(scope, "T", "paged numeric(15,2) [[#A_1][#A_0]]"));
    PA_CK_OK(pa_declare(scope, "W", "paged numeric(20,2) [[3][4]]"));
    const pa_type *a = pa_type_get(scope, "A"), *t = pa_type_get(scope, "T"), *w = pa_type_get(scope, "W");
    pa_decimal128 *x = pa_create(a), *y = pa_create(t), *z = pa_create(w);
    ck_assert(x && y && z);
    for (int i = 0; i < 12; i++) {
        snprintf(buf, sizeof buf, "%d.%02d", -600 + 97 * i, i * 7);
        PA_CK_OK(pa_numeric_parse(buf, 15, 2, &x[i]));
    }
    PA_CK_OK(pa_copy(t, y, a, x));
    PA_CK_OK(pa_copy(w, z, a, x));
    for (int64_t k = 0; k < 12; k++) {
        ck_assert(y[pa_offset(t, k)] == x[pa_offset(a, k)]);
        ck_assert(z[k] == x[k]);
    }
    ck_assert(memcmp(x, y, sizeof *x * 12) != 0);   /* transposed */
    PA_CK_OK(pa_numeric_format(x[5], 2, txt, sizeof txt));
    ck_assert_str_eq(txt, "-115.35");
    ck_assert_int_gt(pa_copy_explain(t, a, buf, sizeof buf), 0);
    ck_assert_msg(strstr(buf, "16"), "%s", buf);
    PA_CK_OK(pa_destroy(a, x));
    PA_CK_OK(pa_destroy(t, y));
    PA_CK_OK(pa_destroy(w, z));
}
END_TEST

/* Byte copies that would change the values: another scale, a smaller precision. */
START_TEST(test_copy_refused)
{
    pa_decimal128 src[4] = {1, 2, 3, 4}, dst[4] = {9, 9, 9, 9};
    const pa_type *s = pa_type_parse(scope, "paged numeric(18,2) [4]");
    const pa_type *d4 = pa_type_parse(scope, "paged numeric(18,4) [4]");
    const pa_type *d10 = pa_type_parse(scope, "paged numeric(10,2) [4]");
    const pa_type *raw = pa_type_parse(scope, "paged bytes16 [4]");
    ck_assert(s && d4 && d10 && raw);
    PA_CK_ERR(pa_copy(d4, dst, s, src), PA_ERR_ELM);
    ck_assert_msg(strstr(pa_last_error(), "the scales differ"), "%s", pa_last_error());
    PA_CK_ERR(pa_copy(d10, dst, s, src), PA_ERR_ELM);
    ck_assert_msg(strstr(pa_last_error(), "precision is smaller"), "%s", pa_last_error());
    ck_assert(dst[0] == 9 && dst[3] == 9);   /* nothing written */
    PA_CK_OK(pa_copy(raw, dst, s, src));     /* the stored integers as raw bytes */
    ck_assert(dst[3] == 4);
}
END_TEST

START_TEST(test_dlpack)
{
    pa_decimal128 buf[4] = {0};
    long long cents[4] = {1, -2, 3, 0};
    DLManagedTensor *m = NULL;
    const pa_type *n = pa_type_parse(scope, "paged numeric(18,2) [4]");
    const pa_type *mo = pa_type_parse(scope, "paged money [4]");
    ck_assert(n && mo);
    PA_CK_ERR(pa_dlpack_export(n, buf, &m), PA_ERR_ELM);
    ck_assert_msg(strstr(pa_last_error(), "DLPack has no decimal type"), "%s", pa_last_error());
    ck_assert_ptr_null(m);
    PA_CK_OK(pa_dlpack_export(mo, cents, &m));
    ck_assert_int_eq(m->dl_tensor.dtype.code, kDLInt);
    ck_assert_int_eq(m->dl_tensor.dtype.bits, 64);
    m->deleter(m);
}
END_TEST

START_TEST(test_host_calls)
{
    pa_decimal128 v = 77;
    char buf[PA_NUMERIC_TEXT_MAX];
    PA_CK_OK(pa_numeric_parse(" -123.455 ", 10, 2, &v));
    ck_assert(v == -12346);   /* half away from zero */
    PA_CK_OK(pa_numeric_format(v, 2, buf, sizeof buf));
    ck_assert_str_eq(buf, "-123.46");
    PA_CK_OK(pa_numeric_parse("99999999999999999999999999999999999999", 38, 0, &v));
    PA_CK_OK(pa_numeric_format(v, 38, buf, sizeof buf));
    ck_assert_str_eq(buf, "0.99999999999999999999999999999999999999");
    PA_CK_ERR(pa_numeric_format(v, 38, buf, 40), PA_ERR_RANGE);
    v = 77;
    PA_CK_ERR(pa_numeric_parse("1e5", 10, 2, &v), PA_ERR_PARSE);
    ck_assert_msg(strstr(pa_last_error(), "\"1e5\" is not a decimal number"), "%s", pa_last_error());
    PA_CK_ERR(pa_numeric_parse("", 10, 2, &v), PA_ERR_PARSE);
    PA_CK_ERR(pa_numeric_parse("12,5", 10, 2, &v), PA_ERR_PARSE);
    PA_CK_ERR(pa_numeric_parse("123456789.5", 10, 2, &v), PA_ERR_RANGE);
    ck_assert_msg(strstr(pa_last_error(), "more digits than numeric(10,2)"), "%s", pa_last_error());
    PA_CK_ERR(pa_numeric_parse("99999999.995", 10, 2, &v), PA_ERR_RANGE);   /* rounds up to 11 digits */
    PA_CK_ERR(pa_numeric_parse("1", 39, 2, &v), PA_ERR_INVAL);
    ck_assert(v == 77);   /* untouched on failure */

    /* the flags of the device functions as statuses */
    unsigned err = 0;
    pa_numeric big = pa_num_load((pa_decimal128)PA__NUM_LIMIT - 1, 0, &err);
    ck_assert_uint_eq(err, 0);
    pa_num_add(big, pa_num_from_long(1), &err);
    ck_assert_uint_eq(err, PA_NUMERIC_OVERFLOW);
    PA_CK_ERR(pa_numeric_status(err, "sum"), PA_ERR_RANGE);
    ck_assert_msg(strstr(pa_last_error(), "sum: overflow"), "%s", pa_last_error());
    err = 0;
    pa_num_div(big, pa_num_from_long(0), &err);
    ck_assert_uint_eq(err, PA_NUMERIC_DIVZERO);
    PA_CK_ERR(pa_numeric_status(err, "ratio"), PA_ERR_INVAL);
    ck_assert_msg(strstr(pa_last_error(), "division by zero"), "%s", pa_last_error());
    err = 0;
    pa_money_div_int(100, 0, &err);
    pa_num_from_text("abc", 3, -1, &err);
    ck_assert_uint_eq(err, PA_NUMERIC_DIVZERO | PA_NUMERIC_SYNTAX);
    PA_CK_OK(pa_numeric_status(0, "nothing"));
    err = 0;
    ck_assert(pa_money_from_text("-0.05", 5, &err) == -5 && err == 0);
    ck_assert_int_eq(pa_money_to_text(123456, buf, sizeof buf), 7);
    ck_assert_str_eq(buf, "1234.56");
    /* money <-> numeric at the default scale (cents), and to double */
    err = 0;
    pa_numeric n = pa_num_from_text("12.345", 6, -1, &err);
    ck_assert(pa_money_from_num(n, &err) == 1235 && err == 0);   /* 12.345 rounds half away from zero */
    ck_assert_int_eq(pa_num_cmp(pa_money_to_num(1235), pa_num_from_text("12.35", 5, -1, &err)), 0);
    ck_assert(pa_money_to_double(-5) == -0.05);
}
END_TEST

/* Both libraries by their PG-Strom names, and by a signature with numeric and money types. */
START_TEST(test_plcuda_front_end)
{
    pa_kernel *k;
    const char *src = "#plcuda_include \"cuda_numeric.h\"\n#plcuda_include \"cuda_money.h\"\n#plcuda_begin\n"
                      "  unsigned err = 0;\n  *retval = pa_money_add(arg1, arg2, &err);\n  pa_num_check(kcxt, err);\n"
                      "#plcuda_end\n";
    PA_CK_OK(pa_kernel_create("money_add", "money (money, money)", src, NULL, 0, &k));
    const char *gen = pa_kernel_source(k);
    ck_assert_msg(strstr(gen, "#include <parray/plcuda/numeric.h>"), "%s", gen);
    ck_assert_msg(strstr(gen, "#include <parray/plcuda/money.h>"), "%s", gen);
    ck_assert_msg(strstr(gen, "pa_money arg1"), "%s", gen);
    pa_kernel_destroy(k);
    /* no include: the signature's numeric brings the library */
    PA_CK_OK(pa_kernel_create("num_id", "numeric (numeric[])", "#plcuda_begin\n *retval = arg1[0];\n", NULL, 0, &k));
    gen = pa_kernel_source(k);
    ck_assert_msg(strstr(gen, "#include <parray/plcuda/numeric.h>"), "%s", gen);
    ck_assert_msg(strstr(gen, "const pa_decimal128 *arg1"), "%s", gen);
    pa_kernel_destroy(k);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("core_numeric");
    TCase *tc = tcase_create("numeric");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_declare);
    tcase_add_loop_test(tc, test_bad_declarations, 0, (int)(sizeof bad_decls / sizeof *bad_decls));
    tcase_add_test(tc, test_create_copy_explain);
    tcase_add_test(tc, test_copy_refused);
    tcase_add_test(tc, test_dlpack);
    tcase_add_test(tc, test_host_calls);
    tcase_add_test(tc, test_plcuda_front_end);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
