/*
 * Launches captured into a CUDA graph in the strictest capture mode (cudaStreamCaptureModeGlobal, the default
 * of cudaStreamBeginCapture's users), then the graph replayed:
 *   - pa_cuda_for_async of an nvcc kernel (the manual's listing 25 copy over cuda[n]);
 *   - pa_cuda_map_async of an NVRTC element function;
 *   - pa_copy_async of a transposition between two dmem types (the device permute kernel).
 * Each call runs once before the capture (compiling and loading what it needs), as a program that builds a graph
 * after a warm-up does; inside the capture the library must make no call that global mode forbids (cudaFree(0),
 * synchronisation, allocation).  The results are compared element by element with the reference offsets after
 * the graph has run twice.  Without a GPU the suite exits 77 (skipped).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "for_kernels.h"
#include "internal.h"
#include "testutil.h"
#include <parray/cuda.h>

enum { ROWS = 384, COLS = 512, N = ROWS * COLS };

/* Host <-> device through contiguous copies of unsigned [N]. */
static void move(pa_scope *s, void *to, int to_dev, const void *from)
{
    const pa_type *D = pa_type_parse(s, "dmem unsigned [196608]"), *H = pa_type_parse(s, "paged unsigned [196608]");
    ck_assert_msg(D && H, "%s", pa_last_error());
    PA_CK_OK(to_dev ? pa_copy(D, to, H, from) : pa_copy(H, to, D, from));
}

/* Ends the capture that body() filled, checks it captured without error and replays it twice on st. */
static void end_and_replay(cudaStream_t st, int launched)
{
    cudaGraph_t g = NULL;
    cudaGraphExec_t ex = NULL;
    cudaError_t e = cudaStreamEndCapture(st, &g);
    ck_assert_msg(launched == PA_OK, "launch during capture: %s", pa_last_error());
    ck_assert_msg(e == cudaSuccess, "capture: %s", cudaGetErrorString(e));
    ck_assert_int_eq(cudaGraphInstantiate(&ex, g, 0), cudaSuccess);
    size_t nodes = 0;
    ck_assert_int_eq(cudaGraphGetNodes(g, NULL, &nodes), cudaSuccess);
    ck_assert_msg(nodes >= 1, "the graph captured no node");
    ck_assert_int_eq(cudaGraphLaunch(ex, st), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(ex, st), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(st), cudaSuccess);
    cudaGraphExecDestroy(ex);
    cudaGraphDestroy(g);
}

/* A host image of N random words (seeded by what) and one of N poison words. */
static void images(const char *what, unsigned **h, unsigned **poison)
{
    *h = malloc(N * 4), *poison = malloc(N * 4);
    ck_assert(*h && *poison);
    pa_rng rng = {pa_test_seed(what)};
    for (int i = 0; i < N; i++)
        (*h)[i] = (unsigned)pa_rng_next(&rng), (*poison)[i] = 0xA5A5A5A5u;
}

/* got[T(k)] must hold h[A(k)] for every k. */
static void check_transposed(const unsigned *got, const pa_type *T, const unsigned *h, const pa_type *A)
{
    int64_t bad = -1;
    for (int64_t k = 0; k < N && bad < 0; k++)
        bad = got[pa__offset_walk(T, k)] == h[pa__offset_walk(A, k)] ? -1 : k;
    ck_assert_msg(bad < 0, "element %lld", (long long)bad);
}

static const char *inc_src = "__device__ void inc(unsigned *x, long long k, const void *a)\n"
                             "{ *x += *(const unsigned *)a + (unsigned)k; }\n";

START_TEST(map_in_graph)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    /* A window of every other column: a strided layout, so the kernel's offsets are not the identity. */
    PA_CK_OK(pa_declare(s, "BIG", "dmem unsigned [[384][1024]]"));
    PA_CK_OK(pa_declare(s, "D", "dmem unsigned [[#BIG_0][512 # step(2) # BIG_1]]"));
    const pa_type *D = pa_type_get(s, "D");
    int64_t ext = 393216;   /* BIG's elements: D's extent lies inside */
    ck_assert(pa_test_extent(D) <= ext);
    unsigned *h = malloc((size_t)ext * 4), *want = malloc((size_t)ext * 4), *d = NULL;
    ck_assert_int_eq(cudaMalloc((void **)&d, (size_t)ext * 4), cudaSuccess);
    pa_rng rng = {pa_test_seed("map in graph")};
    for (int64_t i = 0; i < ext; i++)
        want[i] = h[i] = (unsigned)pa_rng_next(&rng);
    const pa_type *F = pa_type_parse(s, "dmem unsigned [393216]"), *P = pa_type_parse(s, "paged unsigned [393216]");
    PA_CK_OK(pa_copy(F, d, P, h));
    unsigned add = 7;
    cudaStream_t st;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
    PA_CK_OK(pa_cuda_map_async(D, d, inc_src, "inc", &add, sizeof add, st));   /* warm-up: compiles, loads */
    ck_assert_int_eq(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal), cudaSuccess);
    end_and_replay(st, pa_cuda_map_async(D, d, inc_src, "inc", &add, sizeof add, st));
    PA_CK_OK(pa_copy(P, h, F, d));
    int64_t bad = -1;
    for (int64_t k = 0; k < pa_size(D); k++)
        want[pa__offset_walk(D, k)] += 3 * (add + (unsigned)k);   /* warm-up + two replays */
    for (int64_t i = 0; i < ext && bad < 0; i++)
        bad = h[i] == want[i] ? -1 : i;
    ck_assert_msg(bad < 0, "offset %lld: %u, want %u", (long long)bad, h[bad], want[bad]);
    cudaStreamDestroy(st);
    cudaFree(d);
    free(h), free(want);
    pa_scope_destroy(s);
}
END_TEST

START_TEST(for_in_graph)
{
    pa_cuda_function k_copy, k_tid, k_bad;
    PA_CK_OK(for_kernels_get(&k_copy, &k_tid, &k_bad));
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare(s, "A", "dmem unsigned [[384][512]]"));
    PA_CK_OK(pa_declare(s, "T", "dmem unsigned [[#A_1][#A_0]]"));
    PA_CK_OK(pa_declare(s, "C", "cuda [[#A_0][#A_1]]"));
    const pa_type *A = pa_type_get(s, "A"), *T = pa_type_get(s, "T"), *C = pa_type_get(s, "C");
    unsigned *h, *got, *a = pa_create(A), *t = pa_create(T);
    ck_assert_msg(a && t, "%s", pa_last_error());
    images("for in graph", &h, &got);
    move(s, a, 1, h);
    move(s, t, 1, got);   /* poisoned */
    pa_dthreads th;
    pa_dtype tt, ta;
    PA_CK_OK(pa_cuda_threads(C, 0, &th));
    PA_CK_OK(pa_cuda_dtype(T, &tt));
    PA_CK_OK(pa_cuda_dtype(A, &ta));
    void *params[] = {&th, &t, &tt, &a, &ta};
    cudaStream_t st;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
    PA_CK_OK(pa_cuda_for_async(&th, k_copy, params, 0, st));   /* warm-up on the same stream */
    ck_assert_int_eq(cudaStreamSynchronize(st), cudaSuccess);
    move(s, t, 1, got);   /* poisoned again: only the graph's launches may fill it */
    ck_assert_int_eq(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal), cudaSuccess);
    end_and_replay(st, pa_cuda_for_async(&th, k_copy, params, 0, st));
    move(s, got, 0, t);
    check_transposed(got, T, h, A);
    cudaStreamDestroy(st);
    pa_destroy(A, a), pa_destroy(T, t);
    free(h), free(got);
    pa_scope_destroy(s);
}
END_TEST

START_TEST(copy_in_graph)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare(s, "A", "dmem unsigned [[384][512]]"));
    PA_CK_OK(pa_declare(s, "T", "dmem unsigned [[#A_1][#A_0]]"));
    const pa_type *A = pa_type_get(s, "A"), *T = pa_type_get(s, "T");
    char line[512];
    ck_assert_int_gt(pa_copy_explain(T, A, line, sizeof line), 0);
    ck_assert_msg(strstr(line, "async=queued"), "%s", line);
    unsigned *h, *got, *a = pa_create(A), *t = pa_create(T);
    ck_assert_msg(a && t, "%s", pa_last_error());
    images("copy in graph", &h, &got);
    move(s, a, 1, h);
    cudaStream_t st;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
    PA_CK_OK(pa_copy_async(T, t, A, a, st));   /* warm-up */
    ck_assert_int_eq(cudaStreamSynchronize(st), cudaSuccess);
    move(s, t, 1, got);
    ck_assert_int_eq(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal), cudaSuccess);
    end_and_replay(st, pa_copy_async(T, t, A, a, st));
    move(s, got, 0, t);
    check_transposed(got, T, h, A);
    cudaStreamDestroy(st);
    pa_destroy(A, a), pa_destroy(T, t);
    free(h), free(got);
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("cuda_graph"))
        return 77;
    Suite *s = suite_create("cuda_graph");
    TCase *tc = tcase_create("graph");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, map_in_graph);
    tcase_add_test(tc, for_in_graph);
    tcase_add_test(tc, copy_in_graph);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
