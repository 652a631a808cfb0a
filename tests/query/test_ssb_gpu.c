/*
 * Suite query_ssb_gpu (skipped without a GPU): the block-wide primitives of <parray/query/block.h> on small
 * tiles with a partial last tile (kernels in block_kernels.cu) against references computed here, and the 13
 * SSB queries on the GPU (NVRTC kernels) against the CPU's results.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <parray/ssb.h>

int pa_test_qb_select(const int *col, int n, int lo, int hi, int alt, int *out, int *nout, int *counts);
int pa_test_qb_direct_sum(const int *col, int n, int limit, int *copy, long long *sum);
int pa_test_qb_hash(int open, int kmin, int size, const int *keys, const int *vals, int n, const int *probe, int np,
                    int *out, int *semi);
int pa_test_qb_group(const int *gkeys, const int *vals, int n, int ngroups, long long *dense, int osize, int *okeys,
                     long long *osums, int *full);
int pa_test_qb_scan(const int *in, int *out, int *total);

#define EMPTY (-2147483647 - 1)

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

START_TEST(select_predicates)
{
    pa_rng r = {pa_test_seed("query_ssb_gpu select")};
    int n = 1000 + (int)pa_rng_range(&r, 0, 191);   /* tiles of 192 rows: the last one partial */
    int *col = malloc(n * sizeof *col), *out = malloc(n * sizeof *out), *want = malloc(n * sizeof *want);
    int nout = -1, counts[2], m = 0;
    for (int i = 0; i < n; i++)
        col[i] = (int)pa_rng_range(&r, 0, 99);
    for (int i = 0; i < n; i++)
        out[i] = -7;
    ck_assert_int_eq(pa_test_qb_select(col, n, 20, 40, 77, out, &nout, counts), 0);
    for (int i = 0; i < n; i++)
        if ((col[i] >= 20 && col[i] <= 40) || col[i] == 77)
            want[m++] = col[i];
    ck_assert_int_eq(nout, m);
    ck_assert_int_eq(counts[0], m);
    ck_assert_int_eq(counts[1], m);
    ck_assert_int_eq(out[m < n ? m : n - 1] == -7 || m == n, 1);   /* nothing written past the selection */
    qsort(out, (size_t)m, sizeof *out, cmp_int);
    qsort(want, (size_t)m, sizeof *want, cmp_int);
    for (int i = 0; i < m; i++)
        ck_assert_msg(out[i] == want[i], "selected item %d: %d, wanted %d", i, out[i], want[i]);
    free(col);
    free(out);
    free(want);
}
END_TEST

START_TEST(direct_load_and_sum)
{
    pa_rng r = {pa_test_seed("query_ssb_gpu direct")};
    int n = 777, *col = malloc(n * sizeof *col), *copy = malloc(n * sizeof *copy);
    long long sum = -1, want = 0;
    for (int i = 0; i < n; i++) {
        col[i] = (int)pa_rng_range(&r, -1000, 1000);
        copy[i] = 0x5a5a5a5a;
        want += col[i] < 500 ? col[i] : 0;
    }
    ck_assert_int_eq(pa_test_qb_direct_sum(col, n, 500, copy, &sum), 0);
    for (int i = 0; i < n; i++)
        ck_assert_msg(copy[i] == col[i], "row %d: %d, wanted %d", i, copy[i], col[i]);
    ck_assert_int_eq(sum, want);
    free(col);
    free(copy);
}
END_TEST

static void hash_case(int open)
{
    pa_rng r = {pa_test_seed(open ? "query_ssb_gpu open addressing" : "query_ssb_gpu perfect hashing")};
    int n = 500, np = 900, kmin = 1000, size = open ? 1024 : 1200;
    int *keys = malloc(n * 4), *vals = malloc(n * 4), *probe = malloc(np * 4), *out = malloc(np * 4);
    int *semi = malloc(np * 4);
    /* Distinct keys: perfect hashing over [1000, 2200) takes every other key of a shuffled range; open
     * addressing sparse ones. */
    for (int i = 0; i < n; i++)
        keys[i] = open ? i * 7919 + 13 : kmin + 2 * i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)pa_rng_range(&r, 0, i), t = keys[i];
        keys[i] = keys[j];
        keys[j] = t;
    }
    for (int i = 0; i < n; i++)
        vals[i] = (int)pa_rng_range(&r, 0, 1 << 20);
    for (int i = 0; i < np; i++)
        probe[i] = i % 3 == 0 ? keys[pa_rng_range(&r, 0, n - 1)]
                   : open     ? (int)pa_rng_range(&r, 0, 1 << 24)
                              : kmin + (int)pa_rng_range(&r, -50, size + 50);
    ck_assert_int_eq(pa_test_qb_hash(open, kmin, size, keys, vals, n, probe, np, out, semi), 0);
    for (int i = 0; i < np; i++) {
        int want = EMPTY;
        for (int j = 0; j < n; j++)
            if (keys[j] == probe[i])
                want = vals[j];
        ck_assert_msg(out[i] == want, "probe %d of key %d: %d, wanted %d", i, probe[i], out[i], want);
        ck_assert_int_eq(semi[i], want != EMPTY);
    }
    free(keys);
    free(vals);
    free(probe);
    free(out);
    free(semi);
}

START_TEST(hash_perfect)
{
    hash_case(0);
}
END_TEST

START_TEST(hash_open_addressing)
{
    hash_case(1);
}
END_TEST

START_TEST(group_by)
{
    pa_rng r = {pa_test_seed("query_ssb_gpu group-by")};
    enum { N = 5000, G = 37, OSIZE = 64 };
    int *g = malloc(N * 4), *v = malloc(N * 4), okeys[OSIZE], full = -1;
    long long dense[G], osums[OSIZE], want[G] = {0};
    for (int i = 0; i < N; i++) {
        g[i] = (int)pa_rng_range(&r, 0, G - 1);
        v[i] = (int)pa_rng_range(&r, -100000, 100000);
        want[g[i]] += v[i];
    }
    ck_assert_int_eq(pa_test_qb_group(g, v, N, G, dense, OSIZE, okeys, osums, &full), 0);
    ck_assert_int_eq(full, 0);
    int found = 0;
    for (int k = 0; k < G; k++)
        ck_assert_msg(dense[k] == want[k], "dense group %d: %lld, wanted %lld", k, dense[k], want[k]);
    for (int s = 0; s < OSIZE; s++)
        if (okeys[s] != EMPTY) {
            ck_assert(okeys[s] >= 0 && okeys[s] < G);
            ck_assert_msg(osums[s] == want[okeys[s]], "open group %d: %lld, wanted %lld", okeys[s], osums[s],
                          want[okeys[s]]);
            found++;
        }
    ck_assert_int_eq(found, G);
    free(g);
    free(v);
}
END_TEST

START_TEST(block_scan)
{
    int in[64], out[64], total = -1, run = 0;
    for (int i = 0; i < 64; i++)
        in[i] = (i * 7) % 5;
    ck_assert_int_eq(pa_test_qb_scan(in, out, &total), 0);
    for (int i = 0; i < 64; i++) {
        ck_assert_int_eq(out[i], run);
        run += in[i];
    }
    ck_assert_int_eq(total, run);
}
END_TEST

START_TEST(queries_match_the_cpu)
{
    pa_ssb_db *db = NULL;
    pa_ssb_gpu *g = NULL;
    PA_CK_OK(pa_ssb_generate(0.05, 17, 0, &db));
    PA_CK_OK(pa_ssb_gpu_create(db, &g));
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa_ssb_result a, b;
        char why[256];
        PA_CK_OK(pa_ssb_run_cpu(db, q, 0, &a));
        PA_CK_OK(pa_ssb_gpu_run(g, q, &b, NULL));
        ck_assert_msg(pa_ssb_result_equal(&b, &a, why, sizeof why), "%s: gpu vs cpu: %s", pa_ssb_query_name(q), why);
        ck_assert_msg(a.nrows > 0 || q == 9 || q == 8, "%s: no rows at all", pa_ssb_query_name(q));
        /* Queued without waiting, then waited for and read: the same result. */
        pa_ssb_result c;
        PA_CK_OK(pa_ssb_gpu_launch(g, q, NULL));
        PA_CK_OK(pa_ssb_gpu_result(g, q, &c));
        ck_assert_msg(pa_ssb_result_equal(&c, &a, why, sizeof why), "%s: launch/result vs cpu: %s",
                      pa_ssb_query_name(q), why);
        pa_ssb_result_destroy(&a);
        pa_ssb_result_destroy(&b);
        pa_ssb_result_destroy(&c);
    }
    pa_ssb_gpu_destroy(g);
    pa_ssb_destroy(db);
}
END_TEST

/* The test's own database, changed in place through its columns. */
static int32_t *column(pa_ssb_db *db, const char *name, int64_t *n)
{
    int32_t *c = (int32_t *)pa_ssb_column(db, name, n);
    ck_assert_ptr_nonnull(c);
    return c;
}

/*
 * Data outside the specification's domain (issue 27): years 1985..2100 instead of 1992-1998 (then one far year,
 * 40000), parts keyed from INT32_MIN to INT32_MAX, customers with negative keys, suppliers 4e7 apart.  The GPU
 * takes its group ranges from the data as the CPU does and hashes the sparse keys: every query agrees with the
 * CPU; a query whose groups pass the GPU's dense table (q3.2-q3.4 and q4.3 with the far year) is refused, not
 * miscounted.
 */
START_TEST(domain_outside_spec)
{
    pa_ssb_db *db = NULL;
    PA_CK_OK(pa_ssb_generate(0.02, 23, 0, &db));
    int64_t nd, np, nc, ns, nlo;
    int32_t *year = column(db, "d_year", &nd), *pk = column(db, "p_partkey", &np), *ck = column(db, "c_custkey", &nc);
    int32_t *sk = column(db, "s_suppkey", &ns), *lp = column(db, "lo_partkey", &nlo), *lc = column(db, "lo_custkey", NULL);
    int32_t *ls = column(db, "lo_suppkey", NULL);
    for (int64_t i = 0; i < nd; i++)
        year[i] = year[i] == 1992 ? 1985 : year[i] == 1998 ? 2003 : year[i] == 1995 && i % 2 ? 2100 : year[i];
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
    for (int far = 0; far < 2; far++) {
        if (far)
            year[nd / 2] = 40000;
        pa_ssb_gpu *g = NULL;
        PA_CK_OK(pa_ssb_gpu_create(db, &g));
        for (int q = 0; q < PA_SSB_NQUERIES; q++) {
            pa_ssb_result a, b;
            char why[256];
            PA_CK_OK(pa_ssb_run_cpu(db, q, 0, &a));
            int rc = pa_ssb_gpu_run(g, q, &b, NULL);
            /* With 40000: 38,016 years x 250 x 250 cities (q3.2-q3.4) or x 250 cities x 1,000 brands (q4.3). */
            if (far && (q == 7 || q == 8 || q == 9 || q == 12)) {
                ck_assert_msg(rc == PA_ERR_RANGE && strstr(pa_last_error(), "run it on the CPU"), "%s: %s",
                              pa_ssb_query_name(q), pa_last_error());
            } else {
                ck_assert_msg(rc == PA_OK, "%s: %s", pa_ssb_query_name(q), pa_last_error());
                ck_assert_msg(pa_ssb_result_equal(&b, &a, why, sizeof why), "%s%s: gpu vs cpu: %s",
                              pa_ssb_query_name(q), far ? " (year 40000)" : "", why);
                pa_ssb_result_destroy(&b);
            }
            pa_ssb_result_destroy(&a);
        }
        pa_ssb_gpu_destroy(g);
    }
    pa_ssb_destroy(db);
}
END_TEST

/* Every query of engine g equals the CPU's, by pa_ssb_gpu_run and by launch/result on a stream of the caller. */
static void engine_matches_cpu(const pa_ssb_db *db, pa_ssb_gpu *g, const char *what)
{
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa_ssb_result a, b, c;
        char why[256];
        memset(&b, 0xa5, sizeof b);
        PA_CK_OK(pa_ssb_run_cpu(db, q, 0, &a));
        PA_CK_OK(pa_ssb_gpu_run(g, q, &b, NULL));
        ck_assert_msg(pa_ssb_result_equal(&b, &a, why, sizeof why), "%s, %s: gpu vs cpu: %s", what,
                      pa_ssb_query_name(q), why);
        /* Twice in a row without waiting between: the second launch clears what the first summed. */
        PA_CK_OK(pa_ssb_gpu_launch(g, q, NULL));
        PA_CK_OK(pa_ssb_gpu_launch(g, q, NULL));
        PA_CK_OK(pa_ssb_gpu_result(g, q, &c));
        ck_assert_msg(pa_ssb_result_equal(&c, &a, why, sizeof why), "%s, %s: launch/result vs cpu: %s", what,
                      pa_ssb_query_name(q), why);
        pa_ssb_result_destroy(&a);
        pa_ssb_result_destroy(&b);
        pa_ssb_result_destroy(&c);
    }
}

/*
 * Streaming (issue 31): the columns in host memory, chunks far smaller than lineorder (1,000 rows asked: whole
 * tiles, so 1,024), 2 and 3 streams, then chosen by the automatic mode under a memory limit that holds the
 * dimensions but not lineorder; a resident engine refused under that limit; several parts on GPU 0 (resident
 * and streaming) splitting lineorder, their partial sums added.  All equal the CPU's results.
 */
START_TEST(streaming_and_parts)
{
    pa_ssb_db *db = NULL;
    PA_CK_OK(pa_ssb_generate(0.03, 29, 0, &db));
    for (int streams = 2; streams <= 3; streams++) {
        pa_ssb_gpu_config c = {.mode = PA_SSB_GPU_STREAM, .chunk_rows = 1000, .streams = streams};
        pa_ssb_gpu *g = NULL;
        PA_CK_OK(pa_ssb_gpu_create_with(db, &c, &g));
        ck_assert_int_eq(pa_ssb_gpu_get_mode(g), PA_SSB_GPU_STREAM);
        ck_assert_msg(strstr(pa_ssb_gpu_describe(g), "stream: 1 part") && strstr(pa_ssb_gpu_describe(g), "1024 rows"),
                      "%s", pa_ssb_gpu_describe(g));
        engine_matches_cpu(db, g, streams == 2 ? "stream, 2 streams" : "stream, 3 streams");
        pa_ssb_gpu_destroy(g);
    }
    /* Lineorder's 9 columns take rows x 36 bytes (43 MB at scale factor 0.2); 24 MB hold the dimensions, the
     * group table (q4.3's 7 x 250 x 1,000 slots, 14 MB) and 3 chunk buffers, not lineorder. */
    pa_ssb_db *big = NULL;
    PA_CK_OK(pa_ssb_generate(0.2, 37, 0, &big));
    pa_ssb_gpu_config lim = {.mem_limit = 24 << 20};
    ck_assert_int_gt(pa_ssb_rows(big, PA_SSB_LINEORDER) * 36, 24 << 20);
    pa_ssb_gpu *g = NULL;
    PA_CK_OK(pa_ssb_gpu_create_with(big, &lim, &g));
    ck_assert_msg(pa_ssb_gpu_get_mode(g) == PA_SSB_GPU_STREAM, "%s", pa_ssb_gpu_describe(g));
    engine_matches_cpu(big, g, "auto under 24 MB");
    pa_ssb_gpu_destroy(g);
    lim.mode = PA_SSB_GPU_RESIDENT;
    g = (pa_ssb_gpu *)0x1;
    ck_assert_int_eq(pa_ssb_gpu_create_with(big, &lim, &g), PA_ERR_NOMEM);
    ck_assert_msg(strstr(pa_last_error(), "allowed"), "%s", pa_last_error());
    ck_assert_ptr_eq(g, (pa_ssb_gpu *)0x1);
    lim.mem_limit = 1000;   /* not even the dimensions */
    lim.mode = PA_SSB_GPU_STREAM;
    ck_assert_int_eq(pa_ssb_gpu_create_with(big, &lim, &g), PA_ERR_NOMEM);
    pa_ssb_destroy(big);
    for (int mode = PA_SSB_GPU_RESIDENT; mode <= PA_SSB_GPU_STREAM; mode++) {
        pa_ssb_gpu_config c = {.mode = (pa_ssb_gpu_mode)mode, .chunk_rows = 5000, .ndevices = 3,
                               .devices = {0, 0, 0}};
        PA_CK_OK(pa_ssb_gpu_create_with(db, &c, &g));
        ck_assert_int_eq(pa_ssb_gpu_get_mode(g), mode);
        ck_assert_msg(strstr(pa_ssb_gpu_describe(g), "3 parts on GPUs 0,0,0"), "%s", pa_ssb_gpu_describe(g));
        engine_matches_cpu(db, g, mode == PA_SSB_GPU_STREAM ? "3 parts streaming" : "3 parts resident");
        pa_ssb_gpu_destroy(g);
    }
    pa_ssb_destroy(db);
}
END_TEST

/* A database of the query columns only streams as well; bad setups are refused, naming what. */
START_TEST(query_columns_and_bad_setups)
{
    pa_ssb_db *db = NULL;
    PA_CK_OK(pa_ssb_generate_with(0.02, 31, 0, PA_SSB_QUERY_COLUMNS, &db));
    pa_ssb_gpu_config c = {.mode = PA_SSB_GPU_STREAM, .chunk_rows = 4096, .ndevices = 2, .devices = {0, 0}};
    pa_ssb_gpu *g = NULL;
    PA_CK_OK(pa_ssb_gpu_create_with(db, &c, &g));
    engine_matches_cpu(db, g, "query columns, 2 parts streaming");
    pa_ssb_gpu_destroy(g);
    pa_ssb_gpu_config bad[] = {{.streams = 1}, {.streams = 9}, {.mode = (pa_ssb_gpu_mode)7}, {.chunk_rows = -1},
                               {.mem_limit = -5}, {.ndevices = 17}, {.ndevices = 1, .devices = {4096}}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        g = (pa_ssb_gpu *)0x1;
        ck_assert_int_eq(pa_ssb_gpu_create_with(db, &bad[i], &g), PA_ERR_RANGE);
        ck_assert_ptr_eq(g, (pa_ssb_gpu *)0x1);
    }
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "GPU 4096"));
    /* A variable that does not parse warns and is not used: resident, lineorder fitting the free memory. */
    setenv("PA_SSB_GPU_MEM", "12Q", 1);
    PA_CK_OK(pa_ssb_gpu_create(db, &g));
    ck_assert_int_eq(pa_ssb_gpu_get_mode(g), PA_SSB_GPU_RESIDENT);
    pa_ssb_gpu_destroy(g);
    unsetenv("PA_SSB_GPU_MEM");
    setenv("PA_SSB_GPU_MODE", "stream", 1);
    setenv("PA_SSB_GPU_DEVICES", "0,0", 1);
    setenv("PA_SSB_GPU_CHUNK", "3000", 1);
    setenv("PA_SSB_GPU_STREAMS", "4", 1);
    PA_CK_OK(pa_ssb_gpu_create(db, &g));
    const char *d = pa_ssb_gpu_describe(g);
    ck_assert_msg(strstr(d, "stream: 2 parts") && strstr(d, "3072 rows, 4 streams"), "%s", d);
    engine_matches_cpu(db, g, "from the environment");
    pa_ssb_gpu_destroy(g);
    unsetenv("PA_SSB_GPU_MODE");
    unsetenv("PA_SSB_GPU_DEVICES");
    unsetenv("PA_SSB_GPU_CHUNK");
    unsetenv("PA_SSB_GPU_STREAMS");
    ck_assert_int_eq(pa_ssb_gpu_get_mode(NULL), PA_SSB_GPU_AUTO);
    ck_assert_str_eq(pa_ssb_gpu_describe(NULL), "");
    pa_ssb_destroy(db);
}
END_TEST

int main(void)
{
    if (pa_test_skip_without_gpu("query_ssb_gpu"))
        return 77;
    Suite *s = suite_create("query_ssb_gpu");
    TCase *tc = tcase_create("gpu");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, pa_test_cache_setup, pa_test_cache_teardown);
    tcase_add_test(tc, select_predicates);
    tcase_add_test(tc, direct_load_and_sum);
    tcase_add_test(tc, hash_perfect);
    tcase_add_test(tc, hash_open_addressing);
    tcase_add_test(tc, group_by);
    tcase_add_test(tc, block_scan);
    tcase_add_test(tc, queries_match_the_cpu);
    tcase_add_test(tc, domain_outside_spec);
    tcase_add_test(tc, streaming_and_parts);
    tcase_add_test(tc, query_columns_and_bad_setups);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
