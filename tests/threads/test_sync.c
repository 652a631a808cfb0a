/*
 * tests/threads: pa_sync per dimension path and parallel regions.
 *
 * The barrier test is written so that it fails without the barrier: half of each group is slow to write its
 * slot, and every thread reads its whole group right after pa_sync.  A control run with the barrier left out
 * checks that the test does see the missing writes (there the slow threads write only after the fast ones have
 * read, so the control does not depend on the machine's load).  The slots are atomics, so the control run is not
 * a data race in ThreadSanitizer's sense.  No check here compares a time with a threshold: where one thread
 * must get ahead of another, it waits for the other's signal, with a generous limit that only a broken barrier
 * or region reaches.
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

/* How long a thread waits for another's signal before it concludes that the signal will not come. */
#define SIGNAL_LIMIT_S 20.0

/* Waits until *v >= want.  \return 1, or 0 when SIGNAL_LIMIT_S passed first. */
static int wait_for(atomic_int *v, int want)
{
    double t0 = now();
    while (atomic_load(v) < want)
        if (now() - t0 > SIGNAL_LIMIT_S)
            return 0;
        else
            usleep(1000);
    return 1;
}

/* pthd [4][6]: "1" groups the 6 threads of a row, "0" the 4 threads of a column, "" all 24. */
#define ROWS 4
#define COLS 6

typedef struct sync_case {
    const char *path;
    int use_barrier;
    atomic_int slot[ROWS * COLS];
    atomic_int missing;   /* group members not yet written when read after the barrier */
    atomic_int fast_read; /* fast threads that have read their group (the control run's slow threads wait) */
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
    /* Odd columns and odd rows are slow, so every kind of group has slow members.  Without the barrier they
     * write after every fast thread has read (so the control run must see missing writes); with it they cannot
     * wait for that (the fast threads wait for them in the barrier) and are only late. */
    int slow = (pa_tid_path(ctx, "1") + pa_tid_path(ctx, "0")) % 2 == 1;
    if (slow && c->use_barrier)
        usleep(30000);
    else if (slow)
        (void)wait_for(&c->fast_read, ROWS * COLS / 2);
    atomic_store_explicit(&c->slot[t], 1, memory_order_relaxed);
    if (c->use_barrier && pa_sync(ctx, c->path) != PA_OK)
        return PA_ERR_INVAL;
    for (int u = 0; u < ROWS * COLS; u++)
        if (in_group(c->path, t, u) && !atomic_load_explicit(&c->slot[u], memory_order_relaxed))
            atomic_fetch_add(&c->missing, 1);
    if (!slow)
        atomic_fetch_add(&c->fast_read, 1);
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

/* sync("1") must wait only for the thread's own row: row 0's threads hold back until every thread of row 1 has
 * passed its barrier, which only a sync("1") that does not wait for row 0 lets happen. */
typedef struct rows_case {
    atomic_int row1_passed;
    atomic_int row0_gave_up;   /* row 0's threads that waited SIGNAL_LIMIT_S for row 1 in vain */
} rows_case;

static int rows_body(pa_ctx *ctx, void *arg)
{
    rows_case *rc = *(rows_case **)arg;
    int64_t row = pa_tid_path(ctx, "0");
    if (row == 0 && !wait_for(&rc->row1_passed, 3))
        atomic_fetch_add(&rc->row0_gave_up, 1);
    int st = pa_sync(ctx, "1");
    if (row == 1)
        atomic_fetch_add(&rc->row1_passed, 1);
    return st;
}

START_TEST(sync_does_not_wait_for_other_groups)
{
    rows_case rc;
    memset(&rc, 0, sizeof rc);
    rows_case *p = &rc;
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [2][3]"), rows_body, &p, sizeof p));
    ck_assert_msg(atomic_load(&rc.row0_gave_up) == 0, "row 1 did not pass sync(\"1\") while row 0 held back");
    ck_assert_int_eq(atomic_load(&rc.row1_passed), 3);
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

/* In a region, the first array's threads hold back until the second array has started: only a pa_for that
 * returns at once inside a region lets that happen.  Outside a region the second starts after the first ended. */
typedef struct overlap {
    atomic_int second_started, first_gave_up;
    double first_end, second_start;
    int region;
} overlap;

static int first_array(pa_ctx *ctx, void *arg)
{
    overlap *o = *(overlap **)arg;
    if (o->region && !wait_for(&o->second_started, 1))
        atomic_fetch_add(&o->first_gave_up, 1);
    if (pa_tid(ctx) == 0)
        o->first_end = now();
    return PA_OK;
}

static int second_array(pa_ctx *ctx, void *arg)
{
    overlap *o = *(overlap **)arg;
    if (pa_tid(ctx) == 0) {
        o->second_start = now();
        atomic_fetch_add(&o->second_started, 1);
    }
    return PA_OK;
}

START_TEST(parallel_region_overlaps)
{
    overlap o;
    memset(&o, 0, sizeof o);
    overlap *p = &o;
    o.region = 1;
    PA_CK_OK(pa_parallel_begin());
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [3]"), first_array, &p, sizeof p));
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [2]"), second_array, &p, sizeof p));
    PA_CK_OK(pa_parallel_end());
    ck_assert_msg(atomic_load(&o.first_gave_up) == 0, "in a region the second array did not start while the first "
                  "ran: pa_for did not return at once");
    /* Outside a region the same two arrays run one after the other (pa_for returns when its array is done). */
    memset(&o, 0, sizeof o);
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [3]"), first_array, &p, sizeof p));
    PA_CK_OK(pa_for(pa_type_parse(scope, "pthd [2]"), second_array, &p, sizeof p));
    ck_assert_msg(o.second_start >= o.first_end, "arrays outside a region overlapped");
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
