/*
 * Thread arrays on the GPU (pa_cuda_for), with kernels compiled by nvcc (for_kernels.cu):
 *   - the manual's listing 25: a kernel over cuda[size(A)] moving b[B(k)] to a[A(k)], FROM [4096][4096] to its
 *     transposition, compared element by element with the reference offsets, the destination poisoned;
 *   - random pool types (every affine one) copied through the kernel, each pair compared with the walk;
 *   - the thread ids: the overall id and the id along every dimension path, in both launch conventions, and
 *     the manual's tie of the rightmost grid and block leaves to blockIdx.x and threadIdx.x;
 *   - pa_copy_async on a stream: queued DMA and permute, and a pageable copy that waits for them;
 *   - errors: a kernel that faults comes back as an error, never as success.
 * Without a GPU the suite exits 77 (skipped).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "for_kernels.h"
#include "internal.h"
#include "testutil.h"
#include "type_pool.h"

static pa_cuda_function k_copy, k_tid, k_bad;

static void get_kernels(void)
{
    PA_CK_OK(for_kernels_get(&k_copy, &k_tid, &k_bad));
}

/* Runs the copy kernel over cuda[size] from (st, src) to (dt, dst). */
static void kernel_copy(pa_scope *s, const pa_type *dt, void *dst, const pa_type *st, const void *src)
{
    char decl[64];
    snprintf(decl, sizeof decl, "cuda [%lld]", (long long)pa_size(dt));
    const pa_type *c = pa_type_parse(s, decl);
    ck_assert_msg(c != NULL, "%s", pa_last_error());
    pa_dthreads th;
    pa_dtype ta, tb;
    PA_CK_OK(pa_cuda_threads(c, 0, &th));
    PA_CK_OK(pa_cuda_dtype(dt, &ta));
    PA_CK_OK(pa_cuda_dtype(st, &tb));
    void *params[] = {&th, &dst, &ta, &src, &tb};
    PA_CK_OK(pa_cuda_for(&th, k_copy, params, 0));
}

/* Host image of a dmem array of extent n (elements of 4 bytes). */
static void from_dev(pa_scope *s, unsigned *host, const void *dev, int64_t n)
{
    char a[64], h[64];
    snprintf(a, sizeof a, "dmem unsigned [%lld]", (long long)n);
    snprintf(h, sizeof h, "paged unsigned [%lld]", (long long)n);
    PA_CK_OK(pa_copy(pa_type_parse(s, h), host, pa_type_parse(s, a), dev));
}

static void to_dev(pa_scope *s, void *dev, const unsigned *host, int64_t n)
{
    char a[64], h[64];
    snprintf(a, sizeof a, "dmem unsigned [%lld]", (long long)n);
    snprintf(h, sizeof h, "paged unsigned [%lld]", (long long)n);
    PA_CK_OK(pa_copy(pa_type_parse(s, a), dev, pa_type_parse(s, h), host));
}

static int64_t extent(const pa_type *t)
{
    int64_t lo, hi;
    PA_CK_OK(pa_extent(t, &lo, &hi));
    return hi + 1;
}

/* Copies through the kernel and compares every element of dt's extent with the reference walk. */
static void check_kernel_pair(pa_scope *s, const pa_type *dt, const pa_type *st, pa_rng *rng)
{
    int64_t dn = extent(dt), sn = extent(st), n = pa_size(dt);
    unsigned *hs = malloc((size_t)sn * 4), *want = malloc((size_t)dn * 4), *got = malloc((size_t)dn * 4);
    void *dst = pa_create(dt), *src = pa_create(st);
    ck_assert_msg(hs && want && got && dst && src, "%s", pa_last_error());
    for (int64_t i = 0; i < sn; i++)
        hs[i] = (unsigned)pa_rng_next(rng);
    for (int64_t i = 0; i < dn; i++)
        want[i] = 0xA5A5A5A5u;
    to_dev(s, src, hs, sn);
    to_dev(s, dst, want, dn);
    for (int64_t k = 0; k < n; k++)
        want[pa__offset_walk(dt, k)] = hs[pa__offset_walk(st, k)];
    kernel_copy(s, dt, dst, st, src);
    from_dev(s, got, dst, dn);
    for (int64_t i = 0; i < dn; i++)
        ck_assert_msg(got[i] == want[i], "%s <- %s: element %lld is %08x, want %08x", pa_type_name(dt),
                      pa_type_name(st), (long long)i, got[i], want[i]);
    pa_destroy(dt, dst);
    pa_destroy(st, src);
    free(hs), free(want), free(got);
}

START_TEST(listing25_transposition)
{
    get_kernels();
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare(s, "FROM", "dmem unsigned [[4096][4096]]"));
    PA_CK_OK(pa_declare(s, "TO", "dmem unsigned [[#FROM_1][#FROM_0]]"));
    pa_rng rng = {pa_test_seed("listing 25")};
    check_kernel_pair(s, pa_type_get(s, "TO"), pa_type_get(s, "FROM"), &rng);
    pa_scope_destroy(s);
}
END_TEST

START_TEST(random_pool)
{
    get_kernels();
    pa_rng rng = {pa_test_seed("cuda_for random pool")};
    int pairs = 0;
    for (int round = 0; round < 5; round++) {
        pa_type_pool p;
        pa_type_pool_make(&p, &rng, "dmem", 4, 1 << 14);
        for (int i = 0; i < p.n; i++) {
            pa_dtype d;
            if (pa_cuda_dtype(p.t[i], &d) != PA_OK)
                continue;
            for (int j = 0; j < p.n; j++) {
                if (pa_cuda_dtype(p.t[j], &d) != PA_OK)
                    continue;
                check_kernel_pair(p.scope, p.t[i], p.t[j], &rng);
                pairs++;
            }
        }
        pa_scope_destroy(p.scope);
    }
    ck_assert_int_gt(pairs, 40);
}
END_TEST

/* Launches the tid kernel over a thread type and checks every thread's ids against the definition. */
static void check_tids(pa_scope *s, const char *decl, int flags, int two_leaves)
{
    const pa_type *c = pa_type_parse(s, decl);
    ck_assert_msg(c != NULL, "%s", pa_last_error());
    pa_dthreads th;
    PA_CK_OK(pa_cuda_threads(c, flags, &th));
    int stride = th.nnodes + 5;
    char a[64], h[64];
    snprintf(a, sizeof a, "dmem int64 [%lld]", (long long)(th.n * stride));
    snprintf(h, sizeof h, "paged int64 [%lld]", (long long)(th.n * stride));
    const pa_type *ta = pa_type_parse(s, a), *tb = pa_type_parse(s, h);
    ck_assert_msg(ta && tb, "%s", pa_last_error());
    long long *out = pa_create(ta), *host = pa_create(tb);
    ck_assert_msg(out && host, "%s", pa_last_error());
    void *params[] = {&th, &out, &stride};
    PA_CK_OK(pa_cuda_for(&th, k_tid, params, 0));
    PA_CK_OK(pa_copy(tb, host, ta, out));
    int n01 = pa_dev_node(&th, "0_1"), n11 = pa_dev_node(&th, "1_1");
    for (long long k = 0; k < th.n; k++) {
        const long long *o = host + k * stride;
        ck_assert_int_eq(o[0], k);
        for (int i = 0; i < th.nnodes; i++)
            ck_assert_int_eq(o[1 + i], (k / th.inner[i]) % th.size[i]);
        ck_assert_int_eq(o[1 + th.nnodes], n01 < 0 ? -1 : (k / th.inner[n01]) % th.size[n01]);
        if (two_leaves) {   /* [[gy][gx]][[by][bx]]: tid_0_1 is blockIdx.x and tid_1_1 threadIdx.x */
            ck_assert_int_eq(o[1 + th.nnodes], o[2 + th.nnodes]);
            ck_assert_int_eq(o[3 + th.nnodes], o[4 + th.nnodes]);
        }
        (void)n11;
    }
    pa_destroy(ta, out);
    pa_destroy(tb, host);
}

START_TEST(thread_ids)
{
    get_kernels();
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_scope_def_elm(s, "int64", 8));
    check_tids(s, "cuda [[4][8]][[2][32]]", PA_CUDA_GRID, 1);
    check_tids(s, "cuda [[4][8]][[2][32]]", 0, 0);
    check_tids(s, "cuda [[[3][5]][[7]]][[4][2][16]]", PA_CUDA_GRID, 0);
    check_tids(s, "cuda [1000]", 0, 0);
    check_tids(s, "cuda [[3][333]]", 0, 0);
    pa_scope_destroy(s);
}
END_TEST

START_TEST(kernel_fault_is_an_error)
{
    get_kernels();
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    const pa_type *c = pa_type_parse(s, "cuda [64]"), *d = pa_type_parse(s, "dmem unsigned [64]");
    pa_dthreads th;
    PA_CK_OK(pa_cuda_threads(c, 0, &th));
    void *p = pa_create(d);
    void *params[] = {&th, &p};
    int st = pa_cuda_for(&th, k_bad, params, 0);
    ck_assert_msg(st != PA_OK, "a faulting kernel reported success");
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "pa_cuda_for"));
    PA_CK_ERR(pa_cuda_for(&th, NULL, params, 0), PA_ERR_INVAL);
    PA_CK_ERR(pa_cuda_for(NULL, k_copy, params, 0), PA_ERR_INVAL);
    /* No pa_destroy: the context is unusable after the fault; the process (a Check child) ends here. */
}
END_TEST

/*
 * pa_copy_async on a non-blocking stream: pinned -> dmem -> transposed dmem -> pinned, all queued (the
 * explanations say so), nothing waited for until the stream is synchronised; then a pageable copy on the
 * same stream, which must wait for the queued work; every element compared with the reference offsets.
 */
START_TEST(async_copies)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare(s, "H", "pinned unsigned [[2048][1536]]"));
    PA_CK_OK(pa_declare(s, "D", "dmem unsigned [[2048][1536]]"));
    PA_CK_OK(pa_declare(s, "DT", "dmem unsigned [[#D_1][#D_0]]"));
    PA_CK_OK(pa_declare(s, "P", "paged unsigned [[2048][1536]]"));
    const pa_type *H = pa_type_get(s, "H"), *D = pa_type_get(s, "D"), *DT = pa_type_get(s, "DT");
    const pa_type *P = pa_type_get(s, "P");
    char line[512];
    ck_assert_int_gt(pa_copy_explain(D, H, line, sizeof line), 0);
    ck_assert_msg(strstr(line, "async=queued"), "%s", line);
    ck_assert_int_gt(pa_copy_explain(DT, D, line, sizeof line), 0);
    ck_assert_msg(strstr(line, "async=queued"), "%s", line);
    ck_assert_int_gt(pa_copy_explain(P, D, line, sizeof line), 0);
    ck_assert_msg(strstr(line, "async=waits"), "%s", line);
    int64_t n = pa_size(H);
    unsigned *h = pa_create(H), *out = pa_create(H), *back = pa_create(P), *d = pa_create(D), *dt = pa_create(D);
    ck_assert_msg(h && out && back && d && dt, "%s", pa_last_error());
    pa_rng rng = {pa_test_seed("async copies")};
    for (int64_t i = 0; i < n; i++) {
        h[i] = (unsigned)pa_rng_next(&rng);
        out[i] = back[i] = 0xA5A5A5A5u;
    }
    cudaStream_t st;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
    PA_CK_OK(pa_copy_async(D, d, H, h, st));
    PA_CK_OK(pa_copy_async(DT, dt, D, d, st));    /* dt is d transposed */
    PA_CK_OK(pa_copy_async(H, out, DT, dt, st));  /* out holds dt's bytes: H's transposition */
    PA_CK_OK(pa_copy_async(P, back, D, d, st));   /* waits for the stream, then copies */
    ck_assert_int_eq(cudaStreamSynchronize(st), cudaSuccess);
    for (int64_t k = 0; k < n; k++) {
        ck_assert_msg(back[k] == h[k], "paged copy after the stream: element %lld", (long long)k);
        /* DT(k) is the offset that receives D(k): out[DT(k)] = h[D(k)] = h[k]. */
        int64_t o = pa__offset_walk(DT, k);
        ck_assert_msg(out[o] == h[pa__offset_walk(D, k)], "transposed element %lld", (long long)k);
    }
    ck_assert_int_eq(cudaStreamDestroy(st), cudaSuccess);
    pa_destroy(H, h), pa_destroy(H, out), pa_destroy(P, back), pa_destroy(D, d), pa_destroy(D, dt);
    pa_scope_destroy(s);
}
END_TEST

/* 3-D windows through cudaMemcpy3D: pinned window -> dense dmem -> a window of a dmem array, checked. */
START_TEST(copy_3d_windows)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare(s, "DATA", "pinned unsigned [[20][30][200]]"));
    PA_CK_OK(pa_declare(s, "WIN", "pinned unsigned [[10 # disp(3) # DATA_0][12 # disp(5) # DATA_1]"
                                  "[150 # disp(7) # DATA_2]]"));
    PA_CK_OK(pa_declare(s, "DW", "dmem unsigned [[10][12][150]]"));
    PA_CK_OK(pa_declare(s, "DD", "dmem unsigned [[16][40][160]]"));
    PA_CK_OK(pa_declare(s, "DWIN", "dmem unsigned [[10 # disp(2) # DD_0][12 # disp(1) # DD_1]"
                                   "[150 # disp(9) # DD_2]]"));
    PA_CK_OK(pa_declare(s, "HD", "paged unsigned [[16][40][160]]"));
    const pa_type *data = pa_type_get(s, "DATA"), *win = pa_type_get(s, "WIN"), *dw = pa_type_get(s, "DW");
    const pa_type *dd = pa_type_get(s, "DD"), *dwin = pa_type_get(s, "DWIN"), *hd = pa_type_get(s, "HD");
    char line[512];
    ck_assert_int_gt(pa_copy_explain(dw, win, line, sizeof line), 0);
    ck_assert_msg(strstr(line, "strategy=cuda_3d"), "%s", line);
    ck_assert_int_gt(pa_copy_explain(dwin, dw, line, sizeof line), 0);
    ck_assert_msg(strstr(line, "strategy=cuda_3d"), "%s", line);
    unsigned *h = pa_create(data), *d1 = pa_create(dw), *d2 = pa_create(dd), *back = pa_create(hd);
    ck_assert_msg(h && d1 && d2 && back, "%s", pa_last_error());
    pa_rng rng = {pa_test_seed("3-D windows")};
    for (int64_t i = 0; i < pa_size(data); i++)
        h[i] = (unsigned)pa_rng_next(&rng);
    for (int64_t i = 0; i < pa_size(hd); i++)
        back[i] = 0xA5A5A5A5u;
    PA_CK_OK(pa_copy(dd, d2, hd, back));   /* poison the destination array */
    PA_CK_OK(pa_copy(dw, d1, win, h));
    PA_CK_OK(pa_copy(dwin, d2, dw, d1));
    PA_CK_OK(pa_copy(hd, back, dd, d2));
    unsigned *want = malloc((size_t)pa_size(hd) * 4);
    for (int64_t i = 0; i < pa_size(hd); i++)
        want[i] = 0xA5A5A5A5u;
    for (int64_t k = 0; k < pa_size(win); k++)
        want[pa__offset_walk(dwin, k)] = h[pa__offset_walk(win, k)];
    for (int64_t i = 0; i < pa_size(hd); i++)
        ck_assert_msg(back[i] == want[i], "element %lld: %08x, want %08x", (long long)i, back[i], want[i]);
    free(want);
    pa_destroy(data, h), pa_destroy(dw, d1), pa_destroy(dd, d2), pa_destroy(hd, back);
    pa_scope_destroy(s);
}
END_TEST

/* Whether a GPU is present, asked in a child process (see test_cuda_copy.c). */
static int gpu_present(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(pa_cuda_device_count() > 0 ? 0 : 1);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void)
{
    if (!gpu_present()) {
        fprintf(stderr, "cuda_for: skipped: no usable GPU (or no CUDA backend in this build)\n");
        return 77;
    }
    Suite *s = suite_create("cuda_for");
    TCase *tc = tcase_create("for");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, listing25_transposition);
    tcase_add_test(tc, random_pool);
    tcase_add_test(tc, thread_ids);
    tcase_add_test(tc, async_copies);
    tcase_add_test(tc, copy_3d_windows);
    tcase_add_test(tc, kernel_fault_is_an_error);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
