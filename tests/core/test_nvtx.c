/*
 * NVTX ranges (src/backends/cuda/trace_nvtx.c) without Nsight Systems: this program is its own NVTX tool
 * (tests/common/nvtx_recorder.c), which records every range the library opens and closes.  Host copies are traced
 * without a GPU, so this runs in CI: each pa_copy opens one range of category pa_copy named with the strategy its plan chose (the same name pa_copy_explain prints), or "walk", or
 * "through a temporary (overlap)", and closes it.  Built only where NVTX is built in.
 */
#include <string.h>

#include "nvtx_recorder.h"
#include "testutil.h"

START_TEST(test_copy_ranges)
{
    pa_scope *s;
    float a[64], b[64];
    char want[64];
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare(s, "A", "paged float [8][8]"));
    PA_CK_OK(pa_declare(s, "T", "paged float [[#A_1][#A_0]]"));
    const pa_type *A = pa_type_get(s, "A"), *T = pa_type_get(s, "T");
    for (int i = 0; i < 64; i++)
        a[i] = (float)i;
    pa_test_ranges_reset();
    PA_CK_OK(pa_copy(A, b, A, a));
    PA_CK_OK(pa_copy(T, b, A, a));
    PA_CK_OK(pa_copy(T, a, A, a));   /* in place: through a temporary */
    ck_assert_int_eq(pa_test_nranges, 3);
    ck_assert_int_eq(pa_test_range_depth, 0);
    for (int i = 0; i < 3; i++) {
        const pa_test_range *r = &pa_test_ranges[i];
        printf("range %d: category %u (%s), \"%s\"\n", i, r->category, pa_test_range_category(r->category),
               r->message);
        ck_assert_uint_eq(r->category, 1);
        ck_assert_int_eq(r->depth, 0);   /* each closed before the next opened */
        ck_assert_msg(r->end >= r->start, "range %d not closed", i);
    }
    pa_test_strategy_of(A, A, want, sizeof want);
    ck_assert_str_eq(pa_test_ranges[0].message, want);
    pa_test_strategy_of(T, A, want, sizeof want);
    ck_assert_str_eq(pa_test_ranges[1].message, want);
    ck_assert_str_eq(pa_test_ranges[2].message, "through a temporary (overlap)");
    /* A failed copy opens no range. */
    pa_test_ranges_reset();
    PA_CK_ERR(pa_copy(A, b, pa_type_parse(s, "paged float [63]"), a), PA_ERR_SIZE);
    ck_assert_int_eq(pa_test_nranges, 0);
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nvtx");
    TCase *tc = tcase_create("nvtx");
    tcase_add_test(tc, test_copy_ranges);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
