/*
 * The all-to-all between threads on different GPUs (manual section 1.4, one host thread per GPU) on both of its
 * routes: NCCL (one communicator per thread's GPU, src/backends/host/copy/copy_exchange_gpu.c) and the peer pulls
 * (PA_PTHD_ROUTE=peer).  P = min(GPUs, 4) pthd threads, thread t on GPU t, exchange
 *   plain: S = [#P][#D_0][#D_1] -> T = [#D_0][#P][#D_1] (D = dmem int [P][M]): every pair's block contiguous;
 *   fft:   S = [#P][#DSL] -> T = [[#DSL_1_0][#P][#DSL_0][#DSL_1_1]] (DSL = dmem int [N/P][[N][N]]): the PKUFFT
 *          layout change, blocks packed and unpacked, also cut into chunks (PA_NCCL_CHUNKS=4);
 * and back (T -> S), every destination poisoned first and every element compared on the host with the types'
 * reference offsets (pa_offset_on).  A thread pair sharing a GPU falls back to the pulls with the reason in
 * pa_copy_explain.  Run with the argument "nonccl" (meson: dist_threads_nccl_missing, PA_NCCL_LIBRARY set to a
 * file that does not exist) it checks that the copy falls back cleanly when NCCL cannot be loaded.
 * Skips (77) without 2 GPUs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parray/cuda.h"
#include "internal.h"
#include "testutil.h"

#define MAXT 4
#define M 96                      /* elements per pair of the plain exchange */
#define N 16                      /* the fft exchange's edge */

static pa_scope *scope;
static int nthreads, shared_gpu, *hin[MAXT], *hout[MAXT], *hback[MAXT], device[MAXT];
static int64_t local_n;           /* elements of every thread's local array */
static char explained[MAXT][2048];
static const char *S = "S", *T = "T";

static int value(int64_t k)
{
    return (int)(3 * k + 1);
}

static int gpu_of(int t)
{
    return shared_gpu && t == 1 ? 0 : t;   /* shared: threads 0 and 1 on GPU 0 */
}

/* One thread: its arrays on its GPU, filled from the host, the destination poisoned, the exchange there and
 * back, the results copied to the host, the route explained. */
static int exchange(pa_ctx *ctx, void *arg)
{
    int t = (int)pa_tid(ctx), st;
    (void)arg;
    if ((st = pa_cuda_set_device(gpu_of(t))) != PA_OK)
        return st;
    device[t] = pa_cuda_get_device();
    const pa_type *L = pa_type_get(scope, "L"), *H = pa_type_get(scope, "H");
    void *src = pa_create(L), *dst = pa_create(L), *back = pa_create(L);
    int *poison = malloc((size_t)local_n * sizeof *poison);
    if (!src || !dst || !back || !poison)
        st = pa__err(PA_ERR_NOMEM, "thread %d: no memory: %s", t, pa_last_error());
    for (int64_t i = 0; poison && i < local_n; i++)
        poison[i] = -7;
    if (st == PA_OK)
        st = pa_copy(L, src, H, hin[t]);
    if (st == PA_OK)
        st = pa_copy(L, dst, H, poison);
    if (st == PA_OK)
        st = pa_copy(L, back, H, poison);
    /* collective: every thread, whatever failed before, so that none waits for another */
    int x1 = pa_copy(pa_type_get(scope, T), dst, pa_type_get(scope, S), src);
    int x2 = pa_copy(pa_type_get(scope, S), back, pa_type_get(scope, T), dst);
    st = st != PA_OK ? st : x1 != PA_OK ? x1 : x2;
    if (st == PA_OK)
        st = pa_copy(H, hout[t], L, dst);
    if (st == PA_OK)
        st = pa_copy(H, hback[t], L, back);
    if (st == PA_OK && pa_copy_explain(pa_type_get(scope, T), pa_type_get(scope, S), explained[t],
                                       sizeof explained[t]) < 0)
        st = pa__err(PA_ERR_SYS, "thread %d: pa_copy_explain: %s", t, pa_last_error());
    pa_destroy(L, src);
    pa_destroy(L, dst);
    pa_destroy(L, back);
    free(poison);
    return st;
}

/* Declares the case, fills every thread's source from the reference offsets, runs the threads (twice: the
 * second launch runs the cached plans and communicators) and checks every element. */
static void run(const char *text, const char *want_route)
{
    PA_CK_OK(pa_scope_create(NULL, &scope));
    PA_CK_OK(pa_declare_text(scope, text));
    const pa_type *st = pa_type_get(scope, S), *dt = pa_type_get(scope, T), *thr = pa_type_get(scope, "P");
    int64_t total = pa_size(st);
    local_n = pa_size(pa_type_get(scope, "L"));
    ck_assert_int_eq(pa_size(dt), total);
    for (int t = 0; t < nthreads; t++) {
        hin[t] = malloc((size_t)local_n * sizeof(int));
        hout[t] = malloc((size_t)local_n * sizeof(int));
        hback[t] = malloc((size_t)local_n * sizeof(int));
        ck_assert(hin[t] && hout[t] && hback[t]);
        for (int64_t i = 0; i < local_n; i++)
            hin[t][i] = -1;
    }
    for (int64_t k = 0; k < total; k++) {
        int64_t p = pa_offset_on(st, PA_ON_THREAD, k), o = pa_offset_on(st, PA_ON_LOCAL, k);
        if (p < 0 || p >= nthreads || o < 0 || o >= local_n)
            ck_abort_msg("element %lld: thread %lld, local %lld", (long long)k, (long long)p, (long long)o);
        hin[p][o] = value(k);
    }
    for (int round = 0; round < 2; round++) {
        for (int t = 0; t < nthreads; t++) {
            for (int64_t i = 0; i < local_n; i++)
                hout[t][i] = hback[t][i] = -9;
            explained[t][0] = 0;
            device[t] = -1;
        }
        PA_CK_OK(pa_for(thr, exchange, NULL, 0));
        for (int t = 0; t < nthreads; t++)
            ck_assert_int_eq(device[t], gpu_of(t));
        for (int64_t k = 0; k < total; k++) {
            int64_t p = pa_offset_on(dt, PA_ON_THREAD, k), o = pa_offset_on(dt, PA_ON_LOCAL, k);
            if (hout[p][o] != value(k))   /* one assertion at the end: Check reports every one it passes */
                ck_abort_msg("round %d, element %lld (thread %lld, local %lld): %d, expected %d", round,
                             (long long)k, (long long)p, (long long)o, hout[p][o], value(k));
        }
        for (int t = 0; t < nthreads; t++)
            for (int64_t i = 0; i < local_n; i++)
                if (hback[t][i] != hin[t][i])
                    ck_abort_msg("round %d, back on thread %d, local %lld: %d, expected %d", round, t, (long long)i,
                                 hback[t][i], hin[t][i]);
        for (int t = 0; t < nthreads; t++)
            ck_assert_msg(strstr(explained[t], want_route), "thread %d: no \"%s\" in: %s", t, want_route,
                          explained[t]);
    }
    fprintf(stderr, "dist_threads_nccl: %d threads, thread 0: %s\n", nthreads, strstr(explained[0], "route:"));
    for (int t = 0; t < nthreads; t++) {
        free(hin[t]);
        free(hout[t]);
        free(hback[t]);
    }
    pa_scope_destroy(scope);
}

static void plain(const char *want_route)
{
    char text[512];
    snprintf(text, sizeof text, "P = pthd [%d]\nL = dmem int [%d][%d]\nH = paged int [%d][%d]\n"
             "S = [#P][#L_0][#L_1]\nT = [#L_0][#P][#L_1]\n", nthreads, nthreads, M, nthreads, M);
    run(text, want_route);
}

static void fft(const char *want_route)
{
    char text[512];
    snprintf(text, sizeof text, "P = pthd [%d]\nL = dmem int [%d][[%d][%d]]\nH = paged int [%d][[%d][%d]]\n"
             "S = [#P][#L]\nT = [[#L_1_0][#P][#L_0][#L_1_1]]\n", nthreads, N / nthreads, N, N, N / nthreads, N, N);
    run(text, want_route);
}

START_TEST(test_plain_nccl)
{
    setenv("PA_PTHD_ROUTE", "nccl", 1);
    plain("route: NCCL");
}
END_TEST

START_TEST(test_plain_peer)
{
    setenv("PA_PTHD_ROUTE", "peer", 1);
    plain("route: pulls (PA_PTHD_ROUTE=peer)");
}
END_TEST

START_TEST(test_fft_nccl)
{
    setenv("PA_PTHD_ROUTE", "nccl", 1);
    fft("route: NCCL");
}
END_TEST

START_TEST(test_fft_nccl_chunks)
{
    setenv("PA_PTHD_ROUTE", "nccl", 1);
    setenv("PA_NCCL_CHUNKS", "4", 1);
    fft("route: NCCL");
}
END_TEST

START_TEST(test_fft_peer)
{
    setenv("PA_PTHD_ROUTE", "peer", 1);
    fft("route: pulls (PA_PTHD_ROUTE=peer)");
}
END_TEST

START_TEST(test_auto)
{
    unsetenv("PA_PTHD_ROUTE");
    plain("route: ");   /* the cheaper one, whichever: the explanation names it */
}
END_TEST

START_TEST(test_shared_gpu)
{
    setenv("PA_PTHD_ROUTE", "nccl", 1);
    shared_gpu = 1;
    plain("share GPU 0");
    shared_gpu = 0;
}
END_TEST

START_TEST(test_nccl_missing)
{
    setenv("PA_PTHD_ROUTE", "nccl", 1);
    plain("the NCCL route is not possible");
    fft("the NCCL route is not possible");
}
END_TEST

int main(int argc, char **argv)
{
    int missing = argc > 1 && strcmp(argv[1], "nonccl") == 0;
    if (pa_test_skip_without_gpu("dist_threads_nccl"))
        return 77;
    int ngpu = pa_test_gpu_count();   /* counted in a child: no CUDA call here before Check forks */
    if (ngpu < 2) {
        fprintf(stderr, "dist_threads_nccl: %d GPU; skipped (needs 2)\n", ngpu);
        return 77;
    }
    nthreads = ngpu < MAXT ? ngpu : MAXT;
    nthreads = nthreads == 3 ? 2 : nthreads;   /* N / P whole */
    fprintf(stderr, "dist_threads_nccl: %d GPUs, %d threads%s\n", ngpu, nthreads,
            missing ? ", NCCL not loadable (PA_NCCL_LIBRARY)" : "");
    Suite *s = suite_create("dist_threads_nccl");
    TCase *tc = tcase_create("dist_threads_nccl");
    tcase_set_timeout(tc, 300);
    if (missing) {
        tcase_add_test(tc, test_nccl_missing);
    } else {
        tcase_add_test(tc, test_plain_nccl);
        tcase_add_test(tc, test_plain_peer);
        tcase_add_test(tc, test_fft_nccl);
        tcase_add_test(tc, test_fft_nccl_chunks);
        tcase_add_test(tc, test_fft_peer);
        tcase_add_test(tc, test_auto);
        tcase_add_test(tc, test_shared_gpu);
    }
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
