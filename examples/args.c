/*
 * args — the manual's listing 39: types with parameters used by GPU threads.
 *
 *     FROM = <int n> dmem float [[n][n]]   TO = <int n> dmem float [[#FROM_1<n>][#FROM_0<n>]]
 *     subprog foo(a, A, b, B)  for k cuda [size(A)] as (elm(A) *a, tparas(A), elm(B) *b, tparas(B))
 *         a[A[k]] = b[B[k]];
 *     foo(to, TO<size>, from, FROM<size>)  with size = 4096
 *
 * GPU threads cannot read the host's variables, so the manual passes a type's parameters to the kernel as
 * arguments (tparas).  Here a bound type, TO<size>, is a type like any other, and its device description
 * (pa_dtype) carries the values n took.  The kernel is CUDA source compiled at run time by NVRTC, so this
 * program is plain C.  Without a GPU it exits 77.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>
#include <parray/cuda.h>

static const char foo_source[] =
    "#include <parray/device.h>\n"
    "extern \"C\" __global__ void foo(pa_dthreads th, float *a, pa_dtype A, const float *b, pa_dtype B)\n"
    "{\n"
    "    long long k = pa_dev_tid(&th);\n"
    "    if (k < th.n)\n"
    "        a[pa_dev_offset(&A, k)] = b[pa_dev_offset(&B, k)];\n"
    "}\n";

static void fail(const char *what)
{
    fprintf(stderr, "args: %s: %s\n", what, pa_last_error());
    exit(1);
}

static void foo(pa_scope *s, float *a, const pa_type *A, const float *b, const pa_type *B)
{
    char decl[64];
    snprintf(decl, sizeof decl, "cuda [%lld]", (long long)pa_size(A));
    const pa_type *C = pa_type_parse(s, decl);
    pa_dthreads th;
    pa_dtype ta, tb;
    pa_cuda_function fn;
    if (!C || pa_cuda_threads(C, 0, &th) != PA_OK || pa_cuda_dtype(A, &ta) != PA_OK ||
        pa_cuda_dtype(B, &tb) != PA_OK || pa_cuda_compile("foo", foo_source, "foo", &fn) != PA_OK)
        fail("prepare foo");
    void *params[] = {&th, &a, &ta, &b, &tb};
    if (pa_cuda_for(&th, fn, params, 0) != PA_OK)
        fail("for k cuda[size(A)]");
    char p[64];
    pa_para(A, p, sizeof p);
    printf("foo over %s: paras(A) = %s, A's layout ", decl, p);
    char l[128];
    pa_layout_format(A, l, sizeof l);
    printf("%s\n", l);
}

int main(void)
{
    if (pa_cuda_device_count() < 1) {
        fprintf(stderr, "args: skipped: %s\n", pa_last_error());
        return 77;
    }
    int size = 4096;
    pa_scope *s;
    if (pa_scope_create(NULL, &s) != PA_OK || pa_cuda_set_device(0) != PA_OK ||
        pa_declare(s, "FROM", "<int n> dmem float [[n][n]]") != PA_OK ||
        pa_declare(s, "TO", "<int n> dmem float [[#FROM_1<n>][#FROM_0<n>]]") != PA_OK ||
        pa_declare(s, "H", "<int n> paged float [[n][n]]") != PA_OK)
        fail("declare");
    int64_t n = size;
    char ref[3][32];
    snprintf(ref[0], sizeof ref[0], "FROM<%d>", size);
    snprintf(ref[1], sizeof ref[1], "TO<%d>", size);
    snprintf(ref[2], sizeof ref[2], "H<%d>", size);
    const pa_type *FROM = pa_type_get(s, ref[0]), *TO = pa_type_get(s, ref[1]), *H = pa_type_get(s, ref[2]);
    if (!FROM || !TO || !H)
        fail("FROM<size>, TO<size>");
    float *from = pa_create(FROM), *to = pa_create(TO), *h = pa_create(H), *t = pa_create(H);
    if (!from || !to || !h || !t)
        fail("create");
    for (int64_t i = 0; i < pa_size(H); i++)
        h[i] = (float)(i % 999983);
    if (pa_copy(FROM, from, H, h) != PA_OK)
        fail("copy to FROM");
    foo(s, to, TO, from, FROM);
    if (pa_copy(H, t, FROM, to) != PA_OK)
        fail("copy from TO");
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            bad += t[j * n + i] != h[i * n + j];
    printf("to is from transposed, n = %d: %s\n", size, bad ? "NO" : "yes");
    pa_destroy(FROM, from), pa_destroy(TO, to), pa_destroy(H, h), pa_destroy(H, t);
    pa_scope_destroy(s);
    return bad != 0;
}
