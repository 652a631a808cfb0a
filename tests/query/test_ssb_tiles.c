/*
 * Suite query_ssb_tiles: the tile engine (pa_ssb_run_cpu_tiles) gives every query the reference's result
 * (pa_ssb_run_cpu, itself checked against a brute force from the SQL in query_ssb), whatever the scale factor,
 * seed, thread count and variant, and on data outside the specification's domain: fact keys no dimension has,
 * dates inside a q1.x date range that the date table lacks, duplicate dimension keys, years far outside
 * 1992-1998, keys too sparse for a perfect hash (the reference runs them), tables smaller than one tile.
 * Also the variants' API.
 */
#include <stdlib.h>
#include <string.h>

#include "parray/ssb.h"
#include "testutil.h"

static int32_t *column(pa_ssb_db *db, const char *name, int64_t *n)
{
    int32_t *c = (int32_t *)pa_ssb_column(db, name, n);   /* the test's own database: changed in place */
    ck_assert_ptr_nonnull(c);
    return c;
}

/* Every query by both engines with nthreads threads: the same rows.  \return the rows over all queries. */
static int64_t same_as_reference(const pa_ssb_db *db, int nthreads, const char *what)
{
    int64_t rows = 0;
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa_ssb_result want, got;
        char why[200];
        memset(&got, 0xa5, sizeof got);   /* poisoned: every field must be written */
        PA_CK_OK(pa_ssb_run_cpu(db, q, nthreads, &want));
        PA_CK_OK(pa_ssb_run_cpu_tiles(db, q, nthreads, &got));
        ck_assert_int_eq(got.query, q);
        ck_assert_msg(pa_ssb_result_equal(&want, &got, why, sizeof why), "%s, %s, %d threads: %s", what,
                      pa_ssb_query_name(q), nthreads, why);
        rows += got.nrows;
        pa_ssb_result_destroy(&want);
        pa_ssb_result_destroy(&got);
    }
    return rows;
}

START_TEST(generated_data)
{
    static const struct {
        double sf;
        uint64_t seed;
    } cases[] = {{0.02, 3}, {0.06, 11}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        pa_ssb_db *db = NULL;
        PA_CK_OK(pa_ssb_generate(cases[c].sf, cases[c].seed, 0, &db));
        for (int v = PA_SSB_VARIANT_COMMON; v <= PA_SSB_VARIANT_ONEIL; v++) {
            PA_CK_OK(pa_ssb_set_variant(db, (pa_ssb_variant)v));
            const int threads[] = {1, 3, 0};
            for (int t = 0; t < 3; t++) {
                int64_t rows = same_as_reference(db, threads[t], v ? "oneil" : "common");
                ck_assert_msg(rows > 500, "only %lld rows over the 13 queries: too few to say much", (long long)rows);
            }
        }
        pa_ssb_destroy(db);
    }
}
END_TEST

/* Fewer rows than one tile, and more threads than tiles (threads with nothing to do). */
START_TEST(tiny)
{
    pa_ssb_db *db = NULL;
    PA_CK_OK(pa_ssb_generate(0.0003, 2, 1, &db));
    ck_assert_int_lt(pa_ssb_rows(db, PA_SSB_LINEORDER), 4 * 2048);
    same_as_reference(db, 1, "tiny");
    same_as_reference(db, 7, "tiny");
    pa_ssb_destroy(db);
}
END_TEST

/*
 * Fact keys that no dimension row has (0, negative, past the last key), dates inside q1.1's year that are not
 * dates (19930132: the q1.x range test alone would let them through), duplicate dimension keys (the last
 * passing row wins, as in the reference) and years outside 1992-1998 (one 40,000,000: ranked by sorting).
 */
START_TEST(odd_data)
{
    pa_ssb_db *db = NULL;
    int64_t nlo, np, nd, nc;
    PA_CK_OK(pa_ssb_generate(0.02, 17, 0, &db));
    int32_t *lp = column(db, "lo_partkey", &nlo), *lc = column(db, "lo_custkey", NULL);
    int32_t *od = column(db, "lo_orderdate", NULL), *disc = column(db, "lo_discount", NULL);
    int32_t *qty = column(db, "lo_quantity", NULL);
    int32_t *pk = column(db, "p_partkey", &np), *cat = column(db, "p_category", NULL);
    int32_t *year = column(db, "d_year", &nd), *ck = column(db, "c_custkey", &nc);
    int64_t fake = 0;
    for (int64_t i = 0; i < nlo; i += 7) {
        lp[i] = i % 3 == 0 ? 0 : i % 3 == 1 ? -5 : (int32_t)np + 100;
        if (i % 2) {
            od[i] = 19930132;   /* passes q1.1's filters but for the date */
            disc[i] = 2;
            qty[i] = 10;
            fake++;
        }
        if (i % 5 == 0)
            lc[i] = INT32_MAX;
    }
    /* Part keys 1..10 appear twice: the copies (rows np-10 .. np-1) take their key with another category. */
    for (int64_t i = np - 10; i < np; i++) {
        pk[i] = (int32_t)(i - (np - 10) + 1);
        cat[i] = (cat[i] + 1) % 25;
    }
    /* Customer keys 2..6 appear twice, the copy later. */
    for (int64_t i = nc - 5; i < nc; i++)
        ck[i] = (int32_t)(i - (nc - 5) + 2);
    for (int64_t i = 0; i < nd; i++)
        year[i] = year[i] == 1996 ? 1985 : year[i] == 1998 && i % 3 == 0 ? 40000000 : year[i];
    ck_assert_int_gt(fake, 100);
    same_as_reference(db, 2, "odd data");
    pa_ssb_destroy(db);
}
END_TEST

/* Keys spread over the whole int32 range: no perfect hash; the reference runs them, with the same results. */
START_TEST(sparse_keys)
{
    pa_ssb_db *db = NULL;
    int64_t np, nlo;
    PA_CK_OK(pa_ssb_generate(0.005, 9, 0, &db));
    int32_t *pk = column(db, "p_partkey", &np), *lp = column(db, "lo_partkey", &nlo);
    for (int64_t i = 0; i < nlo; i++)
        lp[i] = lp[i] == np ? INT32_MAX : lp[i] == 1 ? INT32_MIN : lp[i];
    for (int64_t i = 0; i < np; i++)
        pk[i] = pk[i] == np ? INT32_MAX : pk[i] == 1 ? INT32_MIN : pk[i];
    same_as_reference(db, 0, "sparse keys");
    pa_ssb_destroy(db);
}
END_TEST

START_TEST(bad_arguments)
{
    pa_ssb_db *db = NULL;
    pa_ssb_result r;
    PA_CK_OK(pa_ssb_generate(0.001, 1, 1, &db));
    ck_assert_int_eq(pa_ssb_run_cpu_tiles(db, 13, 0, &r), PA_ERR_RANGE);
    ck_assert_int_eq(pa_ssb_run_cpu_tiles(db, -1, 0, &r), PA_ERR_RANGE);
    ck_assert_int_eq(pa_ssb_run_cpu_tiles(db, 0, -3, &r), PA_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "-3 threads"));
    ck_assert_int_eq(pa_ssb_run_cpu_tiles(NULL, 0, 0, &r), PA_ERR_INVAL);
    ck_assert_int_eq(pa_ssb_run_cpu_tiles(db, 0, 0, NULL), PA_ERR_INVAL);
    pa_ssb_destroy(db);
}
END_TEST

/* The variants: q1.3's quantities and q2.3's brand differ, in the SQL text and in the results. */
START_TEST(variants)
{
    pa_ssb_db *db = NULL;
    PA_CK_OK(pa_ssb_generate(0.05, 4, 0, &db));
    ck_assert_int_eq(pa_ssb_db_variant(db), PA_SSB_VARIANT_COMMON);
    ck_assert_int_eq(pa_ssb_db_variant(NULL), PA_SSB_VARIANT_COMMON);
    ck_assert_int_eq(pa_ssb_set_variant(db, (pa_ssb_variant)2), PA_ERR_RANGE);
    ck_assert_int_eq(pa_ssb_set_variant(NULL, PA_SSB_VARIANT_ONEIL), PA_ERR_INVAL);
    ck_assert_int_eq(pa_ssb_db_variant(db), PA_SSB_VARIANT_COMMON);
    int q13 = pa_ssb_query_index("q1.3"), q23 = pa_ssb_query_index("q2.3");
    ck_assert_ptr_nonnull(strstr(pa_ssb_query_sql_variant(q13, PA_SSB_VARIANT_ONEIL), "between 36 and 40"));
    ck_assert_ptr_nonnull(strstr(pa_ssb_query_sql_variant(q13, PA_SSB_VARIANT_COMMON), "between 26 and 35"));
    ck_assert_ptr_nonnull(strstr(pa_ssb_query_sql_variant(q23, PA_SSB_VARIANT_ONEIL), "'MFGR#2221'"));
    ck_assert_ptr_nonnull(strstr(pa_ssb_query_sql_variant(q23, PA_SSB_VARIANT_COMMON), "'MFGR#2239'"));
    ck_assert_str_eq(pa_ssb_query_sql_variant(0, PA_SSB_VARIANT_ONEIL), pa_ssb_query_sql(0));
    ck_assert_ptr_null(pa_ssb_query_sql_variant(13, PA_SSB_VARIANT_ONEIL));
    ck_assert_ptr_null(pa_ssb_query_sql_variant(0, (pa_ssb_variant)5));
    pa_ssb_result common, oneil;
    PA_CK_OK(pa_ssb_run_cpu_tiles(db, q23, 0, &common));
    PA_CK_OK(pa_ssb_set_variant(db, PA_SSB_VARIANT_ONEIL));
    ck_assert_int_eq(pa_ssb_db_variant(db), PA_SSB_VARIANT_ONEIL);
    PA_CK_OK(pa_ssb_run_cpu_tiles(db, q23, 0, &oneil));
    ck_assert_int_gt(common.nrows, 0);
    ck_assert_int_gt(oneil.nrows, 0);
    ck_assert_int_eq(common.groups[1], pa_ssb_dict_code(db, "p_brand1", "MFGR#2239"));
    ck_assert_int_eq(oneil.groups[1], pa_ssb_dict_code(db, "p_brand1", "MFGR#2221"));
    pa_ssb_result_destroy(&common);
    pa_ssb_result_destroy(&oneil);
    /* q1.3 by brute force in the O'Neil variant: week 6 of 1994, discount 5..7, quantity 36..40. */
    int64_t nlo, nd;
    const int32_t *od = pa_ssb_column(db, "lo_orderdate", &nlo), *disc = pa_ssb_column(db, "lo_discount", NULL);
    const int32_t *qty = pa_ssb_column(db, "lo_quantity", NULL), *ext = pa_ssb_column(db, "lo_extendedprice", NULL);
    const int32_t *dk = pa_ssb_column(db, "d_datekey", &nd), *wk = pa_ssb_column(db, "d_weeknuminyear", NULL);
    const int32_t *yr = pa_ssb_column(db, "d_year", NULL);
    int64_t want = 0;
    for (int64_t i = 0; i < nlo; i++) {
        if (disc[i] < 5 || disc[i] > 7 || qty[i] < 36 || qty[i] > 40)
            continue;
        for (int64_t d = 0; d < nd; d++)
            if (dk[d] == od[i] && wk[d] == 6 && yr[d] == 1994)
                want += (int64_t)ext[i] * disc[i];
    }
    ck_assert_int_gt(want, 0);
    PA_CK_OK(pa_ssb_run_cpu_tiles(db, q13, 0, &oneil));
    ck_assert_int_eq(oneil.nrows, 1);
    ck_assert_int_eq(oneil.values[0], want);
    pa_ssb_result_destroy(&oneil);
    double m, s, t;
    PA_CK_OK(pa_ssb_selectivity(db, q13, 0, &m, &s, &t));
    ck_assert_double_eq_tol(s, 7 / 2557.0 * 3 / 11.0 * 5 / 50.0, 1e-12);
    pa_ssb_destroy(db);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("query_ssb_tiles");
    TCase *tc = tcase_create("tiles");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, generated_data);
    tcase_add_test(tc, tiny);
    tcase_add_test(tc, odd_data);
    tcase_add_test(tc, sparse_keys);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, variants);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
