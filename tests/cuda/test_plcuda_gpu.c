/*
 * PL/CUDA functions on a GPU: the manual's gpu_add(100, 200) = 300 (and its overflow check), a variable-length
 * matrix result, prep → main → post ordering through the working buffer, a kernel raising an error status, the
 * CPU fallback, arrays in and out (host and dmem), a "bytes" result, the sanity check, the explanation, a
 * block reduction through dynamic shared memory, the tile library's tiles and block max/min, and concurrent calls from several host threads.  Without a GPU the suite exits 77 (skipped).
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include <parray/kernel.h>
#include "tile_kernel.h"

/* The manual's example, as written for PG-Strom (pgfn_int4pl is an alias of pa_add_int). */
static const char *gpu_add_src =
    "#plcuda_include \"cuda_mathlib.h\"\n"
    "#plcuda_begin\n"
    "  if (get_global_id() == 0)\n"
    "    *retval = pgfn_int4pl(kcxt, arg1, arg2);\n"
    "#plcuda_end\n";

static pa_kernel *make(const char *name, const char *sig, const char *src, const pa_kernel_func *f, int nf)
{
    pa_kernel *k = NULL;
    int st = pa_kernel_create(name, sig, src, f, nf, &k);
    ck_assert_msg(st == PA_OK, "%s: %s", name, pa_last_error());
    return k;
}

static int gpu_add(pa_kernel *k, int a, int b, int *out)
{
    pa_arg args[] = {PA_ARG(&a), PA_ARG(&b)};
    return pa_kernel_call(k, args, 2, out);
}

START_TEST(test_gpu_add)
{
    pa_kernel *k = make("gpu_add", "int (int, int)", gpu_add_src, NULL, 0);
    int r = 0;
    PA_CK_OK(gpu_add(k, 100, 200, &r));
    ck_assert_int_eq(r, 300);
    PA_CK_OK(gpu_add(k, -7, 3, &r));
    ck_assert_int_eq(r, -4);
    r = 12345;
    PA_CK_ERR(gpu_add(k, INT_MAX, 1, &r), PA_ERR_KERNEL);
    ck_assert_msg(strstr(pa_last_error(), "error 22003 at line 4"), "%s", pa_last_error());
    ck_assert_int_eq(r, 12345); /* outputs untouched on failure */
    pa_kernel_destroy(k);
}
END_TEST

/* Variable-length matrix result: the transpose of a float matrix times a factor. */
static int64_t tr_size(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    const pa_matrix *m = args[0].ptr;
    (void)nargs, (void)ret, (void)ctx;
    return (int64_t)pa_matrix_rawsize(PA_MATRIX_FLOAT, m->width, m->height);
}

static int64_t tr_threads(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    const pa_matrix *m = args[0].ptr;
    (void)nargs, (void)ret, (void)ctx;
    return (int64_t)m->height * m->width;
}

START_TEST(test_matrix_result)
{
    static const pa_kernel_func f[] = {{"tr_size", tr_size, NULL}, {"tr_threads", tr_threads, NULL}};
    const char *src = "#plcuda_include \"matrix\"\n"
                      "#plcuda_results_bufsz tr_size\n"
                      "#plcuda_begin\n"
                      "#plcuda_num_threads tr_threads\n"
                      "  int h = pa_matrix_height(arg1), w = pa_matrix_width(arg1);\n"
                      "  pa_matrix *t = (pa_matrix *)results;\n"
                      "  long id = get_global_id();\n"
                      "  if (id == 0) {\n"
                      "    pa_matrix_init(t, PA_MATRIX_FLOAT, w, h);\n"
                      "    retval->value = t;\n"
                      "  }\n"
                      "  if (id < (long)h * w) {\n"
                      "    int i = (int)(id % h), j = (int)(id / h);\n"
                      "    /* t has w rows: element (j, i) sits at i * w + j */\n"
                      "    ((float *)pa_matrix_values(t))[(long)i * w + j] = PA_MATRIX_AT(arg1, float, i, j) * arg2;\n"
                      "  }\n"
                      "#plcuda_end\n";
    pa_kernel *k = make("transpose_scale", "matrix float (matrix float, float)", src, f, 2);
    const int h = 37, w = 53;
    pa_matrix *m = NULL, *t = NULL;
    PA_CK_OK(pa_matrix_create_in(NULL, PA_MATRIX_FLOAT, h, w, &m));
    float *a = pa_matrix_data(m), factor = 0.5f;
    for (int j = 0; j < w; j++)
        for (int i = 0; i < h; i++)
            a[j * h + i] = (float)(i * 1000 + j);
    pa_arg args[] = {PA_ARG(m), PA_ARG(&factor)};
    PA_CK_OK(pa_kernel_call(k, args, 2, &t));
    ck_assert_ptr_nonnull(t);
    PA_CK_OK(pa_matrix_validate(t, pa_matrix_rawsize(PA_MATRIX_FLOAT, w, h)));
    ck_assert_int_eq(t->elm, PA_MATRIX_FLOAT);
    ck_assert_int_eq(t->height, w);
    ck_assert_int_eq(t->width, h);
    const float *b = pa_matrix_data(t);
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++)
            ck_assert_msg(b[j * w + i] == (float)(j * 1000 + i) * 0.5f, "(%d, %d): %g", i, j, (double)b[j * w + i]);
    pa_matrix_destroy(t);
    pa_matrix_destroy(m);
    pa_kernel_destroy(k);
}
END_TEST

/* prep fills the working buffer, main doubles and sums it across blocks, post writes the sum: any other order
 * gives another answer. */
START_TEST(test_prep_main_post)
{
    const char *src = "#plcuda_working_bufsz 80008\n"
                      "#plcuda_prep\n"
                      "#plcuda_num_threads 10000\n"
                      "#plcuda_kernel_blocksz 128\n"
                      "  long i = get_global_id();\n"
                      "  long *w = (long *)workbuf;\n"
                      "  if (i < 10000) w[i] = i;\n"
                      "  if (i == 0) w[10000] = 0;\n"
                      "#plcuda_begin\n"
                      "#plcuda_num_threads 10000\n"
                      "#plcuda_kernel_blocksz 256\n"
                      "  long i = get_global_id();\n"
                      "  long *w = (long *)workbuf;\n"
                      "  if (i < 10000) atomicAdd((unsigned long long *)&w[10000], (unsigned long long)(2 * w[i]));\n"
                      "#plcuda_post\n"
                      "  *retval = ((long *)workbuf)[10000] + arg1;\n"
                      "#plcuda_end\n";
    pa_kernel *k = make("ordered", "long (long)", src, NULL, 0);
    long add = 7, r = 0;
    pa_arg args[] = {PA_ARG(&add)};
    for (int rep = 0; rep < 3; rep++) {
        PA_CK_OK(pa_kernel_call(k, args, 1, &r));
        ck_assert_int_eq(r, 2L * (9999L * 10000L / 2) + 7);
    }
    char buf[1024];
    ck_assert(pa_kernel_explain(k, args, 1, buf, sizeof buf) > 0);
    ck_assert_msg(strstr(buf, "prep: 10000 threads = 79 blocks x 128 threads (#plcuda_kernel_blocksz)"), "%s", buf);
    ck_assert_msg(strstr(buf, "begin: 10000 threads = 40 blocks x 256 threads"), "%s", buf);
    ck_assert_msg(strstr(buf, "post: 1 threads = 1 blocks x 1 threads (occupancy API"), "%s", buf);
    pa_kernel_destroy(k);
}
END_TEST

START_TEST(test_error_status)
{
    const char *src = "#plcuda_begin\n"
                      "#plcuda_num_threads 1000\n"
                      "  if (get_global_id() == 37)\n"
                      "    pa_raise(kcxt, 4242);\n"
                      "  *retval = 1;\n"
                      "#plcuda_end\n";
    pa_kernel *k = make("raiser", "int (void)", src, NULL, 0);
    int r = 0;
    PA_CK_ERR(pa_kernel_call(k, NULL, 0, &r), PA_ERR_KERNEL);
    ck_assert_msg(strstr(pa_last_error(), "raiser: the #plcuda_begin kernel raised error 4242 at line 4"), "%s",
                  pa_last_error());
    pa_kernel_destroy(k);
}
END_TEST

static int fallback_calls;

static int64_t twice_cpu(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    (void)nargs, (void)ctx;
    __atomic_add_fetch(&fallback_calls, 1, __ATOMIC_SEQ_CST);
    *(long *)ret = 2 * *(const long *)args[0].ptr;
    return PA_OK;
}

START_TEST(test_cpu_fallback)
{
    static const pa_kernel_func f[] = {{"twice_cpu", twice_cpu, NULL}};
    const char *src = "#plcuda_cpu_fallback twice_cpu\n"
                      "#plcuda_begin\n"
                      "  if (arg1 > 1000) pa_recheck_on_cpu(kcxt);\n"
                      "  else *retval = 2 * arg1 + 1; /* +1: tells the GPU's answer from the CPU's */\n"
                      "#plcuda_end\n";
    pa_kernel *k = make("twice", "long (long)", src, f, 1);
    long v = 5, r = 0;
    pa_arg args[] = {PA_ARG(&v)};
    PA_CK_OK(pa_kernel_call(k, args, 1, &r));
    ck_assert_int_eq(r, 11);
    ck_assert_int_eq(fallback_calls, 0);
    v = 5000;
    PA_CK_OK(pa_kernel_call(k, args, 1, &r));
    ck_assert_int_eq(r, 10000);
    ck_assert_int_eq(fallback_calls, 1);
    pa_kernel_destroy(k);
    /* A recheck without a fallback is an error. */
    k = make("nofallback", "long (long)", "#plcuda_begin\n  pa_recheck_on_cpu(kcxt);\n", NULL, 0);
    PA_CK_ERR(pa_kernel_call(k, args, 1, &r), PA_ERR_KERNEL);
    ck_assert_msg(strstr(pa_last_error(), "recheck on the CPU (line 2)"), "%s", pa_last_error());
    pa_kernel_destroy(k);
}
END_TEST

static int64_t positive(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    (void)nargs, (void)ret, (void)ctx;
    return *(const int *)args[0].ptr > 0;
}

static int64_t n_threads(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    (void)nargs, (void)ret, (void)ctx;
    return args[1].count;
}

START_TEST(test_arrays)
{
    static const pa_kernel_func f[] = {{"positive", positive, NULL}, {"n_threads", n_threads, NULL}};
    const char *src = "#plcuda_sanity_check positive\n"
                      "#plcuda_begin\n"
                      "#plcuda_num_threads n_threads\n"
                      "  long i = get_global_id();\n"
                      "  if (i < arg2_len) { arg2[i] = arg2[i] * arg1 + arg3[i]; atomicAdd(retval, 1); }\n"
                      "#plcuda_end\n";
    pa_kernel *k = make("axpy", "int (int, inout float[], const float[])", src, f, 2);
    enum { N = 3000 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    int a = 3, r = 0;
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    pa_arg args[] = {PA_ARG(&a), PA_ARG_N(x, N), PA_ARG_N(y, N)};
    PA_CK_OK(pa_kernel_call(k, args, 3, &r));
    ck_assert_int_eq(r, N);
    for (int i = 0; i < N; i++)
        ck_assert(x[i] == (float)(3 * i + 1));
    /* The sanity check refuses a = 0 before any launch. */
    a = 0;
    PA_CK_ERR(pa_kernel_call(k, args, 3, &r), PA_ERR_INVAL);
    ck_assert(strstr(pa_last_error(), "sanity check positive rejected"));
    /* A dmem array is passed as it is, a paged one with its parray type is copied. */
    pa_scope *sc;
    PA_CK_OK(pa_scope_create(NULL, &sc));
    const pa_type *dt = pa_type_parse(sc, "dmem float [3000]"), *ht = pa_type_parse(sc, "paged float [3000]");
    ck_assert_ptr_nonnull(dt);
    ck_assert_ptr_nonnull(ht);
    float *dx = pa_create(dt), *hy = pa_create(ht);
    ck_assert_ptr_nonnull(dx);
    ck_assert_ptr_nonnull(hy);
    for (int i = 0; i < N; i++)
        hy[i] = 2.0f;
    PA_CK_OK(pa_copy(dt, dx, ht, hy)); /* dx = 2 */
    a = 5;
    pa_arg dargs[] = {PA_ARG(&a), PA_ARG_ARRAY(dx, dt), PA_ARG_ARRAY(hy, ht)};
    dargs[1].count = N; /* n_threads reads count */
    PA_CK_OK(pa_kernel_call(k, dargs, 3, &r));
    PA_CK_OK(pa_copy(ht, hy, dt, dx));
    for (int i = 0; i < N; i++)
        ck_assert(hy[i] == 12.0f);
    /* Wrong element size. */
    const pa_type *it = pa_type_parse(sc, "paged double [3000]");
    pa_arg bad[] = {PA_ARG(&a), PA_ARG_ARRAY(hy, it), PA_ARG_N(y, N)};
    PA_CK_ERR(pa_kernel_call(k, bad, 3, &r), PA_ERR_PARAM);
    pa_destroy(dt, dx);
    pa_destroy(ht, hy);
    pa_scope_destroy(sc);
    free(x);
    free(y);
    pa_kernel_destroy(k);
}
END_TEST

START_TEST(test_bytes_result)
{
    const char *src = "#plcuda_results_bufsz 64\n"
                      "#plcuda_begin\n"
                      "  char *s = (char *)results;\n"
                      "  for (int i = 0; i < arg1; i++) s[i] = 'a' + i;\n"
                      "  retval->value = arg1 ? s : 0;\n"
                      "  retval->length = arg1;\n"
                      "#plcuda_end\n";
    pa_kernel *k = make("letters", "bytes (int)", src, NULL, 0);
    int n = 5;
    pa_bytes b = {NULL, 0};
    pa_arg args[] = {PA_ARG(&n)};
    PA_CK_OK(pa_kernel_call(k, args, 1, &b));
    ck_assert_uint_eq(b.size, 5);
    ck_assert(memcmp(b.data, "abcde", 5) == 0);
    free(b.data);
    n = 0;
    PA_CK_OK(pa_kernel_call(k, args, 1, &b));
    ck_assert_ptr_null(b.data);
    pa_kernel_destroy(k);
    /* A result pointing outside the results buffer is not written back. */
    k = make("outside", "bytes (int)", "#plcuda_results_bufsz 64\n#plcuda_begin\n retval->value = workbuf;\n"
             "#plcuda_working_bufsz 16\n retval->length = 4;\n", NULL, 0);
    PA_CK_ERR(pa_kernel_call(k, args, 1, &b), PA_ERR_KERNEL);
    ck_assert(strstr(pa_last_error(), "outside the results buffer"));
    pa_kernel_destroy(k);
}
END_TEST

static int64_t count_of_arg1(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    (void)nargs, (void)ret, (void)ctx;
    return args[0].count;
}

/* A reduction over blocks of the kernel's largest size, through dynamic shared memory per thread. */
START_TEST(test_block_sum)
{
    static const pa_kernel_func f[] = {{"count_of_arg1", count_of_arg1, NULL}};
    const char *src = "#plcuda_include \"tile\"\n"
                      "#plcuda_begin\n"
                      "#plcuda_num_threads count_of_arg1\n"
                      "#plcuda_kernel_maxthreads\n"
                      "#plcuda_shmem_unitsz 8\n"
                      "  extern __shared__ double shm[];\n"
                      "  long i = get_global_id();\n"
                      "  double s = pa_block_sum(i < arg1_len ? (double)arg1[i] : 0.0, shm);\n"
                      "  if (threadIdx.x == 0) atomicAdd(retval, s);\n"
                      "#plcuda_end\n";
    pa_kernel *k = make("block_sum", "double (const float[])", src, f, 1);
    enum { N = 100003 };
    float *x = malloc(N * sizeof *x);
    double want = 0, got = 0;
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 7);
        want += i % 7;
    }
    pa_arg args[] = {PA_ARG_N(x, N)};
    PA_CK_OK(pa_kernel_call(k, args, 1, &got));
    ck_assert_msg(got == want, "%g != %g", got, want);
    char buf[512];
    ck_assert(pa_kernel_explain(k, args, 1, buf, sizeof buf) > 0);
    ck_assert_msg(strstr(buf, "begin: 100003 threads = 98 blocks x 1024 threads (#plcuda_kernel_maxthreads: the "
                              "kernel's limit), shared memory 8192 bytes/block"), "%s", buf);
    free(x);
    pa_kernel_destroy(k);
}
END_TEST

/* The tile library on the GPU: pa_tile_load (zero outside the matrix), pa_block_max/min, pa_tile_store (skips
 * outside) over edge tiles that hang over every side (tests/cuda/tile_kernel.h), checked element by element. */
START_TEST(test_tile_helpers)
{
    pa_kernel *k = make("tile_scale", tile_scale_sig, tile_scale_src, tile_scale_funcs, 1);
    int rows = 37, cols = 53, outside = 0;
    float *src = malloc((size_t)rows * cols * sizeof *src), *dst = malloc((size_t)rows * cols * sizeof *dst);
    for (int i = 0; i < rows * cols; i++) {
        src[i] = (float)(1 + ((i / cols) * 131 + (i % cols) * 71) % 1000);
        dst[i] = -1.0f;
    }
    pa_arg args[] = {PA_ARG_N(src, rows * cols), PA_ARG_N(dst, rows * cols), PA_ARG(&rows), PA_ARG(&cols)};
    PA_CK_OK(pa_kernel_call(k, args, 4, &outside));
    ck_assert_msg(outside == 0, "%d elements loaded outside the matrix were not zero", outside);
    int tiles = 0;
    for (int r0 = TILE_R0; r0 < rows; r0 += TILE_H)
        for (int c0 = TILE_C0; c0 < cols; c0 += TILE_W, tiles++) {
            float hi = -1e30f, lo = 1e30f;
            for (int r = r0 < 0 ? 0 : r0; r < r0 + TILE_H && r < rows; r++)
                for (int c = c0 < 0 ? 0 : c0; c < c0 + TILE_W && c < cols; c++) {
                    hi = src[r * cols + c] > hi ? src[r * cols + c] : hi;
                    lo = src[r * cols + c] < lo ? src[r * cols + c] : lo;
                }
            for (int r = r0 < 0 ? 0 : r0; r < r0 + TILE_H && r < rows; r++)
                for (int c = c0 < 0 ? 0 : c0; c < c0 + TILE_W && c < cols; c++)
                    ck_assert_msg(dst[r * cols + c] == 2.0f * src[r * cols + c] + (hi - lo),
                                  "(%d, %d) in the tile at (%d, %d): %g, want %g", r, c, r0, c0, dst[r * cols + c],
                                  2.0f * src[r * cols + c] + (hi - lo));
        }
    ck_assert_int_eq(tiles * 128, (int)tile_threads(args, 4, NULL, NULL));
    free(src);
    free(dst);
    pa_kernel_destroy(k);
}
END_TEST

typedef struct worker {
    pa_kernel *k;
    int id, failures;
    char msg[256];
} worker;

static void *concurrent(void *p)
{
    worker *w = p;
    for (int i = 0; i < 50; i++) {
        int r = 0, a = w->id * 1000, b = i;
        int st = gpu_add(w->k, a, b, &r);
        if (st != PA_OK || r != a + b) {
            if (!w->failures++)
                snprintf(w->msg, sizeof w->msg, "thread %d call %d: %s, %d != %d: %s", w->id, i, pa_status_name(st),
                         r, a + b, pa_last_error());
        }
    }
    return NULL;
}

START_TEST(test_concurrent)
{
    enum { T = 8 };
    pthread_t th[T];
    worker w[T];
    pa_kernel *k = make("gpu_add_mt", "int (int, int)", gpu_add_src, NULL, 0);
    for (int t = 0; t < T; t++) {
        w[t] = (worker){k, t, 0, ""};
        ck_assert_int_eq(pthread_create(&th[t], NULL, concurrent, &w[t]), 0);
    }
    for (int t = 0; t < T; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < T; t++)
        ck_assert_msg(w[t].failures == 0, "%s", w[t].msg);
    pa_kernel_destroy(k);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("plcuda_gpu"))
        return 77;
    Suite *s = suite_create("plcuda_gpu");
    TCase *tc = tcase_create("gpu");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_gpu_add);
    tcase_add_test(tc, test_matrix_result);
    tcase_add_test(tc, test_prep_main_post);
    tcase_add_test(tc, test_error_status);
    tcase_add_test(tc, test_cpu_fallback);
    tcase_add_test(tc, test_arrays);
    tcase_add_test(tc, test_bytes_result);
    tcase_add_test(tc, test_block_sum);
    tcase_add_test(tc, test_tile_helpers);
    tcase_add_test(tc, test_concurrent);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
