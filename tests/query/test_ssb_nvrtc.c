/*
 * Suite query_ssb_nvrtc (needs NVRTC, not a GPU): the SSB query kernels, <parray/query/ssb_kernels.h> over
 * <parray/query/block.h>, compile through the library's run-time compiler for sm_90 with every entry present.
 * Skipped (77) where NVRTC cannot be loaded.
 */
#include <stdio.h>
#include <string.h>

#include "rtc.h"
#include "rtc_internal.h"
#include "testutil.h"
#include <parray/ssb.h>

START_TEST(kernels_compile)
{
    const pa_cuda__image *img = NULL;
    const char *src = pa_ssb_gpu_source(0);
    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_null(pa_ssb_gpu_source(13));
    PA_CK_OK(pa_cuda__rtc_compile("ssb_kernels", src, NULL, 0, 90, &img));   /* main skips (77) without NVRTC */
    size_t n = 0;
    const char *cubin = pa_cuda__image_data(img, &n);
    ck_assert_uint_gt(n, 0);
    static const char *const entries[] = {"pa_ssb_fill", "pa_ssb_build", "pa_ssb_q1", "pa_ssb_q2", "pa_ssb_q3",
                                          "pa_ssb_q4"};
    for (size_t e = 0; e < sizeof entries / sizeof entries[0]; e++) {
        size_t l = strlen(entries[e]);
        int found = 0;
        for (size_t i = 0; i + l <= n && !found; i++)
            found = memcmp(cubin + i, entries[e], l) == 0;
        ck_assert_msg(found, "the cubin has no %s", entries[e]);
    }
}
END_TEST

int main(void)
{
    if (pa_cuda__nvrtc_load() != PA_OK) {
        printf("query_ssb_nvrtc: skipped: %s\n", pa_last_error());
        return 77;
    }
    Suite *s = suite_create("query_ssb_nvrtc");
    TCase *tc = tcase_create("nvrtc");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_add_test(tc, kernels_compile);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
