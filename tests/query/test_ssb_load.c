/*
 * Suite query_ssb_load: the .tbl loader parses in parallel (files cut at line boundaries, one chunk a thread)
 * and gives what its one-thread form gives: every column and dictionary equal, and on a bad row the same error
 * code and message, naming the file and the line, wherever the row lies among the chunks (and the first bad
 * row in the file where several are).  The parallel writer's files are byte for byte those of a plain
 * fprintf writer (here) at every thread count, negative integers included.  Also the progress reports of load,
 * export and generate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parray/ssb.h"
#include "testutil.h"

int pa__ssb_load_tbl_threads(const char *dir, double sf, int nthreads, pa_ssb_db **out);   /* internal */
int pa__ssb_write_tbl_threads(const pa_ssb_db *db, const char *dir, int nthreads);            /* internal */

static const char *const cols[] = {
    "lo_orderkey", "lo_linenumber", "lo_custkey", "lo_partkey", "lo_suppkey", "lo_orderdate", "lo_orderpriority",
    "lo_shippriority", "lo_quantity", "lo_extendedprice", "lo_ordtotalprice", "lo_discount", "lo_revenue",
    "lo_supplycost", "lo_tax", "lo_commitdate", "lo_shipmode", "c_custkey", "c_city", "c_nation", "c_region",
    "c_mktsegment", "s_suppkey", "s_city", "s_nation", "s_region", "p_partkey", "p_mfgr", "p_category", "p_brand1",
    "p_size", "d_datekey", "d_dayofweek", "d_month", "d_year", "d_yearmonthnum", "d_yearmonth", "d_daynuminweek",
    "d_daynuminmonth", "d_daynuminyear", "d_monthnuminyear", "d_weeknuminyear", "d_sellingseason",
    "d_lastdayinweekfl", "d_lastdayinmonthfl", "d_holidayfl", "d_weekdayfl"};
#define NCOLS ((int)(sizeof cols / sizeof cols[0]))

static char dir[256];

/* A directory of .tbl files from generated data at scale factor 0.03 (lineorder: about 20 MiB, 20 chunks). */
static void setup(void)
{
    pa_ssb_db *db = NULL;
    snprintf(dir, sizeof dir, "/tmp/pa_ssb_load_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    PA_CK_OK(pa_ssb_generate(0.03, 21, 0, &db));
    PA_CK_OK(pa_ssb_write_tbl(db, dir));
    pa_ssb_destroy(db);
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void same_db(const pa_ssb_db *a, const pa_ssb_db *b, int nthreads)
{
    for (int t = 0; t < PA_SSB_NTABLES; t++)
        ck_assert_int_eq(pa_ssb_rows(a, (pa_ssb_table)t), pa_ssb_rows(b, (pa_ssb_table)t));
    for (int i = 0; i < NCOLS; i++) {
        int64_t na, nb;
        const int32_t *x = pa_ssb_column(a, cols[i], &na), *y = pa_ssb_column(b, cols[i], &nb);
        ck_assert_int_eq(na, nb);
        ck_assert_msg(memcmp(x, y, (size_t)na * 4) == 0, "%s differs with %d threads", cols[i], nthreads);
        for (int32_t code = 0; pa_ssb_dict_string(a, cols[i], code); code++)
            ck_assert_str_eq(pa_ssb_dict_string(a, cols[i], code), pa_ssb_dict_string(b, cols[i], code));
    }
}

START_TEST(parallel_equals_serial)
{
    pa_ssb_db *serial = NULL;
    PA_CK_OK(pa__ssb_load_tbl_threads(dir, 0.03, 1, &serial));
    ck_assert_int_gt(pa_ssb_rows(serial, PA_SSB_LINEORDER), 150000);
    const int threads[] = {2, 3, 7, 0};
    for (int k = 0; k < 4; k++) {
        pa_ssb_db *par = NULL;
        PA_CK_OK(pa__ssb_load_tbl_threads(dir, 0.03, threads[k], &par));
        same_db(serial, par, threads[k]);
        pa_ssb_destroy(par);
    }
    pa_ssb_destroy(serial);
}
END_TEST

/* Replaces line `line` (from 1) of dir/lineorder.tbl by `repl` (which ends with its own newline). */
static void replace_line(long line, const char *repl)
{
    char path[300], tmp[310];
    snprintf(path, sizeof path, "%s/lineorder.tbl", dir);
    snprintf(tmp, sizeof tmp, "%s.x", path);
    FILE *in = fopen(path, "r"), *out = fopen(tmp, "w");
    ck_assert(in && out);
    char buf[4096];
    for (long n = 1; fgets(buf, sizeof buf, in); n++)
        fputs(n == line ? repl : buf, out);
    fclose(in);
    ck_assert_int_eq(fclose(out), 0);
    ck_assert_int_eq(rename(tmp, path), 0);
}

/* The load's error with 1 and with 5 threads: the same code and message, which contains want. */
static void same_error(int code, const char *want)
{
    pa_ssb_db *db = NULL;
    char one[512];
    ck_assert_int_eq(pa__ssb_load_tbl_threads(dir, 0.03, 1, &db), code);
    snprintf(one, sizeof one, "%s", pa_last_error());
    ck_assert_msg(strstr(one, want), "'%s' lacks '%s'", one, want);
    ck_assert_int_eq(pa__ssb_load_tbl_threads(dir, 0.03, 5, &db), code);
    ck_assert_str_eq(pa_last_error(), one);
    ck_assert_ptr_null(db);
}

START_TEST(bad_rows_named_by_line)
{
    /* A row late in the file (another chunk than the first): a non-integer, then a missing field. */
    replace_line(170001, "x1|2|3|4|5|19930101|1-URGENT|0|1|2|3|4|5|6|7|19930201|AIR|\n");
    same_error(PA_ERR_PARSE, "lineorder.tbl line 170001, field 1 (lo_orderkey): 'x1' is not an integer");
    replace_line(90000, "1|2|3|4|5|19930101|1-URGENT|0|1|2|3|4|5|6|7|19930201|\n");
    same_error(PA_ERR_PARSE, "lineorder.tbl line 90000: 16 fields, a lineorder row has 17");
    /* Two bad rows: the first in the file is reported (line 90000 before 170001 above); then one out of range. */
    replace_line(90000, "1|2|3|4|5|19930101|1-URGENT|0|1|2|3|4|5|6|7|19930201|AIR|\n");
    replace_line(120000, "1|2|3|4|5|19930101|1-URGENT|0|99999999999|2|3|4|5|6|7|19930201|AIR|\n");
    same_error(PA_ERR_RANGE, "line 120000, field 9 (lo_quantity): '99999999999' is outside 32-bit integers");
    /* A row without the '|' every other row ends with, and a NUL byte: found before any row is parsed. */
    replace_line(150000, "1|2|3|4|5|19930101|1-URGENT|0|1|2|3|4|5|6|7|19930201|AIR\n");
    same_error(PA_ERR_PARSE, "lineorder.tbl line 150000: no '|' after the last field, unlike line 1");
    /* fputs would stop at a NUL: the byte is written in place, inside line 140000's lo_orderpriority. */
    char path[300];
    snprintf(path, sizeof path, "%s/lineorder.tbl", dir);
    FILE *f = fopen(path, "r+");
    ck_assert_ptr_nonnull(f);
    char buf[4096];
    long at = 0;
    for (long n = 1; n < 140000 && fgets(buf, sizeof buf, f); n++)
        at = ftell(f);
    ck_assert_int_eq(fseek(f, at + 22, SEEK_SET), 0);
    ck_assert_int_eq(fputc('\0', f), 0);
    ck_assert_int_eq(fclose(f), 0);
    same_error(PA_ERR_PARSE, "lineorder.tbl line 140000: a NUL byte");
}
END_TEST

/* The .tbl fields of each table in dbgen's order (the SSB specification's columns); those pa_ssb_column does not
 * know are free text, written as "name#row". */
static const char *const tbl_fields[5][17] = {
    {"lo_orderkey", "lo_linenumber", "lo_custkey", "lo_partkey", "lo_suppkey", "lo_orderdate", "lo_orderpriority",
     "lo_shippriority", "lo_quantity", "lo_extendedprice", "lo_ordtotalprice", "lo_discount", "lo_revenue",
     "lo_supplycost", "lo_tax", "lo_commitdate", "lo_shipmode"},
    {"c_custkey", "c_name", "c_address", "c_city", "c_nation", "c_region", "c_phone", "c_mktsegment"},
    {"s_suppkey", "s_name", "s_address", "s_city", "s_nation", "s_region", "s_phone"},
    {"p_partkey", "p_name", "p_mfgr", "p_category", "p_brand1", "p_color", "p_type", "p_size", "p_container"},
    {"d_datekey", "d_date", "d_dayofweek", "d_month", "d_year", "d_yearmonthnum", "d_yearmonth", "d_daynuminweek",
     "d_daynuminmonth", "d_daynuminyear", "d_monthnuminyear", "d_weeknuminyear", "d_sellingseason",
     "d_lastdayinweekfl", "d_lastdayinmonthfl", "d_holidayfl", "d_weekdayfl"}};
static const char *const tbl_names[5] = {"lineorder", "customer", "supplier", "part", "date"};

/* The oracle: db's tables written row by row with fprintf into out/. */
static void fprintf_tbl(const pa_ssb_db *db, const char *out)
{
    char path[400];
    ck_assert_int_eq(mkdir(out, 0777), 0);
    for (int t = 0; t < 5; t++) {
        snprintf(path, sizeof path, "%s/%s.tbl", out, tbl_names[t]);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        const int32_t *col[17];
        int dict[17], nf = 0;
        int64_t n = 0;
        for (; nf < 17 && tbl_fields[t][nf]; nf++) {
            col[nf] = pa_ssb_column(db, tbl_fields[t][nf], &n);
            dict[nf] = col[nf] && pa_ssb_dict_string(db, tbl_fields[t][nf], 0) != NULL;
        }
        n = pa_ssb_rows(db, (pa_ssb_table)t);
        for (int64_t r = 0; r < n; r++) {
            for (int k = 0; k < nf; k++) {
                if (!col[k])
                    fprintf(f, "%s#%lld|", tbl_fields[t][k], (long long)r + 1);
                else if (dict[k])
                    fprintf(f, "%s|", pa_ssb_dict_string(db, tbl_fields[t][k], col[k][r]));
                else
                    fprintf(f, "%d|", col[k][r]);
            }
            fputc('\n', f);
        }
        ck_assert_int_eq(fclose(f), 0);
    }
}

/* Whether files a/NAME.tbl and b/NAME.tbl have the same bytes, for the five tables. */
static void same_files(const char *a, const char *b)
{
    for (int t = 0; t < 5; t++) {
        char pa[400], pb[400], cmd[900];
        snprintf(pa, sizeof pa, "%s/%s.tbl", a, tbl_names[t]);
        snprintf(pb, sizeof pb, "%s/%s.tbl", b, tbl_names[t]);
        snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", pa, pb);
        ck_assert_msg(system(cmd) == 0, "%s and %s differ", pa, pb);
    }
}

START_TEST(parallel_write_equals_fprintf)
{
    /* Negative integers and both 32-bit ends in a row of the first block and one of a later block. */
    replace_line(7, "-1|2147483647|-2147483648|4|5|19930101|1-URGENT|0|-10|2|3|4|5|6|7|19930201|AIR|\n");
    replace_line(100003, "5|-0|3|4|5|19930101|1-URGENT|0|1|2|3|4|5|6|7|-19930201|AIR|\n");
    pa_ssb_db *db = NULL;
    PA_CK_OK(pa__ssb_load_tbl_threads(dir, 0.03, 1, &db));
    int64_t n = 0;
    ck_assert_int_eq(pa_ssb_column(db, "lo_orderkey", &n)[6], -1);
    ck_assert_int_eq(pa_ssb_column(db, "lo_custkey", &n)[6], INT32_MIN);
    char want[300], got[300];
    snprintf(want, sizeof want, "%s/fprintf", dir);
    fprintf_tbl(db, want);
    const int threads[] = {1, 2, 3, 7, 0};
    for (int k = 0; k < 5; k++) {
        snprintf(got, sizeof got, "%s/par%d", dir, threads[k]);
        PA_CK_OK(pa__ssb_write_tbl_threads(db, got, threads[k]));
        same_files(want, got);
    }
    /* "-0" was read as 0 and is written so: the input differs from the output in that row alone. */
    ck_assert_int_eq(pa_ssb_column(db, "lo_linenumber", &n)[100002], 0);
    ck_assert_int_eq(pa__ssb_write_tbl_threads(db, got, -1), PA_ERR_RANGE);
    pa_ssb_destroy(db);
}
END_TEST

/* The parser reads a well-formed row in one pass and gives any other to the careful parser: rows at the edges of
 * the first (leading zeros, both 32-bit ends, "-0", CRLF, a '\r' inside a string) load as the careful one reads
 * them, and a row given up leaves no string behind in the dictionaries. */
START_TEST(fast_path_edges)
{
    replace_line(11, "000000000011|2|3|4|5|19930101|1-URGENT|0|1|2|3|4|5|6|7|19930201|AIR|\r\n");
    replace_line(12, "2147483647|-2147483648|-0|0004|5|19930101|1-URGENT|0|1|2|3|4|5|6|7|19930201|ZZ\rQ|\n");
    replace_line(13, "1234567890|-1|99|4|5|19930101|1-URGENT|0|1|2|3|4|5|6|7|19930201|RAIL|\n");
    pa_ssb_db *db = NULL;
    PA_CK_OK(pa__ssb_load_tbl_threads(dir, 0.03, 3, &db));
    int64_t n = 0;
    const int32_t *key = pa_ssb_column(db, "lo_orderkey", &n), *line = pa_ssb_column(db, "lo_linenumber", &n);
    const int32_t *cust = pa_ssb_column(db, "lo_custkey", &n), *part = pa_ssb_column(db, "lo_partkey", &n);
    const int32_t *mode = pa_ssb_column(db, "lo_shipmode", &n);
    ck_assert_int_eq(key[10], 11);
    ck_assert_str_eq(pa_ssb_dict_string(db, "lo_shipmode", mode[10]), "AIR");
    ck_assert_int_eq(key[11], INT32_MAX);
    ck_assert_int_eq(line[11], INT32_MIN);
    ck_assert_int_eq(cust[11], 0);
    ck_assert_int_eq(part[11], 4);
    ck_assert_str_eq(pa_ssb_dict_string(db, "lo_shipmode", mode[11]), "ZZ\rQ");
    ck_assert_int_eq(key[12], 1234567890);
    ck_assert_int_eq(line[12], -1);
    ck_assert_int_eq(cust[12], 99);
    for (int32_t code = 0; pa_ssb_dict_string(db, "lo_shipmode", code); code++)
        ck_assert_str_ne(pa_ssb_dict_string(db, "lo_shipmode", code), "ZZ");
    pa_ssb_destroy(db);
    /* Just past the 32-bit ends: ten digits, both signs. */
    replace_line(13, "2147483648|2|3|4|5|19930101|1-URGENT|0|1|2|3|4|5|6|7|19930201|AIR|\n");
    same_error(PA_ERR_RANGE, "lineorder.tbl line 13, field 1 (lo_orderkey): '2147483648' is outside 32-bit integers");
    replace_line(13, "1|-2147483649|3|4|5|19930101|1-URGENT|0|1|2|3|4|5|6|7|19930201|AIR|\n");
    same_error(PA_ERR_RANGE, "line 13, field 2 (lo_linenumber): '-2147483649' is outside 32-bit integers");
    replace_line(13, "1|-|3|4|5|19930101|1-URGENT|0|1|2|3|4|5|6|7|19930201|AIR|\n");
    same_error(PA_ERR_PARSE, "line 13, field 2 (lo_linenumber): '-' is not an integer");
}
END_TEST

typedef struct seen {
    int calls, ends;
    double last_done;
    char what[32];
} seen;

static void progress(void *arg, const char *what, double done, double total)
{
    seen *s = arg;
    ck_assert(done >= 0 && done <= total);
    s->calls++;
    s->ends += done == total && total > 0;
    s->last_done = done;
    snprintf(s->what, sizeof s->what, "%s", what);
}

START_TEST(progress_reports)
{
    seen s = {0};
    pa_ssb_db *db = NULL;
    pa_ssb_set_progress(progress, &s);
    PA_CK_OK(pa_ssb_load_tbl(dir, 0.03, &db));
    ck_assert_int_ge(s.calls, 10);
    ck_assert_int_eq(s.ends, 5);   /* each table's end */
    ck_assert_str_eq(s.what, "date");
    memset(&s, 0, sizeof s);
    PA_CK_OK(pa_ssb_write_tbl(db, dir));
    ck_assert_int_eq(s.ends, 5);
    pa_ssb_destroy(db);
    memset(&s, 0, sizeof s);
    PA_CK_OK(pa_ssb_generate(0.01, 1, 0, &db));
    ck_assert_str_eq(s.what, "lineorder");
    ck_assert_int_ge(s.ends, 1);
    pa_ssb_destroy(db);
    pa_ssb_set_progress(NULL, NULL);
    memset(&s, 0, sizeof s);
    PA_CK_OK(pa_ssb_generate(0.01, 1, 0, &db));
    ck_assert_int_eq(s.calls, 0);
    pa_ssb_destroy(db);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("query_ssb_load");
    TCase *tc = tcase_create("load");
    tcase_set_timeout(tc, 240);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, parallel_equals_serial);
    tcase_add_test(tc, bad_rows_named_by_line);
    tcase_add_test(tc, progress_reports);
    tcase_add_test(tc, parallel_write_equals_fprintf);
    tcase_add_test(tc, fast_path_edges);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
