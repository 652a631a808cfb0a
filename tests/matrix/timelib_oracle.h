/* parray tests — libc's answers for the "time" device library (include/parray/plcuda/time.h), which two suites
 * compare the library with: plcuda_libs_gpu (the library compiled by NVRTC, run on the GPU) and plcuda_time_host
 * (the same header compiled as host C, over a far wider range, on every machine).
 *
 * The oracle is independent of the library: gmtime_r and timegm in UTC, on unix seconds.  A date is days since
 * 2000-01-01, a timestamp microseconds since 2000-01-01 00:00:00. */
#ifndef PARRAY_TIMELIB_ORACLE_H
#define PARRAY_TIMELIB_ORACLE_H

#include <stdint.h>
#include <time.h>

#include "testutil.h"

#define ORACLE_Y2K 946684800LL   /* 2000-01-01 00:00:00 in unix seconds */
#define ORACLE_NDATE 8
#define ORACLE_NSTAMP 9

static inline int oracle_leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* What the date functions must give for date, in the order the suites' kernels write them: year, month, day,
 * dow (0 Sunday), doy (1..366), the date made back from (y, m, d), isodow (1 Monday .. 7), date + 1 month
 * (the day clamped to the month's last). */
static inline void oracle_date(int date, int o[ORACLE_NDATE])
{
    time_t t = (time_t)date * 86400 + ORACLE_Y2K;
    struct tm tm, nx, after;
    gmtime_r(&t, &tm);
    o[0] = tm.tm_year + 1900;
    o[1] = tm.tm_mon + 1;
    o[2] = tm.tm_mday;
    o[3] = tm.tm_wday;
    o[4] = tm.tm_yday + 1;
    o[5] = date;
    o[6] = tm.tm_wday == 0 ? 7 : tm.tm_wday;
    /* the first of next month, then the day clamped to that month's length */
    nx = tm;
    nx.tm_mon += 1;
    nx.tm_mday = 1;
    nx.tm_hour = nx.tm_min = nx.tm_sec = 0;
    time_t first = timegm(&nx);
    gmtime_r(&first, &after);
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int last = mdays[after.tm_mon] + (after.tm_mon == 1 && oracle_leap(after.tm_year + 1900));
    int day = tm.tm_mday < last ? tm.tm_mday : last;
    o[7] = (int)(((int64_t)first - ORACLE_Y2K) / 86400) + day - 1;
}

/* Unix seconds of a broken-down UTC time, as microseconds since 2000-01-01. */
static inline int64_t oracle_us(struct tm *tm)
{
    return ((int64_t)timegm(tm) - ORACLE_Y2K) * 1000000;
}

/* What the timestamp functions must give for ts: trunc to hour, day, week (Monday), month, quarter, year;
 * hour, minute; unix seconds (floor). */
static inline void oracle_stamp(int64_t ts, int64_t o[ORACLE_NSTAMP])
{
    int64_t secs = ts >= 0 ? ts / 1000000 : -((-ts + 999999) / 1000000);
    time_t t = (time_t)(secs + ORACLE_Y2K);
    struct tm tm, tr, wk;
    gmtime_r(&t, &tm);
    o[8] = (int64_t)t;
    o[6] = tm.tm_hour;
    o[7] = tm.tm_min;
    tr = tm;
    tr.tm_min = tr.tm_sec = 0;
    o[0] = oracle_us(&tr);
    tr.tm_hour = 0;
    o[1] = oracle_us(&tr);
    wk = tr;
    wk.tm_mday -= (tm.tm_wday + 6) % 7;   /* back to Monday */
    o[2] = oracle_us(&wk);
    tr.tm_mday = 1;
    o[3] = oracle_us(&tr);
    tr.tm_mon = tm.tm_mon / 3 * 3;
    o[4] = oracle_us(&tr);
    tr.tm_mon = 0;
    o[5] = oracle_us(&tr);
}

/* Checks n dates' fields (got: ORACLE_NDATE ints per date) against the oracle; where names the library's run. */
static inline void oracle_check_dates(const char *where, const int *dates, const int *got, int64_t n)
{
    static const char *const field[ORACLE_NDATE] = {"year", "month", "day", "dow", "doy", "date_make(ymd)",
                                                    "isodow", "add_months(1)"};
    for (int64_t i = 0; i < n; i++) {
        int want[ORACLE_NDATE];
        const int *o = got + ORACLE_NDATE * i;
        oracle_date(dates[i], want);
        for (int f = 0; f < ORACLE_NDATE; f++)
            if (o[f] != want[f])   /* not ck_assert: Check writes a record per assertion, millions here */
                ck_abort_msg("%s: date %d (libc %d-%d-%d): %s is %d, libc says %d", where, dates[i],
                          want[0], want[1], want[2], field[f], o[f], want[f]);
    }
}

/* Checks n timestamps' fields (got: ORACLE_NSTAMP per timestamp) against the oracle. */
static inline void oracle_check_stamps(const char *where, const int64_t *ts, const int64_t *got, int64_t n)
{
    static const char *const field[ORACLE_NSTAMP] = {"trunc hour", "trunc day", "trunc week", "trunc month",
                                                     "trunc quarter", "trunc year", "hour", "minute", "to_unix"};
    for (int64_t i = 0; i < n; i++) {
        int64_t want[ORACLE_NSTAMP];
        const int64_t *o = got + ORACLE_NSTAMP * i;
        oracle_stamp(ts[i], want);
        for (int f = 0; f < ORACLE_NSTAMP; f++)
            if (o[f] != want[f])
                ck_abort_msg("%s: timestamp %lld us: %s is %lld, libc says %lld", where,
                          (long long)ts[i], field[f], (long long)o[f], (long long)want[f]);
    }
}

#endif
