/*
 * parray — PL/CUDA device library "time" (#plcuda_include "time", PG-Strom's "cuda_timelib.h"): dates and
 * timestamps as PostgreSQL stores them, so that columns exported from a database keep their values.
 *
 *     a date        int,  days since 2000-01-01 (PostgreSQL's DateADT); the proleptic Gregorian calendar
 *     a timestamp   long, microseconds since 2000-01-01 00:00:00 (PostgreSQL's Timestamp, no time zone)
 *
 *     pa_date_make(kcxt, y, m, d)          the date of a calendar day; raises PA_KERR_DATETIME for a day
 *                                          that does not exist (2023-02-29, month 13) and returns 0
 *     pa_date_ymd(date, &y, &m, &d)        the calendar day of a date
 *     pa_date_year/month/day(date)         one field of it
 *     pa_date_dow(date)                    day of the week, 0 = Sunday .. 6 (PostgreSQL's extract(dow))
 *     pa_date_isodow(date)                 1 = Monday .. 7
 *     pa_date_doy(date)                    day of the year, 1 .. 366
 *     pa_is_leap(y), pa_days_in_month(y, m)
 *     pa_date_add_months(date, n)          n months later, the day clamped to the month's last (Jan 31 + 1
 *                                          month = Feb 28/29), as PostgreSQL's date + interval 'n months'
 *     pa_ts_make(kcxt, y, m, d, hh, mi, sec, usec)   a timestamp; raises PA_KERR_DATETIME for a bad field
 *     pa_ts_date(ts), pa_ts_time(ts)       its date, and microseconds since midnight (always >= 0)
 *     pa_ts_from_date(date)                midnight of a date
 *     pa_ts_trunc(ts, unit)                date_trunc: PA_TRUNC_SECOND, _MINUTE, _HOUR, _DAY, _WEEK (Monday),
 *                                          _MONTH, _QUARTER, _YEAR
 *     pa_ts_hour/minute(ts), pa_ts_second(ts) (a double with the microseconds)
 *     pa_ts_from_unix(seconds), pa_ts_to_unix(ts)    from and to seconds since 1970-01-01 (floor)
 *
 * Device code for NVRTC, after the PL/CUDA prelude; no standard library.  The day arithmetic is Howard
 * Hinnant's days-from-civil algorithm in eras of 400 years, exact over the whole int range of days.
 */
#ifndef PARRAY_PLCUDA_TIME_H
#define PARRAY_PLCUDA_TIME_H

#define PA_KERR_DATETIME 22008 /* SQLSTATE datetime_field_overflow */

#define PA_USECS_PER_DAY 86400000000LL
#define PA_USECS_PER_SEC 1000000LL
#define PA__UNIX_EPOCH_DAYS (-10957) /* 1970-01-01 as a date: date = (days since 1970-01-01) + this */

enum { PA_TRUNC_SECOND, PA_TRUNC_MINUTE, PA_TRUNC_HOUR, PA_TRUNC_DAY, PA_TRUNC_WEEK, PA_TRUNC_MONTH,
       PA_TRUNC_QUARTER, PA_TRUNC_YEAR };

static __device__ __forceinline__ long pa__floordiv(long a, long b)
{
    long q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static __device__ __forceinline__ int pa_is_leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static __device__ __forceinline__ int pa_days_in_month(int y, int m)
{
    const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 ? 28 + pa_is_leap(y) : days[(m - 1) % 12];
}

/* Days since 1970-01-01 of a valid civil date. */
static __device__ __forceinline__ long pa__days_from_civil(long y, int m, int d)
{
    y -= m <= 2;
    long era = pa__floordiv(y, 400);
    long yoe = y - era * 400;                                          /* [0, 399] */
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;         /* [0, 365] */
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;                  /* [0, 146096] */
    return era * 146097 + doe - 719468;
}

static __device__ __forceinline__ void pa__civil_from_days(long z, int *y, int *m, int *d)
{
    z += 719468;
    long era = pa__floordiv(z, 146097);
    long doe = z - era * 146097;
    long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

/* A date from days since 1970-01-01, and back: the only two places that cross between the epochs. */
static __device__ __forceinline__ int pa__date_of_unix_days(long z)
{
    return (int)(z + PA__UNIX_EPOCH_DAYS);
}

static __device__ __forceinline__ long pa__unix_days_of_date(int date)
{
    return (long)date - PA__UNIX_EPOCH_DAYS;
}

/* The date of a valid civil day. */
static __device__ __forceinline__ int pa__date_of_civil(long y, int m, int d)
{
    return pa__date_of_unix_days(pa__days_from_civil(y, m, d));
}

static __device__ __forceinline__ int pa__date_make(pa_kcxt *kcxt, int y, int m, int d, int line)
{
    if (m < 1 || m > 12 || d < 1 || d > pa_days_in_month(y, m)) {
        pa__raise(kcxt, PA_KSTATUS_ERROR, PA_KERR_DATETIME, line);
        return 0;
    }
    return pa__date_of_civil(y, m, d);
}
#define pa_date_make(kcxt, y, m, d) pa__date_make((kcxt), (y), (m), (d), __LINE__)

static __device__ __forceinline__ void pa_date_ymd(int date, int *y, int *m, int *d)
{
    pa__civil_from_days(pa__unix_days_of_date(date), y, m, d);
}

static __device__ __forceinline__ int pa_date_year(int date)
{
    int y, m, d;
    pa_date_ymd(date, &y, &m, &d);
    return y;
}

static __device__ __forceinline__ int pa_date_month(int date)
{
    int y, m, d;
    pa_date_ymd(date, &y, &m, &d);
    return m;
}

static __device__ __forceinline__ int pa_date_day(int date)
{
    int y, m, d;
    pa_date_ymd(date, &y, &m, &d);
    return d;
}

/* 2000-01-01 was a Saturday (6). */
static __device__ __forceinline__ int pa_date_dow(int date)
{
    return (int)(((long)date % 7 + 7 + 6) % 7);
}

static __device__ __forceinline__ int pa_date_isodow(int date)
{
    int w = pa_date_dow(date);
    return w == 0 ? 7 : w;
}

static __device__ __forceinline__ int pa_date_doy(int date)
{
    int y, m, d;
    pa_date_ymd(date, &y, &m, &d);
    return (int)(pa__days_from_civil(y, m, d) - pa__days_from_civil(y, 1, 1)) + 1;
}

static __device__ __forceinline__ int pa_date_add_months(int date, int n)
{
    int y, m, d;
    pa_date_ymd(date, &y, &m, &d);
    long months = (long)y * 12 + (m - 1) + n;
    int ny = (int)pa__floordiv(months, 12), nm = (int)(months - (long)ny * 12) + 1;
    int last = pa_days_in_month(ny, nm);
    return pa__date_of_civil(ny, nm, d < last ? d : last);
}

static __device__ __forceinline__ long pa__ts_make(pa_kcxt *kcxt, int y, int mo, int d, int hh, int mi, int sec,
                                                   int usec, int line)
{
    if (mo < 1 || mo > 12 || d < 1 || d > pa_days_in_month(y, mo) || hh < 0 || hh > 23 || mi < 0 || mi > 59 ||
        sec < 0 || sec > 59 || usec < 0 || usec > 999999) {
        pa__raise(kcxt, PA_KSTATUS_ERROR, PA_KERR_DATETIME, line);
        return 0;
    }
    long days = pa__date_of_civil(y, mo, d);
    return days * PA_USECS_PER_DAY + ((long)hh * 3600 + mi * 60 + sec) * PA_USECS_PER_SEC + usec;
}
#define pa_ts_make(kcxt, y, mo, d, hh, mi, sec, usec) \
    pa__ts_make((kcxt), (y), (mo), (d), (hh), (mi), (sec), (usec), __LINE__)

static __device__ __forceinline__ int pa_ts_date(long ts)
{
    return (int)pa__floordiv(ts, PA_USECS_PER_DAY);
}

static __device__ __forceinline__ long pa_ts_time(long ts)
{
    return ts - (long)pa_ts_date(ts) * PA_USECS_PER_DAY;
}

static __device__ __forceinline__ long pa_ts_from_date(int date)
{
    return (long)date * PA_USECS_PER_DAY;
}

static __device__ __forceinline__ int pa_ts_hour(long ts)
{
    return (int)(pa_ts_time(ts) / (3600 * PA_USECS_PER_SEC));
}

static __device__ __forceinline__ int pa_ts_minute(long ts)
{
    return (int)(pa_ts_time(ts) / (60 * PA_USECS_PER_SEC) % 60);
}

static __device__ __forceinline__ double pa_ts_second(long ts)
{
    return (double)(pa_ts_time(ts) % (60 * PA_USECS_PER_SEC)) / (double)PA_USECS_PER_SEC;
}

static __device__ __forceinline__ long pa_ts_trunc(long ts, int unit)
{
    int date = pa_ts_date(ts), y, m, d;
    long t = pa_ts_time(ts);
    switch (unit) {
    case PA_TRUNC_SECOND: return ts - t % PA_USECS_PER_SEC;
    case PA_TRUNC_MINUTE: return ts - t % (60 * PA_USECS_PER_SEC);
    case PA_TRUNC_HOUR: return ts - t % (3600 * PA_USECS_PER_SEC);
    case PA_TRUNC_DAY: return ts - t;
    case PA_TRUNC_WEEK: return pa_ts_from_date(date - (pa_date_isodow(date) - 1));
    default: break;
    }
    pa_date_ymd(date, &y, &m, &d);
    if (unit == PA_TRUNC_QUARTER)
        m = (m - 1) / 3 * 3 + 1;
    else if (unit == PA_TRUNC_YEAR)
        m = 1;
    return pa_ts_from_date(pa__date_of_civil(y, m, 1));
}

static __device__ __forceinline__ long pa_ts_from_unix(long seconds)
{
    return (seconds + (long)PA__UNIX_EPOCH_DAYS * 86400) * PA_USECS_PER_SEC;
}

static __device__ __forceinline__ long pa_ts_to_unix(long ts)
{
    return pa__floordiv(ts, PA_USECS_PER_SEC) - (long)PA__UNIX_EPOCH_DAYS * 86400;
}

#endif
