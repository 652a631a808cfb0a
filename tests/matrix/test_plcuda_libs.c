/* parray tests — the PL/CUDA device libraries "time", "text" and "dynpara" (PG-Strom's cuda_timelib.h,
 * cuda_textlib.h, cuda_dynpara.h), and the matrix module's GPU multiply kernel.
 *
 * Built twice: plcuda_libs_compile compiles every function for sm_90 with NVRTC (and links the dynpara one
 * with the device runtime) on any machine with NVRTC; plcuda_libs_gpu (PA_LIBS_GPU) runs them on the GPU and
 * checks the results against independent CPU oracles (libc's gmtime_r and timegm for dates, timelib_oracle.h,
 * shared with the CPU suite plcuda_time_host; a recursive LIKE matcher), and exits 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "testutil.h"
#include "timelib_oracle.h"

/* The date functions over an array of dates: y, m, d, dow, doy, the date made back from (y, m, d), isodow, and
 * date + 1 month, 8 ints per date. */
static const char time_src[] =
    "#plcuda_include \"cuda_timelib.h\"\n"
    "#plcuda_include \"tile\"\n"
    "#plcuda_begin\n"
    "#plcuda_num_threads n_dates\n"
    "  PA_FOR_EACH(i, arg1_len) {\n"
    "    int date = arg1[i], y, m, d;\n"
    "    int *o = arg2 + 8 * i;\n"
    "    pa_date_ymd(date, &y, &m, &d);\n"
    "    o[0] = y; o[1] = m; o[2] = d; o[3] = pa_date_dow(date); o[4] = pa_date_doy(date);\n"
    "    o[5] = pa_date_make(kcxt, y, m, d); o[6] = pa_date_isodow(date); o[7] = pa_date_add_months(date, 1);\n"
    "  }\n"
    "#plcuda_end\n";

/* Timestamps: trunc to hour, day, week, month, quarter, year; hour, minute; to unix seconds. */
static const char ts_src[] =
    "#plcuda_include \"time\"\n"
    "#plcuda_include \"tile\"\n"
    "#plcuda_begin\n"
    "#plcuda_num_threads n_stamps\n"
    "  PA_FOR_EACH(i, arg1_len) {\n"
    "    long ts = arg1[i];\n"
    "    long *o = arg2 + 9 * i;\n"
    "    o[0] = pa_ts_trunc(ts, PA_TRUNC_HOUR); o[1] = pa_ts_trunc(ts, PA_TRUNC_DAY);\n"
    "    o[2] = pa_ts_trunc(ts, PA_TRUNC_WEEK); o[3] = pa_ts_trunc(ts, PA_TRUNC_MONTH);\n"
    "    o[4] = pa_ts_trunc(ts, PA_TRUNC_QUARTER); o[5] = pa_ts_trunc(ts, PA_TRUNC_YEAR);\n"
    "    o[6] = pa_ts_hour(ts); o[7] = pa_ts_minute(ts); o[8] = pa_ts_to_unix(ts);\n"
    "  }\n"
    "#plcuda_end\n";

/* A day that does not exist raises 22008 at line 3. */
static const char badday_src[] =
    "#plcuda_include \"time\"\n"
    "#plcuda_begin\n"
    "  *retval = pa_date_make(kcxt, arg1, 2, 29);\n"
    "#plcuda_end\n";

/* LIKE / ILIKE of string i against pattern i; strings and patterns as bytes + starts. */
static const char like_src[] =
    "#plcuda_include \"cuda_textlib.h\"\n"
    "#plcuda_include \"tile\"\n"
    "#plcuda_begin\n"
    "#plcuda_num_threads n_like\n"
    "  PA_FOR_EACH(i, arg2_len - 1) {\n"
    "    const char *s = arg1 + arg2[i], *p = arg3 + arg4[i];\n"
    "    long sl = arg2[i + 1] - arg2[i], pl = arg4[i + 1] - arg4[i];\n"
    "    arg5[i] = pa_text_like(s, sl, p, pl) | pa_text_ilike(s, sl, p, pl) << 1\n"
    "            | (pa_text_strpos(s, sl, p, pl) > 0) << 2 | (pa_text_cmp(s, sl, p, pl) + 1) << 3;\n"
    "  }\n"
    "#plcuda_end\n";

/* One thread launches a child grid over the array: out[i] = 3 i + 1; the post kernel sums it (children of
 * main have finished by then). */
static const char dynpara_src[] =
    "#plcuda_include \"cuda_dynpara.h\"\n"
    "#plcuda_decl\n"
    "__global__ void fill(int *out, long n, int a) { long i = pa_global_id(); if (i < n) out[i] = a * (int)i + 1; }\n"
    "#plcuda_begin\n"
    "  if (pa_global_id() == 0) pa_dp_launch(kcxt, fill, arg1_len, arg1, arg1_len, 3);\n"
    "#plcuda_post\n"
    "  if (pa_global_id() == 0) { long s = 0; for (long i = 0; i < arg1_len; i++) s += arg1[i]; *retval = s; }\n"
    "#plcuda_end\n";

static int64_t count_of(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    return args[0].count;
}

static int64_t count_minus_one(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    return args[1].count - 1;
}

static const pa_kernel_func funcs[] = {{"n_dates", count_of, NULL}, {"n_stamps", count_of, NULL},
                                       {"n_like", count_minus_one, NULL}};

static pa_kernel *make(const char *name, const char *sig, const char *src)
{
    pa_kernel *k = NULL;
    PA_CK_OK(pa_kernel_create(name, sig, src, funcs, 3, &k));
    return k;
}

#ifndef PA_LIBS_GPU
#include "rtc.h"
char *pa__matrix_gemm_source(int elm, int64_t m, int64_t n, int64_t k);

START_TEST(test_compile_sm90)
{
    struct { const char *name, *sig, *src; } fs[] = {
        {"dates", "void (int[], inout int[])", time_src},
        {"stamps", "void (long[], inout long[])", ts_src},
        {"badday", "int (int)", badday_src},
        {"like", "void (char[], int[], char[], int[], inout int[])", like_src},
        {"dynpara", "long (inout int[])", dynpara_src},
    };
    for (size_t i = 0; i < sizeof fs / sizeof *fs; i++) {
        pa_kernel *k = make(fs[i].name, fs[i].sig, fs[i].src);
        int rc = pa_kernel_compile(k, 90);
        if (rc == PA_ERR_NODEV) {   /* no NVRTC on this machine */
            pa_kernel_destroy(k);
            return;
        }
        PA_CK_OK(rc);
        pa_kernel_destroy(k);
    }
    /* the matrix module's GPU multiply: the tiled gemm (pa_gemm_dmem) generated for its column-major types, in
     * the row-major form C^T = B^T A^T and, for a B wider than that form's grid, the transposed views */
    static const int64_t shapes[][3] = {{300, 200, 77}, {2, 4194305, 1}};
    for (int e = 0; e < 2; e++)
        for (int i = 0; i < 2; i++) {
            char *src = pa__matrix_gemm_source(e ? PA_MATRIX_DOUBLE : PA_MATRIX_FLOAT, shapes[i][0], shapes[i][1],
                                               shapes[i][2]);
            ck_assert_msg(src != NULL, "%s", pa_last_error());
            const pa_cuda__image *img;
            PA_CK_OK(pa_cuda__rtc_compile("pa_matrix_gemm", src, NULL, 0, 90, &img));
            free(src);
        }
}
END_TEST

START_TEST(test_refusals)
{
    pa_kernel *k = NULL;
    PA_CK_ERR(pa_kernel_create("n", "int ()", "#plcuda_include \"cuda_numeric.h\"\n#plcuda_begin\n#plcuda_end\n",
                               NULL, 0, &k), PA_ERR_UNSUPPORTED);
    ck_assert(strstr(pa_last_error(), "arbitrary-precision decimal"));
    PA_CK_ERR(pa_kernel_create("m", "int ()", "#plcuda_include \"cuda_money.h\"\n#plcuda_begin\n#plcuda_end\n",
                               NULL, 0, &k), PA_ERR_UNSUPPORTED);
    ck_assert(strstr(pa_last_error(), "lc_monetary"));
    ck_assert_ptr_null(k);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("plcuda_libs_compile");
    TCase *tc = tcase_create("compile");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_compile_sm90);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}

#else

START_TEST(test_dates)
{
    pa_rng rng = {pa_test_seed("plcuda time")};
    int n = 20000;
    int *dates = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * 8 * (size_t)n);
    for (int i = 0; i < n; i++)
        dates[i] = i < 10 ? (int[]){0, -1, 59, 60, -10957, 11016, -36524, 36524, 146097, -146097}[i]
                          : (int)pa_rng_range(&rng, -800000, 800000);
    memset(out, 0xA5, sizeof(int) * 8 * (size_t)n);
    pa_kernel *k = make("dates", "void (int[], inout int[])", time_src);
    pa_arg args[] = {PA_ARG_N(dates, n), PA_ARG_N(out, 8 * n)};
    PA_CK_OK(pa_kernel_call(k, args, 2, NULL));
    oracle_check_dates("GPU", dates, out, n);
    pa_kernel_destroy(k);
    free(dates);
    free(out);

    int y = 2023, ret = 0;
    k = make("badday", "int (int)", badday_src);
    pa_arg a1[] = {PA_ARG(&y)};
    PA_CK_ERR(pa_kernel_call(k, a1, 1, &ret), PA_ERR_KERNEL);
    ck_assert_msg(strstr(pa_last_error(), "22008") && strstr(pa_last_error(), "line 3"), "%s", pa_last_error());
    y = 2024;
    PA_CK_OK(pa_kernel_call(k, a1, 1, &ret));
    ck_assert_int_eq(ret, 8825);   /* 2024-02-29 is 8825 days after 2000-01-01 */
    pa_kernel_destroy(k);
}
END_TEST

START_TEST(test_timestamps)
{
    pa_rng rng = {pa_test_seed("plcuda timestamps")};
    int n = 5000;
    int64_t *ts = malloc(sizeof(int64_t) * (size_t)n), *out = malloc(sizeof(int64_t) * 9 * (size_t)n);
    for (int i = 0; i < n; i++)
        ts[i] = pa_rng_range(&rng, -3000000000LL, 3000000000LL) * 1000000 + pa_rng_range(&rng, 0, 999999);
    pa_kernel *k = make("stamps", "void (long[], inout long[])", ts_src);
    pa_arg args[] = {PA_ARG_N(ts, n), PA_ARG_N(out, 9 * n)};
    PA_CK_OK(pa_kernel_call(k, args, 2, NULL));
    oracle_check_stamps("GPU", ts, out, n);
    pa_kernel_destroy(k);
    free(ts);
    free(out);
}
END_TEST

/* The oracle: recursive LIKE over bytes, '_' one UTF-8 character, '\' escapes. */
static int utf8_len(const char *s, int i, int n)
{
    int k = 1;
    while (i + k < n && ((unsigned char)s[i + k] & 0xC0) == 0x80)
        k++;
    return k;
}

static int fold(int c, int f)
{
    return f && c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int ref_like(const char *s, int sn, const char *p, int pn, int f)
{
    if (pn == 0)
        return sn == 0;
    if (p[0] == '%') {
        for (int i = 0; i <= sn; i += i < sn ? utf8_len(s, i, sn) : 1)
            if (ref_like(s + i, sn - i, p + 1, pn - 1, f))
                return 1;
        return 0;
    }
    if (sn == 0)
        return 0;
    if (p[0] == '_') {
        int k = utf8_len(s, 0, sn);
        return ref_like(s + k, sn - k, p + 1, pn - 1, f);
    }
    int q = p[0] == '\\' && pn > 1;
    return fold((unsigned char)s[0], f) == fold((unsigned char)p[q], f) && ref_like(s + 1, sn - 1, p + q + 1, pn - q - 1, f);
}

START_TEST(test_like)
{
    pa_rng rng = {pa_test_seed("plcuda like")};
    static const char *const fixed[][2] = {
        {"hello", "h%o"}, {"hello", "h_llo"}, {"hello", "%ll%"}, {"hello", "%"}, {"", "%"}, {"", "_"},
        {"h%llo", "h\\%llo"}, {"hello", "h\\%llo"}, {"Hello", "hELLO"}, {"caf\xc3\xa9", "caf_"},
        {"caf\xc3\xa9", "caf__"}, {"aaa", "a%a%a"}, {"ab", "a%b%"}, {"abc", "%b"}, {"mississippi", "%iss%pi"},
    };
    const char *alpha[] = {"a", "b", "A", "\xc3\xa9", "%", "_", "\\"};
    int n = 4000, nf = (int)(sizeof fixed / sizeof *fixed);
    char *sb = malloc((size_t)n * 40), *pb = malloc((size_t)n * 40);
    int *so = malloc(sizeof(int) * (size_t)(n + 1)), *po = malloc(sizeof(int) * (size_t)(n + 1)), *res = malloc(sizeof(int) * (size_t)n);
    int sl = 0, pl = 0;
    for (int i = 0; i < n; i++) {
        so[i] = sl;
        po[i] = pl;
        if (i < nf) {
            sl += sprintf(sb + sl, "%s", fixed[i][0]);
            pl += sprintf(pb + pl, "%s", fixed[i][1]);
            continue;
        }
        for (int k = (int)pa_rng_range(&rng, 0, 8); k > 0; k--)
            sl += sprintf(sb + sl, "%s", alpha[pa_rng_range(&rng, 0, 3)]);
        for (int k = (int)pa_rng_range(&rng, 0, 6); k > 0; k--)
            pl += sprintf(pb + pl, "%s", alpha[pa_rng_range(&rng, 0, 6)]);
    }
    so[n] = sl;
    po[n] = pl;
    memset(res, 0xA5, sizeof(int) * (size_t)n);
    pa_kernel *k = make("like", "void (char[], int[], char[], int[], inout int[])", like_src);
    pa_arg args[] = {PA_ARG_N(sb, sl), PA_ARG_N(so, n + 1), PA_ARG_N(pb, pl), PA_ARG_N(po, n + 1), PA_ARG_N(res, n)};
    PA_CK_OK(pa_kernel_call(k, args, 5, NULL));
    int fixed_want[] = {1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1};
    for (int i = 0; i < n; i++) {
        const char *s = sb + so[i], *p = pb + po[i];
        int sn = so[i + 1] - so[i], pn = po[i + 1] - po[i];
        int like = ref_like(s, sn, p, pn, 0), ilike = ref_like(s, sn, p, pn, 1);
        ck_assert_msg((res[i] & 1) == like, "'%.*s' LIKE '%.*s': GPU %d, oracle %d", sn, s, pn, p, res[i] & 1, like);
        ck_assert_msg(((res[i] >> 1) & 1) == ilike, "'%.*s' ILIKE '%.*s'", sn, s, pn, p);
        if (i < nf)
            ck_assert_msg(like == fixed_want[i], "fixed case %d", i);
        int pos = 0;
        for (int j = 0; j + pn <= sn && !pos; j++)
            pos = memcmp(s + j, p, (size_t)pn) == 0;
        ck_assert_int_eq((res[i] >> 2) & 1, pos);
        int c = memcmp(s, p, (size_t)(sn < pn ? sn : pn));
        c = c ? (c < 0 ? -1 : 1) : (sn < pn ? -1 : sn > pn);
        ck_assert_int_eq((res[i] >> 3) - 1, c);
    }
    pa_kernel_destroy(k);
    free(sb);
    free(pb);
    free(so);
    free(po);
    free(res);
}
END_TEST

START_TEST(test_dynpara)
{
    int n = 100000;
    int *a = malloc(sizeof(int) * (size_t)n);
    int64_t sum = 0, want = 0;
    memset(a, 0xA5, sizeof(int) * (size_t)n);
    pa_kernel *k = make("dynpara", "long (inout int[])", dynpara_src);
    pa_arg args[] = {PA_ARG_N(a, n)};
    PA_CK_OK(pa_kernel_call(k, args, 1, &sum));
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(a[i], 3 * i + 1);
        want += 3 * i + 1;
    }
    ck_assert_int_eq(sum, want);
    pa_kernel_destroy(k);
    free(a);
}
END_TEST

int main(void)
{
    if (!pa_test_gpu_present()) {
        fprintf(stderr, "plcuda_libs_gpu: skipped: no usable GPU (or no CUDA backend in this build)\n");
        return 77;
    }
    Suite *su = suite_create("plcuda_libs_gpu");
    TCase *tc = tcase_create("gpu");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_dates);
    tcase_add_test(tc, test_timestamps);
    tcase_add_test(tc, test_like);
    tcase_add_test(tc, test_dynpara);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}

#endif
