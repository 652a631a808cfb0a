/*
 * PL/CUDA functions without a GPU (and without CUDA): signatures, blocks and directives, including malformed
 * directives, blocks out of order and unknown directives (each error names the line and the directive), the
 * generated source, and the launch explanation where a CUDA build has no GPU.
 */
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include <parray/cuda.h>
#include <parray/kernel.h>

static const char *gpu_add_src =
    "#plcuda_include \"math\"\n"
    "#plcuda_begin\n"
    "  if (get_global_id() == 0)\n"
    "    *retval = pa_add_int(kcxt, arg1, arg2);\n"
    "#plcuda_end\n";

static int64_t threads_fn(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    (void)nargs, (void)ret, (void)ctx;
    return 4 * *(const int *)args[0].ptr;
}

static const pa_kernel_func funcs[] = {{"threads_fn", threads_fn, NULL}, {"size_fn", threads_fn, NULL}};

START_TEST(test_gpu_add_source)
{
    pa_kernel *k;
    PA_CK_OK(pa_kernel_create("gpu_add", "int (int, int)", gpu_add_src, NULL, 0, &k));
    const char *s = pa_kernel_source(k);
    ck_assert_str_eq(pa_kernel_name(k), "gpu_add");
    ck_assert_int_eq(pa_kernel_nargs(k), 2);
    ck_assert_msg(strstr(s, "extern \"C\" __global__ void\nplcuda_gpu_add_main("), "%s", s);
    ck_assert(strstr(s, "#include <parray/plcuda/math.h>"));
    ck_assert(strstr(s, "int *retval = (int *)kctl->retval;"));
    ck_assert(strstr(s, "int arg1,\n        int arg2"));
    ck_assert(strstr(s, "/* ---- code by pl/cuda function ---- */\n#line 3 \"gpu_add\"\n  if (get_global_id() == 0)"));
    ck_assert(!strstr(s, "plcuda_gpu_add_prep") && !strstr(s, "plcuda_gpu_add_post"));
    pa_kernel_destroy(k);
}
END_TEST

START_TEST(test_all_blocks)
{
    pa_kernel *k;
    const char *src =
        "// a comment before the blocks\n"
        "#plcuda_decl\n"
        "static __device__ float twice(float x) { return 2 * x; }\n"
        "#plcuda_prep\n"
        "#plcuda_num_threads 7\n"
        "  ((int *)workbuf)[0] = 1;\n"
        "#plcuda_begin\n"
        "#plcuda_num_threads threads_fn\n"
        "#plcuda_kernel_blocksz 128\n"
        "#plcuda_shmem_unitsz 8\n"
        "#plcuda_shmem_blocksz 0x100\n"
        "  (void)twice(arg2[0]);\n"
        "#plcuda_post\n"
        "#plcuda_kernel_maxthreads\n"
        "#plcuda_end\n"
        "#plcuda_working_bufsz 64\n"
        "#plcuda_results_bufsz size_fn\n"
        "#plcuda_include \"cuda_matrix.h\"\n";
    PA_CK_OK(pa_kernel_create("f", "matrix float (int, inout float[], matrix double, const long[])", src, funcs, 2, &k));
    const char *s = pa_kernel_source(k);
    ck_assert(strstr(s, "plcuda_f_prep(") && strstr(s, "plcuda_f_main(") && strstr(s, "plcuda_f_post("));
    ck_assert(strstr(s, "__launch_bounds__(1024)\nplcuda_f_post"));
    ck_assert(strstr(s, "float *arg2, long arg2_len"));
    ck_assert(strstr(s, "const pa_matrix *arg3"));
    ck_assert(strstr(s, "const long *arg4, long arg4_len"));
    ck_assert(strstr(s, "pa_varlena *retval = &kctl->var;"));
    ck_assert(strstr(s, "#line 3 \"f\"\nstatic __device__ float twice"));
    /* Directive lines inside a block stay as empty lines: the code keeps its line numbers. */
    ck_assert(strstr(s, "#line 5 \"f\"\n\n  ((int *)workbuf)[0] = 1;"));
    ck_assert(strstr(s, "#line 8 \"f\"\n\n\n\n\n  (void)twice(arg2[0]);"));
    if (pa_test_built("cuda")) {
        if (pa_cuda_device_count() < 1) {
            char buf[1024];
            int n = 5;
            pa_matrix *m = NULL;
            PA_CK_OK(pa_matrix_create_in(NULL, PA_MATRIX_DOUBLE, 2, 2, &m));
            float a[3] = {0};
            long b[2] = {0};
            pa_arg args[] = {PA_ARG(&n), PA_ARG_N(a, 3), PA_ARG(m), PA_ARG_N(b, 2)};
            int len = pa_kernel_explain(k, args, 4, buf, sizeof buf);
            ck_assert_msg(len > 0 && (size_t)len < sizeof buf, "%d %s", len, pa_last_error());
            ck_assert_msg(strstr(buf, "results buffer 20 bytes, working buffer 64 bytes"), "%s", buf);
            ck_assert_msg(strstr(buf, "prep: 7 threads, block size auto"), "%s", buf);
            ck_assert_msg(strstr(buf, "begin: 20 threads = 1 blocks x 20 threads (#plcuda_kernel_blocksz, one block of "
                                  "the thread count), shared memory 416 bytes/block"), "%s", buf);
            ck_assert_msg(strstr(buf, "post: 1 threads = 1 blocks x 1 threads (#plcuda_kernel_maxthreads"), "%s", buf);
            pa_matrix_destroy(m);
        }
    }
    pa_kernel_destroy(k);
}
END_TEST

/* Malformed sources: each must fail with the status and name the line and directive. */
static const struct {
    const char *src;
    int status;
    const char *msg;
} bad[] = {
    {"#plcuda_begin\n#plcuda_sanity_checl foo\n#plcuda_end\n", PA_ERR_PARSE,
     "line 2: unknown directive #plcuda_sanity_checl"},
    {"#plcuda_begin\n x;\n#plcuda_prep\n y;\n", PA_ERR_PARSE, "line 3: #plcuda_prep: blocks out of order"},
    {"#plcuda_post\n#plcuda_decl\n#plcuda_begin\n", PA_ERR_PARSE, "line 2: #plcuda_decl: blocks out of order"},
    {"#plcuda_begin\n#plcuda_end\n#plcuda_begin\n", PA_ERR_PARSE, "line 3: #plcuda_begin: this block appears twice"},
    {"#plcuda_num_threads 4\n#plcuda_begin\n", PA_ERR_PARSE, "line 1: #plcuda_num_threads: only inside"},
    {"#plcuda_decl\n#plcuda_shmem_unitsz 4\n#plcuda_begin\n", PA_ERR_PARSE, "line 2: #plcuda_shmem_unitsz: only inside"},
    {"#plcuda_begin\n#plcuda_num_threads 12abc\n", PA_ERR_PARSE, "line 2: #plcuda_num_threads: expected a constant"},
    {"#plcuda_begin\n#plcuda_num_threads -5\n", PA_ERR_PARSE, "line 2: #plcuda_num_threads: expected a constant"},
    {"#plcuda_begin\n#plcuda_num_threads\n", PA_ERR_PARSE, "line 2: #plcuda_num_threads: expected a constant"},
    {"#plcuda_begin\n#plcuda_num_threads 99999999999999999999999\n", PA_ERR_PARSE, "out of range"},
    {"#plcuda_begin\n#plcuda_num_threads 4\n#plcuda_num_threads 5\n", PA_ERR_PARSE, "line 3: #plcuda_num_threads: given twice"},
    {"#plcuda_begin\n#plcuda_kernel_blocksz nosuchfn\n", PA_ERR_NAME, "line 2: #plcuda_kernel_blocksz: no callback named 'nosuchfn'"},
    {"#plcuda_begin\n#plcuda_num_threads threads_fn extra\n", PA_ERR_PARSE, "line 2: #plcuda_num_threads: unexpected text"},
    {"#plcuda_begin\n#plcuda_kernel_maxthreads 1024\n", PA_ERR_PARSE, "line 2: #plcuda_kernel_maxthreads: takes no argument"},
    {"#plcuda_include \"cuda_moneys.h\"\n#plcuda_begin\n", PA_ERR_PARSE, "\"numeric\", \"money\"; PG-Strom's"},
    {"#plcuda_include \"cuda_bogus.h\"\n#plcuda_begin\n", PA_ERR_PARSE, "line 1: #plcuda_include: unknown library"},
    {"#plcuda_include math\n#plcuda_begin\n", PA_ERR_PARSE, "line 1: #plcuda_include: expected a quoted library name"},
    {"#plcuda_end\n#plcuda_begin\n", PA_ERR_PARSE, "line 1: #plcuda_end: no block is open"},
    {"#plcuda_prep\n x;\n#plcuda_end\n", PA_ERR_PARSE, "no #plcuda_begin block"},
    {"int x;\n#plcuda_begin\n", PA_ERR_PARSE, "line 1: code outside a block"},
    {"#plcuda_results_bufsz 8\n#plcuda_begin\n#plcuda_results_bufsz 16\n", PA_ERR_PARSE, "line 3: #plcuda_results_bufsz: given twice"},
    {"#plcuda_sanity_check\n#plcuda_begin\n", PA_ERR_PARSE, "line 1: #plcuda_sanity_check: expected the name of a callback"},
    {"#plcuda_cpu_fallback missing\n#plcuda_begin\n", PA_ERR_NAME, "line 1: #plcuda_cpu_fallback: no callback named 'missing'"},
    {"#plcuda_decl x\n#plcuda_begin\n", PA_ERR_PARSE, "line 1: #plcuda_decl: takes no argument"},
};

START_TEST(test_bad_source)
{
    pa_kernel *k = NULL;
    PA_CK_ERR(pa_kernel_create("badfn", "int (int)", bad[_i].src, funcs, 2, &k), bad[_i].status);
    ck_assert_ptr_null(k);
    ck_assert_msg(strstr(pa_last_error(), "badfn") && strstr(pa_last_error(), bad[_i].msg), "case %d: %s", _i,
                  pa_last_error());
}
END_TEST

static const struct {
    const char *sig, *msg;
} bad_sigs[] = {
    {"int", "expected '('"},
    {"int (int", "expected ',' or ')'"},
    {"int (quaternion)", "column 6: unknown type"},
    {"matrix char (int)", "a matrix holds"},
    {"int (float[)", "expected ']'"},
    {"int (inout int)", "inout applies to arrays only"},
    {"int (int) extra", "unexpected text after ')'"},
    {"int (bytes)", "unknown type"},
    {"float[] (int)", "expected '('"},
    {"(int)", "expected a type"},
    {"int (int,)", "column 10: expected a type after ','"},
    {"int (int, float[] , )", "no trailing comma"},
    {"int (,)", "expected a type"},
};

START_TEST(test_bad_signature)
{
    pa_kernel *k = NULL;
    PA_CK_ERR(pa_kernel_create("sigfn", bad_sigs[_i].sig, "#plcuda_begin\n", NULL, 0, &k), PA_ERR_PARSE);
    ck_assert_msg(strstr(pa_last_error(), bad_sigs[_i].msg), "%s: %s", bad_sigs[_i].sig, pa_last_error());
}
END_TEST

START_TEST(test_good_signatures)
{
    static const char *const sigs[] = {"void (void)", "void ()", "bytes (const char[], unsigned long long)",
        "double (int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, bool, char, signed char)",
        "unsigned (unsigned short, unsigned int, long long, float)", "matrix long (matrix short, matrix int)"};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        pa_kernel *k;
        const char *src = strncmp(sigs[i], "bytes", 5) == 0 || strncmp(sigs[i], "matrix", 6) == 0
                              ? "#plcuda_results_bufsz 64\n#plcuda_begin\n" : "#plcuda_begin\n";
        PA_CK_OK(pa_kernel_create("ok", sigs[i], src, NULL, 0, &k));
        pa_kernel_destroy(k);
    }
}
END_TEST

START_TEST(test_bad_calls)
{
    pa_kernel *k = NULL;
    PA_CK_ERR(pa_kernel_create("1abc", "int (int)", "#plcuda_begin\n", NULL, 0, &k), PA_ERR_INVAL);
    PA_CK_ERR(pa_kernel_create("v", "matrix int (int)", "#plcuda_begin\n", NULL, 0, &k), PA_ERR_PARSE);
    ck_assert(strstr(pa_last_error(), "needs #plcuda_results_bufsz"));
    PA_CK_ERR(pa_kernel_create("v", "int (int)", NULL, NULL, 0, &k), PA_ERR_INVAL);
    ck_assert_ptr_null(k);
    pa_kernel_destroy(NULL);
}
END_TEST

START_TEST(test_matrix_host)
{
    pa_matrix *m = NULL;
    PA_CK_OK(pa_matrix_create_in(NULL, PA_MATRIX_FLOAT, 3, 2, &m));
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(pa_matrix_rawsize(PA_MATRIX_FLOAT, 3, 2), 16 + 24);
    ck_assert_int_eq(pa_matrix_rawsize(PA_MATRIX_DOUBLE, 0, 5), 16);
    ck_assert_int_eq(pa_matrix_rawsize(9, 1, 1), 0);
    ck_assert_int_eq(pa_matrix_rawsize(PA_MATRIX_INT, -1, 1), 0);
    PA_CK_OK(pa_matrix_validate(m, 40));
    PA_CK_ERR(pa_matrix_validate(m, 39), PA_ERR_INVAL);
    ((float *)pa_matrix_data(m))[1 * 3 + 2] = 5.0f; /* (2, 1), column-major */
    m->magic = 0;
    PA_CK_ERR(pa_matrix_validate(m, 40), PA_ERR_INVAL);
    pa_matrix_destroy(m);
    m = NULL;
    PA_CK_ERR(pa_matrix_create_in(NULL, PA_MATRIX_INT, 1, -2, &m), PA_ERR_INVAL);
    ck_assert_ptr_null(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plcuda_parse");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_gpu_add_source);
    tcase_add_test(tc, test_all_blocks);
    tcase_add_loop_test(tc, test_bad_source, 0, (int)(sizeof bad / sizeof *bad));
    tcase_add_loop_test(tc, test_bad_signature, 0, (int)(sizeof bad_sigs / sizeof *bad_sigs));
    tcase_add_test(tc, test_good_signatures);
    tcase_add_test(tc, test_bad_calls);
    tcase_add_test(tc, test_matrix_host);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
