/* parray tests — the PL/CUDA libraries "numeric" and "money" (PG-Strom's cuda_numeric.h, cuda_money.h) through
 * NVRTC and on the GPU.
 *
 * Built twice: plcuda_numeric_compile compiles the functions for sm_90 (NVRTC with -device-int128; no GPU
 * needed, so CI runs it); plcuda_numeric_gpu (PA_NUMERIC_GPU) runs them on random operands of every precision
 * and scale and requires the GPU's results, flags included, to equal the host's, bit for bit: the host runs the
 * same header, which numeric_oracle_* checks against Python's decimal module.  Errors raised with pa_num_check
 * come back as PA_ERR_KERNEL with their code and line.  77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <parray/kernel.h>

/* For operand pair i (scales in arg3[2i], arg3[2i+1]): add, sub, mul, div, round(a, b.scale), text of a read back
 * at b.scale, div at scale (a.scale + b.scale) % 39, each as value (arg4) and scale | flags << 8 (arg5); and money: a's low digits as cents times b,
 * divided by b, divided by 7 with the three calls' flags in bits 52.. (arg6). */
static const char ops_src[] =
    "#plcuda_include \"cuda_numeric.h\"\n"
    "#plcuda_include \"cuda_money.h\"\n"
    "#plcuda_include \"tile\"\n"
    "#plcuda_begin\n"
    "#plcuda_num_threads n_ops\n"
    "  PA_FOR_EACH(i, arg1_len) {\n"
    "    pa_numeric a, b, r[7];\n"
    "    unsigned e[7] = {0, 0, 0, 0, 0, 0, 0}, em[3] = {0, 0, 0};\n"
    "    char t[PA_NUMERIC_TEXT_MAX];\n"
    "    a.v = arg1[i]; a.scale = arg3[2 * i]; b.v = arg2[i]; b.scale = arg3[2 * i + 1];\n"
    "    r[0] = pa_num_add(a, b, &e[0]); r[1] = pa_num_sub(a, b, &e[1]);\n"
    "    r[2] = pa_num_mul(a, b, &e[2]); r[3] = pa_num_div(a, b, &e[3]);\n"
    "    r[4] = pa_num_round(a, b.scale, &e[4]);\n"
    "    int n = pa_num_to_text(a, t, sizeof t);\n"
    "    r[5] = pa_num_from_text(t, n, b.scale, &e[5]);\n"
    "    r[6] = pa_num_div_scale(a, b, (a.scale + b.scale) % 39, &e[6]);\n"
    "    for (int j = 0; j < 7; j++) { arg4[7 * i + j] = r[j].v; arg5[7 * i + j] = r[j].scale | (int)e[j] << 8; }\n"
    "    pa_money m = (pa_money)(arg1[i] % 100000000000000LL);\n"
    "    arg6[3 * i] = pa_money_mul_num(m, b, &em[0]);\n"
    "    arg6[3 * i + 1] = pa_money_div_num(m, b, &em[1]);\n"
    "    pa_money q = pa_money_div_int(m, 7, &em[2]);\n"
    "    arg6[3 * i + 2] = (pa_money)((unsigned long long)q ^ (unsigned long long)(em[0] | em[1] << 4 | em[2] << 8) << 52);\n"
    "  }\n"
    "#plcuda_end\n";

/* arg1 / arg2 at scale 2, checked: a zero divisor raises 22012, a quotient past numeric(38, 8) raises 22003. */
static const char check_src[] =
    "#plcuda_include \"numeric\"\n"
    "#plcuda_begin\n"
    "  unsigned err = 0;\n"
    "  pa_numeric q = pa_num_div(pa_num_load(arg1, 2, &err), pa_num_load(arg2, 2, &err), &err);\n"
    "  *retval = pa_num_store(q, 38, 8, &err);\n"
    "  pa_num_check(kcxt, err);\n"
    "#plcuda_end\n";

static int64_t count_of(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    return args[0].count;
}

static const pa_kernel_func funcs[] = {{"n_ops", count_of, NULL}};

#define OPS_SIG "void (numeric[], numeric[], int[], inout numeric[], inout int[], inout money[])"

#ifndef PA_NUMERIC_GPU

START_TEST(test_compile_sm90)
{
    pa_kernel *k = NULL;
    PA_CK_OK(pa_kernel_create("numops", OPS_SIG, ops_src, funcs, 1, &k));
    int rc = pa_kernel_compile(k, 90);
    pa_kernel_destroy(k);
    if (rc == PA_ERR_NODEV) {
        fprintf(stderr, "plcuda_numeric_compile: NVRTC is not loadable here: %s\n", pa_last_error());
        return;
    }
    PA_CK_OK(rc);
    PA_CK_OK(pa_kernel_create("numcheck", "numeric (numeric, numeric)", check_src, NULL, 0, &k));
    PA_CK_OK(pa_kernel_compile(k, 90));
    pa_kernel_destroy(k);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("plcuda_numeric_compile");
    TCase *tc = tcase_create("compile");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_compile_sm90);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}

#else

#define NOPS 20000

static pa_numeric rnd_num(pa_rng *g)
{
    int p = (int)pa_rng_range(g, 1, 38), s = (int)pa_rng_range(g, 0, p), n = (int)pa_rng_range(g, 0, p);
    pa_u128 m = 0;
    for (int i = 0; i < n; i++)
        m = m * 10 + (pa_u128)pa_rng_range(g, 0, 9);
    pa_numeric r = {pa_rng_next(g) & 1 ? -(pa_i128)m : (pa_i128)m, s};
    return r;
}

START_TEST(test_ops_equal_host)
{
    pa_rng g = {pa_test_seed("plcuda_numeric_gpu")};
    pa_decimal128 *a = calloc(NOPS, sizeof *a), *b = calloc(NOPS, sizeof *b), *r = calloc(7 * NOPS, sizeof *r);
    int *sc = calloc(2 * NOPS, sizeof *sc), *rs = calloc(7 * NOPS, sizeof *rs);
    pa_money *m = calloc(3 * NOPS, sizeof *m);
    ck_assert(a && b && r && sc && rs && m);
    for (int i = 0; i < NOPS; i++) {
        pa_numeric x = rnd_num(&g), y = rnd_num(&g);
        a[i] = x.v;
        b[i] = y.v;
        sc[2 * i] = x.scale;
        sc[2 * i + 1] = y.scale;
    }
    pa_kernel *k = NULL;
    PA_CK_OK(pa_kernel_create("numops", OPS_SIG, ops_src, funcs, 1, &k));
    pa_arg args[] = {PA_ARG_N(a, NOPS), PA_ARG_N(b, NOPS), PA_ARG_N(sc, 2 * NOPS), PA_ARG_N(r, 7 * NOPS),
                     PA_ARG_N(rs, 7 * NOPS), PA_ARG_N(m, 3 * NOPS)};
    PA_CK_OK(pa_kernel_call(k, args, 6, NULL));
    long errors = 0;
    for (int i = 0; i < NOPS; i++) {
        pa_numeric x = {a[i], sc[2 * i]}, y = {b[i], sc[2 * i + 1]}, h[7];
        unsigned e[7] = {0, 0, 0, 0, 0, 0, 0}, em[3] = {0, 0, 0};
        char t[PA_NUMERIC_TEXT_MAX];
        h[0] = pa_num_add(x, y, &e[0]);
        h[1] = pa_num_sub(x, y, &e[1]);
        h[2] = pa_num_mul(x, y, &e[2]);
        h[3] = pa_num_div(x, y, &e[3]);
        h[4] = pa_num_round(x, y.scale, &e[4]);
        int n = pa_num_to_text(x, t, sizeof t);
        h[5] = pa_num_from_text(t, n, y.scale, &e[5]);
        h[6] = pa_num_div_scale(x, y, (x.scale + y.scale) % 39, &e[6]);
        for (int j = 0; j < 7; j++)
            if (h[j].v != r[7 * i + j] || (h[j].scale | (int)e[j] << 8) != rs[7 * i + j])
                if (errors++ < 10)
                    fprintf(stderr, "pair %d op %d: GPU and host differ (scale/flags %#x against %#x)\n", i, j,
                            rs[7 * i + j], h[j].scale | (int)e[j] << 8);
        pa_money c = (pa_money)(a[i] % 100000000000000LL);
        pa_money w0 = pa_money_mul_num(c, y, &em[0]), w1 = pa_money_div_num(c, y, &em[1]);
        pa_money q = pa_money_div_int(c, 7, &em[2]);
        pa_money w2 = (pa_money)((unsigned long long)q ^ (unsigned long long)(em[0] | em[1] << 4 | em[2] << 8) << 52);
        if (m[3 * i] != w0 || m[3 * i + 1] != w1 || m[3 * i + 2] != w2)
            if (errors++ < 10)
                fprintf(stderr, "pair %d: money results differ\n", i);
    }
    ck_assert_msg(errors == 0, "%ld results differ between the GPU and the host", errors);
    printf("plcuda_numeric_gpu: %d operand pairs, %d numeric and %d money results equal on GPU and host\n", NOPS,
           7 * NOPS, 3 * NOPS);
    pa_kernel_destroy(k);
    free(a);
    free(b);
    free(r);
    free(sc);
    free(rs);
    free(m);
}
END_TEST

START_TEST(test_check_raises)
{
    pa_kernel *k = NULL;
    pa_decimal128 x = 100, y = 300, q = 0;   /* 1.00 / 3.00 */
    PA_CK_OK(pa_kernel_create("numcheck", "numeric (numeric, numeric)", check_src, NULL, 0, &k));
    pa_arg args[] = {PA_ARG(&x), PA_ARG(&y)};
    PA_CK_OK(pa_kernel_call(k, args, 2, &q));
    ck_assert(q == 33333333);   /* 0.33333333 at scale 8 */
    y = 0;
    PA_CK_ERR(pa_kernel_call(k, args, 2, &q), PA_ERR_KERNEL);
    ck_assert_msg(strstr(pa_last_error(), "22012") && strstr(pa_last_error(), "line 6"), "%s", pa_last_error());
    y = 1;
    x = (pa_decimal128)PA__NUM_LIMIT - 1;   /* 10^36 - 0.01 divided by 0.01: 38 digits before the point */
    PA_CK_ERR(pa_kernel_call(k, args, 2, &q), PA_ERR_KERNEL);
    ck_assert_msg(strstr(pa_last_error(), "22003"), "%s", pa_last_error());
    pa_kernel_destroy(k);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("plcuda_numeric_gpu"))
        return 77;
    Suite *su = suite_create("plcuda_numeric_gpu");
    TCase *tc = tcase_create("gpu");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_ops_equal_host);
    tcase_add_test(tc, test_check_raises);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}

#endif
