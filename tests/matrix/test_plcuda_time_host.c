/* parray tests — the PL/CUDA date and time library (include/parray/plcuda/time.h, PG-Strom's cuda_timelib.h)
 * compiled as host C and compared with libc (timelib_oracle.h), so that its arithmetic is checked on every
 * machine, CI included, not only where a GPU runs plcuda_libs_gpu.
 *
 * The header is device code with no standard library; here __device__ and __forceinline__ are defined away and
 * pa_kcxt / pa__raise are stand-ins that record the error, so that the very text NVRTC compiles runs on the CPU.
 * Covered: every day from 1600 to 2400 (leap centuries, 1970, 2000, the change of sign), random days over most of
 * the int range, timestamps on both sides of both epochs to the microsecond, the constructors and their errors. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "timelib_oracle.h"

_Static_assert(sizeof(long) == 8, "the device library's long is 64 bits (LP64), as under NVRTC on Linux");

#define __device__
#define __forceinline__ inline
#define PA_KSTATUS_ERROR 1
typedef struct pa_kcxt { int status, code, line; } pa_kcxt;
static void pa__raise(pa_kcxt *k, int status, int code, int line)
{
    if (k->status == 0) {
        k->status = status;
        k->code = code;
        k->line = line;
    }
}
#include "parray/plcuda/time.h"

/* The fields the GPU suite's dates kernel writes, by the same calls. */
static void lib_date(int date, int o[ORACLE_NDATE])
{
    pa_kcxt k = {0, 0, 0};
    int y, m, d;
    pa_date_ymd(date, &y, &m, &d);
    o[0] = y;
    o[1] = m;
    o[2] = d;
    o[3] = pa_date_dow(date);
    o[4] = pa_date_doy(date);
    o[5] = pa_date_make(&k, y, m, d);
    o[6] = pa_date_isodow(date);
    o[7] = pa_date_add_months(date, 1);
    /* plain ifs in the loops: Check writes a record per passing assertion, millions here */
    if (k.status != 0)
        ck_abort_msg("date %d: pa_date_make(%d, %d, %d) raised %d", date, y, m, d, k.code);
    if (pa_date_year(date) != y || pa_date_month(date) != m || pa_date_day(date) != d)
        ck_abort_msg("date %d: pa_date_year/month/day disagree with pa_date_ymd", date);
}

/* The fields the GPU suite's timestamps kernel writes. */
static void lib_stamp(int64_t ts, int64_t o[ORACLE_NSTAMP])
{
    static const int unit[6] = {PA_TRUNC_HOUR, PA_TRUNC_DAY, PA_TRUNC_WEEK, PA_TRUNC_MONTH, PA_TRUNC_QUARTER,
                                PA_TRUNC_YEAR};
    for (int u = 0; u < 6; u++)
        o[u] = pa_ts_trunc(ts, unit[u]);
    o[6] = pa_ts_hour(ts);
    o[7] = pa_ts_minute(ts);
    o[8] = pa_ts_to_unix(ts);
}

static void check_dates(const int *dates, int64_t n)
{
    int *got = malloc(sizeof(int) * ORACLE_NDATE * (size_t)n);
    ck_assert_ptr_nonnull(got);
    for (int64_t i = 0; i < n; i++)
        lib_date(dates[i], got + ORACLE_NDATE * i);
    oracle_check_dates("host", dates, got, n);
    free(got);
}

/* Every day from 1600-01-01 to 2400-12-31: two 400-year eras, the leap centuries 1600, 2000, 2400 and the
 * common ones 1700, 1800, 1900, 2100, 2200, 2300, before and after both epochs. */
START_TEST(test_every_day_1600_2400)
{
    int lo = -146097, hi = 146462;   /* 1600-01-01 and 2400-12-31 as dates */
    int64_t n = (int64_t)hi - lo + 1;
    int *dates = malloc(sizeof(int) * (size_t)n);
    ck_assert_ptr_nonnull(dates);
    for (int64_t i = 0; i < n; i++)
        dates[i] = lo + (int)i;
    check_dates(dates, n);
    int y, m, d;
    pa_date_ymd(lo, &y, &m, &d);
    ck_assert(y == 1600 && m == 1 && d == 1);
    pa_date_ymd(hi, &y, &m, &d);
    ck_assert(y == 2400 && m == 12 && d == 31);
    free(dates);
}
END_TEST

/* The days the GPU suite failed on, and the epochs' neighbours, by value. */
START_TEST(test_known_days)
{
    static const struct { int date, y, m, d, dow; } known[] = {
        {0, 2000, 1, 1, 6},        {-1, 1999, 12, 31, 5},     {59, 2000, 2, 29, 2},     {60, 2000, 3, 1, 3},
        {-10957, 1970, 1, 1, 4},   {-10958, 1969, 12, 31, 3}, {-36524, 1900, 1, 1, 1},  {-36465, 1900, 3, 1, 4},
        {-730119, 1, 1, 1, 1},     {8825, 2024, 2, 29, 4},    {-146097, 1600, 1, 1, 6}, {146097, 2400, 1, 1, 6},
    };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        int y, m, d;
        pa_date_ymd(known[i].date, &y, &m, &d);
        ck_assert_msg(y == known[i].y && m == known[i].m && d == known[i].d && pa_date_dow(known[i].date) ==
                      known[i].dow, "date %d: %d-%d-%d dow %d, want %d-%d-%d dow %d", known[i].date, y, m, d,
                      pa_date_dow(known[i].date), known[i].y, known[i].m, known[i].d, known[i].dow);
    }
}
END_TEST

/* Random days over most of the int range (years about -5.9 million to +5.9 million) and the ends of it. */
START_TEST(test_random_days)
{
    pa_rng rng = {pa_test_seed("plcuda time host days")};
    int n = 200000;
    int *dates = malloc(sizeof(int) * (size_t)n);
    ck_assert_ptr_nonnull(dates);
    for (int i = 0; i < n; i++)
        dates[i] = i % 2 ? (int)pa_rng_range(&rng, -3000000, 3000000)
                         : (int)pa_rng_range(&rng, INT_MIN + 800000, INT_MAX - 800000);
    check_dates(dates, n);
    free(dates);
}
END_TEST

/* Timestamps: the microseconds around midnight on both sides of 1970 and 2000, and random ones over about
 * +-3000 years (negative ones included), each to the microsecond. */
START_TEST(test_stamps)
{
    pa_rng rng = {pa_test_seed("plcuda time host stamps")};
    const int64_t day = PA_USECS_PER_DAY, unix0 = -946684800LL * 1000000;
    const int64_t fixed[] = {0, -1, 1, day - 1, -day, -day - 1, -day + 1, unix0, unix0 - 1, unix0 + 1,
                             -3155673600LL * 1000000, -3155673600LL * 1000000 - 1, 7258118400LL * 1000000 - 1,
                             -44755200000000LL, -44841600000000LL};
    int nf = (int)(sizeof fixed / sizeof *fixed), n = 100000;
    int64_t *ts = malloc(sizeof(int64_t) * (size_t)n), *got = malloc(sizeof(int64_t) * ORACLE_NSTAMP * (size_t)n);
    ck_assert(ts && got);
    for (int i = 0; i < n; i++)
        ts[i] = i < nf ? fixed[i]
                       : pa_rng_range(&rng, -95000000000LL, 95000000000LL) * 1000000 + pa_rng_range(&rng, 0, 999999);
    for (int i = 0; i < n; i++)
        lib_stamp(ts[i], got + ORACLE_NSTAMP * i);
    oracle_check_stamps("host", ts, got, n);
    for (int i = 0; i < n; i++) {   /* the time of day is never negative, and date + time is the timestamp */
        int64_t t = pa_ts_time(ts[i]), us = ((ts[i] % 60000000) + 60000000) % 60000000;
        double sec = pa_ts_second(ts[i]);
        if (t < 0 || t >= day || pa_ts_from_date(pa_ts_date(ts[i])) + t != ts[i] ||
            pa_ts_from_unix(pa_ts_to_unix(ts[i])) != ts[i] - (ts[i] % 1000000 + 1000000) % 1000000 || sec < 0 ||
            sec >= 60 || (int64_t)(sec * 1e6 + 0.5) != us)
            ck_abort_msg("timestamp %lld: time %lld, date %d, second %.6f", (long long)ts[i], (long long)t,
                         pa_ts_date(ts[i]), sec);
    }
    free(ts);
    free(got);
}
END_TEST

/* The constructors: exact values, and PA_KERR_DATETIME with the caller's line for days that do not exist. */
START_TEST(test_make)
{
    pa_kcxt k = {0, 0, 0};
    ck_assert_int_eq(pa_date_make(&k, 2000, 1, 1), 0);
    ck_assert_int_eq(pa_date_make(&k, 1970, 1, 1), -10957);
    ck_assert_int_eq(pa_date_make(&k, 2024, 2, 29), 8825);
    ck_assert_int_eq(pa_date_make(&k, 1600, 2, 29), -146097 + 59);
    ck_assert_int_eq(pa_ts_make(&k, 1969, 12, 31, 23, 59, 59, 999999), -946684800LL * 1000000 - 1);
    ck_assert_int_eq(pa_ts_make(&k, 1999, 12, 31, 0, 0, 0, 0), -PA_USECS_PER_DAY);
    ck_assert_int_eq(pa_ts_make(&k, 2000, 3, 1, 12, 30, 15, 250000), 60 * PA_USECS_PER_DAY + 45015250000LL);
    ck_assert_int_eq(k.status, 0);
    ck_assert(pa_is_leap(2000) && pa_is_leap(2024) && pa_is_leap(1600) && !pa_is_leap(1900) && !pa_is_leap(2023));
    ck_assert_int_eq(pa_days_in_month(1900, 2), 28);
    ck_assert_int_eq(pa_days_in_month(2000, 2), 29);
    ck_assert_int_eq(pa_days_in_month(2001, 12), 31);
    ck_assert_int_eq(pa_date_doy(pa_date_make(&k, 2000, 12, 31)), 366);
    ck_assert_int_eq(pa_date_add_months(pa_date_make(&k, 1900, 1, 31), 1), pa_date_make(&k, 1900, 2, 28));
    ck_assert_int_eq(pa_date_add_months(pa_date_make(&k, 1999, 3, 31), -13), pa_date_make(&k, 1998, 2, 28));
    ck_assert_int_eq(k.status, 0);

    static const int bad[][3] = {{2023, 2, 29}, {1900, 2, 29}, {2000, 13, 1}, {2000, 0, 1}, {2000, 4, 31},
                                 {1999, 1, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pa_kcxt e = {0, 0, 0};
        int line = __LINE__ + 1;
        int r = pa_date_make(&e, bad[i][0], bad[i][1], bad[i][2]);
        ck_assert_msg(e.status == PA_KSTATUS_ERROR && e.code == PA_KERR_DATETIME && e.line == line && r == 0,
                      "%d-%d-%d: status %d code %d line %d", bad[i][0], bad[i][1], bad[i][2], e.status, e.code, e.line);
    }
    static const int badt[][4] = {{24, 0, 0, 0}, {-1, 0, 0, 0}, {0, 60, 0, 0}, {0, 0, 60, 0}, {0, 0, 0, 1000000}};
    for (size_t i = 0; i < sizeof badt / sizeof *badt; i++) {
        pa_kcxt e = {0, 0, 0};
        ck_assert_int_eq(pa_ts_make(&e, 2000, 1, 1, badt[i][0], badt[i][1], badt[i][2], badt[i][3]), 0);
        ck_assert_int_eq(e.code, PA_KERR_DATETIME);
    }
}
END_TEST

int main(void)
{
    Suite *su = suite_create("plcuda_time_host");
    TCase *tc = tcase_create("host");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_every_day_1600_2400);
    tcase_add_test(tc, test_known_days);
    tcase_add_test(tc, test_random_days);
    tcase_add_test(tc, test_stamps);
    tcase_add_test(tc, test_make);
    suite_add_tcase(su, tc);
    return pa_test_run(su);
}
