/*
 * parray tests — the names kept for one release after the API's renames (src/api_deprecated.c, docs/api.md "The
 * API's style"): each deprecated name is called beside its new name on the same input, and both must give the
 * same result: the same status, the same outputs, the same data written.  The deprecated calls are made from
 * the wrappers below, the one place where the deprecation warning (an error in this build) is silenced.
 * The matrix module's old names are tested beside it, in tests/matrix/test_matrix_aliases.c.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <parray/gputile.h>
#include <parray/ssb.h>

/* ---- the deprecated names, called with the warning silenced here only ---------------------------------- */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void old_clear_error(void)
{
    pa_clear_error();
}
static int old_set_binding(pa_bind b)
{
    return pa_set_binding(b);
}
static pa_bind old_get_binding(void)
{
    return pa_get_binding();
}
static int old_set_num_threads(int n)
{
    return pa_set_num_threads(n);
}
static int old_get_num_threads(void)
{
    return pa_get_num_threads();
}
static int old_tile2(const pa_type *so, const void *s, const pa_type *dso, void *d, const pa_type *in, pa_tile_fn fn,
                     void *arg)
{
    return pa_tile2(so, s, dso, d, in, fn, arg);
}
static int old_tile2_dmem(const pa_type *so, const void *s, const pa_type *dso, void *d, const pa_type *in,
                          const char *src, const char *fn)
{
    return pa_tile2_dmem(so, s, dso, d, in, src, fn, NULL, 0);
}
static pa_builder *old_builder_create(pa_scope *s, const char *mtt, const char *elm)
{
    return pa_builder_create(s, mtt, elm);
}
static void old_ssb_result_free(pa_ssb_result *r)
{
    pa_ssb_result_free(r);
}
#pragma GCC diagnostic pop

static pa_scope *scope;

static void setup(void)
{
    ck_assert_int_eq(pa_scope_create(NULL, &scope), PA_OK);
}

static void teardown(void)
{
    pa_scope_destroy(scope);
}

/* Sets an error message, so that the two clears have something to forget. */
static void make_an_error(void)
{
    ck_assert_ptr_null(pa_type_parse(scope, "paged float [[3]"));
    ck_assert(pa_last_error()[0] != '\0');
}

START_TEST(error_clear)
{
    make_an_error();
    old_clear_error();
    ck_assert_str_eq(pa_last_error(), "");
    make_an_error();
    pa_error_clear();
    ck_assert_str_eq(pa_last_error(), "");
}
END_TEST

START_TEST(threads_settings)
{
    int n0 = pa_threads_get_num();
    ck_assert_int_eq(old_get_num_threads(), n0);
    PA_CK_OK(old_set_num_threads(3));
    ck_assert_int_eq(pa_threads_get_num(), 3);
    ck_assert_int_eq(old_get_num_threads(), 3);
    PA_CK_OK(pa_threads_set_num(5));
    ck_assert_int_eq(old_get_num_threads(), 5);
    PA_CK_ERR(old_set_num_threads(0), PA_ERR_RANGE);
    PA_CK_ERR(pa_threads_set_num(0), PA_ERR_RANGE);
    ck_assert_int_eq(pa_threads_get_num(), 5);   /* a refused value changes nothing */
    PA_CK_OK(pa_threads_set_num(n0));

    ck_assert_int_eq(old_get_binding(), pa_threads_get_binding());
    PA_CK_OK(old_set_binding(PA_BIND_NONE));
    ck_assert_int_eq(pa_threads_get_binding(), PA_BIND_NONE);
    PA_CK_OK(pa_threads_set_binding(PA_BIND_NONE));
    ck_assert_int_eq(old_get_binding(), PA_BIND_NONE);
    PA_CK_ERR(old_set_binding((pa_bind)9), PA_ERR_INVAL);
    PA_CK_ERR(pa_threads_set_binding((pa_bind)9), PA_ERR_INVAL);
}
END_TEST

/* A tile function that adds the tile's index times 100 to each of its 4 elements (paged int [4]). */
static int add_tile_index(void *tile, int64_t t, void *arg)
{
    for (int k = 0; k < 4; k++)
        ((int *)tile)[k] += (int)t * 100;
    return PA_OK;
}

START_TEST(tile_copy_destination_first)
{
    /* A 8 x 8 transposition in tiles of 4 elements, with a tile function: both calls must write the same. */
    PA_CK_OK(pa_declare_text(scope, "parray paged int [8][8] A; parray paged int [8][8] B; parray [#B_1][#B_0] TB;"
                                    "parray paged int [4] T; parray paged int [8][4] S;"));
    const pa_type *A = pa_type_get(scope, "A"), *TB = pa_type_get(scope, "TB"), *T = pa_type_get(scope, "T");
    int a[64], b_old[64], b_new[64];
    for (int i = 0; i < 64; i++)
        a[i] = i * 7 + 1;
    memset(b_old, 0xA5, sizeof b_old);
    memset(b_new, 0x5A, sizeof b_new);
    PA_CK_OK(old_tile2(A, a, TB, b_old, T, add_tile_index, NULL));
    PA_CK_OK(pa_tile_copy(TB, b_new, A, a, T, add_tile_index, NULL));
    ck_assert_int_eq(memcmp(b_old, b_new, sizeof b_new), 0);
    for (int k = 0; k < 64; k++)   /* element k of A, plus its tile's index, is element k of TB */
        ck_assert_int_eq(b_new[pa_offset(TB, k)], a[pa_offset(A, k)] + (k / 4) * 100);

    /* without a tile function (a pure move, made by pa_copy) */
    memset(b_old, 0xA5, sizeof b_old);
    memset(b_new, 0x5A, sizeof b_new);
    PA_CK_OK(old_tile2(A, a, TB, b_old, T, NULL, NULL));
    PA_CK_OK(pa_tile_copy(TB, b_new, A, a, T, NULL, NULL));
    ck_assert_int_eq(memcmp(b_old, b_new, sizeof b_new), 0);
    ck_assert_int_eq(b_new[pa_offset(TB, 9)], a[9]);

    /* sizes that differ: the same error, naming source and destination the same way */
    const pa_type *S = pa_type_get(scope, "S");
    PA_CK_ERR(old_tile2(A, a, S, b_old, T, NULL, NULL), PA_ERR_SIZE);
    char why[512];
    snprintf(why, sizeof why, "%s", pa_last_error());
    PA_CK_ERR(pa_tile_copy(S, b_new, A, a, T, NULL, NULL), PA_ERR_SIZE);
    ck_assert_str_eq(pa_last_error(), why);
}
END_TEST

static const char dmem_fn[] = "__device__ void fn(pa_elm_t *tile, long long t, int tid, int nt, const void *arg)\n"
                              "{\n    for (int k = tid; k < (int)pa_inner::size; k += nt)\n"
                              "        tile[pa_inner::off(k)] += (pa_elm_t)(t * 100);\n}\n";

START_TEST(tile_copy_dmem_destination_first)
{
    if (!pa_test_gpu_present()) {
        /* Without a GPU both refuse host types the same way (the tiles need dmem and smem). */
        PA_CK_OK(pa_declare_text(scope, "parray paged int [64] H; parray paged int [4] T;"));
        const pa_type *H = pa_type_get(scope, "H"), *T = pa_type_get(scope, "T");
        int a[64] = {0}, b[64] = {0};
        pa_error_clear();
        int st_old = old_tile2_dmem(H, a, H, b, T, dmem_fn, "fn");
        ck_assert_int_ne(st_old, PA_OK);
        PA_CK_ERR(pa_tile_copy_dmem(H, b, H, a, T, dmem_fn, "fn", NULL, 0), st_old);
        return;
    }
    PA_CK_OK(pa_declare_text(scope, "parray dmem int [8][8] A; parray dmem int [8][8] B; parray [#B_1][#B_0] TB;"
                                    "parray smem int [4] T; parray paged int [64] H;"));
    const pa_type *A = pa_type_get(scope, "A"), *B = pa_type_get(scope, "B"), *TB = pa_type_get(scope, "TB");
    const pa_type *T = pa_type_get(scope, "T"), *H = pa_type_get(scope, "H");
    int a[64], got_old[64], got_new[64];
    for (int i = 0; i < 64; i++)
        a[i] = i * 7 + 1;
    void *da = pa_create(A), *db_old = pa_create(B), *db_new = pa_create(B);
    ck_assert(da && db_old && db_new);
    PA_CK_OK(pa_copy(A, da, H, a));
    PA_CK_OK(old_tile2_dmem(A, da, TB, db_old, T, dmem_fn, "fn"));
    PA_CK_OK(pa_tile_copy_dmem(TB, db_new, A, da, T, dmem_fn, "fn", NULL, 0));
    memset(got_old, 0xA5, sizeof got_old);
    memset(got_new, 0x5A, sizeof got_new);
    PA_CK_OK(pa_copy(H, got_old, B, db_old));
    PA_CK_OK(pa_copy(H, got_new, B, db_new));
    ck_assert_int_eq(memcmp(got_old, got_new, sizeof got_new), 0);
    for (int k = 0; k < 64; k++)
        ck_assert_int_eq(got_new[pa_offset(TB, k)], a[pa_offset(A, k)] + (k / 4) * 100);
    PA_CK_OK(pa_destroy(A, da));
    PA_CK_OK(pa_destroy(B, db_old));
    PA_CK_OK(pa_destroy(B, db_new));
}
END_TEST

START_TEST(builder_start)
{
    pa_builder *b_old = old_builder_create(scope, "paged", "float"), *b_new = NULL;
    ck_assert_ptr_nonnull(b_old);
    PA_CK_OK(pa_builder_start(scope, "paged", "float", &b_new));
    const pa_type *t_old = pa_builder_finish(b_old, pa_dim_tree(b_old, 2, (pa_dim *[]){pa_dim_size(b_old, 3),
                                                                                      pa_dim_size(b_old, 4)}), NULL);
    const pa_type *t_new = pa_builder_finish(b_new, pa_dim_tree(b_new, 2, (pa_dim *[]){pa_dim_size(b_new, 3),
                                                                                      pa_dim_size(b_new, 4)}), NULL);
    ck_assert(t_old && t_new);
    char f_old[256], f_new[256];
    ck_assert_int_gt(pa_type_format(t_old, f_old, sizeof f_old), 0);
    ck_assert_int_gt(pa_type_format(t_new, f_new, sizeof f_new), 0);
    ck_assert_str_eq(f_old, f_new);
    ck_assert_int_eq(pa_size(t_new), 12);

    /* failures: NULL from the old name, the status from the new, the same message; the output untouched */
    static const char *mtts[] = {"pagedx", "paged"}, *elms[] = {"float", "floaty"};
    static const int codes[] = {PA_ERR_MTT, PA_ERR_ELM};
    for (int i = 0; i < 2; i++) {
        pa_error_clear();
        ck_assert_ptr_null(old_builder_create(scope, mtts[i], elms[i]));
        char why[512];
        snprintf(why, sizeof why, "%s", pa_last_error());
        ck_assert(why[0] != '\0');
        pa_builder *none = NULL;
        PA_CK_ERR(pa_builder_start(scope, mtts[i], elms[i], &none), codes[i]);
        ck_assert_str_eq(pa_last_error(), why);
        ck_assert_ptr_null(none);
    }
}
END_TEST

/* A result as pa_ssb_run_cpu leaves it: malloc'd rows. */
static pa_ssb_result made_result(void)
{
    pa_ssb_result r = {.query = 0, .ngroups = 1, .nrows = 2};
    r.groups = malloc(2 * 3 * sizeof *r.groups);
    r.values = malloc(2 * sizeof *r.values);
    ck_assert(r.groups && r.values);
    return r;
}

START_TEST(ssb_result_destroy)
{
    pa_ssb_result a = made_result(), b = made_result();
    old_ssb_result_free(&a);
    pa_ssb_result_destroy(&b);
    ck_assert(a.groups == NULL && a.values == NULL && a.nrows == 0);
    ck_assert(b.groups == NULL && b.values == NULL && b.nrows == 0);
    ck_assert_int_eq(a.query, b.query);
    ck_assert_int_eq(a.ngroups, b.ngroups);
    old_ssb_result_free(NULL);   /* both ignore NULL */
    pa_ssb_result_destroy(NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("core_api_aliases");
    TCase *tc = tcase_create("aliases");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, error_clear);
    tcase_add_test(tc, threads_settings);
    tcase_add_test(tc, tile_copy_destination_first);
    tcase_add_test(tc, tile_copy_dmem_destination_first);
    tcase_add_test(tc, builder_start);
    tcase_add_test(tc, ssb_result_destroy);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
