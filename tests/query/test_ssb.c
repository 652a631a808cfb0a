/*
 * Suite query_ssb: the SSB generator (cardinalities, value ranges, determinism for a seed whatever the thread
 * count), the selectivity check, and the 13 queries on the CPU against a naive reference written here from
 * the SQL: one thread, joins by scanning key maps, filters on the strings themselves.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <parray/ssb.h>

#define SF 0.02

int64_t pa__ssb_part_rows(double sf);   /* internal (ssb_gen.h) */

static pa_ssb_db *gen(double sf, uint64_t seed, int threads)
{
    pa_ssb_db *db = NULL;
    PA_CK_OK(pa_ssb_generate(sf, seed, threads, &db));
    return db;
}

static const char *const all_cols[] = {
    "lo_orderkey", "lo_linenumber", "lo_custkey", "lo_partkey", "lo_suppkey", "lo_orderdate", "lo_orderpriority",
    "lo_shippriority", "lo_quantity", "lo_extendedprice", "lo_ordtotalprice", "lo_discount", "lo_revenue",
    "lo_supplycost", "lo_tax", "lo_commitdate", "lo_shipmode", "c_custkey", "c_city", "c_nation", "c_region",
    "c_mktsegment", "s_suppkey", "s_city", "s_nation", "s_region", "p_partkey", "p_mfgr", "p_category", "p_brand1",
    "p_size", "d_datekey", "d_dayofweek", "d_month", "d_year", "d_yearmonthnum", "d_yearmonth", "d_daynuminweek",
    "d_daynuminmonth", "d_daynuminyear", "d_monthnuminyear", "d_weeknuminyear", "d_sellingseason",
    "d_lastdayinweekfl", "d_lastdayinmonthfl", "d_holidayfl", "d_weekdayfl"};
#define NCOLS ((int)(sizeof all_cols / sizeof all_cols[0]))

START_TEST(cardinalities)
{
    pa_ssb_db *db = gen(SF, 7, 0);
    ck_assert_int_eq(pa_ssb_rows(db, PA_SSB_CUSTOMER), 600);
    ck_assert_int_eq(pa_ssb_rows(db, PA_SSB_SUPPLIER), 40);
    ck_assert_int_eq(pa_ssb_rows(db, PA_SSB_PART), 4000);
    ck_assert_int_eq(pa_ssb_rows(db, PA_SSB_DATE), 2557);
    int64_t lo = pa_ssb_rows(db, PA_SSB_LINEORDER);
    ck_assert_msg(lo > 0.98 * 120000 && lo < 1.02 * 120000, "lineorder has %lld rows, wanted about 120000",
                  (long long)lo);
    pa_ssb_destroy(db);
    /* Part grows with log2 of the scale factor from 1 on (the generator's own count, src/query/ssb_dims.c). */
    ck_assert_int_eq(pa__ssb_part_rows(1), 200000);
    ck_assert_int_eq(pa__ssb_part_rows(2), 400000);
    ck_assert_int_eq(pa__ssb_part_rows(20), 1000000);
    ck_assert_int_eq(pa__ssb_part_rows(0.5), 100000);
}
END_TEST

START_TEST(deterministic_whatever_the_threads)
{
    pa_ssb_db *a = gen(SF, 99, 1), *b = gen(SF, 99, 3), *c = gen(SF, 100, 2);
    for (int i = 0; i < NCOLS; i++) {
        int64_t na, nb;
        const int32_t *x = pa_ssb_column(a, all_cols[i], &na), *y = pa_ssb_column(b, all_cols[i], &nb);
        ck_assert_ptr_nonnull(x);
        ck_assert_int_eq(na, nb);
        ck_assert_msg(memcmp(x, y, (size_t)na * 4) == 0, "%s differs between 1 and 3 threads", all_cols[i]);
    }
    int64_t n;
    const int32_t *x = pa_ssb_column(a, "lo_partkey", &n), *z = pa_ssb_column(c, "lo_partkey", NULL);
    int64_t m = pa_ssb_rows(c, PA_SSB_LINEORDER), same = 0;
    for (int64_t i = 0; i < n && i < m; i++)
        same += x[i] == z[i];
    ck_assert_msg(same < n / 100, "another seed gives the same lo_partkey in %lld of %lld rows", (long long)same,
                  (long long)n);
    pa_ssb_destroy(a);
    pa_ssb_destroy(b);
    pa_ssb_destroy(c);
}
END_TEST

static const int32_t *col(pa_ssb_db *db, const char *name)
{
    const int32_t *c = pa_ssb_column(db, name, NULL);
    ck_assert_msg(c != NULL, "no column %s", name);
    return c;
}

START_TEST(value_ranges)
{
    pa_ssb_db *db = gen(SF, 3, 0);
    int64_t n = pa_ssb_rows(db, PA_SSB_LINEORDER);
    const int32_t *qty = col(db, "lo_quantity"), *disc = col(db, "lo_discount"), *tax = col(db, "lo_tax");
    const int32_t *ext = col(db, "lo_extendedprice"), *rev = col(db, "lo_revenue"), *date = col(db, "lo_orderdate");
    const int32_t *cust = col(db, "lo_custkey"), *part = col(db, "lo_partkey"), *supp = col(db, "lo_suppkey");
    const int32_t *line = col(db, "lo_linenumber"), *commit = col(db, "lo_commitdate");
    int seen_q[51] = {0}, seen_d[11] = {0};
    int64_t bad = 0, first_bad = -1;
    /* Counted, then asserted once: Check marks every passing assertion, which costs a write per row. */
    for (int64_t i = 0; i < n; i++) {
        int ok = qty[i] >= 1 && qty[i] <= 50 && disc[i] >= 0 && disc[i] <= 10 && tax[i] >= 0 && tax[i] <= 8 &&
                 line[i] >= 1 && line[i] <= 7 && cust[i] >= 1 && cust[i] <= 600 && part[i] >= 1 &&
                 part[i] <= 4000 && supp[i] >= 1 && supp[i] <= 40 && date[i] >= 19920101 && date[i] <= 19981231 &&
                 commit[i] > date[i] && ext[i] % qty[i] == 0 &&
                 rev[i] == (int32_t)((int64_t)ext[i] * (100 - disc[i]) / 100);
        if (!ok && bad++ == 0)
            first_bad = i;
        if (ok)
            seen_q[qty[i]] = seen_d[disc[i]] = 1;
    }
    ck_assert_msg(bad == 0, "%lld lineorder rows out of range, the first is row %lld", (long long)bad,
                  (long long)first_bad);
    for (int v = 1; v <= 50; v++)
        ck_assert_msg(seen_q[v], "no row with lo_quantity %d", v);
    for (int v = 0; v <= 10; v++)
        ck_assert_msg(seen_d[v], "no row with lo_discount %d", v);
    /* Dictionaries: sorted, and the spec's strings present. */
    ck_assert_int_ge(pa_ssb_dict_code(db, "c_city", "UNITED KI1"), 0);
    ck_assert_int_ge(pa_ssb_dict_code(db, "s_nation", "UNITED STATES"), 0);
    ck_assert_int_ge(pa_ssb_dict_code(db, "p_brand1", "MFGR#2239"), 0);
    ck_assert_int_ge(pa_ssb_dict_code(db, "d_yearmonth", "Dec1997"), 0);
    ck_assert_int_lt(pa_ssb_dict_code(db, "p_brand1", "MFGR#2221"), pa_ssb_dict_code(db, "p_brand1", "MFGR#2228"));
    ck_assert_int_eq(pa_ssb_dict_code(db, "c_region", "ATLANTIS"), -1);
    ck_assert_str_eq(pa_ssb_dict_string(db, "c_region", 0), "AFRICA");
    ck_assert_ptr_null(pa_ssb_dict_string(db, "c_region", 5));
    ck_assert_ptr_null(pa_ssb_column(db, "c_name", NULL));
    /* The date table: 1992-01-01 .. 1998-12-31, week 6 of 1994 is February 4-10. */
    const int32_t *dk = col(db, "d_datekey"), *wk = col(db, "d_weeknuminyear");
    ck_assert_int_eq(dk[0], 19920101);
    ck_assert_int_eq(dk[2556], 19981231);
    for (int i = 0; i < 2557; i++)
        if (dk[i] >= 19940201 && dk[i] <= 19940215)
            ck_assert_int_eq(wk[i] == 6, dk[i] >= 19940204 && dk[i] <= 19940210);
    pa_ssb_destroy(db);
}
END_TEST

START_TEST(selectivities)
{
    pa_ssb_db *db = gen(0.05, 11, 0);
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        double m, s, tol;
        PA_CK_OK(pa_ssb_selectivity(db, q, 0, &m, &s, &tol));
        ck_assert_msg(m / s - 1 <= tol && 1 - m / s <= tol, "%s: selectivity %g, spec %g (allowed +-%.1f%%)",
                      pa_ssb_query_name(q), m, s, 100 * tol);
    }
    /* The largest filters are tight enough to mean something at this scale. */
    double m, s, tol;
    PA_CK_OK(pa_ssb_selectivity(db, 0, 0, &m, &s, &tol));
    ck_assert_msg(tol < 0.15, "q1.1's tolerance %g", tol);
    pa_ssb_destroy(db);
}
END_TEST

/* ---- the naive reference ------------------------------------------------------------------------------- */

typedef struct ref {
    int32_t g[3];
    int64_t v;
} ref;

static const char *s(pa_ssb_db *db, const char *c, int row)
{
    return pa_ssb_dict_string(db, c, pa_ssb_column(db, c, NULL)[row]);
}

static int eq(pa_ssb_db *db, const char *c, int row, const char *v)
{
    return strcmp(s(db, c, row), v) == 0;
}

static int ival(pa_ssb_db *db, const char *c, int row)
{
    return pa_ssb_column(db, c, NULL)[row];
}

/* Query q's filter on one dimension row, evaluated on the strings (dimension: 'd', 'c', 's' or 'p'). */
static int dim_ok(pa_ssb_db *db, int q, char dim, int row)
{
    switch (dim) {
    case 'd': {
        int year = ival(db, "d_year", row);
        if (q == 0)
            return year == 1993;
        if (q == 1)
            return ival(db, "d_yearmonthnum", row) == 199401;
        if (q == 2)
            return ival(db, "d_weeknuminyear", row) == 6 && year == 1994;
        if (q >= 6 && q <= 8)
            return year >= 1992 && year <= 1997;
        if (q == 9)
            return eq(db, "d_yearmonth", row, "Dec1997");
        return q == 11 || q == 12 ? year == 1997 || year == 1998 : 1;
    }
    case 'c':
        if (q == 6)
            return eq(db, "c_region", row, "ASIA");
        if (q == 7)
            return eq(db, "c_nation", row, "UNITED STATES");
        if (q == 8 || q == 9)
            return eq(db, "c_city", row, "UNITED KI1") || eq(db, "c_city", row, "UNITED KI5");
        return q >= 10 ? eq(db, "c_region", row, "AMERICA") : 1;
    case 's':
        if (q == 3 || q == 10 || q == 11)
            return eq(db, "s_region", row, "AMERICA");
        if (q == 4 || q == 6)
            return eq(db, "s_region", row, "ASIA");
        if (q == 5)
            return eq(db, "s_region", row, "EUROPE");
        if (q == 7 || q == 12)
            return eq(db, "s_nation", row, "UNITED STATES");
        if (q == 8 || q == 9)
            return eq(db, "s_city", row, "UNITED KI1") || eq(db, "s_city", row, "UNITED KI5");
        return 1;
    default: {
        const char *brand = s(db, "p_brand1", row);
        if (q == 3)
            return eq(db, "p_category", row, "MFGR#12");
        if (q == 4)
            return strcmp(brand, "MFGR#2221") >= 0 && strcmp(brand, "MFGR#2228") <= 0;
        if (q == 5)
            return eq(db, "p_brand1", row, "MFGR#2239");
        if (q == 10 || q == 11)
            return eq(db, "p_mfgr", row, "MFGR#1") || eq(db, "p_mfgr", row, "MFGR#2");
        return q == 12 ? eq(db, "p_category", row, "MFGR#14") : 1;
    }
    }
}

/* A dimension's rows that pass q's filter, by key (keys found by scanning the key column). */
static char *dim_pass(pa_ssb_db *db, int q, char dim, const char *keycol, pa_ssb_table t, int32_t base,
                      int32_t maxkey)
{
    int64_t n = pa_ssb_rows(db, t);
    const int32_t *key = pa_ssb_column(db, keycol, NULL);
    char *ok = calloc((size_t)maxkey + 1, 1);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        if (key[i] - base < 0 || key[i] - base > maxkey)
            bad++;
        else
            ok[key[i] - base] = (char)(dim_ok(db, q, dim, (int)i) ? 1 : 0);
    }
    ck_assert_msg(bad == 0, "%s: %lld keys outside [0, %d]", keycol, (long long)bad, maxkey);
    return ok;
}

/* The row of each key (keys scanned). */
static int *rows_by_key(pa_ssb_db *db, const char *keycol, pa_ssb_table t, int32_t base, int32_t maxkey)
{
    int64_t n = pa_ssb_rows(db, t);
    const int32_t *key = pa_ssb_column(db, keycol, NULL);
    int *row = malloc(((size_t)maxkey + 1) * sizeof *row);
    for (int32_t k = 0; k <= maxkey; k++)
        row[k] = -1;
    for (int64_t i = 0; i < n; i++)
        row[key[i] - base] = (int)i;
    return row;
}

/* The reference result of query q, in the tuple form of pa_ssb_result (unsorted). */
static int64_t reference(pa_ssb_db *db, int q, ref *out, int cap)
{
    int64_t n = pa_ssb_rows(db, PA_SSB_LINEORDER), m = 0;
    const int32_t dbase = 19920000, maxd = 19981231 - dbase, maxc = (int32_t)pa_ssb_rows(db, PA_SSB_CUSTOMER);
    const int32_t maxs = (int32_t)pa_ssb_rows(db, PA_SSB_SUPPLIER), maxp = (int32_t)pa_ssb_rows(db, PA_SSB_PART);
    char *dok = dim_pass(db, q, 'd', "d_datekey", PA_SSB_DATE, dbase, maxd);
    char *cok = dim_pass(db, q, 'c', "c_custkey", PA_SSB_CUSTOMER, 0, maxc);
    char *sok = dim_pass(db, q, 's', "s_suppkey", PA_SSB_SUPPLIER, 0, maxs);
    char *pok = dim_pass(db, q, 'p', "p_partkey", PA_SSB_PART, 0, maxp);
    int *drow = rows_by_key(db, "d_datekey", PA_SSB_DATE, dbase, maxd), *crow = rows_by_key(db, "c_custkey", PA_SSB_CUSTOMER, 0, maxc);
    int *srow = rows_by_key(db, "s_suppkey", PA_SSB_SUPPLIER, 0, maxs), *prow = rows_by_key(db, "p_partkey", PA_SSB_PART, 0, maxp);
    const int32_t *lo_date = col(db, "lo_orderdate"), *lo_cust = col(db, "lo_custkey"), *lo_supp = col(db, "lo_suppkey");
    const int32_t *lo_part = col(db, "lo_partkey"), *lo_qty = col(db, "lo_quantity"), *lo_disc = col(db, "lo_discount");
    const int32_t *lo_ext = col(db, "lo_extendedprice"), *lo_rev = col(db, "lo_revenue"), *lo_cost = col(db, "lo_supplycost");
    const int32_t *d_year = col(db, "d_year"), *c_nation = col(db, "c_nation"), *c_city = col(db, "c_city");
    const int32_t *s_nation = col(db, "s_nation"), *s_city = col(db, "s_city"), *p_brand = col(db, "p_brand1");
    const int32_t *p_cat = col(db, "p_category");
    for (int64_t r = 0; r < n; r++) {
        int qty = lo_qty[r], disc = lo_disc[r];
        if (!dok[lo_date[r] - dbase] || !cok[lo_cust[r]] || !sok[lo_supp[r]] || !pok[lo_part[r]])
            continue;
        if ((q == 0 && !(disc >= 1 && disc <= 3 && qty < 25)) ||
            (q == 1 && !(disc >= 4 && disc <= 6 && qty >= 26 && qty <= 35)) ||
            (q == 2 && !(disc >= 5 && disc <= 7 && qty >= 26 && qty <= 35)))
            continue;
        int d = drow[lo_date[r] - dbase], c = crow[lo_cust[r]], sp = srow[lo_supp[r]], p = prow[lo_part[r]];
        if (d < 0 || c < 0 || sp < 0 || p < 0)
            ck_abort_msg("lineorder row %lld: a foreign key without its dimension row", (long long)r);
        int32_t g[3] = {0, 0, 0};
        int64_t v = q < 3 ? (int64_t)lo_ext[r] * disc : q < 10 ? lo_rev[r] : (int64_t)lo_rev[r] - lo_cost[r];
        if (q >= 3 && q <= 5) {
            g[0] = d_year[d];
            g[1] = p_brand[p];
        } else if (q >= 6 && q <= 9) {
            g[0] = q == 6 ? c_nation[c] : c_city[c];
            g[1] = q == 6 ? s_nation[sp] : s_city[sp];
            g[2] = d_year[d];
        } else if (q >= 10) {
            g[0] = d_year[d];
            g[1] = q == 10 ? c_nation[c] : q == 11 ? s_nation[sp] : s_city[sp];
            g[2] = q == 10 ? 0 : q == 11 ? p_cat[p] : p_brand[p];
        }
        int64_t i = 0;
        while (i < m && memcmp(out[i].g, g, sizeof g) != 0)
            i++;
        if (i == m) {
            if (m == cap)
                ck_abort_msg("more than %d groups", cap);
            out[m++] = (ref){{g[0], g[1], g[2]}, 0};
        }
        out[i].v += v;
    }
    free(dok);
    free(cok);
    free(sok);
    free(pok);
    free(drow);
    free(crow);
    free(srow);
    free(prow);
    if (q < 3 && m == 0)
        out[m++] = (ref){{0, 0, 0}, 0};
    return m;
}

START_TEST(queries_match_the_reference)
{
    pa_ssb_db *db = gen(0.005, 5, 0);
    ref *want = malloc(4096 * sizeof *want);
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa_ssb_result r = {0}, r1 = {0};
        PA_CK_OK(pa_ssb_run_cpu(db, q, 0, &r));
        int64_t m = reference(db, q, want, 4096);
        ck_assert_msg(r.nrows == m, "%s: %lld rows, the reference has %lld", pa_ssb_query_name(q),
                      (long long)r.nrows, (long long)m);
        for (int64_t i = 0; i < m; i++) {
            int64_t j = 0;
            while (j < r.nrows && memcmp(&r.groups[j * 3], want[i].g, sizeof want[i].g) != 0)
                j++;
            ck_assert_msg(j < r.nrows, "%s: group (%d, %d, %d) missing", pa_ssb_query_name(q), want[i].g[0],
                          want[i].g[1], want[i].g[2]);
            ck_assert_msg(r.values[j] == want[i].v, "%s: group %lld sums %lld, the reference %lld",
                          pa_ssb_query_name(q), (long long)j, (long long)r.values[j], (long long)want[i].v);
        }
        /* Sorted as the query's ORDER BY says; the same with one thread. */
        for (int64_t j = 1; j < r.nrows; j++) {
            const int32_t *a = &r.groups[(j - 1) * 3], *b = &r.groups[j * 3];
            if (q >= 6 && q <= 9)
                ck_assert(a[2] < b[2] || (a[2] == b[2] && r.values[j - 1] >= r.values[j]));
            else
                ck_assert(memcmp(a, b, 12) != 0 && (a[0] < b[0] || (a[0] == b[0] && (a[1] < b[1] ||
                                                                                     (a[1] == b[1] && a[2] < b[2])))));
        }
        PA_CK_OK(pa_ssb_run_cpu(db, q, 1, &r1));
        ck_assert(pa_ssb_result_equal(&r, &r1, NULL, 0));
        pa_ssb_result_destroy(&r);
        pa_ssb_result_destroy(&r1);
    }
    free(want);
    pa_ssb_destroy(db);
}
END_TEST

START_TEST(bad_arguments)
{
    pa_ssb_db *db = NULL;
    pa_ssb_result r;
    ck_assert_int_eq(pa_ssb_generate(0, 1, 0, &db), PA_ERR_RANGE);
    ck_assert_int_eq(pa_ssb_generate(-1, 1, 0, &db), PA_ERR_RANGE);
    ck_assert_int_eq(pa_ssb_generate(1, 1, 0, NULL), PA_ERR_INVAL);
    ck_assert_ptr_null(db);
    db = gen(0.001, 1, 1);
    ck_assert_int_eq(pa_ssb_run_cpu(db, 13, 0, &r), PA_ERR_RANGE);
    ck_assert_int_eq(pa_ssb_run_cpu(db, -1, 0, &r), PA_ERR_RANGE);
    ck_assert_int_eq(pa_ssb_query_index("q3.4"), 9);
    ck_assert_int_eq(pa_ssb_query_index("4.3"), 12);
    ck_assert_int_eq(pa_ssb_query_index("q5.1"), -1);
    /* The group columns, as the queries' GROUP BY lists them; none for q1.x, NULL past the last. */
    ck_assert_ptr_null(pa_ssb_result_column(0, 0));
    ck_assert_str_eq(pa_ssb_result_column(pa_ssb_query_index("q2.1"), 1), "p_brand1");
    ck_assert_str_eq(pa_ssb_result_column(pa_ssb_query_index("q3.1"), 0), "c_nation");
    ck_assert_str_eq(pa_ssb_result_column(pa_ssb_query_index("q4.3"), 2), "p_brand1");
    ck_assert_ptr_null(pa_ssb_result_column(pa_ssb_query_index("q4.1"), 2));
    ck_assert_ptr_null(pa_ssb_result_column(12, 3));
    ck_assert_ptr_null(pa_ssb_result_column(13, 0));
    ck_assert_ptr_null(pa_ssb_result_column(-1, 0));
    /* The specification's SQL text of each query, with its group and order clauses. */
    ck_assert_ptr_nonnull(strstr(pa_ssb_query_sql(pa_ssb_query_index("q2.1")), "group by d_year, p_brand1"));
    ck_assert_ptr_nonnull(strstr(pa_ssb_query_sql(0), "lineorder"));
    ck_assert_ptr_null(pa_ssb_query_sql(13));
    ck_assert_int_eq(pa_ssb_fact_bytes(db, 0), pa_ssb_rows(db, PA_SSB_LINEORDER) * 16);
    ck_assert_int_eq(pa_ssb_fact_bytes(db, 12), pa_ssb_rows(db, PA_SSB_LINEORDER) * 24);
    pa_ssb_destroy(db);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("query_ssb");
    const struct {
        const char *name;
        const TTest *test;
    } tests[] = {{"cardinalities", cardinalities}, {"determinism", deterministic_whatever_the_threads},
                 {"value_ranges", value_ranges}, {"selectivities", selectivities},
                 {"queries", queries_match_the_reference}, {"bad_arguments", bad_arguments}};
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        TCase *tc = tcase_create(tests[i].name);
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, tests[i].test);
        suite_add_tcase(s, tc);
    }
    return pa_test_run(s);
}
