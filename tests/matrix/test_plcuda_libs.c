/* parray tests — the PL/CUDA device libraries "time", "text" and "dynpara" (every public function of each) (PG-Strom's cuda_timelib.h,
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
#include <parray/kernel.h>
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

/* The date and time parts the other kernels do not reach: for timestamp i, 8 longs (see test_time_parts). */
static const char parts_src[] =
    "#plcuda_include \"time\"\n"
    "#plcuda_include \"tile\"\n"
    "#plcuda_begin\n"
    "#plcuda_num_threads n_stamps\n"
    "  PA_FOR_EACH(i, arg1_len) {\n"
    "    long ts = arg1[i], *o = arg2 + 8 * i;\n"
    "    int date = pa_ts_date(ts), y = pa_date_year(date);\n"
    "    o[0] = date; o[1] = pa_ts_time(ts); o[2] = pa_ts_from_date(date);\n"
    "    o[3] = y * 10000L + pa_date_month(date) * 100 + pa_date_day(date);\n"
    "    o[4] = pa_is_leap(y); o[5] = pa_days_in_month(y, pa_date_month(date));\n"
    "    o[6] = (long)(pa_ts_second(ts) * 1000000.0 + 0.5); o[7] = pa_ts_from_unix(pa_ts_to_unix(ts));\n"
    "  }\n"
    "#plcuda_end\n";

/* Equality, prefix and character length of string i against string i of the second set, and every byte of the
 * first set through lower (even i) or upper (odd i) ASCII case. */
static const char textfn_src[] =
    "#plcuda_include \"text\"\n"
    "#plcuda_include \"tile\"\n"
    "#plcuda_begin\n"
    "#plcuda_num_threads n_like\n"
    "  PA_FOR_EACH(i, arg2_len - 1) {\n"
    "    const char *s = arg1 + arg2[i], *p = arg3 + arg4[i];\n"
    "    long sl = arg2[i + 1] - arg2[i], pl = arg4[i + 1] - arg4[i];\n"
    "    arg5[i] = pa_text_eq(s, sl, p, pl) | pa_text_starts_with(s, sl, p, pl) << 1\n"
    "            | (int)pa_text_char_length(s, sl) << 2;\n"
    "    for (long j = 0; j < sl; j++)\n"
    "      arg6[arg2[i] + j] = (char)(i % 2 ? pa_text_upper_ascii(s[j]) : pa_text_lower_ascii(s[j]));\n"
    "  }\n"
    "#plcuda_end\n";

/* One checked operation of the "math" library, chosen by arg1: add, sub, mul, div (arg1 % 4) of int, long, float,
 * double (arg1 / 4), on (arg2, arg3) for the integers and (arg4, arg5) for the floating point types. */
static const char mathop_src[] =
    "#plcuda_include \"math\"\n"
    "#plcuda_begin\n"
    "  if (get_global_id() == 0) {\n"
    "    int a = (int)arg2, b = (int)arg3; float fa = (float)arg4, fb = (float)arg5;\n"
    "    double r = 0;\n"
    "    switch (arg1) {\n"
    "    case 0: r = pa_add_int(kcxt, a, b); break;\n"
    "    case 1: r = pa_sub_int(kcxt, a, b); break;\n"
    "    case 2: r = pa_mul_int(kcxt, a, b); break;\n"
    "    case 3: r = pa_div_int(kcxt, a, b); break;\n"
    "    case 4: r = (double)pa_add_long(kcxt, arg2, arg3); break;\n"
    "    case 5: r = (double)pa_sub_long(kcxt, arg2, arg3); break;\n"
    "    case 6: r = (double)pa_mul_long(kcxt, arg2, arg3); break;\n"
    "    case 7: r = (double)pa_div_long(kcxt, arg2, arg3); break;\n"
    "    case 8: r = pa_add_float(kcxt, fa, fb); break;\n"
    "    case 9: r = pa_sub_float(kcxt, fa, fb); break;\n"
    "    case 10: r = pa_mul_float(kcxt, fa, fb); break;\n"
    "    case 11: r = pa_div_float(kcxt, fa, fb); break;\n"
    "    case 12: r = pa_add_double(kcxt, arg4, arg5); break;\n"
    "    case 13: r = pa_sub_double(kcxt, arg4, arg5); break;\n"
    "    case 14: r = pa_mul_double(kcxt, arg4, arg5); break;\n"
    "    case 15: r = pa_div_double(kcxt, arg4, arg5); break;\n"
    "    }\n"
    "    *retval = r;\n"
    "  }\n"
    "#plcuda_end\n";

/* pa_ts_make of the seven fields. */
static const char tsmake_src[] =
    "#plcuda_include \"time\"\n"
    "#plcuda_begin\n"
    "  *retval = pa_ts_make(kcxt, arg1, arg2, arg3, arg4, arg5, arg6, arg7);\n"
    "#plcuda_end\n";

/* As dynpara_src with pa_dp_launch_ex: blocks of 96 threads, out[i] = 5 i + 1. */
static const char dynpara_ex_src[] =
    "#plcuda_include \"dynpara\"\n"
    "#plcuda_decl\n"
    "__global__ void fill(int *out, long n, int a) { long i = pa_global_id(); if (i < n) out[i] = a * (int)i + 1; }\n"
    "#plcuda_begin\n"
    "  if (pa_global_id() == 0) pa_dp_launch_ex(kcxt, fill, arg1_len, 96, 0, arg1, arg1_len, 5);\n"
    "#plcuda_post\n"
    "  if (pa_global_id() == 0) { long s = 0; for (long i = 0; i < arg1_len; i++) s += arg1[i]; *retval = s; }\n"
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
#include "rtc_internal.h"
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
        {"parts", "void (long[], inout long[])", parts_src},
        {"textfn", "void (char[], int[], char[], int[], inout int[], inout char[])", textfn_src},
        {"mathop", "double (int, long, long, double, double)", mathop_src},
        {"tsmake", "long (int, int, int, int, int, int, int)", tsmake_src},
        {"dynpara_ex", "long (inout int[])", dynpara_ex_src},
    };
    for (size_t i = 0; i < sizeof fs / sizeof *fs; i++) {
        pa_kernel *k = make(fs[i].name, fs[i].sig, fs[i].src);
        PA_CK_OK(pa_kernel_compile(k, 90));   /* main skipped the suite (77) where NVRTC is missing */
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

/* PG-Strom's seven libraries are all provided now: an unknown one is refused with the list of the known. */
START_TEST(test_refusals)
{
    pa_kernel *k = NULL;
    PA_CK_ERR(pa_kernel_create("n", "int ()", "#plcuda_include \"cuda_decimal.h\"\n#plcuda_begin\n#plcuda_end\n",
                               NULL, 0, &k), PA_ERR_PARSE);
    ck_assert(strstr(pa_last_error(), "\"cuda_numeric.h\", \"cuda_money.h\""));
    ck_assert_ptr_null(k);
}
END_TEST

int main(void)
{
    if (pa_cuda__nvrtc_load() != PA_OK) {
        printf("plcuda_libs_compile: skipped: %s\n", pa_last_error());
        return 77;
    }
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

/* pa_ts_date/time/from_date, pa_date_year/month/day, pa_is_leap, pa_days_in_month, pa_ts_second,
 * pa_ts_from_unix against libc's gmtime_r and timegm. */
START_TEST(test_time_parts)
{
    pa_rng rng = {pa_test_seed("plcuda time parts")};
    int n = 5000;
    int64_t *ts = malloc(sizeof(int64_t) * (size_t)n), *out = malloc(sizeof(int64_t) * 8 * (size_t)n);
    for (int i = 0; i < n; i++)
        ts[i] = i < 4 ? (int64_t[]){0, -1, 5097600000000LL, -2208988800000001LL}[i]   /* 2000-02-29, 1930-01-01 - 1 us */
                      : pa_rng_range(&rng, -4000000000LL, 4000000000LL) * 1000000 + pa_rng_range(&rng, 0, 999999);
    pa_kernel *k = make("parts", "void (long[], inout long[])", parts_src);
    pa_arg args[] = {PA_ARG_N(ts, n), PA_ARG_N(out, 8 * n)};
    PA_CK_OK(pa_kernel_call(k, args, 2, NULL));
    for (int i = 0; i < n; i++) {
        int64_t us = ts[i], secs = us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000), usec = us - secs * 1000000;
        int64_t date = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
        time_t t = (time_t)(secs + 946684800);
        struct tm tm;
        gmtime_r(&t, &tm);
        int y = tm.tm_year + 1900, leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        struct tm first = tm, next;
        first.tm_mday = 1;
        first.tm_hour = first.tm_min = first.tm_sec = 0;
        next = first;
        next.tm_mon += 1;
        int64_t *o = out + 8 * i;
        ck_assert_msg(o[0] == date, "ts %lld: date %lld, want %lld", (long long)us, (long long)o[0], (long long)date);
        ck_assert_int_eq(o[1], us - date * 86400000000LL);
        ck_assert_int_eq(o[2], date * 86400000000LL);
        ck_assert_msg(o[3] == y * 10000L + (tm.tm_mon + 1) * 100 + tm.tm_mday, "ts %lld: %lld, libc %d-%d-%d",
                      (long long)us, (long long)o[3], y, tm.tm_mon + 1, tm.tm_mday);
        ck_assert_int_eq(o[4], leap);
        ck_assert_int_eq(o[5], (int64_t)(timegm(&next) - timegm(&first)) / 86400);
        ck_assert_int_eq(o[6], tm.tm_sec * 1000000LL + usec);
        ck_assert_int_eq(o[7], secs * 1000000);
    }
    pa_kernel_destroy(k);
    free(ts);
    free(out);
}
END_TEST

/* pa_text_eq, pa_text_starts_with, pa_text_char_length (UTF-8 characters) and the ASCII case functions. */
START_TEST(test_text_functions)
{
    pa_rng rng = {pa_test_seed("plcuda text")};
    static const char *const fixed[][2] = {
        {"hello", "hello"}, {"hello", "hell"}, {"hell", "hello"}, {"", ""}, {"abc", ""}, {"caf\xc3\xa9", "caf"},
        {"Hello World", "hello world"}, {"\xc3\xa9\xc3\xa9", "\xc3\xa9"},
    };
    const char *alpha[] = {"a", "B", "z", "\xc3\xa9", "Q", "!"};
    int n = 3000, nf = (int)(sizeof fixed / sizeof *fixed);
    char *sb = malloc((size_t)n * 40), *pb = malloc((size_t)n * 40), *cased = malloc((size_t)n * 40);
    int *so = malloc(sizeof(int) * (size_t)(n + 1)), *po = malloc(sizeof(int) * (size_t)(n + 1));
    int *res = malloc(sizeof(int) * (size_t)n), sl = 0, pl = 0;
    for (int i = 0; i < n; i++) {
        so[i] = sl;
        po[i] = pl;
        if (i < nf) {
            sl += sprintf(sb + sl, "%s", fixed[i][0]);
            pl += sprintf(pb + pl, "%s", fixed[i][1]);
            continue;
        }
        int len = (int)pa_rng_range(&rng, 0, 6);
        for (int k = 0; k < len; k++)
            sl += sprintf(sb + sl, "%s", alpha[pa_rng_range(&rng, 0, 5)]);
        /* A prefix of the string, the whole string or another one. */
        int kind = (int)pa_rng_range(&rng, 0, 2), take = kind == 2 ? 0 : (int)pa_rng_range(&rng, 0, sl - so[i]);
        if (kind == 1)
            take = sl - so[i];
        memcpy(pb + pl, sb + so[i], (size_t)take);
        pl += take;
        if (kind == 2)
            for (int k = (int)pa_rng_range(&rng, 0, 4); k > 0; k--)
                pl += sprintf(pb + pl, "%s", alpha[pa_rng_range(&rng, 0, 5)]);
    }
    so[n] = sl;
    po[n] = pl;
    memset(res, 0xA5, sizeof(int) * (size_t)n);
    memset(cased, 0, (size_t)sl + 1);
    pa_kernel *k = make("textfn", "void (char[], int[], char[], int[], inout int[], inout char[])", textfn_src);
    pa_arg args[] = {PA_ARG_N(sb, sl), PA_ARG_N(so, n + 1), PA_ARG_N(pb, pl), PA_ARG_N(po, n + 1), PA_ARG_N(res, n),
                     PA_ARG_N(cased, sl > 0 ? sl : 1)};
    PA_CK_OK(pa_kernel_call(k, args, 6, NULL));
    int fixed_eq[] = {1, 0, 0, 1, 0, 0, 0, 0}, fixed_starts[] = {1, 1, 0, 1, 1, 1, 0, 1}, fixed_len[] = {5, 5, 4, 0, 3, 4, 11, 2};
    for (int i = 0; i < n; i++) {
        const char *s = sb + so[i], *p = pb + po[i];
        int sn = so[i + 1] - so[i], pn = po[i + 1] - po[i];
        int eq = sn == pn && memcmp(s, p, (size_t)sn) == 0, starts = pn <= sn && memcmp(s, p, (size_t)pn) == 0;
        int chars = 0;
        for (int j = 0; j < sn; j++)
            chars += ((unsigned char)s[j] & 0xC0) != 0x80;
        ck_assert_msg((res[i] & 1) == eq && ((res[i] >> 1) & 1) == starts && (res[i] >> 2) == chars,
                      "'%.*s' vs '%.*s': eq %d starts %d chars %d, want %d %d %d", sn, s, pn, p, res[i] & 1,
                      (res[i] >> 1) & 1, res[i] >> 2, eq, starts, chars);
        if (i < nf)
            ck_assert_msg(eq == fixed_eq[i] && starts == fixed_starts[i] && chars == fixed_len[i], "fixed case %d", i);
        for (int j = 0; j < sn; j++) {
            unsigned char c = (unsigned char)s[j], want = c;
            if (i % 2 == 0 && c >= 'A' && c <= 'Z')
                want = (unsigned char)(c + 32);
            if (i % 2 == 1 && c >= 'a' && c <= 'z')
                want = (unsigned char)(c - 32);
            ck_assert_msg((unsigned char)cased[so[i] + j] == want, "string %d byte %d: %02x, want %02x", i, j,
                          (unsigned char)cased[so[i] + j], want);
        }
    }
    pa_kernel_destroy(k);
    free(sb), free(pb), free(cased), free(so), free(po), free(res);
}
END_TEST

/* Each checked operation: a result in range, then an overflow (22003) and, for div, a division by zero (22012). */
START_TEST(test_math)
{
    static const struct { int op; long long la, lb; double da, db, want; int err; } cases[] = {
        {0, 7, -3, 0, 0, 4, 0}, {1, 7, -3, 0, 0, 10, 0}, {2, 7, -3, 0, 0, -21, 0}, {3, 7, -3, 0, 0, -2, 0},
        {0, 2147483647, 1, 0, 0, 0, 22003}, {1, -2147483647LL - 1, 1, 0, 0, 0, 22003},
        {2, 65536, 65536, 0, 0, 0, 22003}, {3, 5, 0, 0, 0, 0, 22012}, {3, -2147483647LL - 1, -1, 0, 0, 0, 22003},
        {4, 5000000000LL, 3, 0, 0, 5000000003.0, 0}, {5, 5000000000LL, 3, 0, 0, 4999999997.0, 0},
        {6, 5000000000LL, 3, 0, 0, 15000000000.0, 0}, {7, 5000000000LL, 3, 0, 0, 1666666666.0, 0},
        {4, 9223372036854775807LL, 1, 0, 0, 0, 22003}, {5, -9223372036854775807LL - 1, 1, 0, 0, 0, 22003},
        {6, 4294967296LL, 4294967296LL, 0, 0, 0, 22003}, {7, 1, 0, 0, 0, 0, 22012},
        {7, -9223372036854775807LL - 1, -1, 0, 0, 0, 22003},
        {8, 0, 0, 1.5, -0.25, 1.25, 0}, {9, 0, 0, 1.5, -0.25, 1.75, 0}, {10, 0, 0, 1.5, -0.25, -0.375, 0},
        {11, 0, 0, 1.5, -0.25, -6, 0}, {8, 0, 0, 3e38, 3e38, 0, 22003}, {9, 0, 0, -3e38, 3e38, 0, 22003},
        {10, 0, 0, 1e30, 1e30, 0, 22003}, {11, 0, 0, 1, 0, 0, 22012},
        {12, 0, 0, 2.5, 0.5, 3, 0}, {13, 0, 0, 2.5, 0.5, 2, 0}, {14, 0, 0, 2.5, 0.5, 1.25, 0}, {15, 0, 0, 2.5, 0.5, 5, 0},
        {12, 0, 0, 1.7e308, 1.7e308, 0, 22003}, {13, 0, 0, -1.7e308, 1.7e308, 0, 22003},
        {14, 0, 0, 1e300, 1e300, 0, 22003}, {15, 0, 0, 1, 0, 0, 22012},
    };
    pa_kernel *k = make("mathop", "double (int, long, long, double, double)", mathop_src);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int op = cases[i].op;
        int64_t la = cases[i].la, lb = cases[i].lb;
        double da = cases[i].da, db = cases[i].db, r = -12345;
        pa_arg args[] = {PA_ARG(&op), PA_ARG(&la), PA_ARG(&lb), PA_ARG(&da), PA_ARG(&db)};
        int st = pa_kernel_call(k, args, 5, &r);
        if (cases[i].err == 0) {
            ck_assert_msg(st == PA_OK && r == cases[i].want, "case %zu (op %d): %s %g, want %g (%s)", i, op,
                          pa_status_name(st), r, cases[i].want, pa_last_error());
        } else {
            char code[16];
            snprintf(code, sizeof code, "%d", cases[i].err);
            ck_assert_msg(st == PA_ERR_KERNEL && strstr(pa_last_error(), code), "case %zu (op %d): %s, want error %d "
                          "(%s)", i, op, pa_status_name(st), cases[i].err, pa_last_error());
        }
    }
    pa_kernel_destroy(k);
}
END_TEST

/* pa_ts_make: a valid timestamp against timegm, a day that does not exist (22008). */
START_TEST(test_ts_make)
{
    pa_kernel *k = make("tsmake", "long (int, int, int, int, int, int, int)", tsmake_src);
    int f[7] = {2024, 2, 29, 13, 45, 30, 123456};
    int64_t r = 0;
    pa_arg args[] = {PA_ARG(&f[0]), PA_ARG(&f[1]), PA_ARG(&f[2]), PA_ARG(&f[3]), PA_ARG(&f[4]), PA_ARG(&f[5]),
                     PA_ARG(&f[6])};
    PA_CK_OK(pa_kernel_call(k, args, 7, &r));
    struct tm tm = {.tm_year = 124, .tm_mon = 1, .tm_mday = 29, .tm_hour = 13, .tm_min = 45, .tm_sec = 30};
    ck_assert_int_eq(r, ((int64_t)timegm(&tm) - 946684800) * 1000000 + 123456);
    f[0] = 2023;
    PA_CK_ERR(pa_kernel_call(k, args, 7, &r), PA_ERR_KERNEL);
    ck_assert_msg(strstr(pa_last_error(), "22008"), "%s", pa_last_error());
    f[0] = 2024;
    f[6] = 1000000;
    PA_CK_ERR(pa_kernel_call(k, args, 7, &r), PA_ERR_KERNEL);
    pa_kernel_destroy(k);
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
    /* pa_dp_launch_ex: blocks of 96, 5 i + 1. */
    memset(a, 0xA5, sizeof(int) * (size_t)n);
    k = make("dynpara_ex", "long (inout int[])", dynpara_ex_src);
    PA_CK_OK(pa_kernel_call(k, args, 1, &sum));
    want = 0;
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(a[i], 5 * i + 1);
        want += 5 * i + 1;
    }
    ck_assert_int_eq(sum, want);
    pa_kernel_destroy(k);
    free(a);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("plcuda_libs_gpu"))
        return 77;
    Suite *su = suite_create("plcuda_libs_gpu");
    TCase *tc = tcase_create("gpu");
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_dates);
    tcase_add_test(tc, test_timestamps);
    tcase_add_test(tc, test_like);
    tcase_add_test(tc, test_dynpara);
    tcase_add_test(tc, test_time_parts);
    tcase_add_test(tc, test_text_functions);
    tcase_add_test(tc, test_math);
    tcase_add_test(tc, test_ts_make);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}

#endif
