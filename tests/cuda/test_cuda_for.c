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
#include <parray/cuda.h>
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
    int64_t bad = -1;   /* the first wrong element: one assertion, Check's are costly by the million */
    for (int64_t i = 0; i < dn && bad < 0; i++)
        bad = got[i] == want[i] ? -1 : i;
    ck_assert_msg(bad < 0, "%s <- %s: element %lld is %08x, want %08x", pa_type_name(dt), pa_type_name(st),
                  (long long)bad, got[bad < 0 ? 0 : bad], want[bad < 0 ? 0 : bad]);
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
    PA_CK_OK(pa_copy_async(H, out, D, dt, st));   /* out holds dt's bytes: h transposed */
    PA_CK_OK(pa_copy_async(P, back, D, d, st));   /* waits for the stream, then copies */
    ck_assert_int_eq(cudaStreamSynchronize(st), cudaSuccess);
    int64_t bad_back = -1, bad_out = -1;
    for (int64_t k = 0; k < n; k++) {
        if (bad_back < 0 && back[k] != h[k])
            bad_back = k;
        /* DT(k) is the offset that receives D(k): out[DT(k)] = h[D(k)] = h[k]. */
        if (bad_out < 0 && out[pa__offset_walk(DT, k)] != h[pa__offset_walk(D, k)])
            bad_out = k;
    }
    ck_assert_msg(bad_back < 0, "paged copy after the stream: element %lld", (long long)bad_back);
    ck_assert_msg(bad_out < 0, "transposed element %lld", (long long)bad_out);
    ck_assert_int_eq(cudaStreamDestroy(st), cudaSuccess);
    pa_destroy(H, h), pa_destroy(H, out), pa_destroy(P, back), pa_destroy(D, d), pa_destroy(D, dt);
    pa_scope_destroy(s);
}
END_TEST

/* A layout the compiler refuses (a wrap past its table budget) still copies to and from dmem, by walking. */
START_TEST(refused_layout_to_dmem)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    const int64_t n = 4194305;
    const pa_type *wrap = pa_type_parse(s, "paged unsigned [4194305 # [7]]");
    const pa_type *dflat = pa_type_parse(s, "dmem unsigned [4194305]"), *hflat = pa_type_parse(s, "paged unsigned [4194305]");
    unsigned seven[7] = {10, 11, 12, 13, 14, 15, 16}, *d = pa_create(dflat), *h = pa_create(hflat);
    ck_assert_msg(d && h, "%s", pa_last_error());
    PA_CK_OK(pa_copy(dflat, d, wrap, seven));
    PA_CK_OK(pa_copy(hflat, h, dflat, d));
    int64_t bad = -1;
    for (int64_t k = 0; k < n && bad < 0; k++)
        bad = h[k] == 10u + (unsigned)(k % 7) ? -1 : k;
    ck_assert_msg(bad < 0, "element %lld: %u", (long long)bad, h[bad < 0 ? 0 : bad]);
    pa_destroy(dflat, d), pa_destroy(hflat, h);
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

/*
 * pa_cuda_map over dmem: listing 21's increment over a plain type, an affine map with an argument over a
 * transposed window (only its elements change, each by its own k), float4 elements; all checked on the host.
 */
START_TEST(map_dmem)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare(s, "H", "paged int [[64][96]]"));
    PA_CK_OK(pa_declare(s, "D", "dmem int [[64][96]]"));
    PA_CK_OK(pa_declare(s, "W", "dmem int [[40 # disp(5) # D_1][30 # disp(7) # D_0]]"));
    const pa_type *H = pa_type_get(s, "H"), *D = pa_type_get(s, "D"), *W = pa_type_get(s, "W");
    int *h = pa_create(H), *want = pa_create(H), *d = pa_create(D);
    ck_assert_msg(h && want && d, "%s", pa_last_error());
    pa_rng rng = {pa_test_seed("map dmem")};
    for (int64_t i = 0; i < pa_size(H); i++)
        h[i] = want[i] = (int)(pa_rng_next(&rng) % 100000);
    PA_CK_OK(pa_copy(D, d, H, h));
    PA_CK_OK(pa_cuda_map(D, d, "__device__ void inc(int *x, long long k, const void *a) { *x += 1; }", "inc",
                         NULL, 0));
    struct { int mul, add; } arg = {3, -7};
    PA_CK_OK(pa_cuda_map(W, d,
                         "struct ab { int mul, add; };\n"
                         "__device__ void f(pa_elm_t *x, long long k, const void *a)\n"
                         "{ const ab *p = (const ab *)a; *x = *x * p->mul + p->add + (int)k; }\n",
                         "f", &arg, sizeof arg));
    PA_CK_OK(pa_copy(H, h, D, d));
    for (int64_t i = 0; i < pa_size(H); i++)
        want[i] += 1;
    for (int64_t k = 0; k < pa_size(W); k++) {
        int64_t o = pa__offset_walk(W, k);
        want[o] = want[o] * 3 - 7 + (int)k;
    }
    for (int64_t i = 0; i < pa_size(H); i++)
        ck_assert_msg(h[i] == want[i], "element %lld: %d, want %d", (long long)i, h[i], want[i]);
    /* float4 elements through the struct the element name gives. */
    const pa_type *F = pa_type_parse(s, "dmem float4 [1000]"), *FH = pa_type_parse(s, "paged float4 [1000]");
    float *fd = pa_create(F), *fh = pa_create(FH);
    for (int i = 0; i < 4000; i++)
        fh[i] = (float)i;
    PA_CK_OK(pa_copy(F, fd, FH, fh));
    PA_CK_OK(pa_cuda_map(F, fd, "__device__ void g(float4 *v, long long k, const void *a) { v->w = v->x + k; }",
                         "g", NULL, 0));
    PA_CK_OK(pa_copy(FH, fh, F, fd));
    for (int i = 0; i < 1000; i++)
        ck_assert_msg(fh[4 * i + 3] == (float)(4 * i) + (float)i && fh[4 * i + 2] == (float)(4 * i + 2), "%d", i);
    /* A compile error names the user's line. */
    PA_CK_ERR(pa_cuda_map(D, d, "__device__ void h(int *x, long long k, const void *a)\n{\n  *x = nope;\n}\n",
                          "h", NULL, 0), PA_ERR_COMPILE);
    ck_assert_msg(strstr(pa_last_error(), "nope"), "%s", pa_last_error());
    pa_destroy(H, h), pa_destroy(H, want), pa_destroy(D, d), pa_destroy(F, fd), pa_destroy(FH, fh);
    pa_scope_destroy(s);
}
END_TEST

/* pa_cuda_compile: a user kernel from source (listing 39's shape: types with parameters bound on the host). */
START_TEST(compiled_kernel)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare(s, "FROM", "<int n> dmem float [[n][n]]"));
    PA_CK_OK(pa_declare(s, "TO", "<int n> dmem float [[#FROM_1<n>][#FROM_0<n>]]"));
    PA_CK_OK(pa_declare(s, "HF", "<int n> paged float [[n][n]]"));
    const pa_type *from = pa_type_get(s, "FROM<300>"), *to = pa_type_get(s, "TO<300>");
    const pa_type *hf = pa_type_get(s, "HF<300>"), *c = pa_type_parse(s, "cuda [90000]");
    ck_assert_msg(from && to && hf && c, "%s", pa_last_error());
    pa_cuda_function fn;
    PA_CK_OK(pa_cuda_compile("foo", "#include <parray/device.h>\n"
                             "extern \"C\" __global__ void foo(pa_dthreads th, float *a, pa_dtype ta,\n"
                             "                                 const float *b, pa_dtype tb)\n"
                             "{\n"
                             "    long long k = pa_dev_tid(&th);\n"
                             "    if (k < th.n) a[pa_dev_offset(&ta, k)] = b[pa_dev_offset(&tb, k)];\n"
                             "}\n", "foo", &fn));
    float *a = pa_create(to), *b = pa_create(from), *hb = pa_create(hf), *ha = pa_create(hf);
    for (int i = 0; i < 90000; i++)
        hb[i] = (float)i, ha[i] = -1.0f;
    PA_CK_OK(pa_copy(from, b, hf, hb));
    PA_CK_OK(pa_copy(from, a, hf, ha));
    pa_dthreads th;
    pa_dtype ta, tb;
    PA_CK_OK(pa_cuda_threads(c, 0, &th));
    PA_CK_OK(pa_cuda_dtype(to, &ta));
    PA_CK_OK(pa_cuda_dtype(from, &tb));
    void *params[] = {&th, &a, &ta, &b, &tb};
    PA_CK_OK(pa_cuda_for(&th, fn, params, 0));
    PA_CK_OK(pa_copy(hf, ha, from, a));   /* a's memory as it is: the kernel wrote element k at TO(k) */
    int64_t bad = -1;
    for (int64_t k = 0; k < 90000 && bad < 0; k++)
        bad = ha[pa__offset_walk(to, k)] == hb[pa__offset_walk(from, k)] ? -1 : k;
    ck_assert_msg(bad < 0, "element %lld", (long long)bad);
    PA_CK_ERR(pa_cuda_compile("bad", "extern \"C\" __global__ void x() { y; }", "x", &fn), PA_ERR_COMPILE);
    PA_CK_ERR(pa_cuda_compile("noentry", "extern \"C\" __global__ void x() { }", "zz", &fn), PA_ERR_SYS);
    pa_destroy(to, a), pa_destroy(from, b), pa_destroy(hf, hb), pa_destroy(hf, ha);
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("cuda_for"))
        return 77;
    Suite *s = suite_create("cuda_for");
    TCase *tc = tcase_create("for");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, listing25_transposition);
    tcase_add_test(tc, random_pool);
    tcase_add_test(tc, thread_ids);
    tcase_add_test(tc, map_dmem);
    tcase_add_test(tc, compiled_kernel);
    tcase_add_test(tc, async_copies);
    tcase_add_test(tc, copy_3d_windows);
    tcase_add_test(tc, refused_layout_to_dmem);
    suite_add_tcase(s, tc);
    /* Its own case, so that a run under compute-sanitizer can leave it out (CK_RUN_CASE=for). */
    TCase *faults = tcase_create("faults");
    tcase_add_test(faults, kernel_fault_is_an_error);
    suite_add_tcase(s, faults);
    return pa_test_run(s);
}
