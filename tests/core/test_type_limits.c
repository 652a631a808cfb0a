/*
 * The type model at its limits (issue 19's defects, each of which this suite caught before it was fixed):
 * offsets near the 64-bit limits are PA_ERR_RANGE, never wrapped, and PA_BAD_OFFSET always comes with an error;
 * the builder refuses a sub-dimension given twice and trees deeper than the parser's limit; scopes find names
 * by hashing (100,000 declarations in well under a second); one rule for dimension paths in every call.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "testutil.h"
#include <parray/cuda.h>
#include "internal.h"
#include "type_internal.h"

static pa_scope *s;

static void setup(void)
{
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare(s, "A", "paged float [[3][3]]"));
}

static void teardown(void)
{
    pa_scope_destroy(s);
}

static int64_t returns_max(int64_t i, void *ctx)
{
    (void)i;
    (void)ctx;
    return INT64_MAX;
}

/* Every way to an offset beyond +-2^62: pa_offset gives PA_BAD_OFFSET with PA_ERR_RANGE set, pa_extent and
 * pa_copy PA_ERR_RANGE (nothing written), pa_create NULL. */
static void check_out_of_range(const pa_type *t, const char *what)
{
    int64_t lo = 7, hi = 7;
    float buf[16], src[16] = {0};
    ck_assert_msg(t != NULL, "%s: %s", what, pa_last_error());
    for (int64_t k = 0; k < pa_size(t) && k < 4; k++) {
        pa_error_clear();
        int64_t o = pa_offset(t, k);
        ck_assert_msg(o == PA_BAD_OFFSET, "%s: offset(%lld) = %lld", what, (long long)k, (long long)o);
        ck_assert_msg(strncmp(pa_last_error(), "ERR_RANGE", 9) == 0, "%s: offset(%lld) set \"%s\"", what,
                      (long long)k, pa_last_error());
    }
    PA_CK_ERR(pa_extent(t, &lo, &hi), PA_ERR_RANGE);
    ck_assert_int_eq(lo, 7);
    ck_assert_ptr_null(pa_create(t));
    char plain[64];
    snprintf(plain, sizeof plain, "paged float [%lld]", (long long)pa_size(t));
    memset(buf, 0xA5, sizeof buf);
    PA_CK_ERR(pa_copy(pa_type_parse(s, plain), buf, t, src), PA_ERR_RANGE);
    for (size_t i = 0; i < sizeof buf; i++)
        ck_assert_int_eq(((unsigned char *)buf)[i], 0xA5);
}

START_TEST(test_offsets_overflow)
{
    PA_CK_OK(pa_scope_def_func(s, "big", returns_max, NULL));
    PA_CK_OK(pa_declare(s, "P", "<long n> paged float [3 # disp(n)]"));
    PA_CK_OK(pa_declare(s, "Q", "<long n> paged float [[3][3] # disp(n)]"));
    check_out_of_range(pa_type_parse(s, "paged float [3 # disp(9223372036854775807)]"), "disp(INT64_MAX)");
    check_out_of_range(pa_type_parse(s, "paged float [3 # disp(-9223372036854775807 - 1)]"), "disp(INT64_MIN)");
    check_out_of_range(pa_type_parse(s, "paged float [3 # disp(4611686018427387905)]"), "disp(2^62 + 1)");
    check_out_of_range(pa_type_get(s, "P<9223372036854775807>"), "P<INT64_MAX>");
    check_out_of_range(pa_type_get(s, "Q<9223372036854775800>"), "Q<INT64_MAX - 7>");
    check_out_of_range(pa_type_parse(s, "paged float [2 # func(big) # disp(1)]"), "func = INT64_MAX, disp(1)");
    check_out_of_range(pa_type_parse(s, "paged float [2 # func(big)]"), "func = INT64_MAX");
    check_out_of_range(pa_type_parse(s, "paged float [4 # disp(2) # step(3074457345618258602)]"), "step(INT64_MAX / 3)");
    /* A reference wraps its index first: a huge displacement before one is fine. */
    const pa_type *w = pa_type_parse(s, "paged float [3 # disp(9223372036854775800) # [10]]");
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(pa_offset(w, 0), 9223372036854775800 % 10);
    ck_assert_int_eq(pa_offset(w, 2), (9223372036854775800 % 10 + 2) % 10);
    /* the largest offsets allowed work */
    const pa_type *edge = pa_type_parse(s, "float [2 # disp(4611686018427387903)]");
    ck_assert_int_eq(pa_offset(edge, 0), INT64_C(4611686018427387903));
}
END_TEST

START_TEST(test_builder_child_twice)
{
    pa_builder *b = NULL;
    PA_CK_OK(pa_builder_start(s, "paged", "float", &b));
    pa_dim *x = pa_dim_size(b, 3);
    pa_dim *twice[2] = {x, x};
    pa_error_clear();
    ck_assert_ptr_null(pa_dim_tree(b, 2, twice));
    ck_assert_msg(strstr(pa_last_error(), "sub-dimensions 0 and 1 are the same dimension"), "%s", pa_last_error());
    /* x is still free to use once */
    pa_dim *y = pa_dim_size(b, 2), *ok[2] = {x, y};
    const pa_type *t = pa_builder_finish(b, pa_dim_tree(b, 2, ok), NULL);
    ck_assert_msg(t != NULL, "%s", pa_last_error());
    ck_assert_int_eq(pa_size(t), 6);
}
END_TEST

/* A builder tree may nest as deep as a declaration (32 brackets) and no deeper; a refused attempt 100,000
 * deep leaves a builder that frees without deep recursion. */
START_TEST(test_builder_depth)
{
    pa_builder *b = NULL;
    PA_CK_OK(pa_builder_start(s, "paged", "float", &b));
    pa_dim *d = pa_dim_size(b, 1);
    int depth = 1;
    for (int i = 0; i < 100000; i++) {
        pa_dim *up = pa_dim_tree(b, 1, &d);
        if (!up) {
            ck_assert_msg(strncmp(pa_last_error(), "ERR_RANGE", 9) == 0, "%s", pa_last_error());
            break;
        }
        d = up;
        depth++;
    }
    ck_assert_int_eq(depth, 32);
    const pa_type *t = pa_builder_finish(b, d, NULL);
    ck_assert_msg(t != NULL, "%s", pa_last_error());
    ck_assert_int_eq(pa_size(t), 1);
    /* the parser's limit is the same */
    char decl[256] = "", tail[128] = "";
    for (int i = 0; i < 32; i++)
        strcat(decl, "[");
    strcat(decl, "1");
    for (int i = 0; i < 32; i++)
        strcat(tail, "]");
    strcat(decl, tail);
    ck_assert_ptr_nonnull(pa_type_parse(s, decl));
    char deeper[256];
    snprintf(deeper, sizeof deeper, "[%s]", decl);
    ck_assert_ptr_null(pa_type_parse(s, deeper));
}
END_TEST

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);   /* CPU time: the machine may be shared */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* n declarations, each referring to one before it, and n variables, into a fresh scope; then every seventh
 * looked up.  \return the seconds the declarations and variables took. */
static double declare_many(int n)
{
    char name[32], decl[64];
    pa_scope *sc;
    int64_t v;
    PA_CK_OK(pa_scope_create(NULL, &sc));
    double t0 = now();
    PA_CK_OK(pa_declare(sc, "T0", "paged float [4]"));
    for (int i = 1; i < n; i++) {
        snprintf(name, sizeof name, "T%d", i);
        snprintf(decl, sizeof decl, "[2 # disp(1) # T%d]", i / 2);
        PA_CK_OK(pa_declare(sc, name, decl));
    }
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "V%d", i);
        PA_CK_OK(pa_scope_set_int(sc, name, i));
    }
    double t1 = now();
    for (int i = 0; i < n; i += 7) {
        snprintf(name, sizeof name, "T%d", i);
        ck_assert_ptr_nonnull(pa_type_get(sc, name));
        snprintf(name, sizeof name, "V%d", i);
        PA_CK_OK(pa_scope_get_int(sc, name, &v));
        ck_assert_int_eq(v, i);
    }
    PA_CK_ERR(pa_declare(sc, "T5", "[1]"), PA_ERR_EXISTS);
    fprintf(stderr, "scope: %d declarations and %d variables in %.3f s of CPU, %d lookups in %.3f s\n", n, n, t1 - t0,
            2 * (n / 7 + 1), now() - t1);
    pa_scope_destroy(sc);
    return t1 - t0;
}

/* Linear time: ten times the names take about ten times as long (the linked lists took a hundred times as
 * long, and minutes for 200,000).  About 0.2 s for 100,000 on an idle machine; the ratio, not the time, is
 * asserted, so that a loaded CI machine or a sanitizer build does not fail it. */
START_TEST(test_scope_scales)
{
    double small = declare_many(10000), large = declare_many(100000);
    ck_assert_msg(large < 25 * small + 0.05, "100,000 declarations took %.3f s, 10,000 took %.3f s", large, small);
}
END_TEST

START_TEST(test_dimension_paths)
{
    const pa_type *a = pa_type_get(s, "A");
    const char *bad[] = {"0_", "_0", "_", "01", "0__1", "a", "0_1_", "-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pa_error_clear();
        ck_assert_msg(pa_type_dim(a, bad[i]) == NULL, "pa_type_dim accepts \"%s\"", bad[i]);
        ck_assert_msg(strncmp(pa_last_error(), "ERR_DIM", 7) == 0, "\"%s\": %s", bad[i], pa_last_error());
        char ref[16];
        snprintf(ref, sizeof ref, "A_%s", bad[i]);
        ck_assert_msg(pa_type_get(s, ref) == NULL, "pa_type_get accepts \"%s\"", ref);
    }
    ck_assert_ptr_eq(pa_type_dim(a, ""), a);
    ck_assert_ptr_eq(pa_type_dim(a, "1"), pa_type_get(s, "A_1"));
    ck_assert_ptr_null(pa_type_dim(a, "0_1"));   /* well formed, but A_0 has no sub-dimensions */
    int idx[4];
    ck_assert_int_eq(pa__dim_path("3_0_2", idx, 4), 3);
    ck_assert_int_eq(idx[0] * 100 + idx[1] * 10 + idx[2], 302);
    ck_assert_int_eq(pa__dim_path("0_1_2_3_4", idx, 4), -1);
    /* the device-side lookup follows the same rule */
    pa_dthreads th;
    PA_CK_OK(pa_declare(s, "C", "cuda [[2][3]][4]"));
    PA_CK_OK(pa_cuda_threads(pa_type_get(s, "C"), PA_CUDA_GRID, &th));
    ck_assert_int_ge(pa_dev_node(&th, "0_1"), 0);
    ck_assert_int_eq(pa_dev_node(&th, ""), 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(pa_dev_node(&th, bad[i]) < 0, "pa_dev_node accepts \"%s\"", bad[i]);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("core_limits");
    TCase *tc = tcase_create("limits");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_offsets_overflow);
    tcase_add_test(tc, test_builder_child_twice);
    tcase_add_test(tc, test_builder_depth);
    tcase_add_test(tc, test_scope_scales);
    tcase_add_test(tc, test_dimension_paths);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
