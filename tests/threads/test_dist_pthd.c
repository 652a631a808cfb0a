/*
 * Arrays distributed over pthd threads (manual listing 41): every thread of a pthd array copies its own part
 * between a shared array and its own local array, or between two local arrays distributed alike; between two
 * distributed differently every thread takes part in the all-to-all (section 1.4); calls outside the thread
 * array, a missing source array and too small arrays are errors.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

static pa_scope *scope;
static int *shared, *back;

static void setup(void)
{
    PA_CK_OK(pa_scope_create(NULL, &scope));
    PA_CK_OK(pa_declare_text(scope,
        "P4 = pthd [4]\n"
        "HM = paged int [8][4]\n"
        "L8 = paged int [8]\n"
        "ROWS = [#P4][#L8]\n"             /* thread t: 8 consecutive elements (row t of a [4][8] view) */
        "COLS = [#L8][#P4]\n"             /* thread t: column t of HM */
        "COLS2 = [[#L8]][#P4]\n"));
    shared = malloc(32 * sizeof *shared);
    back = malloc(32 * sizeof *back);
    for (int i = 0; i < 32; i++)
        shared[i] = 100 + i, back[i] = -1;
}

static void teardown(void)
{
    free(shared);
    free(back);
    pa_scope_destroy(scope);
}

static int columns(pa_ctx *ctx, void *arg)
{
    int local[8], other[8], t = (int)pa_tid(ctx), st;
    (void)arg;
    memset(local, 0xff, sizeof local);
    st = pa_copy(pa_type_get(scope, "COLS"), local, pa_type_get(scope, "HM"), shared);
    for (int i = 0; st == PA_OK && i < 8; i++)
        if (local[i] != shared[4 * i + t])
            st = pa__err(PA_ERR_INVAL, "thread %d: local[%d] = %d, expected %d", t, i, local[i], shared[4 * i + t]);
    if (st == PA_OK)   /* between two arrays distributed alike: each thread copies between its own two */
        st = pa_copy(pa_type_get(scope, "COLS2"), other, pa_type_get(scope, "COLS"), local);
    for (int i = 0; st == PA_OK && i < 8; i++)
        local[i] = -other[i];
    if (st == PA_OK)   /* and back into a shared array: every thread writes its own column */
        st = pa_copy(pa_type_get(scope, "HM"), back, pa_type_get(scope, "COLS"), local);
    return st;
}

START_TEST(test_columns_and_back)
{
    for (int round = 0; round < 3; round++) {   /* later rounds run the threads' cached plans */
        for (int i = 0; i < 32; i++)
            shared[i] = 100 * round + i, back[i] = -1;
        PA_CK_OK(pa_for(pa_type_get(scope, "P4"), columns, NULL, 0));
        for (int i = 0; i < 32; i++)
            ck_assert_int_eq(back[i], -shared[i]);
    }
}
END_TEST

static int rowsof[4][8], colsof[4][8];

/* Section 1.4: the all-to-all between threads.  Thread t holds column t of HM (COLS) and receives row t of the
 * [4][8] view (ROWS): every thread's array feeds every other's. */
static int cross(pa_ctx *ctx, void *arg)
{
    int t = (int)pa_tid(ctx), st;
    (void)arg;
    st = pa_copy(pa_type_get(scope, "COLS"), colsof[t], pa_type_get(scope, "HM"), shared);
    if (st == PA_OK)
        st = pa_copy(pa_type_get(scope, "ROWS"), rowsof[t], pa_type_get(scope, "COLS"), colsof[t]);
    for (int i = 0; st == PA_OK && i < 8; i++)   /* and back, changed, the other way */
        rowsof[t][i] += 1000;
    if (st == PA_OK)
        st = pa_copy(pa_type_get(scope, "COLS"), colsof[t], pa_type_get(scope, "ROWS"), rowsof[t]);
    if (st == PA_OK)
        st = pa_copy(pa_type_get(scope, "HM"), back, pa_type_get(scope, "COLS"), colsof[t]);
    return st;
}

START_TEST(test_all_to_all)
{
    for (int round = 0; round < 3; round++) {   /* later rounds run the threads' cached plans */
        memset(rowsof, 0xff, sizeof rowsof);
        for (int i = 0; i < 32; i++)
            shared[i] = 7 * round + i, back[i] = -1;
        PA_CK_OK(pa_for(pa_type_get(scope, "P4"), cross, NULL, 0));
        for (int t = 0; t < 4; t++)
            for (int j = 0; j < 8; j++)
                ck_assert_int_eq(rowsof[t][j], shared[8 * t + j] + 1000);
        for (int i = 0; i < 32; i++)
            ck_assert_int_eq(back[i], shared[i] + 1000);
    }
    char how[512];
    PA_CK_ERR(pa_copy_explain(pa_type_get(scope, "ROWS"), pa_type_get(scope, "COLS"), how, sizeof how),
              PA_ERR_UNSUPPORTED);   /* outside the thread array */
}
END_TEST

static int one_missing(pa_ctx *ctx, void *arg)
{
    int t = (int)pa_tid(ctx);
    (void)arg;
    /* thread 2 has no source array: the threads that need it say so, and nobody is left waiting */
    return pa_copy(pa_type_get(scope, "ROWS"), rowsof[t], pa_type_get(scope, "COLS"), t == 2 ? NULL : colsof[t]);
}

static int rows(pa_ctx *ctx, void *arg)
{
    int a[8];
    (void)ctx;
    (void)arg;
    return pa_copy(pa_type_get(scope, "ROWS"), a, pa_type_get(scope, "HM"), shared);
}

START_TEST(test_errors)
{
    int a[8];
    /* Outside the thread array, between threads, and with fewer threads than the distribution needs. */
    PA_CK_ERR(pa_copy(pa_type_get(scope, "ROWS"), a, pa_type_get(scope, "HM"), shared), PA_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "pa_for"));
    PA_CK_ERR(pa_for(pa_type_get(scope, "P4"), one_missing, NULL, 0), PA_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "from thread 2"));
    PA_CK_ERR(pa_for(pa_type_parse(scope, "pthd [2]"), rows, NULL, 0), PA_ERR_RANGE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dist_pthd");
    TCase *tc = tcase_create("dist_pthd");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_columns_and_back);
    tcase_add_test(tc, test_all_to_all);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
