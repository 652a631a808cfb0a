/*
 * gpu_data_transfer — the manual's listing 25: a sub-program that moves b[B(k)] to a[A(k)] with one GPU
 * thread per element, over the thread type cuda [size(A)] (regrouped into blocks of 256 threads).
 *
 *     subprog foo(a, A, b, B)  for k cuda [size(A)] as (elm(A) *a, elm(B) *b) { a[A[k]] = b[B[k]]; }
 *     FROM = dmem float [4096][4096];   TO = dmem float [[#FROM_1][#FROM_0]];   foo(to, TO, from, FROM);
 *
 * The kernel is ordinary CUDA compiled by nvcc; it sees the types through device.h.  Without a GPU the
 * program exits 77.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>

__global__ void foo_kernel(pa_dthreads th, float *a, pa_dtype A, const float *b, pa_dtype B)
{
    long long k = pa_dev_tid(&th);
    if (k < th.n)
        a[pa_dev_offset(&A, k)] = b[pa_dev_offset(&B, k)];
}

static void fail(const char *what)
{
    fprintf(stderr, "gpu_data_transfer: %s: %s\n", what, pa_last_error());
    exit(1);
}

/* subprog foo(a, A, b, B): for k cuda [size(A)] a[A[k]] = b[B[k]]. */
static void foo(pa_scope *s, float *a, const pa_type *A, const float *b, const pa_type *B)
{
    char decl[64];
    snprintf(decl, sizeof decl, "cuda [%lld]", (long long)pa_size(A));
    const pa_type *C = pa_type_parse(s, decl);
    pa_dthreads th;
    pa_dtype ta, tb;
    pa_cuda_function fn;
    if (!C || pa_cuda_threads(C, 0, &th) != PA_OK || pa_cuda_dtype(A, &ta) != PA_OK ||
        pa_cuda_dtype(B, &tb) != PA_OK || pa_cuda_function_of((const void *)foo_kernel, &fn) != PA_OK)
        fail("prepare foo");
    void *params[] = {&th, &a, &ta, &b, &tb};
    if (pa_cuda_for(&th, fn, params, 0) != PA_OK)
        fail("for k cuda[size(A)]");
    printf("foo: %s, %u blocks of %u threads\n", decl, th.gdim[0] * th.gdim[1], th.bdim[0]);
}

int main(void)
{
    if (pa_cuda_device_count() < 1) {
        fprintf(stderr, "gpu_data_transfer: skipped: %s\n", pa_last_error());
        return 77;
    }
    pa_scope *s;
    if (pa_scope_create(NULL, &s) != PA_OK || pa_cuda_set_device(0) != PA_OK ||
        pa_declare(s, "FROM", "dmem float [4096][4096]") != PA_OK ||
        pa_declare(s, "TO", "dmem float [[#FROM_1][#FROM_0]]") != PA_OK ||
        pa_declare(s, "H", "paged float [4096][4096]") != PA_OK)
        fail("declare");
    const pa_type *FROM = pa_type_get(s, "FROM"), *TO = pa_type_get(s, "TO"), *H = pa_type_get(s, "H");
    float *from = (float *)pa_create(FROM), *to = (float *)pa_create(TO), *h = (float *)pa_create(H);
    float *t = (float *)pa_create(H);
    if (!from || !to || !h || !t)
        fail("create");
    for (int64_t i = 0; i < pa_size(H); i++)
        h[i] = (float)(i % 1000003);
    if (pa_copy(FROM, from, H, h) != PA_OK)
        fail("copy to FROM");
    foo(s, to, TO, from, FROM);
    if (pa_copy(H, t, FROM, to) != PA_OK)   /* to's memory, read row-major */
        fail("copy from TO");
    int64_t bad = 0;
    for (int64_t i = 0; i < 4096; i++)
        for (int64_t j = 0; j < 4096; j++)
            bad += t[j * 4096 + i] != h[i * 4096 + j];
    printf("to(j, i) == from(i, j) for all 4096 x 4096: %s\n", bad ? "NO" : "yes");
    pa_destroy(FROM, from), pa_destroy(TO, to), pa_destroy(H, h), pa_destroy(H, t);
    pa_scope_destroy(s);
    return bad != 0;
}
