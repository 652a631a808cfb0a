/*
 * Suite query_ssb_input: the SSB engine's bad and unusual input (issue 27).  Each class gets a clear error and
 * nothing half-done, or (data outside the specification's domain) the right answer:
 *   - columnar manifests whose row counts are huge (2^61, 2^62 plus the real rows, INT64_MAX): refused before
 *     any arithmetic, never read out of bounds;
 *   - a FIFO in place of a column file or a .tbl file: refused at once, not waited on;
 *   - .tbl files that are empty, cut inside their last field, without their last '|' and newline, or with a NUL;
 *   - NULL and malformed arguments to the result API; negative thread counts;
 *   - years outside 1992-1998 in the date table: groups and totals checked against a brute-force reference;
 *   - dimension keys so sparse that a dense lookup would cover 2^32 entries: the same results as dense keys.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include <parray/ssb.h>

#define FIXTURE SRCDIR "/query/tbl"

static char dir[256];

static void mkdir_tmp(void)
{
    snprintf(dir, sizeof dir, "/tmp/pa_ssb_input_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void rm_tmp(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void sh(const char *fmt)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, fmt, dir, dir, dir);
    ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

static void expect(int rc, int status, const char *text, const char *what)
{
    ck_assert_msg(rc == status, "%s: status %s (%s), wanted %s", what, pa_status_name(rc), pa_last_error(),
                  pa_status_name(status));
    ck_assert_msg(strstr(pa_last_error(), text) != NULL, "%s: message '%s' lacks '%s'", what, pa_last_error(), text);
}

/* ---- the columnar reader ---------------------------------------------------------------------------------- */

/* Rewrites the manifest: every lineorder count (its table line and its columns' lines) becomes f(count). */
static void manifest_counts(uint64_t add, int set_max)
{
    char path[300], line[512], *text = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/ssb.manifest", dir);
    FILE *in = fopen(path, "r"), *out = open_memstream(&text, &len);
    ck_assert(in && out);
    while (fgets(line, sizeof line, in)) {
        char kind[16], name[64], rest[64] = "";
        unsigned long long n;
        if (sscanf(line, "%15s %63s %llu %63s", kind, name, &n, rest) >= 3 &&
            (strcmp(name, "lineorder") == 0 || strncmp(name, "lo_", 3) == 0) && strcmp(kind, "dict") != 0) {
            uint64_t m = set_max ? (uint64_t)INT64_MAX : n + add;
            fprintf(out, "%s %s %" PRIu64 "%s%s\n", kind, name, m, rest[0] ? " " : "", rest);
        } else {
            fputs(line, out);
        }
    }
    fclose(in);
    fclose(out);
    in = fopen(path, "w");
    ck_assert_ptr_nonnull(in);
    fwrite(text, 1, len, in);
    fclose(in);
    free(text);
}

START_TEST(manifest_huge_rows)
{
    static const struct {
        uint64_t add;
        int set_max;
    } cases[] = {{UINT64_C(1) << 61, 0}, {UINT64_C(1) << 62, 0}, {UINT64_C(3) << 62, 0}, {0, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pa_ssb_db *db = NULL, *back = NULL;
        mkdir_tmp();
        PA_CK_OK(pa_ssb_generate(0.001, 3, 1, &db));
        PA_CK_OK(pa_ssb_write(db, dir));
        pa_ssb_destroy(db);
        manifest_counts(cases[i].add, cases[i].set_max);
        int rc = pa_ssb_read(dir, &back);
        /* 2^62 (and 3 x 2^62) plus the real count times 4 wraps to the real file size: the count itself is refused. */
        expect(rc, PA_ERR_RANGE, "ssb.manifest line 4", "a huge lineorder count");
        ck_assert_msg(strstr(pa_last_error(), "0 .. 1099511627776"), "%s", pa_last_error());
        ck_assert_ptr_null(back);
        rm_tmp();
    }
}
END_TEST

START_TEST(fifo_column)
{
    pa_ssb_db *db = NULL, *back = NULL;
    mkdir_tmp();
    PA_CK_OK(pa_ssb_generate(0.001, 3, 1, &db));
    PA_CK_OK(pa_ssb_write(db, dir));
    pa_ssb_destroy(db);
    sh("rm %s/lo_tax.i32 && mkfifo %s/lo_tax.i32");
    alarm(60);
    int rc = pa_ssb_read(dir, &back);
    alarm(0);
    expect(rc, PA_ERR_INVAL, "lo_tax.i32 is a FIFO, not a regular file", "a FIFO column");
    ck_assert_ptr_null(back);
    rm_tmp();
}
END_TEST

/* ---- the .tbl loader --------------------------------------------------------------------------------------- */

static void bad_tbl(const char *cmd, int status, const char *text)
{
    pa_ssb_db *db = NULL;
    mkdir_tmp();
    sh("cp " FIXTURE "/*.tbl '%s'");
    sh(cmd);
    alarm(60);
    int rc = pa_ssb_load_tbl(dir, 1, &db);
    alarm(0);
    expect(rc, status, text, cmd);
    ck_assert_ptr_null(db);
    rm_tmp();
}

START_TEST(tbl_truncated)
{
    bad_tbl(": > %s/date.tbl", PA_ERR_PARSE, "date.tbl is empty");
    bad_tbl(": > %s/lineorder.tbl", PA_ERR_PARSE, "lineorder.tbl is empty");
    /* Cut inside the last field ("MAIL|\n" -> "MA"): once a new dictionary entry "MA" was made of it. */
    bad_tbl("truncate -s -4 %s/lineorder.tbl", PA_ERR_PARSE, "lineorder.tbl line 4: no end of line");
    /* The last line without its final '|' and newline. */
    bad_tbl("truncate -s -2 %s/supplier.tbl", PA_ERR_PARSE, "supplier.tbl line 2: no end of line");
    /* Without the '|' only: unlike the rows before it. */
    bad_tbl("sed -i '$s/|$//' %s/customer.tbl", PA_ERR_PARSE, "customer.tbl line 3: no '|' after the last field");
    bad_tbl("printf 'x\\000y|\\n' >> %s/part.tbl", PA_ERR_PARSE, "part.tbl line 3: a NUL byte");
    /* An empty first line is a row of one field, not the row that says whether rows end with '|'. */
    bad_tbl("sed -i '1i\\\\' %s/part.tbl", PA_ERR_PARSE, "part.tbl line 1: 1 fields");
    bad_tbl("rm %s/date.tbl && mkfifo %s/date.tbl", PA_ERR_INVAL, "date.tbl is a FIFO");
    bad_tbl("rm %s/date.tbl && mkdir %s/date.tbl", PA_ERR_INVAL, "date.tbl is a directory");
}
END_TEST

/* ---- the result API and thread counts ---------------------------------------------------------------------- */

START_TEST(result_api_null)
{
    pa_ssb_db *db = NULL;
    pa_ssb_result r, bad;
    char why[128] = "";
    PA_CK_OK(pa_ssb_load_tbl(FIXTURE, 0.0001, &db));
    PA_CK_OK(pa_ssb_run_cpu(db, 3, 1, &r));
    FILE *null = fopen("/dev/null", "w");
    expect(pa_ssb_result_print(NULL, &r, null), PA_ERR_INVAL, "NULL database", "print with no db");
    expect(pa_ssb_result_print(db, NULL, null), PA_ERR_INVAL, "the result is NULL", "print of NULL");
    expect(pa_ssb_result_print(db, &r, NULL), PA_ERR_INVAL, "NULL file", "print to NULL");
    bad = r;
    bad.ngroups = 9;
    expect(pa_ssb_result_print(db, &bad, null), PA_ERR_INVAL, "malformed", "print of 9 groups");
    bad = r;
    bad.query = -3;
    expect(pa_ssb_result_print(db, &bad, null), PA_ERR_INVAL, "no query", "print of query -3");
    bad = r;
    bad.values = NULL;
    expect(pa_ssb_result_print(db, &bad, null), PA_ERR_INVAL, "NULL rows", "print of NULL rows");
    fclose(null);
    ck_assert_int_eq(pa_ssb_result_equal(NULL, &r, why, sizeof why), 0);
    ck_assert_str_eq(why, "result a is NULL");
    ck_assert_int_eq(pa_ssb_result_equal(&r, NULL, NULL, 0), 0);
    bad = r;
    bad.nrows = -1;
    ck_assert_int_eq(pa_ssb_result_equal(&r, &bad, why, sizeof why), 0);
    ck_assert_msg(strstr(why, "result b is malformed"), "%s", why);
    ck_assert_int_eq(pa_ssb_result_equal(&r, &r, why, sizeof why), 1);
    pa_ssb_result_destroy(&r);
    pa_ssb_destroy(db);
}
END_TEST

START_TEST(negative_threads)
{
    pa_ssb_db *db = NULL;
    pa_ssb_result r;
    double m, s, t;
    expect(pa_ssb_generate(0.001, 1, -1, &db), PA_ERR_RANGE, "-1 threads", "generate");
    ck_assert_ptr_null(db);
    PA_CK_OK(pa_ssb_load_tbl(FIXTURE, 0.0001, &db));
    expect(pa_ssb_run_cpu(db, 0, -5, &r), PA_ERR_RANGE, "-5 threads", "run_cpu");
    expect(pa_ssb_selectivity(db, 0, -2, &m, &s, &t), PA_ERR_RANGE, "-2 threads", "selectivity");
    pa_ssb_destroy(db);
}
END_TEST

/* ---- data outside the specification's domain --------------------------------------------------------------- */

static int32_t *column(pa_ssb_db *db, const char *name, int64_t *n)
{
    int32_t *c = (int32_t *)pa_ssb_column(db, name, n);   /* the test's own database: changed in place */
    ck_assert_ptr_nonnull(c);
    return c;
}

/* The row of key k in a dimension's key column (-1: none). */
static int64_t find(const int32_t *keys, int64_t n, int32_t k)
{
    for (int64_t i = 0; i < n; i++)
        if (keys[i] == k)
            return i;
    return -1;
}

typedef struct grp {
    int32_t g[2];
    int64_t v;
} grp;

static int cmp_grp(const void *a, const void *b)
{
    const grp *x = a, *y = b;
    for (int i = 0; i < 2; i++)
        if (x->g[i] != y->g[i])
            return x->g[i] < y->g[i] ? -1 : 1;
    return 0;
}

/*
 * q2.1 by brute force: sum(lo_revenue) group by d_year, p_brand1 where p_category = 'MFGR#12' and s_region =
 * 'AMERICA', ordered by d_year, p_brand1; compared with pa_ssb_run_cpu row by row.  \return the rows.
 */
static int64_t check_q21(pa_ssb_db *db)
{
    int64_t nlo, nd, np, ns;
    const int32_t *od = column(db, "lo_orderdate", &nlo), *pk = column(db, "lo_partkey", NULL);
    const int32_t *sk = column(db, "lo_suppkey", NULL), *rev = column(db, "lo_revenue", NULL);
    const int32_t *dk = column(db, "d_datekey", &nd), *year = column(db, "d_year", NULL);
    const int32_t *pkey = column(db, "p_partkey", &np), *cat = column(db, "p_category", NULL);
    const int32_t *brand = column(db, "p_brand1", NULL);
    const int32_t *skey = column(db, "s_suppkey", &ns), *region = column(db, "s_region", NULL);
    int32_t c12 = pa_ssb_dict_code(db, "p_category", "MFGR#12"), am = pa_ssb_dict_code(db, "s_region", "AMERICA");
    grp *g = calloc(4096, sizeof *g);
    int64_t ng = 0;
    for (int64_t i = 0; i < nlo; i++) {
        int64_t d = find(dk, nd, od[i]), p = find(pkey, np, pk[i]), s = find(skey, ns, sk[i]);
        if (d < 0 || p < 0 || s < 0 || cat[p] != c12 || region[s] != am)
            continue;
        grp key = {{year[d], brand[p]}, 0};
        int64_t k = 0;
        while (k < ng && cmp_grp(&g[k], &key) != 0)
            k++;
        if (k == ng) {
            ck_assert_int_lt(ng, 4096);
            g[ng++] = key;
        }
        g[k].v += rev[i];
    }
    qsort(g, (size_t)ng, sizeof *g, cmp_grp);
    pa_ssb_result r;
    PA_CK_OK(pa_ssb_run_cpu(db, pa_ssb_query_index("q2.1"), 2, &r));
    ck_assert_int_eq(r.nrows, ng);
    for (int64_t k = 0; k < ng; k++) {
        ck_assert_msg(r.groups[k * 3] == g[k].g[0] && r.groups[k * 3 + 1] == g[k].g[1] && r.values[k] == g[k].v,
                      "row %lld: %d %d %lld, wanted %d %d %lld", (long long)k, r.groups[k * 3], r.groups[k * 3 + 1],
                      (long long)r.values[k], g[k].g[0], g[k].g[1], (long long)g[k].v);
    }
    pa_ssb_result_destroy(&r);
    free(g);
    return ng;
}

/* Years outside 1992-1998 (1985, 2003, and one far away): once these rows vanished or were counted twice. */
START_TEST(years_outside_spec)
{
    pa_ssb_db *db = NULL;
    int64_t nd;
    PA_CK_OK(pa_ssb_generate(0.01, 5, 0, &db));
    int32_t *year = column(db, "d_year", &nd);
    for (int64_t i = 0; i < nd; i++)
        year[i] = year[i] == 1992 ? 1985 : year[i] == 1998 ? 2003 : year[i] == 1995 && i % 2 ? 40000 : year[i];
    int64_t rows = check_q21(db);
    ck_assert_msg(rows > 40, "only %lld groups: too few to say much", (long long)rows);
    /* q3.1 keeps 1992..1997: with 1992 gone to 1985 no row of 1985 may appear, nor any of 2003. */
    pa_ssb_result r;
    PA_CK_OK(pa_ssb_run_cpu(db, pa_ssb_query_index("q3.1"), 0, &r));
    ck_assert_int_gt(r.nrows, 0);
    for (int64_t k = 0; k < r.nrows; k++)
        ck_assert_msg(r.groups[k * 3 + 2] >= 1993 && r.groups[k * 3 + 2] <= 1997, "q3.1 row %lld: year %d",
                      (long long)k, r.groups[k * 3 + 2]);
    pa_ssb_result_destroy(&r);
    pa_ssb_destroy(db);
}
END_TEST

/* Keys relabelled sparsely (parts at INT32_MIN .. INT32_MAX, customers negative, suppliers 4e7 apart): a dense
 * lookup would span 2^32 entries (16 GiB); the hash table gives every query the same result as before. */
START_TEST(sparse_keys)
{
    pa_ssb_db *db = NULL;
    pa_ssb_result before[PA_SSB_NQUERIES];
    PA_CK_OK(pa_ssb_generate(0.005, 9, 0, &db));
    for (int q = 0; q < PA_SSB_NQUERIES; q++)
        PA_CK_OK(pa_ssb_run_cpu(db, q, 0, &before[q]));
    int64_t np, nc, ns, nlo;
    int32_t *pk = column(db, "p_partkey", &np), *ck = column(db, "c_custkey", &nc), *sk = column(db, "s_suppkey", &ns);
    int32_t *lp = column(db, "lo_partkey", &nlo), *lc = column(db, "lo_custkey", NULL);
    int32_t *ls = column(db, "lo_suppkey", NULL);
    /* Generated keys are 1..n: part k -> k * step + INT32_MIN, the last at INT32_MAX exactly. */
    int64_t step = ((int64_t)INT32_MAX - INT32_MIN) / (np - 1);
#define PART(k) ((k) == np ? INT32_MAX : (int32_t)(((int64_t)(k) - 1) * step + INT32_MIN))
    for (int64_t i = 0; i < nlo; i++) {
        lp[i] = PART(lp[i]);
        lc[i] = -3 * lc[i];
        ls[i] = 40000000 * ls[i];
    }
    for (int64_t i = 0; i < np; i++)
        pk[i] = PART(pk[i]);
#undef PART
    for (int64_t i = 0; i < nc; i++)
        ck[i] = -3 * ck[i];
    for (int64_t i = 0; i < ns; i++)
        sk[i] = 40000000 * sk[i];
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa_ssb_result r;
        char why[160];
        PA_CK_OK(pa_ssb_run_cpu(db, q, 0, &r));
        ck_assert_msg(pa_ssb_result_equal(&before[q], &r, why, sizeof why), "%s: %s", pa_ssb_query_name(q), why);
        pa_ssb_result_destroy(&r);
        pa_ssb_result_destroy(&before[q]);
    }
    check_q21(db);
    pa_ssb_destroy(db);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("query_ssb_input");
    TCase *tc = tcase_create("input");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, manifest_huge_rows);
    tcase_add_test(tc, fifo_column);
    tcase_add_test(tc, tbl_truncated);
    tcase_add_test(tc, result_api_null);
    tcase_add_test(tc, negative_threads);
    tcase_add_test(tc, years_outside_spec);
    tcase_add_test(tc, sparse_keys);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
