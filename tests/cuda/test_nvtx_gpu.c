/*
 * NVTX ranges of the GPU calls, as a text timeline (what Nsight Systems' NVTX rows show), without Nsight Systems:
 * this program is its own NVTX tool (tests/common/nvtx_recorder.c), which records each range's start and end time
 * on the calling thread.  It runs a small pipeline — pinned -> dmem (a DMA), a pa_cuda_map, a transposition on the
 * GPU, a pa_cuda_for of a compiled kernel, a PL/CUDA call, dmem -> paged — then checks that each call
 * opened exactly one outermost range of its category, named with the copy's strategy (pa_copy_explain's), the map's
 * element function, the launch kind or the PL/CUDA function, and prints the timeline.  scripts/gpu.sh's nvtx step keeps
 * the output for docs/nsight.md.  Built where NVTX is built in; 77 (skipped) without a GPU.
 */
#include <stdio.h>
#include <string.h>

#include "nvtx_recorder.h"
#include "testutil.h"
#include <parray/cuda.h>
#include <parray/kernel.h>

START_TEST(test_gpu_timeline)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "H = pinned float [[2048][1024]]\n"
                                "D = dmem float [[2048][1024]]\n"
                                "DT = dmem float [[#D_1][#D_0]]\n"
                                "P = paged float [[2048][1024]]\n"
                                "C = cuda [2097152]"));
    const pa_type *H = pa_type_get(s, "H"), *D = pa_type_get(s, "D"), *DT = pa_type_get(s, "DT");
    const pa_type *P = pa_type_get(s, "P"), *C = pa_type_get(s, "C");
    float *h = pa_create(H), *d = pa_create(D), *dt = pa_create(D), *p = pa_create(P);
    ck_assert_msg(h && d && dt && p, "%s", pa_last_error());
    for (int64_t i = 0; i < pa_size(H); i++)
        h[i] = (float)(i % 4096);
    pa_cuda_function fn;
    PA_CK_OK(pa_cuda_compile("twice", "#include <parray/device.h>\n"
                             "extern \"C\" __global__ void twice(pa_dthreads th, float *a, pa_dtype ta)\n"
                             "{ long long k = pa_dev_tid(&th); if (k < th.n) a[pa_dev_offset(&ta, k)] *= 2; }\n",
                             "twice", &fn));
    pa_kernel *k;
    PA_CK_OK(pa_kernel_create("gpu_add", "int (int, int)",
                              "#plcuda_begin\n  if (get_global_id() == 0) *retval = arg1 + arg2;\n#plcuda_end\n",
                              NULL, 0, &k));
    const char *inc = "__device__ void inc(float *x, long long k, const void *a) { *x += 1.0f; }";
    PA_CK_OK(pa_cuda_map(D, d, inc, "inc", NULL, 0));   /* compiled (and cached) before the timed pipeline */
    int sum = 0, a1 = 100, a2 = 200;
    pa_arg args[] = {PA_ARG(&a1), PA_ARG(&a2)};
    PA_CK_OK(pa_kernel_call(k, args, 2, &sum));
    pa_dthreads th;
    pa_dtype ta;
    PA_CK_OK(pa_cuda_threads(C, 0, &th));
    PA_CK_OK(pa_cuda_dtype(DT, &ta));
    void *params[] = {&th, &dt, &ta};

    pa_test_ranges_reset();
    PA_CK_OK(pa_copy(D, d, H, h));
    PA_CK_OK(pa_cuda_map(D, d, inc, "inc", NULL, 0));
    PA_CK_OK(pa_copy(DT, dt, D, d));
    PA_CK_OK(pa_cuda_for(&th, fn, params, 0));
    PA_CK_OK(pa_kernel_call(k, args, 2, &sum));
    PA_CK_OK(pa_copy(P, p, DT, dt));
    ck_assert_int_eq(pa_test_range_depth, 0);
    ck_assert_int_eq(sum, 300);

    /* One outermost range per call, in order, of its category and name. */
    char s1[64], s2[64], s3[64];
    pa_test_strategy_of(D, H, s1, sizeof s1);
    pa_test_strategy_of(DT, D, s2, sizeof s2);
    pa_test_strategy_of(P, DT, s3, sizeof s3);
    const struct { uint32_t cat; const char *name; } want[] = {
        {1, s1}, {3, "inc"}, {1, s2}, {2, "pa_cuda_for (launch and wait)"}, {4, "gpu_add"}, {1, s3}};
    int top = 0;
    printf("NVTX ranges (domain parray), microseconds from the first call; nested ranges indented:\n");
    printf("%10s %10s  %-15s %s\n", "start", "duration", "category", "range");
    for (int i = 0; i < pa_test_nranges; i++) {
        const pa_test_range *r = &pa_test_ranges[i];
        printf("%10.0f %10.0f  %-15s %*s%s\n", r->start, r->end - r->start,
               pa_test_range_category(r->category), 2 * r->depth, "", r->message);
        ck_assert_msg(r->end >= r->start, "range %d (%s) not closed", i, r->message);
        if (r->depth > 0)
            continue;
        ck_assert_int_lt(top, 6);
        ck_assert_msg(r->category == want[top].cat && strcmp(r->message, want[top].name) == 0,
                      "outermost range %d: %s \"%s\", want %s \"%s\"", top, pa_test_range_category(r->category),
                      r->message, pa_test_range_category(want[top].cat), want[top].name);
        top++;
    }
    ck_assert_int_eq(top, 6);
    /* The result: p[k] = dt[DT(k)] = 2 (d[D(k)] + 1), so p = 2 (h + 1) element by element. */
    int64_t bad = -1;
    for (int64_t i = 0; i < pa_size(P) && bad < 0; i++)
        bad = p[i] == 2.0f * (h[i] + 1.0f) ? -1 : i;
    ck_assert_msg(bad < 0, "element %lld: %g, want %g", (long long)bad, p[bad < 0 ? 0 : bad],
                  2.0f * (h[bad < 0 ? 0 : bad] + 1.0f));
    pa_kernel_destroy(k);
    pa_destroy(H, h), pa_destroy(D, d), pa_destroy(D, dt), pa_destroy(P, p);
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("nvtx_gpu"))
        return 77;
    Suite *su = suite_create("nvtx_gpu");
    TCase *tc = tcase_create("timeline");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_gpu_timeline);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
