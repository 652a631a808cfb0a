/*
 * tests/threads: pa_for over pthd types — tid arithmetic for 1-, 2- and 3-level thread types, the as clause
 * (private argument copies), self/size/parent, nested arrays, errors from callbacks, bad input, and the pool
 * persisting between launches.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include <parray/mpi.h>
#include "thread_internal.h"

static pa_scope *scope;

static void setup(void)
{
    ck_assert_int_eq(pa_scope_create(NULL, &scope), PA_OK);
}

static void teardown(void)
{
    pa_scope_destroy(scope);
}

/* ---- tid arithmetic ------------------------------------------------------------------------------------ */

#define MAXT 64
#define MAXP 6

typedef struct tid_rec {
    const char *paths[MAXP];
    int npaths;
    int64_t got[MAXT][MAXP];
    int64_t size[MAXT];
    const pa_type *self[MAXT];
    atomic_int calls;
} tid_rec;

static int record_tids(pa_ctx *ctx, void *arg)
{
    tid_rec *r = *(tid_rec **)arg;
    int64_t t = pa_tid(ctx);
    for (int p = 0; p < r->npaths; p++)
        r->got[t][p] = pa_tid_path(ctx, r->paths[p]);
    r->size[t] = pa_ctx_size(ctx);
    r->self[t] = pa_self(ctx);
    atomic_fetch_add(&r->calls, 1);
    return PA_OK;
}

/* Runs decl and checks every thread's ids against expect(tid, path index). */
static void check_tids(const char *decl, int64_t n, const char **paths, int npaths,
                       int64_t (*expect)(int64_t tid, int p))
{
    static tid_rec r;
    memset(&r, 0, sizeof r);
    memcpy(r.paths, paths, (size_t)npaths * sizeof *paths);
    r.npaths = npaths;
    const pa_type *t = pa_type_parse(scope, decl);
    ck_assert_msg(t != NULL, "%s: %s", decl, pa_last_error());
    tid_rec *rp = &r;
    PA_CK_OK(pa_for(t, record_tids, &rp, sizeof rp));
    ck_assert_int_eq(atomic_load(&r.calls), n);
    for (int64_t i = 0; i < n; i++) {
        ck_assert_int_eq(r.size[i], n);
        ck_assert_ptr_eq(r.self[i], t);
        for (int p = 0; p < npaths; p++)
            ck_assert_msg(r.got[i][p] == expect(i, p), "%s: thread %lld, tid_path(\"%s\") = %lld, expected %lld",
                          decl, (long long)i, paths[p], (long long)r.got[i][p], (long long)expect(i, p));
    }
}

static int64_t want1(int64_t t, int p)
{
    return t;
}

static int64_t want2(int64_t t, int p)
{
    return p == 0 ? t : p == 1 ? t / 4 : t % 4;
}

static int64_t want3(int64_t t, int p)
{
    /* pthd [[2][3]][4]: "0" (size 6) = t / 4, "0_0" = t / 12, "0_1" = (t / 4) % 3, "1" = t % 4 */
    switch (p) {
    case 0: return t;
    case 1: return t / 4;
    case 2: return t / 12;
    case 3: return (t / 4) % 3;
    default: return t % 4;
    }
}

static int64_t want3s(int64_t t, int p)
{
    return p == 0 ? t / 12 : p == 1 ? (t / 4) % 3 : t % 4;
}

START_TEST(tid_one_level)
{
    const char *paths[] = {""};
    check_tids("pthd [7]", 7, paths, 1, want1);
}
END_TEST

START_TEST(tid_two_levels)
{
    const char *paths[] = {"", "0", "1"};
    check_tids("pthd [3][4]", 12, paths, 3, want2);
}
END_TEST

START_TEST(tid_three_levels)
{
    const char *paths[] = {"", "0", "0_0", "0_1", "1"};
    check_tids("pthd [[2][3]][4]", 24, paths, 5, want3);
    const char *paths3[] = {"0", "1", "2"};
    check_tids("pthd [2][3][4]", 24, paths3, 3, want3s);
}
END_TEST

/* The manual's listing 29: a declared PTHD = pthd [3][4]; thread 5 has tid_0 = 1. */
static int listing29(pa_ctx *ctx, void *arg)
{
    int i = *(int *)arg;
    if (pa_tid(ctx) == i) {
        *(int *)arg = -1;   /* a private copy: the caller's i is not touched */
        ck_assert_int_eq(pa_tid_path(ctx, "0"), 1);
        ck_assert_int_eq(pa_tid_path(ctx, "1"), 1);
    }
    return PA_OK;
}

START_TEST(declared_type_and_private_arg)
{
    PA_CK_OK(pa_declare(scope, "PTHD", "pthd [3][4]"));
    int i = 5;
    PA_CK_OK(pa_for(pa_type_get(scope, "PTHD"), listing29, &i, sizeof i));
    ck_assert_int_eq(i, 5);
    /* A dimension of a thread type is a thread type too: PTHD_1 is an array of 4. */
    check_tids("pthd [4]", 4, (const char *[]){""}, 1, want1);
    ck_assert_int_eq(pa_tid(NULL), 0);
    ck_assert_int_eq(pa_ctx_size(NULL), 1);
}
END_TEST

/* ---- nesting ------------------------------------------------------------------------------------------- */

static atomic_int nested_seen[2][3][4];

static int nested_inner(pa_ctx *ctx, void *arg)
{
    const pa_ctx *mid = pa_ctx_parent(ctx);
    const pa_ctx *top = pa_ctx_parent(mid);
    ck_assert_ptr_nonnull(mid);
    ck_assert_ptr_nonnull(top);
    ck_assert_ptr_null(pa_ctx_parent(top));
    ck_assert_int_eq(*(int *)arg, (int)(pa_tid(top) * 10 + pa_tid(mid)));
    /* A barrier inside a nested array involves only that array's threads. */
    PA_CK_OK(pa_sync(ctx, ""));
    atomic_fetch_add(&nested_seen[pa_tid(top)][pa_tid(mid)][pa_tid(ctx)], 1);
    return PA_OK;
}

static int nested_mid(pa_ctx *ctx, void *arg)
{
    int code = (int)(pa_tid(pa_ctx_parent(ctx)) * 10 + pa_tid(ctx));
    return pa_for(pa_type_parse(scope, "pthd [4]"), nested_inner, &code, sizeof code);
}

static int nested_top(pa_ctx *ctx, void *arg)
{
    return pa_for(pa_type_parse(scope, "pthd [3]"), nested_mid, NULL, 0);
}

START_TEST(nested_three_levels)
{
    memset(nested_seen, 0, sizeof nested_seen);
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [2]"), nested_top, NULL, 0));
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++)
            for (int c = 0; c < 4; c++)
                ck_assert_int_eq(atomic_load(&nested_seen[a][b][c]), 1);
}
END_TEST

/* ---- errors from threads ------------------------------------------------------------------------------- */

static atomic_int finished;

static int failing(pa_ctx *ctx, void *arg)
{
    int64_t t = pa_tid(ctx);
    if (t == 3) {
        /* A real failing call sets this thread's message, which must reach the caller. */
        ck_assert_ptr_null(pa_type_get(scope, "NO_SUCH_TYPE"));
        atomic_fetch_add(&finished, 1);
        return PA_ERR_NAME;
    }
    if (t == 5) {
        usleep(50000);   /* fails later: the first error must win */
        atomic_fetch_add(&finished, 1);
        return PA_ERR_RANGE;
    }
    usleep(20000);
    atomic_fetch_add(&finished, 1);
    return PA_OK;
}

START_TEST(first_error_wins_all_joined)
{
    atomic_store(&finished, 0);
    PA_CK_ERR(pa_for(pa_type_parse(scope, "pthd [8]"), failing, NULL, 0), PA_ERR_NAME);
    ck_assert_int_eq(atomic_load(&finished), 8);
    ck_assert_msg(strstr(pa_last_error(), "NO_SUCH_TYPE") && strstr(pa_last_error(), "thread 3"), "%s",
                  pa_last_error());
}
END_TEST

/* ---- bad input ----------------------------------------------------------------------------------------- */

static int nop(pa_ctx *ctx, void *arg)
{
    return PA_OK;
}

START_TEST(bad_input)
{
    /* a thread type of no threads is a type (empty), but nothing can run over it */
    PA_CK_ERR(pa_for(pa_type_parse(scope, "pthd [0]"), nop, NULL, 0), PA_ERR_RANGE);
    ck_assert_msg(strstr(pa_last_error(), "0 threads") != NULL, "%s", pa_last_error());
    PA_CK_ERR(pa_for(pa_type_parse(scope, "pthd [5000]"), nop, NULL, 0), PA_ERR_RANGE);
    ck_assert_msg(strstr(pa_last_error(), "5000") != NULL, "%s", pa_last_error());
    PA_CK_ERR(pa_for(pa_type_parse(scope, "pthd [100000][100000]"), nop, NULL, 0), PA_ERR_RANGE);
    PA_CK_ERR(pa_for(NULL, nop, NULL, 0), PA_ERR_INVAL);
    PA_CK_ERR(pa_for(pa_type_parse(scope, "pthd [2]"), NULL, NULL, 0), PA_ERR_INVAL);
    PA_CK_ERR(pa_for(pa_type_parse(scope, "pthd [2]"), nop, NULL, 4), PA_ERR_INVAL);
    PA_CK_ERR(pa_for(pa_type_parse(scope, "paged int [4]"), nop, NULL, 0), PA_ERR_MTT);
    ck_assert_msg(strstr(pa_last_error(), "pa_map") != NULL, "%s", pa_last_error());
    PA_CK_ERR(pa_for(pa_type_parse(scope, "int [4]"), nop, NULL, 0), PA_ERR_MTT);
    PA_CK_ERR(pa_for(pa_type_parse(scope, "cuda [4]"), nop, NULL, 0), PA_ERR_MTT);
    ck_assert_msg(strstr(pa_last_error(), "pa_cuda_for") != NULL, "%s", pa_last_error());
    /* mpi arrays: the MPI backend's (4 processes and no mpirun: a clear error), or none in this build. */
    PA_CK_ERR(pa_for(pa_type_parse(scope, "mpi [4]"), nop, NULL, 0), pa_mpi_available() ? PA_ERR_RANGE
                                                                                       : PA_ERR_NODEV);
    PA_CK_ERR(pa_parallel_end(), PA_ERR_INVAL);
    PA_CK_ERR(pa_tid_path(NULL, "0") == -1 ? PA_ERR_INVAL : PA_OK, PA_ERR_INVAL);
}
END_TEST

static int bad_paths(pa_ctx *ctx, void *arg)
{
    pa_error_clear();
    ck_assert_int_eq(pa_tid_path(ctx, "2"), -1);
    ck_assert_msg(strstr(pa_last_error(), "no dimension") != NULL, "%s", pa_last_error());
    ck_assert_int_eq(pa_sync(ctx, "0_0"), PA_ERR_DIM);
    ck_assert_int_eq(pa_sync(ctx, "7"), PA_ERR_DIM);
    return pa_sync(ctx, "x");
}

START_TEST(sync_on_missing_dimension)
{
    PA_CK_ERR(pa_for(pa_type_parse(scope, "pthd [2][3]"), bad_paths, NULL, 0), PA_ERR_DIM);
    ck_assert_msg(strstr(pa_last_error(), "\"x\"") != NULL, "%s", pa_last_error());
}
END_TEST

/* ---- the pool ------------------------------------------------------------------------------------------ */

START_TEST(pool_persists)
{
    /* An array of 8 runs thread 0 on the caller and needs at most 7 idle workers at once (fewer when a worker
     * is back before the next thread is handed out); 200 launches must not make more than that. */
    const pa_type *t = pa_type_parse(scope, "pthd [8]");
    int start = pa__pool_size();
    for (int i = 0; i < 200; i++)
        PA_CK_OK(pa_for(t, nop, NULL, 0));
    ck_assert_int_ge(pa__pool_size(), 1);
    ck_assert_int_le(pa__pool_size(), start + 7);
}
END_TEST

START_TEST(pool_keeps_its_team)
{
    /* Launches of 8, 4 and 8 threads, back to back: each joiner returns its team before pa_for returns, so the
     * widest array's 7 workers serve every later launch and the pool does not grow past them. */
    const pa_type *t8 = pa_type_parse(scope, "pthd [8]"), *t4 = pa_type_parse(scope, "pthd [4]");
    PA_CK_OK(pa_for(t8, nop, NULL, 0));
    int after_first = pa__pool_size();
    for (int i = 0; i < 100; i++) {
        PA_CK_OK(pa_for(t4, nop, NULL, 0));
        PA_CK_OK(pa_for(t8, nop, NULL, 0));
    }
    ck_assert_int_eq(pa__pool_size(), after_first);
}
END_TEST

START_TEST(process_cpus_follows_the_share)
{
    /* pa__process_cpus is cached (the pool's polling threads ask for it); a change of the node's share must show
     * at once.  Run as the suite threads_for_share, which main skips (77) where it cannot check that. */
    pa_host_share_info sh;
    PA_CK_OK(pa_host_share(&sh));
    int before = pa__process_cpus();
    ck_assert_int_eq(before, sh.cpus);
    pa__node_share_set(0, 2);
    ck_assert_int_eq(pa__process_cpus(), sh.allowed_cpus / 2);
    pa__node_share_set(0, 1);
    ck_assert_int_eq(pa__process_cpus(), before);
}
END_TEST

/* Why the node's share cannot be changed here (the environment fixes it, a launcher bound the process, other
 * ranks share the node, or fewer than two CPUs are allowed), or NULL. */
static const char *share_fixed(void)
{
    pa_host_share_info sh;
    if (pa_host_share(&sh) != PA_OK)
        return pa_last_error();
    return getenv("PA_NODE_RANKS") != NULL ? "PA_NODE_RANKS fixes the node's share"
         : sh.bound_by_launcher           ? "a launcher bound the process"
         : sh.local_ranks != 1            ? "other ranks share this node"
         : sh.allowed_cpus < 2            ? "fewer than two CPUs are allowed"
                                          : NULL;
}

/* As threads_for, or with the argument "share" as threads_for_share: the share test alone, skipped (77) where
 * the share cannot be changed. */
int main(int argc, char **argv)
{
    int share = argc > 1 && strcmp(argv[1], "share") == 0;
    const char *why = share ? share_fixed() : NULL;
    if (why) {
        printf("threads_for_share: skipped: %s\n", why);
        return 77;
    }
    Suite *s = suite_create(share ? "threads_for_share" : "threads_for");
    TCase *tc = tcase_create("for");
    tcase_add_checked_fixture(tc, setup, teardown);
    if (share) {
        tcase_add_test(tc, process_cpus_follows_the_share);
        suite_add_tcase(s, tc);
        return pa_test_run(s);
    }
    tcase_add_test(tc, tid_one_level);
    tcase_add_test(tc, tid_two_levels);
    tcase_add_test(tc, tid_three_levels);
    tcase_add_test(tc, declared_type_and_private_arg);
    tcase_add_test(tc, nested_three_levels);
    tcase_add_test(tc, first_error_wins_all_joined);
    tcase_add_test(tc, bad_input);
    tcase_add_test(tc, sync_on_missing_dimension);
    tcase_add_test(tc, pool_persists);
    tcase_add_test(tc, pool_keeps_its_team);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
