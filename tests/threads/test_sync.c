/*
 * tests/threads: pa_sync per dimension path and parallel regions.
 *
 * The barrier test is written so that it fails without the barrier: half of each group is slow to write its
 * slot, and every thread reads its whole group right after pa_sync.  A control run with the barrier left out
 * checks that the test does see the missing writes.  The slots are atomics, so the control run is not a data
 * race in ThreadSanitizer's sense.
 */
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
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

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* pthd [4][6]: "1" groups the 6 threads of a row, "0" the 4 threads of a column, "" all 24. */
#define ROWS 4
#define COLS 6

typedef struct sync_case {
    const char *path;
    int use_barrier;
    atomic_int slot[ROWS * COLS];
    atomic_int missing;   /* group members not yet written when read after the barrier */
} sync_case;

static int in_group(const char *path, int a, int b)
{
    if (strcmp(path, "1") == 0)
        return a / COLS == b / COLS;
    if (strcmp(path, "0") == 0)
        return a % COLS == b % COLS;
    return 1;
}

static int sync_body(pa_ctx *ctx, void *arg)
{
    sync_case *c = *(sync_case **)arg;
    int t = (int)pa_tid(ctx);
    /* Odd columns and odd rows are slow, so every kind of group has slow members. */
    if ((pa_tid_path(ctx, "1") + pa_tid_path(ctx, "0")) % 2 == 1)
        usleep(30000);
    atomic_store_explicit(&c->slot[t], 1, memory_order_relaxed);
    if (c->use_barrier && pa_sync(ctx, c->path) != PA_OK)
        return PA_ERR_INVAL;
    for (int u = 0; u < ROWS * COLS; u++)
        if (in_group(c->path, t, u) && !atomic_load_explicit(&c->slot[u], memory_order_relaxed))
            atomic_fetch_add(&c->missing, 1);
    return PA_OK;
}

static int run_sync_case(const char *path, int use_barrier)
{
    static sync_case c;
    memset(&c, 0, sizeof c);
    c.path = path;
    c.use_barrier = use_barrier;
    sync_case *cp = &c;
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [4][6]"), sync_body, &cp, sizeof cp));
    return atomic_load(&c.missing);
}

START_TEST(sync_groups_per_path)
{
    const char *paths[] = {"", "0", "1"};
    for (int i = 0; i < 3; i++) {
        ck_assert_msg(run_sync_case(paths[i], 0) > 0, "the control run without sync(\"%s\") saw every write: "
                      "the test cannot detect a missing barrier", paths[i]);
        ck_assert_msg(run_sync_case(paths[i], 1) == 0, "sync(\"%s\") let a thread read before its group wrote",
                      paths[i]);
    }
}
END_TEST

/* sync("1") must wait only for the thread's own row: row 0 is slow, row 1 must pass its barrier early. */
typedef struct row_times {
    double row0_write, row1_passed;
} row_times;

static int rows_body(pa_ctx *ctx, void *arg)
{
    row_times *rt = *(row_times **)arg;
    int64_t row = pa_tid_path(ctx, "0");
    if (row == 0) {
        usleep(200000);
        if (pa_tid_path(ctx, "1") == 0)
            rt->row0_write = now();
    }
    int st = pa_sync(ctx, "1");
    if (row == 1 && pa_tid_path(ctx, "1") == 0)
        rt->row1_passed = now();
    return st;
}

START_TEST(sync_does_not_wait_for_other_groups)
{
    row_times rt = {0, 0};
    row_times *p = &rt;
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [2][3]"), rows_body, &p, sizeof p));
    ck_assert_msg(rt.row1_passed < rt.row0_write - 0.1, "row 1 passed sync_1 at %.3f, row 0 wrote at %.3f",
                  rt.row1_passed, rt.row0_write);
}
END_TEST

/* Listing 30: thread 0 syncs, then prints; thread 1 sleeps, prints, then syncs: "ends" comes first. */
static atomic_int order_pos;
static int order[2];

static int listing30(pa_ctx *ctx, void *arg)
{
    if (pa_tid(ctx) == 0) {
        pa_sync(ctx, "");
        order[atomic_fetch_add(&order_pos, 1)] = 0;
    } else {
        usleep(50000);
        order[atomic_fetch_add(&order_pos, 1)] = 1;
        pa_sync(ctx, "");
    }
    return PA_OK;
}

START_TEST(sync_listing30_order)
{
    atomic_store(&order_pos, 0);
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [2]"), listing30, NULL, 0));
    ck_assert_int_eq(order[0], 1);
    ck_assert_int_eq(order[1], 0);
}
END_TEST

/* Repeated barriers: every round every thread sees the whole array's previous round. */
static int rounds_body(pa_ctx *ctx, void *arg)
{
    atomic_int *counter = *(atomic_int **)arg;
    int64_t n = pa_ctx_size(ctx);
    for (int r = 1; r <= 50; r++) {
        atomic_fetch_add(counter, 1);
        PA_CK_OK(pa_sync(ctx, ""));
        ck_assert_int_ge(atomic_load(counter), r * n);
        PA_CK_OK(pa_sync(ctx, ""));
    }
    return PA_OK;
}

START_TEST(sync_many_rounds)
{
    atomic_int counter = 0;
    atomic_int *p = &counter;
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [5]"), rounds_body, &p, sizeof p));
    ck_assert_int_eq(atomic_load(&counter), 250);
}
END_TEST

/* ---- parallel regions ---------------------------------------------------------------------------------- */

typedef struct span {
    double start, end;
} span;

static int sleeper(pa_ctx *ctx, void *arg)
{
    span *s = *(span **)arg;
    double t0 = now();
    usleep(100000);
    if (pa_tid(ctx) == 0) {
        s->start = t0;
        s->end = now();
    }
    return PA_OK;
}

START_TEST(parallel_region_overlaps)
{
    span a = {0, 0}, b = {0, 0};
    span *pa = &a, *pb = &b;
    double t0 = now();
    PA_CK_OK(pa_parallel_begin());
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [3]"), sleeper, &pa, sizeof pa));
    double returned = now();
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [2]"), sleeper, &pb, sizeof pb));
    PA_CK_OK(pa_parallel_end());
    double total = now() - t0;
    ck_assert_msg(returned - t0 < 0.05, "pa_for in a region took %.3f s to return", returned - t0);
    ck_assert_msg(b.start < a.end && a.start < b.end, "the arrays did not overlap: [%.3f, %.3f] and [%.3f, %.3f]",
                  a.start - t0, a.end - t0, b.start - t0, b.end - t0);
    ck_assert_msg(total < 0.19, "the region took %.3f s; two 0.1 s arrays in sequence take 0.2 s", total);
    /* Outside a region the same two arrays run one after the other. */
    t0 = now();
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [3]"), sleeper, &pa, sizeof pa));
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [2]"), sleeper, &pb, sizeof pb));
    ck_assert_msg(b.start >= a.end, "arrays outside a region overlapped");
}
END_TEST

static int fail_late(pa_ctx *ctx, void *arg)
{
    usleep(20000);
    return *(int *)arg;
}

START_TEST(parallel_region_errors)
{
    int ok = PA_OK, bad = PA_ERR_SIZE, worse = PA_ERR_RANGE;
    PA_CK_OK(pa_parallel_begin());
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [2]"), fail_late, &ok, sizeof ok));
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [2]"), fail_late, &bad, sizeof bad));
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [2]"), fail_late, &worse, sizeof worse));
    /* A bad launch inside a region fails at once and does not disturb the others. */
    PA_CK_ERR(pa_for(pa_type_parse(scope, "paged int [2]"), fail_late, &ok, sizeof ok), PA_ERR_MTT);
    PA_CK_ERR(pa_parallel_end(), PA_ERR_SIZE);
    PA_CK_ERR(pa_parallel_end(), PA_ERR_INVAL);
}
END_TEST

static int leaves_region_open(pa_ctx *ctx, void *arg)
{
    return pa_parallel_begin();
}

START_TEST(region_left_open_by_a_thread)
{
    PA_CK_ERR(pa_for(pa_type_parse(scope, "pthd [2]"), leaves_region_open, NULL, 0), PA_ERR_INVAL);
    ck_assert_msg(strstr(pa_last_error(), "parallel region") != NULL, "%s", pa_last_error());
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads_sync");
    TCase *tc = tcase_create("sync");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, sync_groups_per_path);
    tcase_add_test(tc, sync_does_not_wait_for_other_groups);
    tcase_add_test(tc, sync_listing30_order);
    tcase_add_test(tc, sync_many_rounds);
    tcase_add_test(tc, parallel_region_overlaps);
    tcase_add_test(tc, parallel_region_errors);
    tcase_add_test(tc, region_left_open_by_a_thread);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
