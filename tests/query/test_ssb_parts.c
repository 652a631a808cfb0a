/*
 * Suite query_ssb_parts: SSB work in parts without a GPU.  Slices of lineorder (pa_ssb_slice) cut at uneven
 * points, empty ones included, and small chunks in the millions' stead, each run by both CPU engines and their
 * results combined (pa_ssb_result_combine): every query equals the whole's.  This is the GPU engine's split
 * (parts of lineorder, partial sums added) on the CPU.  Also the databases that hold only the columns the
 * queries read (PA_SSB_QUERY_COLUMNS), generated and read: the same values, the same results, absent columns
 * said to be absent, and what needs them refused.
 */
#include <stdlib.h>
#include <string.h>

#include "parray/ssb.h"
#include "testutil.h"

/* Query q over the parts cut at cuts[0] = 0 < ... < cuts[n] = rows (equal cuts: empty parts), combined. */
static void combine_parts(const pa_ssb_db *db, int q, const int64_t *cuts, int n, int tiles, pa_ssb_result *out)
{
    pa_ssb_result *parts = malloc((size_t)n * sizeof *parts);
    ck_assert_ptr_nonnull(parts);
    for (int i = 0; i < n; i++) {
        pa_ssb_db *v = NULL;
        PA_CK_OK(pa_ssb_slice(db, cuts[i], cuts[i + 1], &v));
        ck_assert_int_eq(pa_ssb_rows(v, PA_SSB_LINEORDER), cuts[i + 1] - cuts[i]);
        ck_assert_int_eq(pa_ssb_rows(v, PA_SSB_PART), pa_ssb_rows(db, PA_SSB_PART));
        PA_CK_OK(tiles ? pa_ssb_run_cpu_tiles(v, q, 2, &parts[i]) : pa_ssb_run_cpu(v, q, 2, &parts[i]));
        pa_ssb_destroy(v);
    }
    memset(out, 0xa5, sizeof *out);   /* poisoned: every field must be written */
    PA_CK_OK(pa_ssb_result_combine(db, q, parts, n, out));
    for (int i = 0; i < n; i++)
        pa_ssb_result_destroy(&parts[i]);
    free(parts);
}

static void check_cuts(const pa_ssb_db *db, const int64_t *cuts, int n, const char *what)
{
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa_ssb_result want, got;
        char why[200];
        PA_CK_OK(pa_ssb_run_cpu(db, q, 0, &want));
        for (int tiles = 0; tiles < 2; tiles++) {
            combine_parts(db, q, cuts, n, tiles, &got);
            ck_assert_int_eq(got.query, q);
            ck_assert_msg(pa_ssb_result_equal(&want, &got, why, sizeof why), "%s, %s, %s: %s", what,
                          tiles ? "tiles" : "reference", pa_ssb_query_name(q), why);
            pa_ssb_result_destroy(&got);
        }
        pa_ssb_result_destroy(&want);
    }
}

START_TEST(slices_combined)
{
    pa_ssb_db *db = NULL;
    PA_CK_OK(pa_ssb_generate(0.02, 5, 0, &db));
    int64_t n = pa_ssb_rows(db, PA_SSB_LINEORDER);
    pa_rng r = {pa_test_seed("query_ssb_parts slices")};
    /* One part; two halves; seven parts at random points with two empty ones (a GPU with no rows). */
    int64_t one[] = {0, n}, two[] = {0, n / 2, n}, seven[8];
    check_cuts(db, one, 1, "one part");
    check_cuts(db, two, 2, "two parts");
    seven[0] = 0;
    seven[7] = n;
    for (int i = 1; i < 7; i++)
        seven[i] = (int64_t)(pa_rng_next(&r) % (uint64_t)n);
    seven[3] = seven[2];
    seven[6] = n;
    for (int i = 1; i < 7; i++)   /* sorted */
        for (int k = i; k > 1 && seven[k] < seven[k - 1]; k--) {
            int64_t t = seven[k];
            seven[k] = seven[k - 1];
            seven[k - 1] = t;
        }
    check_cuts(db, seven, 7, "seven uneven parts");
    pa_ssb_destroy(db);
}
END_TEST

/* Chunks of 997 rows (a prime: no chunk is a whole number of tiles) over a small database: 60 and more parts. */
START_TEST(small_chunks)
{
    pa_ssb_db *db = NULL;
    PA_CK_OK(pa_ssb_generate(0.01, 9, 0, &db));
    int64_t n = pa_ssb_rows(db, PA_SSB_LINEORDER), chunk = 997;
    int k = (int)((n + chunk - 1) / chunk);
    int64_t *cuts = malloc(((size_t)k + 1) * sizeof *cuts);
    ck_assert_ptr_nonnull(cuts);
    for (int i = 0; i <= k; i++)
        cuts[i] = (int64_t)i * chunk < n ? (int64_t)i * chunk : n;
    ck_assert_int_gt(k, 50);
    check_cuts(db, cuts, k, "chunks of 997 rows");
    free(cuts);
    pa_ssb_destroy(db);
}
END_TEST

START_TEST(bad_parts)
{
    pa_ssb_db *db = NULL, *v = (pa_ssb_db *)0x1;
    PA_CK_OK(pa_ssb_generate(0.01, 3, 0, &db));
    int64_t n = pa_ssb_rows(db, PA_SSB_LINEORDER);
    ck_assert_int_eq(pa_ssb_slice(db, 0, n + 1, &v), PA_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "lineorder"));
    ck_assert_int_eq(pa_ssb_slice(db, 5, 4, &v), PA_ERR_RANGE);
    ck_assert_int_eq(pa_ssb_slice(db, -1, 4, &v), PA_ERR_RANGE);
    ck_assert_int_eq(pa_ssb_slice(NULL, 0, 1, &v), PA_ERR_INVAL);
    ck_assert_ptr_eq(v, (pa_ssb_db *)0x1);   /* nothing written on error */
    pa_ssb_result a, b[2], out;
    PA_CK_OK(pa_ssb_run_cpu(db, 4, 0, &a));
    PA_CK_OK(pa_ssb_run_cpu(db, 5, 0, &b[1]));
    b[0] = a;
    ck_assert_int_eq(pa_ssb_result_combine(db, 4, b, 0, &out), PA_ERR_INVAL);
    ck_assert_int_eq(pa_ssb_result_combine(db, 4, b, 2, &out), PA_ERR_INVAL);   /* q2.3's rows among q2.2's */
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "part 1"));
    ck_assert_int_eq(pa_ssb_result_combine(db, 13, b, 1, &out), PA_ERR_RANGE);
    ck_assert_int_gt(a.nrows, 0);
    a.groups[0] = 3000;   /* a year the date table does not have */
    ck_assert_int_eq(pa_ssb_result_combine(db, 4, &a, 1, &out), PA_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "d_year"));
    pa_ssb_result_destroy(&a);
    pa_ssb_result_destroy(&b[1]);
    pa_ssb_destroy(db);
}
END_TEST

static const char *const query_cols[] = {"lo_orderdate", "lo_quantity", "lo_discount", "lo_extendedprice",
                                         "lo_custkey", "lo_partkey", "lo_suppkey", "lo_revenue", "lo_supplycost"};
static const char *const other_cols[] = {"lo_orderkey", "lo_linenumber", "lo_orderpriority", "lo_shippriority",
                                         "lo_ordtotalprice", "lo_tax", "lo_commitdate", "lo_shipmode"};

/* part holds only the query columns, with full's values; every query gives full's result. */
static void same_query_columns(const pa_ssb_db *full, const pa_ssb_db *part)
{
    int64_t n = 0, m = 0;
    for (size_t i = 0; i < sizeof query_cols / sizeof *query_cols; i++) {
        const int32_t *a = pa_ssb_column(full, query_cols[i], &n), *b = pa_ssb_column(part, query_cols[i], &m);
        ck_assert_ptr_nonnull(b);
        ck_assert_int_eq(n, m);
        ck_assert_msg(memcmp(a, b, (size_t)n * 4) == 0, "%s differs", query_cols[i]);
        ck_assert_int_eq(pa_ssb_column_held(part, query_cols[i]), 1);
    }
    for (size_t i = 0; i < sizeof other_cols / sizeof *other_cols; i++) {
        ck_assert_int_eq(pa_ssb_column_held(part, other_cols[i]), 0);
        ck_assert_int_eq(pa_ssb_column_held(full, other_cols[i]), 1);
        ck_assert_ptr_null(pa_ssb_column(part, other_cols[i], &n));
        ck_assert_ptr_nonnull(strstr(pa_last_error(), "not held"));
    }
    ck_assert_int_eq(pa_ssb_column_held(part, "c_city"), 1);
    ck_assert_int_eq(pa_ssb_column_held(part, "no_such"), -1);
    /* 9 of lineorder's 17 columns, the dimensions the same. */
    int64_t lo = pa_ssb_rows(full, PA_SSB_LINEORDER);
    ck_assert_int_eq(pa_ssb_bytes(full) - pa_ssb_bytes(part), lo * 4 * 8);
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa_ssb_result a, b, c;
        char why[200];
        PA_CK_OK(pa_ssb_run_cpu(full, q, 0, &a));
        PA_CK_OK(pa_ssb_run_cpu(part, q, 0, &b));
        PA_CK_OK(pa_ssb_run_cpu_tiles(part, q, 0, &c));
        ck_assert_msg(pa_ssb_result_equal(&a, &b, why, sizeof why), "%s: %s", pa_ssb_query_name(q), why);
        ck_assert_msg(pa_ssb_result_equal(&a, &c, why, sizeof why), "%s tiles: %s", pa_ssb_query_name(q), why);
        pa_ssb_result_destroy(&a);
        pa_ssb_result_destroy(&b);
        pa_ssb_result_destroy(&c);
    }
}

START_TEST(query_columns)
{
    pa_ssb_db *full = NULL, *part = NULL, *back = NULL, *none = (pa_ssb_db *)0x1;
    PA_CK_OK(pa_ssb_generate(0.01, 21, 0, &full));
    PA_CK_OK(pa_ssb_generate_with(0.01, 21, 3, PA_SSB_QUERY_COLUMNS, &part));
    same_query_columns(full, part);
    ck_assert_int_eq(pa_ssb_generate_with(0.01, 21, 0, 2, &none), PA_ERR_RANGE);
    ck_assert_ptr_eq(none, (pa_ssb_db *)0x1);
    char dir[] = "/tmp/pa_ssb_parts_XXXXXX", sub[64], cmd[128];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(sub, sizeof sub, "%s/part", dir);
    ck_assert_int_eq(pa_ssb_write(part, sub), PA_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "does not hold lo_orderkey"));
    ck_assert_int_eq(pa_ssb_write_tbl(part, sub), PA_ERR_UNSUPPORTED);
    snprintf(sub, sizeof sub, "%s/full", dir);
    PA_CK_OK(pa_ssb_write(full, sub));
    PA_CK_OK(pa_ssb_read_with(sub, PA_SSB_QUERY_COLUMNS, &back));
    same_query_columns(full, back);
    ck_assert_int_eq(pa_ssb_read_with(sub, 4, &none), PA_ERR_RANGE);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    pa_ssb_destroy(back);
    pa_ssb_destroy(part);
    pa_ssb_destroy(full);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("query_ssb_parts");
    TCase *tc = tcase_create("parts");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, slices_combined);
    tcase_add_test(tc, small_chunks);
    tcase_add_test(tc, bad_parts);
    tcase_add_test(tc, query_columns);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
