/*
 * The queued GPU calls: pa_cuda_for_async and pa_cuda_map_async on a stream.
 *   - each returns before its work is done: a kernel that spins for about 100 ms leaves the stream busy
 *     (cudaStreamQuery says not ready) when the call comes back, and finishes once the stream is synchronised;
 *   - work queued on one stream runs in order: two kernels (pa_cuda_for_async, then the reverse direction with
 *     another factor) and two maps (an increment, then an affine map over a transposed window whose argument is
 *     changed after the call: the map must use the bytes it was given) followed by pa_copy_async to the host,
 *     all checked element by element after one synchronisation;
 *   - the default stream (NULL) and the refusals (NULL threads or function, a map over paged memory);
 *   - pa_cuda_function_info on the compiled kernel.
 * Without a GPU the suite exits 77 (skipped).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "internal.h"
#include "async_sources.h"
#include "testutil.h"
#include <parray/cuda.h>

/* About 100 ms at the clocks of current GPUs (1 to 2 GHz): long enough to be running when the call returns. */
static const long long SPIN_CYCLES = 200000000LL;

START_TEST(for_async_returns_first)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    pa_cuda_function spin;
    PA_CK_OK(pa_cuda_compile("async_for", async_scale_src, "spin", &spin));
    const pa_type *one = pa_type_parse(s, "dmem int [1]"), *hone = pa_type_parse(s, "paged int [1]");
    int *flag = pa_create(one), h = 0;
    ck_assert_msg(flag, "%s", pa_last_error());
    PA_CK_OK(pa_copy(one, flag, hone, &h));
    pa_dthreads th;
    PA_CK_OK(pa_cuda_threads(pa_type_parse(s, "cuda [1]"), 0, &th));
    cudaStream_t st;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
    long long cycles = SPIN_CYCLES;
    void *params[] = {&cycles, &flag};
    PA_CK_OK(pa_cuda_for_async(&th, spin, params, 0, st));
    ck_assert_int_eq(cudaStreamQuery(st), cudaErrorNotReady);
    ck_assert_int_eq(cudaStreamSynchronize(st), cudaSuccess);
    PA_CK_OK(pa_copy(hone, &h, one, flag));
    ck_assert_int_eq(h, 1);
    ck_assert_int_eq(cudaStreamDestroy(st), cudaSuccess);
    pa_destroy(one, flag);
    pa_scope_destroy(s);
}
END_TEST

START_TEST(for_async_in_order)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "FROM = dmem float [[300][200]]\n"
                                "TO = dmem float [[#FROM_1][#FROM_0]]\n"
                                "HF = paged float [[300][200]]"));
    const pa_type *from = pa_type_get(s, "FROM"), *to = pa_type_get(s, "TO"), *hf = pa_type_get(s, "HF");
    pa_cuda_function fn;
    PA_CK_OK(pa_cuda_compile("async_for", async_scale_src, "scale", &fn));
    /* What the driver says of it: a few registers, no spills, blocks of 256 fit and several are resident. */
    pa_cuda_fninfo info;
    PA_CK_OK(pa_cuda_function_info(fn, 256, 0, &info));
    ck_assert_msg(info.registers > 0 && info.registers <= 255 && info.max_threads >= 256 && info.blocks_per_sm >= 1 &&
                  info.local_bytes == 0, "registers %d, max threads %d, blocks/SM %d, local %d", info.registers,
                  info.max_threads, info.blocks_per_sm, info.local_bytes);
    PA_CK_ERR(pa_cuda_function_info(NULL, 256, 0, &info), PA_ERR_INVAL);
    int64_t n = pa_size(from);
    float *a = pa_create(from), *b = pa_create(from), *hb = pa_create(hf), *out = pa_create(hf);
    ck_assert_msg(a && b && hb && out, "%s", pa_last_error());
    for (int64_t i = 0; i < n; i++)
        hb[i] = (float)(i % 1000), out[i] = -1.0f;
    PA_CK_OK(pa_copy(from, b, hf, hb));
    pa_dthreads th;
    pa_dtype ta, tb;
    char decl[32];
    snprintf(decl, sizeof decl, "cuda [%lld]", (long long)n);
    PA_CK_OK(pa_cuda_threads(pa_type_parse(s, decl), 0, &th));
    PA_CK_OK(pa_cuda_dtype(to, &ta));
    PA_CK_OK(pa_cuda_dtype(from, &tb));
    cudaStream_t st;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
    float two = 2.0f, three = 3.0f;
    void *p1[] = {&th, &a, &ta, &b, &tb, &two};     /* a[TO(k)] = 2 b[FROM(k)] */
    void *p2[] = {&th, &b, &tb, &a, &ta, &three};   /* b[FROM(k)] = 3 a[TO(k)]: after the first, 6 b */
    PA_CK_OK(pa_cuda_for_async(&th, fn, p1, 0, st));
    PA_CK_OK(pa_cuda_for_async(&th, fn, p2, 0, st));
    PA_CK_OK(pa_copy_async(hf, out, from, b, st));
    ck_assert_int_eq(cudaStreamSynchronize(st), cudaSuccess);
    for (int64_t i = 0; i < n; i++)
        ck_assert_msg(out[i] == 6.0f * hb[i], "element %lld: %g, want %g", (long long)i, out[i], 6.0f * hb[i]);
    /* The default stream. */
    PA_CK_OK(pa_cuda_for_async(&th, fn, p1, 0, NULL));
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    PA_CK_OK(pa_copy(hf, out, to, a));   /* a through TO: element k is 2 * 6 hb[k] */
    for (int64_t i = 0; i < n; i++)
        ck_assert_msg(out[i] == 12.0f * hb[i], "element %lld: %g", (long long)i, out[i]);
    PA_CK_ERR(pa_cuda_for_async(NULL, fn, p1, 0, st), PA_ERR_INVAL);
    PA_CK_ERR(pa_cuda_for_async(&th, NULL, p1, 0, st), PA_ERR_INVAL);
    ck_assert_int_eq(cudaStreamDestroy(st), cudaSuccess);
    pa_destroy(from, a), pa_destroy(from, b), pa_destroy(hf, hb), pa_destroy(hf, out);
    pa_scope_destroy(s);
}
END_TEST

START_TEST(map_async_returns_first)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    const pa_type *one = pa_type_parse(s, "dmem int [1]"), *hone = pa_type_parse(s, "paged int [1]");
    int *x = pa_create(one), h = 0;
    ck_assert_msg(x, "%s", pa_last_error());
    PA_CK_OK(pa_copy(one, x, hone, &h));
    cudaStream_t st;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
    long long cycles = SPIN_CYCLES;
    /* Compiled by a first, waited call on another element value, so that the queued call only launches. */
    const char *src = async_slow_src;
    long long none = 0;
    PA_CK_OK(pa_cuda_map(one, x, src, "slow", &none, sizeof none));
    PA_CK_OK(pa_cuda_map_async(one, x, src, "slow", &cycles, sizeof cycles, st));
    ck_assert_int_eq(cudaStreamQuery(st), cudaErrorNotReady);
    ck_assert_int_eq(cudaStreamSynchronize(st), cudaSuccess);
    PA_CK_OK(pa_copy(hone, &h, one, x));
    ck_assert_int_eq(h, 14);
    ck_assert_int_eq(cudaStreamDestroy(st), cudaSuccess);
    pa_destroy(one, x);
    pa_scope_destroy(s);
}
END_TEST

START_TEST(map_async_in_order)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "H = paged int [[64][96]]\n"
                                "D = dmem int [[64][96]]\n"
                                "W = dmem int [[40 # disp(5) # D_1][30 # disp(7) # D_0]]"));
    const pa_type *H = pa_type_get(s, "H"), *D = pa_type_get(s, "D"), *W = pa_type_get(s, "W");
    int *h = pa_create(H), *want = pa_create(H), *d = pa_create(D);
    ck_assert_msg(h && want && d, "%s", pa_last_error());
    pa_rng rng = {pa_test_seed("map async")};
    for (int64_t i = 0; i < pa_size(H); i++)
        h[i] = want[i] = (int)(pa_rng_next(&rng) % 100000);
    PA_CK_OK(pa_copy(D, d, H, h));
    cudaStream_t st;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
    PA_CK_OK(pa_cuda_map_async(D, d, async_inc_src, "inc", NULL, 0, st));
    struct { int mul, add; } arg = {3, -7};
    PA_CK_OK(pa_cuda_map_async(W, d, async_affine_src, "f", &arg, sizeof arg, st));
    arg.mul = 1000;   /* too late: the queued map has its own copy */
    PA_CK_OK(pa_copy_async(H, h, D, d, st));
    ck_assert_int_eq(cudaStreamSynchronize(st), cudaSuccess);
    for (int64_t i = 0; i < pa_size(H); i++)
        want[i] += 1;
    for (int64_t k = 0; k < pa_size(W); k++) {
        int64_t o = pa__offset_walk(W, k);
        want[o] = want[o] * 3 - 7 + (int)k;
    }
    for (int64_t i = 0; i < pa_size(H); i++)
        ck_assert_msg(h[i] == want[i], "element %lld: %d, want %d", (long long)i, h[i], want[i]);
    /* The default stream, then the refusals. */
    PA_CK_OK(pa_cuda_map_async(D, d, async_neg_src, "neg", NULL, 0, NULL));
    PA_CK_OK(pa_copy(H, h, D, d));   /* pa_copy on the default stream runs after the map */
    for (int64_t i = 0; i < pa_size(H); i++)
        ck_assert_msg(h[i] == -want[i], "element %lld: %d, want %d", (long long)i, h[i], -want[i]);
    PA_CK_ERR(pa_cuda_map_async(H, h, "__device__ void g(int *x, long long k, const void *a) { }", "g", NULL, 0,
                                st), PA_ERR_MTT);
    PA_CK_ERR(pa_cuda_map_async(D, d, NULL, "g", NULL, 0, st), PA_ERR_INVAL);
    ck_assert_int_eq(cudaStreamDestroy(st), cudaSuccess);
    pa_destroy(H, h), pa_destroy(H, want), pa_destroy(D, d);
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("cuda_async"))
        return 77;
    Suite *s = suite_create("cuda_async");
    TCase *tc = tcase_create("async");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, for_async_returns_first);
    tcase_add_test(tc, for_async_in_order);
    tcase_add_test(tc, map_async_returns_first);
    tcase_add_test(tc, map_async_in_order);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
