/*
 * The kernels pa_cuda_map generates, without a GPU: for element types of every kind (C names, fixed-width
 * names, byte structs), layouts of one to several modes and arguments of several sizes, the source compiles
 * with NVRTC to a cubin for sm_90 that holds the entry; the layout is baked in as constants; an error in the
 * user's function is reported at the user's own line.  Then the public call's argument checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "rtc.h"
#include "async_sources.h"
#include "waits_sources.h"
#include "testutil.h"
#include <parray/cuda.h>

static const char *fn_src =
    "__device__ void bump(pa_elm_t *x, long long k, const void *arg)\n"
    "{\n"
    "    (void)k; (void)arg;\n"
    "    unsigned char *b = (unsigned char *)x;\n"
    "    b[0] += 1;\n"
    "}\n";

/* Compiles the map kernel of decl for sm_90 and checks the cubin. */
static char *compile(pa_scope *s, const char *decl, const char *src, size_t words, int expect)
{
    const pa_type *t = pa_type_parse(s, decl);
    ck_assert_msg(t != NULL, "%s: %s", decl, pa_last_error());
    char *code = pa_cuda__map_source(t, pa__type_layout(t), src, "bump", words);
    ck_assert_ptr_nonnull(code);
    const pa_cuda__image *img;
    pa_error_clear();
    int st = pa_cuda__rtc_compile(decl, code, NULL, 0, 90, &img);
    ck_assert_msg(st == expect, "%s: %s (%s)\n%s", decl, pa_status_name(st), pa_last_error(), code);
    if (st == PA_OK) {
        size_t n;
        const unsigned char *p = pa_cuda__image_data(img, &n);
        ck_assert(n > 64 && p[0] == 0x7f && p[1] == 'E');
        ck_assert(memmem(p, n, "pa_map_kernel", 13) != NULL);
    }
    return code;
}

START_TEST(element_types_and_layouts)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare(s, "A", "dmem float [[300][200]]"));
    const char *decls[] = {"dmem float [1000]", "dmem int [[#A_1][#A_0]]", "dmem int64_t [[7][9][11]]",
                           "dmem uint8_t [64]", "dmem bytes12 [[4][5]]", "dmem float4 [16]", "dmem double [[3][5]]",
                           "dmem bool [8]", "dmem half [8]", "dmem unsigned long long [4]"};
    for (size_t i = 0; i < sizeof decls / sizeof decls[0]; i++)
        free(compile(s, decls[i], fn_src, 1 + i % 3, PA_OK));
    /* The transposition's layout is in the source as constants: strides 1 and 200 over sizes 200 and 300. */
    char *code = compile(s, "dmem float [[#A_1][#A_0]]", fn_src, 1, PA_OK);
    ck_assert_msg(strstr(code, "int q = k") && strstr(code, "% 300) * 200") && strstr(code, "q * 1;"), "%s", code);
    free(code);
    /* Past 2^31 elements the index arithmetic is 64-bit. */
    code = compile(s, "dmem char [3000000000]", fn_src, 1, PA_OK);
    ck_assert_msg(strstr(code, "long long q = k"), "%s", code);
    free(code);
    pa_scope_destroy(s);
}
END_TEST

START_TEST(errors_at_user_lines)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    const char *bad = "__device__ void bump(pa_elm_t *x, long long k, const void *arg)\n"
                      "{\n"
                      "    *x = no_such_name;\n"
                      "}\n";
    free(compile(s, "dmem int [16]", bad, 1, PA_ERR_COMPILE));
    ck_assert_msg(strstr(pa_last_error(), "bump(3)") || strstr(pa_last_error(), "bump\", line 3") ||
                  strstr(pa_last_error(), "bump:3"), "%s", pa_last_error());
    ck_assert_msg(strstr(pa_last_error(), "no_such_name"), "%s", pa_last_error());
    pa_scope_destroy(s);
}
END_TEST

/* The suites cuda_async's and cuda_waits's kernels and element functions (async_sources.h, waits_sources.h)
 * compile, so that on the GPU only their running is tested. */
START_TEST(async_suite_sources)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare(s, "D", "dmem int [[64][96]]"));
    const struct { const char *decl, *src, *fn; size_t words; } maps[] = {
        {"dmem int [1]", async_slow_src, "slow", 1}, {"D", async_inc_src, "inc", 1},
        {"dmem int [[40 # disp(5) # D_1][30 # disp(7) # D_0]]", async_affine_src, "f", 1},
        {"D", async_neg_src, "neg", 1}, {"dmem int [1000]", waits_inc_src, "inc", 1},
        {"dmem int [1000]", waits_trap_src, "boom", 1},
    };
    const pa_cuda__image *img;
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        const pa_type *t = pa_type_get(s, maps[i].decl);
        t = t ? t : pa_type_parse(s, maps[i].decl);
        ck_assert_msg(t, "%s", pa_last_error());
        char *code = pa_cuda__map_source(t, pa__type_layout(t), maps[i].src, maps[i].fn, maps[i].words);
        ck_assert_ptr_nonnull(code);
        int st = pa_cuda__rtc_compile(maps[i].fn, code, NULL, 0, 90, &img);
        ck_assert_msg(st == PA_OK, "%s: %s\n%s", maps[i].fn, pa_last_error(), code);
        free(code);
    }
    PA_CK_OK(pa_cuda__rtc_compile("async_for", async_scale_src, NULL, 0, 90, &img));
    size_t n;
    const unsigned char *p = pa_cuda__image_data(img, &n);
    ck_assert(memmem(p, n, "scale", 5) != NULL && memmem(p, n, "spin", 4) != NULL);
    PA_CK_OK(pa_cuda__rtc_compile("waits", waits_kernels_src, NULL, 0, 90, &img));
    p = pa_cuda__image_data(img, &n);
    ck_assert(memmem(p, n, "trap", 4) != NULL && memmem(p, n, "spin", 4) != NULL);
    pa_scope_destroy(s);
}
END_TEST

START_TEST(argument_checks)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    int x[4];
    char big[4096];
    PA_CK_ERR(pa_cuda_map(pa_type_parse(s, "paged int [4]"), x, fn_src, "bump", NULL, 0), PA_ERR_MTT);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "dmem"));
    PA_CK_ERR(pa_cuda_map(pa_type_parse(s, "dmem [4]"), x, fn_src, "bump", NULL, 0), PA_ERR_ELM);
    PA_CK_ERR(pa_cuda_map(pa_type_parse(s, "dmem int [4]"), x, fn_src, "bump", big, sizeof big), PA_ERR_RANGE);
    PA_CK_ERR(pa_cuda_map(pa_type_parse(s, "dmem int [4]"), x, NULL, "bump", NULL, 0), PA_ERR_INVAL);
    PA_CK_ERR(pa_cuda_map(pa_type_parse(s, "dmem int [4]"), x, fn_src, "bump", NULL, 8), PA_ERR_INVAL);
    /* pa_map, the host map, points dmem users to pa_cuda_map. */
    pa_error_clear();
    ck_assert_int_ne(pa_map(pa_type_parse(s, "dmem int [4]"), x, NULL, NULL), PA_OK);
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda_map_source");
    TCase *tc = tcase_create("map_source");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, element_types_and_layouts);
    tcase_add_test(tc, errors_at_user_lines);
    tcase_add_test(tc, async_suite_sources);
    tcase_add_test(tc, argument_checks);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
