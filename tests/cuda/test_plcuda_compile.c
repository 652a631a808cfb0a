/*
 * PL/CUDA functions through NVRTC without a GPU: the generated source of gpu_add and of a function using every
 * block, argument kind and device library compiles to an sm_90 cubin holding the kernels' entry symbols;
 * compile errors carry NVRTC's log with the user's line numbers; arch 0 without a GPU is PA_ERR_NODEV.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stddef.h>

#include "plcuda.h"
#include "rtc_internal.h"
#include "testutil.h"
#include <parray/kernel.h>
#include "tile_kernel.h"

/* The cubin of a function's source for sm_90 (a memory-cache hit after pa_kernel_compile). */
static const unsigned char *cubin_of(const pa_kernel *k, size_t *n)
{
    const pa_cuda__image *img;
    PA_CK_OK(pa_cuda__rtc_compile(pa_kernel_name(k), pa_kernel_source(k), NULL, 0, 90, &img));
    return pa_cuda__image_data(img, n);
}

START_TEST(test_gpu_add_cubin)
{
    pa_kernel *k;
    size_t n;
    const char *src = "#plcuda_include \"cuda_mathlib.h\"\n#plcuda_begin\n  if (get_global_id() == 0)\n"
                      "    *retval = pgfn_int4pl(kcxt, arg1, arg2);\n#plcuda_end\n";
    PA_CK_OK(pa_kernel_create("gpu_add", "int (int, int)", src, NULL, 0, &k));
    PA_CK_OK(pa_kernel_compile(k, 90));
    const unsigned char *p = cubin_of(k, &n);
    ck_assert(p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F');
    ck_assert(memmem(p, n, "plcuda_gpu_add_main", 19));
    pa_kernel_destroy(k);
}
END_TEST

static const char *full_src =
    "#plcuda_include \"math\"\n"
    "#plcuda_include \"matrix\"\n"
    "#plcuda_results_bufsz 4096\n"
    "#plcuda_working_bufsz 64\n"
    "#plcuda_decl\n"
    "static __device__ double scale(double x, long f) { return x * (double)f; }\n"
    "#plcuda_prep\n"
    "  if (get_global_id() == 0) ((double *)workbuf)[0] = 0;\n"
    "#plcuda_begin\n"
    "#plcuda_num_threads 256\n"
    "#plcuda_shmem_unitsz 8\n"
    "  extern __shared__ double sh[];\n"
    "  long i = get_global_id();\n"
    "  sh[threadIdx.x] = i < arg2_len ? (double)arg2[i] : 0.0;\n"
    "  if (i < arg2_len) arg2[i] = pa_mul_float(kcxt, arg2[i], 2.0f);\n"
    "  if (i == 0) atomicAdd((double *)workbuf, scale(PA_MATRIX_AT(arg3, double, 0, 0), arg1));\n"
    "#plcuda_post\n"
    "#plcuda_kernel_maxthreads\n"
    "  if (get_global_id() == 0) {\n"
    "    pa_matrix *m = pa_matrix_init(results, PA_MATRIX_DOUBLE, 1, 1);\n"
    "    PA_MATRIX_AT(m, double, 0, 0) = ((double *)workbuf)[0] + pa_add_long(kcxt, arg4_len, 0);\n"
    "    retval->value = m;\n"
    "    retval->isnull = 0;\n"
    "    if (pa_failed(kcxt)) pa_recheck_on_cpu(kcxt);\n"
    "  }\n"
    "#plcuda_end\n";

START_TEST(test_full_cubin)
{
    pa_kernel *k;
    size_t n;
    PA_CK_OK(pa_kernel_create("full", "matrix double (long, inout float[], matrix double, const int[])", full_src,
                              NULL, 0, &k));
    int st = pa_kernel_compile(k, 90);
    ck_assert_msg(st == PA_OK, "%s\n%s", pa_last_error(), pa_kernel_source(k));
    const unsigned char *p = cubin_of(k, &n);
    ck_assert(memmem(p, n, "plcuda_full_prep", 16) && memmem(p, n, "plcuda_full_main", 16) &&
              memmem(p, n, "plcuda_full_post", 16));
    /* Another architecture is another compilation. */
    pa_cuda__rtc_stats s0, s1;
    pa_cuda__rtc_get_stats(&s0);
    PA_CK_OK(pa_kernel_compile(k, 80));
    pa_cuda__rtc_get_stats(&s1);
    ck_assert_int_eq(s1.compiles, s0.compiles + 1);
    pa_kernel_destroy(k);
}
END_TEST

START_TEST(test_tile_cubin)
{
    pa_kernel *k;
    const char *src = "#plcuda_include \"tile\"\n"
                      "#plcuda_begin\n"
                      "#plcuda_num_threads 4096\n"
                      "#plcuda_kernel_maxthreads\n"
                      "#plcuda_shmem_blocksz 8192\n"
                      "  extern __shared__ float shm[];\n"
                      "  float acc = 0;\n"
                      "  PA_FOR_EACH(i, arg1_len) acc += arg1[i];\n"
                      "  float s = pa_block_sum(acc, shm), m = pa_block_max(acc, shm), n = pa_block_min(acc, shm);\n"
                      "  pa_tile_load(shm, arg1, 64, 64, 64, 0, 0, 32, 32);\n"
                      "  pa_tile_store(shm, arg2, 64, 64, 64, 0, 0, 32, 32);\n"
                      "  if (threadIdx.x == 0) atomicAdd(retval, s + m - n);\n"
                      "#plcuda_end\n";
    PA_CK_OK(pa_kernel_create("tiled", "float (const float[], inout float[])", src, NULL, 0, &k));
    int st = pa_kernel_compile(k, 90);
    ck_assert_msg(st == PA_OK, "%s", pa_last_error());
    pa_kernel_destroy(k);
}
END_TEST

/* plcuda_gpu's tile function (tests/cuda/tile_kernel.h) compiles, so that its run on the GPU fails only there. */
START_TEST(test_tile_scale_cubin)
{
    pa_kernel *k;
    PA_CK_OK(pa_kernel_create("tile_scale", tile_scale_sig, tile_scale_src, tile_scale_funcs, 1, &k));
    int st = pa_kernel_compile(k, 90);
    ck_assert_msg(st == PA_OK, "%s", pa_last_error());
    pa_kernel_destroy(k);
}
END_TEST

/*
 * The control block and the matrix header have one layout on both sides: NVRTC checks the host's sizes (it has
 * no offsetof; both are plain structs of naturally aligned fields, so equal sizes of equal field lists agree).
 */
START_TEST(test_layouts_agree)
{
    char src[1024];
    pa_kernel *k;
    snprintf(src, sizeof src,
             "#plcuda_decl\n"
             "static_assert(sizeof(pa_kctl) == %zu, \"ctl size\");\n"
             "static_assert(sizeof(pa_varlena) == %zu, \"varlena size\");\n"
             "static_assert(sizeof(pa_matrix) == %zu && sizeof(long) == %zu, \"matrix, long\");\n"
             "#plcuda_begin\n",
             sizeof(pa__plc_ctl), sizeof(pa__plc_ctl) - offsetof(pa__plc_ctl, var_value), sizeof(pa_matrix),
             sizeof(long));
    PA_CK_OK(pa_kernel_create("layouts", "void (void)", src, NULL, 0, &k));
    int st = pa_kernel_compile(k, 90);
    ck_assert_msg(st == PA_OK, "%s", pa_last_error());
    pa_kernel_destroy(k);
}
END_TEST

START_TEST(test_compile_error_lines)
{
    pa_kernel *k;
    const char *src = "#plcuda_decl\n"
                      "static __device__ int ok(int x) { return x; }\n"
                      "#plcuda_begin\n"
                      "#plcuda_num_threads 32\n"
                      "  int y = ok(arg1);\n"
                      "  *retval = y + no_such_variable;\n"
                      "#plcuda_end\n";
    PA_CK_OK(pa_kernel_create("broken", "int (int)", src, NULL, 0, &k));
    PA_CK_ERR(pa_kernel_compile(k, 90), PA_ERR_COMPILE);
    /* NVRTC names the user's line 6 of function "broken". */
    ck_assert_msg(strstr(pa_last_error(), "broken(6)") && strstr(pa_last_error(), "no_such_variable"), "%s",
                  pa_last_error());
    pa_kernel_destroy(k);
}
END_TEST

START_TEST(test_no_gpu)
{
    pa_kernel *k;
    int v = 1, out = 0;
    pa_arg args[] = {PA_ARG(&v)};
    PA_CK_OK(pa_kernel_create("nogpu", "int (int)", "#plcuda_begin\n *retval = arg1;\n", NULL, 0, &k));
    PA_CK_ERR(pa_kernel_compile(k, 0), PA_ERR_NODEV);
    PA_CK_ERR(pa_kernel_call(k, args, 1, &out), PA_ERR_NODEV);
    PA_CK_ERR(pa_kernel_call(k, args, 2, &out), PA_ERR_PARAM);
    pa_kernel_destroy(k);
}
END_TEST

/* Two suites: plcuda_compile (no argument: generated code compiled by NVRTC, no GPU needed) and
 * plcuda_compile_nogpu ("nogpu": compile and call say PA_ERR_NODEV; skipped, 77, where a GPU is usable). */
int main(int argc, char **argv)
{
    if (argc > 1) {
        pa_test_member(argc, argv, "plcuda_compile_nogpu");
        Suite *s = suite_create("plcuda_compile_nogpu");
        TCase *tc = tcase_create("nogpu");
        tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
        tcase_add_test(tc, test_no_gpu);
        suite_add_tcase(s, tc);
        return pa_test_run(s);
    }
    Suite *s = suite_create("plcuda_compile");
    TCase *tc = tcase_create("compile");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_gpu_add_cubin);
    tcase_add_test(tc, test_full_cubin);
    tcase_add_test(tc, test_tile_cubin);
    tcase_add_test(tc, test_tile_scale_cubin);
    tcase_add_test(tc, test_layouts_agree);
    tcase_add_test(tc, test_compile_error_lines);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
