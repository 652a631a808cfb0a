/*
 * Stale handles and mismatched destroys (src/core/types/type_nodes.c, src/core/mem/mem.c): a type used after its scope
 * was destroyed is PA_ERR_INVAL naming the call and saying the handle is stale, never a read of freed memory
 * (this suite runs under AddressSanitizer in CI; before the change pa_size and pa_copy on such a handle were
 * heap-use-after-free); an array destroyed through a type of another size releases exactly the array.
 */
#include <string.h>

#include "testutil.h"

static int noop_thread(pa_ctx *ctx, void *arg)
{
    (void)ctx;
    (void)arg;
    return PA_OK;
}

static void elem_noop(void *e, int64_t i, void *arg)
{
    (void)e;
    (void)i;
    (void)arg;
}

#define CK_STALE(expr)                                                                                   \
    do {                                                                                                 \
        pa_error_clear();                                                                                \
        (void)(expr);                                                                                    \
        ck_assert_msg(strstr(pa_last_error(), "stale") != NULL, "%s: '%s'", #expr, pa_last_error());    \
    } while (0)

START_TEST(test_type_after_scope_destroyed)
{
    pa_scope *s, *other;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_scope_create(NULL, &other));
    PA_CK_OK(pa_declare(s, "A", "paged float [[3][3]][2]"));
    const pa_type *A = pa_type_get(s, "A"), *A0 = pa_type_get(s, "A_0");
    const pa_type *B = pa_type_parse(other, "paged float [18]");
    float a[18] = {0}, b[18] = {0};
    char buf[64];
    int64_t lo, hi;
    ck_assert_ptr_nonnull(A);
    PA_CK_OK(pa_copy(B, b, A, a));
    pa_scope_destroy(s);

    ck_assert_int_eq(pa_size(A), -1);
    ck_assert_msg(strstr(pa_last_error(), "pa_size") && strstr(pa_last_error(), "stale"), "%s", pa_last_error());
    ck_assert_int_eq(pa_size(A0), -1);
    PA_CK_ERR(pa_copy(B, b, A, a), PA_ERR_INVAL);
    ck_assert_msg(strstr(pa_last_error(), "copy (source)") && strstr(pa_last_error(), "stale"), "%s",
                  pa_last_error());
    PA_CK_ERR(pa_copy(A, a, B, b), PA_ERR_INVAL);
    PA_CK_ERR(pa_copy_async(A, a, B, b, NULL), PA_ERR_INVAL);
    ck_assert_int_lt(pa_copy_explain(B, A, buf, sizeof buf), 0);
    ck_assert_int_eq(pa_offset(A, 0), PA_BAD_OFFSET);
    CK_STALE(pa_offset(A, 0));
    CK_STALE(pa_ndim(A));
    CK_STALE(pa_elm_size(A));
    CK_STALE(pa_mtt(A));
    ck_assert_ptr_null(pa_type_name(A));
    CK_STALE(pa_type_child(A, 0));
    CK_STALE(pa_type_dim(A, "0"));
    CK_STALE(pa_type_root(A0));
    CK_STALE(pa_type_scope(A));
    PA_CK_ERR(pa_extent(A, &lo, &hi), PA_ERR_INVAL);
    PA_CK_ERR(pa_type_format(A, buf, sizeof buf), PA_ERR_INVAL);
    PA_CK_ERR(pa_layout_format(A, buf, sizeof buf), PA_ERR_INVAL);
    ck_assert_ptr_null(pa_create(A));
    CK_STALE(pa_create(A));
    PA_CK_ERR(pa_destroy(A, a), PA_ERR_INVAL);
    PA_CK_ERR(pa_map(A, a, elem_noop, NULL), PA_ERR_INVAL);
    CK_STALE(pa_map(A, a, elem_noop, NULL));
    PA_CK_ERR(pa_tile(A, a, B, PA_IOTILE, NULL, NULL), PA_ERR_INVAL);
    /* The other scope's types are untouched. */
    ck_assert_int_eq(pa_size(B), 18);
    pa_scope_destroy(other);
}
END_TEST

START_TEST(test_thread_type_after_scope_destroyed)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    const pa_type *T = pa_type_parse(s, "pthd [4]");
    ck_assert_ptr_nonnull(T);
    PA_CK_OK(pa_for(T, noop_thread, NULL, 0));
    pa_scope_destroy(s);
    PA_CK_ERR(pa_for(T, noop_thread, NULL, 0), PA_ERR_INVAL);
    ck_assert_msg(strstr(pa_last_error(), "pa_for") && strstr(pa_last_error(), "stale"), "%s", pa_last_error());
}
END_TEST

/* Many scopes made and destroyed after a handle went stale: it stays recognised while its node is quarantined. */
START_TEST(test_stale_after_churn)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    const pa_type *A = pa_type_parse(s, "paged int [[4][4]]");
    pa_scope_destroy(s);
    for (int i = 0; i < 200; i++) {
        pa_scope *t;
        PA_CK_OK(pa_scope_create(NULL, &t));
        ck_assert_int_eq(pa_size(pa_type_parse(t, "paged int [[2][2]][3]")), 12);
        pa_scope_destroy(t);
    }
    ck_assert_int_eq(pa_size(A), -1);
    ck_assert_msg(strstr(pa_last_error(), "stale"), "%s", pa_last_error());
}
END_TEST

/* An array destroyed through a type of another size: the allocation table's record (the bytes pa_create
 * allocated) is released, whatever the type spans, as docs/api.md says; a second destroy is refused. */
START_TEST(test_destroy_through_other_size)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    const pa_type *A = pa_type_parse(s, "paged double [100]"), *B = pa_type_parse(s, "paged double [10]");
    const pa_type *W = pa_type_parse(s, "paged double [1000]");
    double *a = pa_create(A), *b = pa_create(B);
    ck_assert(a && b);
    a[99] = 1.0;
    PA_CK_OK(pa_destroy(B, a));   /* smaller type: the whole array goes (LeakSanitizer would see the rest) */
    PA_CK_OK(pa_destroy(W, b));   /* larger type: only the array's 80 bytes are freed */
    PA_CK_ERR(pa_destroy(A, a), PA_ERR_INVAL);
    PA_CK_ERR(pa_destroy(pa_type_parse(s, "dmem double [100]"), b), PA_ERR_INVAL);
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("core_stale");
    TCase *tc = tcase_create("stale");
    tcase_add_test(tc, test_type_after_scope_destroyed);
    tcase_add_test(tc, test_thread_type_after_scope_destroyed);
    tcase_add_test(tc, test_stale_after_churn);
    tcase_add_test(tc, test_destroy_through_other_size);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
