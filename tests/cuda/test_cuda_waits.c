/*
 * Suite cuda_waits: every public call whose documentation says that it waits keeps that promise (issue 27).
 * For each such call, long work is queued first on the default stream (a kernel that spins for about 100 ms,
 * launched without waiting), the call is made, and when it returns the default (legacy) stream must be idle
 * (cudaStreamQuery) and the call's result must be there; and a kernel fault (a trap) queued before the call,
 * or inside it, must come back from that call as an error with CUDA's words.  The calls:
 *   - pa_copy_async on the default stream, for copies that wait (host to host, pageable to dmem and back);
 *   - pa_copy between dmem and the host after a kernel wrote the source;
 *   - pa_cuda_for, pa_cuda_map;
 *   - pa_gemm_dmem ("Waits for the result"), in fp32 and on the tensor cores;
 *   - pa_ssb_gpu_run (its ms runs until the last kernel finished) and pa_ssb_gpu_result after a launch.
 * The spin is checked to be still running right after it is queued, so that each check can fail.  A trap makes
 * the CUDA context unusable: every test runs in its own process (Check's fork).  Without a GPU the suite exits
 * 77 (skipped).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "testutil.h"
#include <parray/float16.h>
#include <parray/gputile.h>
#include <parray/ssb.h>
#include "waits_sources.h"

/* About 100 ms at the clocks of current GPUs (1.5 to 2 GHz). */
static const long long SPIN_CYCLES = 150000000LL;

typedef struct fixture {
    pa_scope *s;
    const pa_type *one, *hone;   /* dmem int [1], paged int [1] */
    int *flag;                   /* dmem: the spin kernel sets it to 1 */
    pa_cuda_function spin, trap;
    pa_dthreads th1;             /* one thread */
} fixture;

static void setup_fixture(fixture *f)
{
    memset(f, 0, sizeof *f);
    PA_CK_OK(pa_scope_create(NULL, &f->s));
    f->one = pa_type_parse(f->s, "dmem int [1]");
    f->hone = pa_type_parse(f->s, "paged int [1]");
    ck_assert_msg(f->one && f->hone, "%s", pa_last_error());
    f->flag = pa_create(f->one);
    ck_assert_msg(f->flag, "%s", pa_last_error());
    PA_CK_OK(pa_cuda_compile("waits", waits_kernels_src, "spin", &f->spin));
    PA_CK_OK(pa_cuda_compile("waits", waits_kernels_src, "trap", &f->trap));
    PA_CK_OK(pa_cuda_threads(pa_type_parse(f->s, "cuda [1]"), 0, &f->th1));
}

static void teardown_fixture(fixture *f)
{
    pa_destroy(f->one, f->flag);
    pa_scope_destroy(f->s);
}

static int read_flag(fixture *f)
{
    int h = -1;
    ck_assert_int_eq(cudaMemcpy(&h, f->flag, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
}

/* Queues the spin on the default stream (flag 0 until it ends) and checks that it is still running. */
static void queue_spin(fixture *f)
{
    int zero = 0;
    PA_CK_OK(pa_copy(f->one, f->flag, f->hone, &zero));
    long long cycles = SPIN_CYCLES;
    void *params[] = {&cycles, &f->flag};
    PA_CK_OK(pa_cuda_for_async(&f->th1, f->spin, params, 0, NULL));
    ck_assert_msg(cudaStreamQuery(cudaStreamLegacy) == cudaErrorNotReady,
                  "the spin kernel had already finished when its launch returned: the test cannot check a wait");
}

/* Queues the spin, then a kernel that traps behind it: the call made next launches before the fault happens. */
static void queue_fault(fixture *f)
{
    queue_spin(f);
    void *params[] = {&f->flag};
    PA_CK_OK(pa_cuda_for_async(&f->th1, f->trap, params, 0, NULL));
}

/* The default stream is idle and the spin has set its flag. */
static void assert_done(fixture *f, const char *call)
{
    cudaError_t q = cudaStreamQuery(cudaStreamLegacy);
    ck_assert_msg(q == cudaSuccess, "%s returned while the default stream still had work (cudaStreamQuery: %s)", call,
                  cudaGetErrorName(q));
    ck_assert_int_eq(read_flag(f), 1);
}

/* A call that followed a fault: an error that carries CUDA's words. */
static void assert_fault(int st, const char *call)
{
    ck_assert_msg(st != PA_OK, "%s returned PA_OK after a kernel fault", call);
    ck_assert_msg(strstr(pa_last_error(), "CUDA"), "%s: %s: the message does not say what CUDA reported", call,
                  pa_last_error());
}

START_TEST(copy_async_host_waits)
{
    fixture f;
    setup_fixture(&f);
    const pa_type *h = pa_type_parse(f.s, "paged int [4096]");
    int *a = pa_create(h), *b = pa_create(h);
    for (int i = 0; i < 4096; i++)
        a[i] = i, b[i] = -1;
    pa_copy_info info;
    PA_CK_OK(pa_copy_query(h, h, &info));
    ck_assert_int_eq(info.queued, 0);   /* a copy that waits for the stream first */
    queue_spin(&f);
    PA_CK_OK(pa_copy_async(h, b, h, a, NULL));
    assert_done(&f, "pa_copy_async(paged <- paged, NULL)");
    for (int i = 0; i < 4096; i++)
        ck_assert_int_eq(b[i], i);
    pa_destroy(h, a), pa_destroy(h, b);
    teardown_fixture(&f);
}
END_TEST

START_TEST(copy_async_host_reports_fault)
{
    fixture f;
    setup_fixture(&f);
    const pa_type *h = pa_type_parse(f.s, "paged int [64]");
    int a[64] = {0}, b[64];
    queue_fault(&f);
    assert_fault(pa_copy_async(h, b, h, a, NULL), "pa_copy_async(paged <- paged, NULL)");
    teardown_fixture(&f);
}
END_TEST

/* A copy from dmem to pageable memory (staged, so it waits) reads what the spin wrote; so does pa_copy. */
START_TEST(copy_from_dmem_sees_earlier_kernels)
{
    fixture f;
    setup_fixture(&f);
    int h = -1;
    queue_spin(&f);
    PA_CK_OK(pa_copy_async(f.hone, &h, f.one, f.flag, NULL));
    ck_assert_int_eq(cudaStreamSynchronize(cudaStreamLegacy), cudaSuccess);
    ck_assert_int_eq(h, 1);
    h = -1;
    queue_spin(&f);
    PA_CK_OK(pa_copy(f.hone, &h, f.one, f.flag));
    ck_assert_int_eq(h, 1);
    assert_done(&f, "pa_copy(paged <- dmem)");
    teardown_fixture(&f);
}
END_TEST

START_TEST(cuda_for_waits)
{
    fixture f;
    setup_fixture(&f);
    int zero = 0;
    PA_CK_OK(pa_copy(f.one, f.flag, f.hone, &zero));
    long long cycles = SPIN_CYCLES;
    void *params[] = {&cycles, &f.flag};
    PA_CK_OK(pa_cuda_for(&f.th1, f.spin, params, 0));
    assert_done(&f, "pa_cuda_for");
    teardown_fixture(&f);
}
END_TEST

START_TEST(cuda_for_reports_fault)
{
    fixture f;
    setup_fixture(&f);
    void *params[] = {&f.flag};
    assert_fault(pa_cuda_for(&f.th1, f.trap, params, 0), "pa_cuda_for(a kernel that traps)");
    teardown_fixture(&f);
}
END_TEST

START_TEST(cuda_map_waits)
{
    fixture f;
    setup_fixture(&f);
    const pa_type *d = pa_type_parse(f.s, "dmem int [1000]"), *h = pa_type_parse(f.s, "paged int [1000]");
    int *x = pa_create(d), hx[1000];
    for (int i = 0; i < 1000; i++)
        hx[i] = i;
    PA_CK_OK(pa_copy(d, x, h, hx));
    PA_CK_OK(pa_cuda_map(d, x, waits_inc_src, "inc", NULL, 0));   /* compiled here: the next call only runs */
    queue_spin(&f);
    PA_CK_OK(pa_cuda_map(d, x, waits_inc_src, "inc", NULL, 0));
    assert_done(&f, "pa_cuda_map");
    ck_assert_int_eq(cudaMemcpy(hx, x, sizeof hx, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < 1000; i++)
        ck_assert_int_eq(hx[i], i + 2);
    pa_destroy(d, x);
    teardown_fixture(&f);
}
END_TEST

START_TEST(cuda_map_reports_fault)
{
    fixture f;
    setup_fixture(&f);
    const pa_type *d = pa_type_parse(f.s, "dmem int [1000]");
    int *x = pa_create(d);
    ck_assert_int_eq(cudaMemset(x, 0, 1000 * sizeof(int)), cudaSuccess);
    assert_fault(pa_cuda_map(d, x, waits_trap_src, "boom", NULL, 0), "pa_cuda_map(an element function that traps)");
    teardown_fixture(&f);
}
END_TEST

/* C = A B for 64 x 64 floats: A the identity, B[i][j] = i + j. */
typedef struct gemm_case {
    const pa_type *A, *B, *C, *H;
    float *a, *b, *c, *h;
} gemm_case;

static void gemm_setup(fixture *f, gemm_case *g)
{
    PA_CK_OK(pa_declare_text(f->s, "parray dmem float [64][64] GA; parray dmem float [64][64] GB; "
                                   "parray dmem float [64][64] GC; parray paged float [64][64] GH;"));
    g->A = pa_type_get(f->s, "GA"), g->B = pa_type_get(f->s, "GB"), g->C = pa_type_get(f->s, "GC");
    g->H = pa_type_get(f->s, "GH");
    g->a = pa_create(g->A), g->b = pa_create(g->B), g->c = pa_create(g->C), g->h = pa_create(g->H);
    ck_assert_msg(g->a && g->b && g->c && g->h, "%s", pa_last_error());
    for (int i = 0; i < 64 * 64; i++)
        g->h[i] = i / 64 == i % 64 ? 1.0f : 0.0f;
    PA_CK_OK(pa_copy(g->A, g->a, g->H, g->h));
    for (int i = 0; i < 64 * 64; i++)
        g->h[i] = (float)(i / 64 + i % 64);
    PA_CK_OK(pa_copy(g->B, g->b, g->H, g->h));
    /* The kernel compiled and run once, so that the calls below only launch and wait. */
    PA_CK_OK(pa_gemm_dmem(g->C, g->c, g->A, g->a, g->B, g->b, 1.0, 0.0));
}

static void gemm_free(gemm_case *g)
{
    pa_destroy(g->A, g->a), pa_destroy(g->B, g->b), pa_destroy(g->C, g->c), pa_destroy(g->H, g->h);
}

START_TEST(gemm_waits)
{
    fixture f;
    gemm_case g;
    setup_fixture(&f);
    gemm_setup(&f, &g);
    ck_assert_int_eq(cudaMemset(g.c, 0, 64 * 64 * sizeof(float)), cudaSuccess);
    queue_spin(&f);
    PA_CK_OK(pa_gemm_dmem(g.C, g.c, g.A, g.a, g.B, g.b, 2.0, 0.0));
    assert_done(&f, "pa_gemm_dmem");
    ck_assert_int_eq(cudaMemcpy(g.h, g.c, 64 * 64 * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < 64 * 64; i++)
        ck_assert_msg(g.h[i] == 2.0f * (float)(i / 64 + i % 64), "C[%d][%d] = %g", i / 64, i % 64, g.h[i]);
    gemm_free(&g);
    teardown_fixture(&f);
}
END_TEST

/* The tensor cores' pa_gemm_dmem (half operands: on a Hopper GPU the wgmma strategy, whose tensor maps and
 * scratch are set up per call, else mma.sync) waits as the fp32 one does: C = 2 A B for A (128 x 64) picking row
 * i % 64 of B (64 x 256, B[k][j] = (k + j) % 32, exact in half), queued behind the spin. */
START_TEST(gemm_tensor_cores_wait)
{
    fixture f;
    setup_fixture(&f);
    PA_CK_OK(pa_declare_text(f.s, "parray dmem half [128][64] TA; parray dmem half [64][256] TB; "
                                  "parray dmem float [128][256] TC;"));
    const pa_type *A = pa_type_get(f.s, "TA"), *B = pa_type_get(f.s, "TB"), *C = pa_type_get(f.s, "TC");
    uint16_t *ha = malloc(128 * 64 * sizeof *ha), *hb = malloc(64 * 256 * sizeof *hb);
    float *hc = malloc(128 * 256 * sizeof *hc);
    void *a = pa_create(A), *b = pa_create(B), *c = pa_create(C);
    ck_assert_msg(ha && hb && hc && a && b && c, "%s", pa_last_error());
    for (int i = 0; i < 128 * 64; i++)
        ha[i] = pa_half_from_float(i % 64 == (i / 64) % 64 ? 1.0f : 0.0f);
    for (int i = 0; i < 64 * 256; i++)
        hb[i] = pa_half_from_float((float)((i / 256 + i % 256) % 32));
    ck_assert_int_eq(cudaMemcpy(a, ha, 128 * 64 * sizeof *ha, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(b, hb, 64 * 256 * sizeof *hb, cudaMemcpyHostToDevice), cudaSuccess);
    PA_CK_OK(pa_gemm_dmem(C, c, A, a, B, b, 1.0, 0.0));   /* compiled and run once: below, a launch and a wait */
    ck_assert_int_eq(cudaMemset(c, 0, 128 * 256 * sizeof(float)), cudaSuccess);
    queue_spin(&f);
    PA_CK_OK(pa_gemm_dmem(C, c, A, a, B, b, 2.0, 0.0));
    assert_done(&f, "pa_gemm_dmem (half operands, tensor cores)");
    ck_assert_int_eq(cudaMemcpy(hc, c, 128 * 256 * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < 128 * 256; i++)
        ck_assert_msg(hc[i] == 2.0f * (float)((i / 256 % 64 + i % 256) % 32), "C[%d][%d] = %g", i / 256, i % 256,
                      hc[i]);
    pa_destroy(A, a), pa_destroy(B, b), pa_destroy(C, c);
    free(ha), free(hb), free(hc);
    teardown_fixture(&f);
}
END_TEST

START_TEST(gemm_reports_fault_before)
{
    fixture f;
    gemm_case g;
    setup_fixture(&f);
    gemm_setup(&f, &g);
    queue_fault(&f);
    assert_fault(pa_gemm_dmem(g.C, g.c, g.A, g.a, g.B, g.b, 1.0, 0.0), "pa_gemm_dmem after a fault");
    teardown_fixture(&f);
}
END_TEST

/* The kernel itself faults: C at an address that is no device memory. */
START_TEST(gemm_reports_fault_inside)
{
    fixture f;
    gemm_case g;
    setup_fixture(&f);
    gemm_setup(&f, &g);
    void *bad = (void *)(uintptr_t)0x100000;
    assert_fault(pa_gemm_dmem(g.C, bad, g.A, g.a, g.B, g.b, 1.0, 0.0), "pa_gemm_dmem(C at a bad address)");
    teardown_fixture(&f);
}
END_TEST

/* How long the spin runs alone, by events around it (ms). */
static float spin_ms(fixture *f)
{
    cudaEvent_t e0, e1;
    float ms = 0;
    ck_assert_int_eq(cudaEventCreate(&e0), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&e1), cudaSuccess);
    ck_assert_int_eq(cudaEventRecord(e0, cudaStreamLegacy), cudaSuccess);
    queue_spin(f);
    ck_assert_int_eq(cudaEventRecord(e1, cudaStreamLegacy), cudaSuccess);
    ck_assert_int_eq(cudaEventSynchronize(e1), cudaSuccess);
    ck_assert_int_eq(cudaEventElapsedTime(&ms, e0, e1), cudaSuccess);
    cudaEventDestroy(e0), cudaEventDestroy(e1);
    return ms;
}

/*
 * pa_ssb_gpu_run's kernels queue behind the spin: its ms must include the wait for them (at least half the
 * spin's own time, which only load could make longer), the default stream must be idle when it returns, and
 * the result must equal the CPU's.  Then pa_ssb_gpu_launch (NULL) and pa_ssb_gpu_result behind a spin.
 */
START_TEST(ssb_run_waits)
{
    fixture f;
    setup_fixture(&f);
    pa_ssb_db *db = NULL;
    pa_ssb_gpu *g = NULL;
    pa_ssb_result cpu, gpu;
    char why[256];
    int q = pa_ssb_query_index("q2.1");
    PA_CK_OK(pa_ssb_generate(0.01, 5, 0, &db));
    PA_CK_OK(pa_ssb_gpu_create(db, &g));
    PA_CK_OK(pa_ssb_run_cpu(db, q, 0, &cpu));
    PA_CK_OK(pa_ssb_gpu_run(g, q, &gpu, NULL));   /* compiles the kernels */
    pa_ssb_result_destroy(&gpu);
    float alone = spin_ms(&f);
    ck_assert_msg(alone > 20.0f, "the spin ran %.3f ms: too short to tell a wait from none", alone);
    double ms = -1;
    queue_spin(&f);
    PA_CK_OK(pa_ssb_gpu_run(g, q, &gpu, &ms));
    assert_done(&f, "pa_ssb_gpu_run");
    ck_assert_msg(ms >= 0.5 * alone, "pa_ssb_gpu_run's ms %.3f, but its kernels waited behind a spin of %.3f ms", ms,
                  alone);
    ck_assert_msg(pa_ssb_result_equal(&gpu, &cpu, why, sizeof why), "gpu vs cpu: %s", why);
    pa_ssb_result_destroy(&gpu);
    queue_spin(&f);
    PA_CK_OK(pa_ssb_gpu_launch(g, q, NULL));
    PA_CK_OK(pa_ssb_gpu_result(g, q, &gpu));
    assert_done(&f, "pa_ssb_gpu_result");
    ck_assert_msg(pa_ssb_result_equal(&gpu, &cpu, why, sizeof why), "launch/result vs cpu: %s", why);
    pa_ssb_result_destroy(&gpu);
    pa_ssb_result_destroy(&cpu);
    pa_ssb_gpu_destroy(g);
    pa_ssb_destroy(db);
    teardown_fixture(&f);
}
END_TEST

START_TEST(ssb_run_reports_fault)
{
    fixture f;
    setup_fixture(&f);
    pa_ssb_db *db = NULL;
    pa_ssb_gpu *g = NULL;
    pa_ssb_result r;
    int q = pa_ssb_query_index("q1.1");
    PA_CK_OK(pa_ssb_generate(0.01, 5, 0, &db));
    PA_CK_OK(pa_ssb_gpu_create(db, &g));
    PA_CK_OK(pa_ssb_gpu_run(g, q, &r, NULL));
    pa_ssb_result_destroy(&r);
    queue_fault(&f);
    assert_fault(pa_ssb_gpu_run(g, q, &r, NULL), "pa_ssb_gpu_run after a fault");
    teardown_fixture(&f);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("cuda_waits"))
        return 77;
    Suite *s = suite_create("cuda_waits");
    TCase *tc = tcase_create("waits");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, copy_async_host_waits);
    tcase_add_test(tc, copy_async_host_reports_fault);
    tcase_add_test(tc, copy_from_dmem_sees_earlier_kernels);
    tcase_add_test(tc, cuda_for_waits);
    tcase_add_test(tc, cuda_for_reports_fault);
    tcase_add_test(tc, cuda_map_waits);
    tcase_add_test(tc, cuda_map_reports_fault);
    tcase_add_test(tc, gemm_waits);
    tcase_add_test(tc, gemm_tensor_cores_wait);
    tcase_add_test(tc, gemm_reports_fault_before);
    tcase_add_test(tc, gemm_reports_fault_inside);
    tcase_add_test(tc, ssb_run_waits);
    tcase_add_test(tc, ssb_run_reports_fault);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
