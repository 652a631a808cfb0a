/*
 * for_dmem — the manual's listing 21: for over an array in device memory.
 *
 *     parray {paged int [4]} A;   parray {dmem #A} B;
 *     for (A(a)) a = 0;   copy A(a) to B(b);   for k B(b) b[k] += 1;   copy B(b) to A(a);
 *     for k A(a) printf("a[%d]=%d\n", k, a[k]);
 *
 * The map over B runs on the GPU: its element function is CUDA source, compiled once by NVRTC (and cached);
 * the maps over A run on CPU threads, so the printing order is nondeterministic.  Without a GPU the program
 * exits 77.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>
#include <parray/cuda.h>

static void fail(const char *what)
{
    fprintf(stderr, "for_dmem: %s: %s\n", what, pa_last_error());
    exit(1);
}

static void zero(void *elem, int64_t k, void *arg)
{
    *(int *)elem = 0;
}

static void show(void *elem, int64_t k, void *arg)
{
    printf("a[%d]=%d\n", (int)k, *(int *)elem);
}

int main(void)
{
    if (pa_cuda_device_count() < 1) {
        fprintf(stderr, "for_dmem: skipped: %s\n", pa_last_error());
        return 77;
    }
    pa_scope *s;
    if (pa_scope_create(NULL, &s) != PA_OK || pa_cuda_set_device(0) != PA_OK ||
        pa_declare(s, "A", "paged int [4]") != PA_OK || pa_declare(s, "B", "dmem int [#A]") != PA_OK)
        fail("declare");
    const pa_type *A = pa_type_get(s, "A"), *B = pa_type_get(s, "B");
    int *a = pa_create(A), *b = pa_create(B);
    if (!a || !b)
        fail("create");
    if (pa_map(A, a, zero, NULL) != PA_OK || pa_copy(B, b, A, a) != PA_OK)
        fail("for A(a) a = 0; copy A(a) to B(b)");
    if (pa_cuda_map(B, b, "__device__ void inc(int *b, long long k, const void *arg) { *b += 1; }", "inc", NULL,
                    0) != PA_OK)
        fail("for k B(b) b[k] += 1");
    if (pa_copy(A, a, B, b) != PA_OK || pa_map(A, a, show, NULL) != PA_OK)
        fail("copy B(b) to A(a); print");
    pa_destroy(A, a), pa_destroy(B, b);
    pa_scope_destroy(s);
    return 0;
}
