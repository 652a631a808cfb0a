/*
 * Suite query_ssb_store: the SSB columnar format (round trip; missing, truncated and corrupt files; a manifest
 * that disagrees with the files) and the .tbl loader on the fixture in tests/query/tbl (values, dictionaries,
 * query results worked out by hand; rows with a wrong field count or a non-numeric key).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include <parray/ssb.h>

#define FIXTURE SRCDIR "/query/tbl"

static char dir[256];

static void mkdir_tmp(void)
{
    snprintf(dir, sizeof dir, "/tmp/pa_ssb_test_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void rm_tmp(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void sh(const char *fmt, const char *arg)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, fmt, arg, arg, arg);
    ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

START_TEST(round_trip)
{
    pa_ssb_db *db = NULL, *back = NULL;
    mkdir_tmp();
    PA_CK_OK(pa_ssb_generate(0.005, 21, 0, &db));
    PA_CK_OK(pa_ssb_write(db, dir));
    PA_CK_OK(pa_ssb_read(dir, &back));
    ck_assert(pa_ssb_scale(back) == 0.005);
    for (int t = 0; t < PA_SSB_NTABLES; t++)
        ck_assert_int_eq(pa_ssb_rows(db, (pa_ssb_table)t), pa_ssb_rows(back, (pa_ssb_table)t));
    static const char *const cols[] = {"lo_orderdate", "lo_revenue", "lo_shipmode", "c_city", "p_brand1",
                                       "d_yearmonth", "s_region"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        int64_t n;
        const int32_t *a = pa_ssb_column(db, cols[i], &n), *b = pa_ssb_column(back, cols[i], NULL);
        ck_assert_msg(memcmp(a, b, (size_t)n * 4) == 0, "%s differs after a round trip", cols[i]);
    }
    ck_assert_str_eq(pa_ssb_dict_string(back, "c_city", 3), pa_ssb_dict_string(db, "c_city", 3));
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa_ssb_result r1, r2;
        char why[128];
        PA_CK_OK(pa_ssb_run_cpu(db, q, 0, &r1));
        PA_CK_OK(pa_ssb_run_cpu(back, q, 0, &r2));
        ck_assert_msg(pa_ssb_result_equal(&r1, &r2, why, sizeof why), "%s: %s", pa_ssb_query_name(q), why);
        pa_ssb_result_destroy(&r1);
        pa_ssb_result_destroy(&r2);
    }
    pa_ssb_destroy(back);
    pa_ssb_destroy(db);
    rm_tmp();
}
END_TEST

/* Writes a fresh database, spoils it with a shell command, and expects read to fail with status and text. */
static void spoiled(const char *cmd, int status, const char *text)
{
    pa_ssb_db *db = NULL, *back = NULL;
    mkdir_tmp();
    PA_CK_OK(pa_ssb_generate(0.002, 4, 1, &db));
    PA_CK_OK(pa_ssb_write(db, dir));
    pa_ssb_destroy(db);
    sh(cmd, dir);
    int rc = pa_ssb_read(dir, &back);
    ck_assert_msg(rc == status, "after '%s': status %s (%s), wanted %s", cmd, pa_status_name(rc), pa_last_error(),
                  pa_status_name(status));
    ck_assert_msg(strstr(pa_last_error(), text) != NULL, "after '%s': message '%s' lacks '%s'", cmd, pa_last_error(),
                  text);
    ck_assert_ptr_null(back);
    rm_tmp();
}

START_TEST(bad_columnar_files)
{
    spoiled("rm %s/ssb.manifest", PA_ERR_SYS, "ssb.manifest");
    spoiled("rm %s/lo_revenue.i32", PA_ERR_SYS, "lo_revenue.i32");
    spoiled("truncate -s -4 %s/lo_discount.i32", PA_ERR_SIZE, "lo_discount.i32");
    spoiled("truncate -s -4 %s/lo_discount.i32", PA_ERR_SIZE, "truncated");
    spoiled("printf 'x' | dd of=%s/c_city.i32 bs=1 seek=5 conv=notrunc status=none", PA_ERR_PARSE, "c_city.i32 is corrupt");
    spoiled("printf 'ZZZ' | dd of=%s/p_mfgr.dict bs=1 seek=0 conv=notrunc status=none", PA_ERR_PARSE, "p_mfgr.dict");
    spoiled("sed -i 's/^table part .*/table part 7/' %s/ssb.manifest", PA_ERR_SIZE, "p_partkey");
    spoiled("sed -i 's/^seed .*/seed banana/' %s/ssb.manifest", PA_ERR_PARSE, "line 3");
    spoiled("sed -i '/^column lo_tax /d' %s/ssb.manifest", PA_ERR_PARSE, "lo_tax");
    spoiled("sed -i '1s/.*/parray-ssb 9/' %s/ssb.manifest", PA_ERR_PARSE, "line 1");
}
END_TEST

START_TEST(tbl_fixture)
{
    pa_ssb_db *db = NULL;
    PA_CK_OK(pa_ssb_load_tbl(FIXTURE, 0.0001, &db));
    ck_assert_int_eq(pa_ssb_rows(db, PA_SSB_LINEORDER), 4);
    ck_assert_int_eq(pa_ssb_rows(db, PA_SSB_CUSTOMER), 3);
    ck_assert_int_eq(pa_ssb_rows(db, PA_SSB_SUPPLIER), 2);
    ck_assert_int_eq(pa_ssb_rows(db, PA_SSB_PART), 2);
    ck_assert_int_eq(pa_ssb_rows(db, PA_SSB_DATE), 3);
    ck_assert_int_eq(pa_ssb_column(db, "lo_extendedprice", NULL)[1], 2000000);
    ck_assert_int_eq(pa_ssb_column(db, "d_year", NULL)[2], 1993);
    /* Dictionaries from the values found, sorted: AMERICA < ASIA < EUROPE. */
    ck_assert_str_eq(pa_ssb_dict_string(db, "c_region", 0), "AMERICA");
    ck_assert_str_eq(pa_ssb_dict_string(db, "c_region", pa_ssb_column(db, "c_region", NULL)[0]), "EUROPE");
    ck_assert_str_eq(pa_ssb_dict_string(db, "c_city", pa_ssb_column(db, "c_city", NULL)[2]), "CHINA    4");
    ck_assert_str_eq(pa_ssb_dict_string(db, "lo_shipmode", pa_ssb_column(db, "lo_shipmode", NULL)[3]), "MAIL");
    /* Results worked out by hand from the fixture's rows. */
    static const struct {
        const char *q;
        int64_t rows, value;
        const char *line;
    } want[] = {
        {"q1.1", 1, 900000, "900000\n"},
        {"q1.2", 1, 10000000, "10000000\n"},
        {"q2.1", 1, 980000, "1994|MFGR#1205|980000\n"},
        {"q2.2", 1, 495000, "1997|MFGR#2221|495000\n"},
        {"q3.1", 1, 495000, "CHINA|JAPAN|1997|495000\n"},
        {"q4.1", 1, 2760000, "1994|UNITED STATES|2760000\n"},
        {"q3.2", 1, 2880000, "UNITED ST3|UNITED ST0|1994|2880000\n"},
        {"q3.3", 0, 0, ""},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        pa_ssb_result r;
        char buf[256] = "";
        PA_CK_OK(pa_ssb_run_cpu(db, pa_ssb_query_index(want[i].q), 2, &r));
        ck_assert_msg(r.nrows == want[i].rows, "%s: %lld rows", want[i].q, (long long)r.nrows);
        if (r.nrows)
            ck_assert_msg(r.values[0] == want[i].value, "%s: %lld", want[i].q, (long long)r.values[0]);
        FILE *f = fmemopen(buf, sizeof buf, "w");
        PA_CK_OK(pa_ssb_result_print(db, &r, f));
        fclose(f);
        ck_assert_str_eq(buf, want[i].line);
        pa_ssb_result_destroy(&r);
    }
    pa_ssb_destroy(db);
}
END_TEST

/* Copies the fixture, applies a shell command to the copy, and expects the load to fail naming text. */
static void bad_tbl(const char *cmd, int status, const char *text)
{
    pa_ssb_db *db = NULL;
    mkdir_tmp();
    char copy[600];
    snprintf(copy, sizeof copy, "cp " FIXTURE "/*.tbl '%s'", dir);
    ck_assert_int_eq(system(copy), 0);
    sh(cmd, dir);
    int rc = pa_ssb_load_tbl(dir, 1, &db);
    ck_assert_msg(rc == status, "after '%s': %s (%s)", cmd, pa_status_name(rc), pa_last_error());
    ck_assert_msg(strstr(pa_last_error(), text) != NULL, "after '%s': '%s' lacks '%s'", cmd, pa_last_error(), text);
    ck_assert_ptr_null(db);
    rm_tmp();
}

START_TEST(tbl_bad_rows)
{
    bad_tbl("sed -i '3s/|TRUCK|$/|TRUCK|extra|/' %s/lineorder.tbl", PA_ERR_PARSE, "lineorder.tbl line 3: 18 fields");
    bad_tbl("sed -i '2s/^1|2|/1|/' %s/lineorder.tbl", PA_ERR_PARSE, "lineorder.tbl line 2: 16 fields");
    bad_tbl("sed -i '4s/^3|/x3|/' %s/lineorder.tbl", PA_ERR_PARSE, "lineorder.tbl line 4, field 1 (lo_orderkey)");
    bad_tbl("sed -i '2s/^2|/|/' %s/customer.tbl", PA_ERR_PARSE, "customer.tbl line 2, field 1 (c_custkey)");
    bad_tbl("sed -i '1s/^19940101|/99999999999|/' %s/date.tbl", PA_ERR_RANGE, "date.tbl line 1");
    bad_tbl("rm %s/part.tbl", PA_ERR_SYS, "part.tbl");
    bad_tbl("echo >> %s/supplier.tbl", PA_ERR_PARSE, "supplier.tbl line 3: 1 fields");
}
END_TEST

/* Generated data written as .tbl files and loaded back: every query prints the same rows (codes may differ: the
 * loader's dictionaries hold the values found). */
START_TEST(tbl_round_trip)
{
    pa_ssb_db *db = NULL, *back = NULL;
    mkdir_tmp();
    PA_CK_OK(pa_ssb_generate(0.003, 8, 0, &db));
    PA_CK_OK(pa_ssb_write_tbl(db, dir));
    PA_CK_OK(pa_ssb_load_tbl(dir, 0.003, &back));
    ck_assert_int_eq(pa_ssb_rows(back, PA_SSB_LINEORDER), pa_ssb_rows(db, PA_SSB_LINEORDER));
    int with_rows = 0;
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa_ssb_result r1, r2;
        char *b1 = NULL, *b2 = NULL;
        size_t n1 = 0, n2 = 0;
        PA_CK_OK(pa_ssb_run_cpu(db, q, 0, &r1));
        PA_CK_OK(pa_ssb_run_cpu(back, q, 0, &r2));
        FILE *f1 = open_memstream(&b1, &n1), *f2 = open_memstream(&b2, &n2);
        PA_CK_OK(pa_ssb_result_print(db, &r1, f1));
        PA_CK_OK(pa_ssb_result_print(back, &r2, f2));
        fclose(f1);
        fclose(f2);
        with_rows += r1.nrows > 0 && (q >= 3 || r1.values[0] != 0);
        ck_assert_msg(strcmp(b1, b2) == 0, "%s: generated\n%s\nloaded back\n%s", pa_ssb_query_name(q), b1, b2);
        free(b1);
        free(b2);
        pa_ssb_result_destroy(&r1);
        pa_ssb_result_destroy(&r2);
    }
    ck_assert_msg(with_rows >= 8, "only %d queries have rows: the comparison says little", with_rows);
    pa_ssb_destroy(back);
    pa_ssb_destroy(db);
    rm_tmp();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("query_ssb_store");
    TCase *tc = tcase_create("store");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, round_trip);
    tcase_add_test(tc, bad_columnar_files);
    tcase_add_test(tc, tbl_fixture);
    tcase_add_test(tc, tbl_bad_rows);
    tcase_add_test(tc, tbl_round_trip);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
